// A least-recently-used map of encoded answers bounded by their total size, for answers that never change once made
// (the detail of a completed investigation): a hit skips the read, the decode and the serialisation, and the bytes
// go to the socket as they are (a string would be measured and encoded to UTF-8 again on every send).
export class ByteLru {
  private readonly entries = new Map<string, Buffer>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get(key: string): Buffer | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    // Map keeps insertion order: re-inserting makes this the most recently used.
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  /** Keeps `value` unless it alone is over the bound; evicts the least recently used until the total fits. */
  set(key: string, value: Buffer): void {
    const old = this.entries.get(key);
    if (old !== undefined) {
      this.entries.delete(key);
      this.bytes -= old.byteLength;
    }
    if (value.byteLength > this.maxBytes) return;
    this.entries.set(key, value);
    this.bytes += value.byteLength;
    for (const [k, v] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(k);
      this.bytes -= v.byteLength;
    }
  }

  /**
   * `text` as UTF-8 bytes of their own: a small Buffer.from() is a slice of a shared 8 KiB slab, which a kept entry
   * would hold whole, unseen by the bound.
   */
  static encode(text: string): Buffer {
    const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text, "utf8"));
    bytes.write(text, "utf8");
    return bytes;
  }

  get size(): number {
    return this.entries.size;
  }

  get totalBytes(): number {
    return this.bytes;
  }
}
