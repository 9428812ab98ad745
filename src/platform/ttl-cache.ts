/** A small bounded cache whose entries expire; concurrent loads of one key share one promise. */
export class TtlCache<K, V> {
  private readonly entries = new Map<K, { at: number; value: Promise<V> }>();

  constructor(
    private readonly ttlMs: number,
    private readonly max: number,
  ) {}

  getOrLoad(key: K, load: () => Promise<V>): Promise<V> {
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && now - hit.at < this.ttlMs) return hit.value;
    const value = load();
    value.catch(() => this.entries.delete(key));
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value as K);
    this.entries.set(key, { at: now, value });
    return value;
  }

  delete(key: K): void {
    this.entries.delete(key);
  }
}
