import { AsyncLocalStorage } from 'node:async_hooks';
import path from 'node:path';

/**
 * On Node 20 and 22 the first `run` of any AsyncLocalStorage turns on a promise hook that stays on
 * while any storage is enabled: from then on every promise in the process costs more. MikroORM has
 * three storages of its own, run by `em.transactional` (TransactionContext), every `em.flush()`
 * (UnitOfWork's insideFlush) and `findAndCount` (RawQueryFragment), and never switches them off, so
 * one background transaction (a sweeper's) made every later request pay the hook: 8 % of the CPU of
 * `GET /configs` in a knock-out (docs/benchmarks.md, 2026-11-27 fifth VM).
 *
 * This switches each of MikroORM's storages off (`disable()`; Node drops the hook once no storage
 * is on) when the last of its runs has settled. A run's callback keeps its store exactly as before,
 * nested and concurrent runs included; what changes is that work a finished run left behind no
 * longer sees it, which for these stores is right: a committed transaction's EntityManager, a flush
 * that has ended, a findAndCount that has returned. Only storages whose first `run` comes from
 * MikroORM's code are touched (told by that call's stack, once per storage); every other storage
 * (OpenTelemetry's context, anything a library runs) is left exactly as Node has it, and so is a
 * storage anybody has called `enterWith` on, or a run whose callback returns no promise.
 */
const MIKRO_ORM = `${path.sep}node_modules${path.sep}@mikro-orm${path.sep}`;
// MikroORM's storages are static fields: three for the life of the process
const released = new Map<AsyncLocalStorage<unknown>, { running: number }>();
const others = new WeakSet<AsyncLocalStorage<unknown>>();
let installed = false;

export function releaseOrmContextsWhenSettled(): void {
  if (installed) return;
  installed = true;
  const proto = AsyncLocalStorage.prototype;
  // Node's own methods, called with each storage as `this`
  const run = original(proto, 'run');
  const enterWith = original(proto, 'enterWith');
  proto.run = function <R>(this: AsyncLocalStorage<unknown>, store: unknown, callback: (...args: any[]) => R, ...args: any[]): R {
    const state = stateOf(this);
    const result = run.call(this, store, callback, ...args) as R;
    if (!state || !(result instanceof Promise)) return result;
    state.running++;
    return result.finally(() => {
      if (--state.running === 0 && released.get(this) === state) this.disable();
    }) as R;
  };
  proto.enterWith = function (this: AsyncLocalStorage<unknown>, store: unknown): void {
    released.delete(this);
    others.add(this);
    enterWith.call(this, store);
  };
}

function original(proto: object, name: string): (this: AsyncLocalStorage<unknown>, ...args: unknown[]) => unknown {
  return Object.getOwnPropertyDescriptor(proto, name)!.value as (this: AsyncLocalStorage<unknown>, ...args: unknown[]) => unknown;
}

/** The release state of one of MikroORM's storages, or undefined for any other. */
function stateOf(storage: AsyncLocalStorage<unknown>): { running: number } | undefined {
  const known = released.get(storage);
  if (known || others.has(storage)) return known;
  if (!calledFromMikroOrm()) {
    others.add(storage);
    return undefined;
  }
  const state = { running: 0 };
  released.set(storage, state);
  return state;
}

/** Whether the caller of `run` (two frames above this function) is MikroORM's code. */
function calledFromMikroOrm(): boolean {
  const holder: { stack?: string } = {};
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 3;
  Error.captureStackTrace(holder, calledFromMikroOrm);
  Error.stackTraceLimit = limit;
  const frames = (holder.stack ?? '').split('\n').slice(1);
  return frames[2]?.includes(MIKRO_ORM) ?? false;
}

/** MikroORM's storages met so far (tests). */
export function ormContextsSeen(): AsyncLocalStorage<unknown>[] {
  return [...released.keys()];
}
