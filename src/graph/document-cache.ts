import type { DocumentNode } from 'graphql';

/**
 * A least-recently-used store of parsed documents bounded both in entries and in bytes (a
 * document's size is its JSON's), with the interface Apollo's `documentStore` takes.
 */
export class ByteBoundedCache {
  private readonly entries = new Map<string, { value: DocumentNode; bytes: number }>();
  private bytes = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxBytes: number,
  ) {}

  async get(key: string): Promise<DocumentNode | undefined> {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    this.entries.delete(key); // re-insert: the Map's order is the recency order
    this.entries.set(key, hit);
    return hit.value;
  }

  async set(key: string, value: DocumentNode): Promise<void> {
    const bytes = Buffer.byteLength(JSON.stringify(value));
    if (bytes > this.maxBytes) return;
    await this.delete(key);
    this.entries.set(key, { value, bytes });
    this.bytes += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= entry.bytes;
    }
  }

  async delete(key: string): Promise<boolean> {
    const hit = this.entries.get(key);
    if (!hit) return false;
    this.entries.delete(key);
    this.bytes -= hit.bytes;
    return true;
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }
}
