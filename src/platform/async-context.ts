import { AsyncLocalStorage } from 'node:async_hooks';

let installed = false;
const running = new WeakMap<AsyncLocalStorage<unknown>, number>();

/**
 * On Node 20 the first `run` of any AsyncLocalStorage installs a promise hook that stays for the
 * life of the process: from then on every promise, anywhere, costs about three times as much.
 * MikroORM runs three storages of its own: `em.transactional` (TransactionContext), every
 * `em.flush()` (UnitOfWork's insideFlush) and `findAndCount` (RawQueryFragment). One login or one
 * background transaction (the idle-close sweep, the events prune) was enough for every later
 * request to pay it: 40–70 µs of CPU on GET /ai/conversations/{id} (issue 45, its profile).
 *
 * Installed once at start when tracing is off (OpenTelemetry's context manager is a storage that
 * must stay on, and keeps the hook anyway): a storage whose `run` callbacks return promises is
 * switched off again (`disable()`, and Node removes the hook once no storage is on) when the last
 * of those runs has settled. A running callback keeps its store exactly as before, nested runs
 * included; what changes is that work left behind by a finished run no longer sees its store (a
 * finished transaction's EntityManager). A `run` whose callback returns anything else is left as
 * Node does it.
 */
export function releaseAsyncContextsWhenIdle(): void {
  if (installed) return;
  installed = true;
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called with its storage as `this` below
  const run = AsyncLocalStorage.prototype.run;
  AsyncLocalStorage.prototype.run = function <R>(
    this: AsyncLocalStorage<unknown>,
    store: unknown,
    callback: (...args: any[]) => R,
    ...args: any[]
  ): R {
    const result = run.call(this, store, callback, ...args) as R;
    if (!isPromise(result)) return result;
    running.set(this, (running.get(this) ?? 0) + 1);
    const settled = () => {
      const left = running.get(this)! - 1;
      running.set(this, left);
      if (left === 0) this.disable();
    };
    return result.finally(settled) as R;
  };
}

function isPromise(v: unknown): v is Promise<unknown> {
  return v instanceof Promise;
}
