// A least-recently-used map bounded by the total weight of what it holds: by default each entry weighs 1 (a bound on
// entries); ByteLru weighs each by its bytes. A Map keeps insertion order, so a read puts its entry last and the first
// key is always the least recently used.
export class Lru<K, V> {
  private readonly entries = new Map<K, V>();
  private total = 0;

  constructor(
    private readonly max: number,
    private readonly weigh: (value: V) => number = () => 1,
  ) {}

  /** The value, now the most recently used; undefined when not kept. */
  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  /**
   * Keeps `value` as the most recently used, unless it alone weighs more than the bound; drops the least recently
   * used until the total fits.
   */
  set(key: K, value: V): void {
    this.delete(key);
    const weight = this.weigh(value);
    if (weight > this.max) return;
    this.entries.set(key, value);
    this.total += weight;
    for (const [oldest, kept] of this.entries) {
      if (this.total <= this.max) break;
      this.entries.delete(oldest);
      this.total -= this.weigh(kept);
    }
  }

  delete(key: K): boolean {
    const old = this.entries.get(key);
    if (old === undefined) return false;
    this.entries.delete(key);
    this.total -= this.weigh(old);
    return true;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The total weight held (entries, or bytes for ByteLru). */
  get weight(): number {
    return this.total;
  }
}
