// A least-recently-used map of strings bounded by their total size, for answers that never change once made
// (the detail of a completed investigation): a hit skips the read, the decode and the serialisation.
export class ByteLru {
  private readonly entries = new Map<string, string>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get(key: string): string | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    // Map keeps insertion order: re-inserting makes this the most recently used.
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  /** Keeps `value` unless it alone is over the bound; evicts the least recently used until the total fits. */
  set(key: string, value: string): void {
    const size = ByteLru.sizeOf(value);
    const old = this.entries.get(key);
    if (old !== undefined) {
      this.entries.delete(key);
      this.bytes -= ByteLru.sizeOf(old);
    }
    if (size > this.maxBytes) return;
    this.entries.set(key, value);
    this.bytes += size;
    for (const [k, v] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(k);
      this.bytes -= ByteLru.sizeOf(v);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  get totalBytes(): number {
    return this.bytes;
  }

  /** What a string costs here: two bytes a character, as V8 may hold it (a bound, not an exact figure). */
  private static sizeOf(value: string): number {
    return value.length * 2;
  }
}
