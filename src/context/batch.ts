/**
 * A per-request batching loader (DataLoader's idea, without the dependency): every `load` made
 * while one level of a result is being resolved is answered by one call of the batch function,
 * e.g. one grouped SQL query for a whole page. Loaders live as long as the request's
 * EntityManager, which is forked per request.
 */
export type BatchFn<K, V> = (keys: readonly K[]) => Promise<Map<K, V>>;

export class Loader<K, V> {
  private readonly cache = new Map<K, Promise<V | undefined>>();
  private queue: { key: K; resolve: (v: V | undefined) => void; reject: (e: unknown) => void }[] = [];

  constructor(private readonly batch: BatchFn<K, V>) {}

  load(key: K): Promise<V | undefined> {
    const cached = this.cache.get(key);
    if (cached) return cached;
    const promise = new Promise<V | undefined>((resolve, reject) => {
      if (this.queue.length === 0) {
        // After the current synchronous pass and its promise jobs: all siblings have asked by then.
        void Promise.resolve().then(() => process.nextTick(() => void this.dispatch()));
      }
      this.queue.push({ key, resolve, reject });
    });
    this.cache.set(key, promise);
    return promise;
  }

  private async dispatch(): Promise<void> {
    const queue = this.queue;
    this.queue = [];
    try {
      const found = await this.batch(queue.map((q) => q.key));
      for (const q of queue) q.resolve(found.get(q.key));
    } catch (err) {
      for (const q of queue) {
        this.cache.delete(q.key);
        q.reject(err);
      }
    }
  }
}

/**
 * The loaders of one request hang off its EntityManager itself. They were first kept in a
 * module-level WeakMap keyed by it, and V8's young-generation collections then kept every
 * request's EntityManager alive (the loaders' batch functions reach it): each one was promoted to
 * the old generation and died there, which cost a full collection every second under load
 * (`node dist/bench/gc.js`: 880 → 117 KB promoted per scavenge on one conversation by id).
 */
const LOADERS = Symbol('loaders');
type LoaderScope = { [LOADERS]?: Map<string, Loader<unknown, unknown>> };

/** The loader named `name` of one request (`scope`: the request's EntityManager). */
export function loaderFor<K, V>(scope: object, name: string, batch: BatchFn<K, V>): Loader<K, V> {
  const byName = ((scope as LoaderScope)[LOADERS] ??= new Map());
  let loader = byName.get(name) as Loader<K, V> | undefined;
  if (!loader) byName.set(name, (loader = new Loader(batch)));
  return loader;
}
