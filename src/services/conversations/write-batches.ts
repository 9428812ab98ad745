import type { EntityManager } from '@mikro-orm/postgresql';
import type { RequestContext } from '../../context/index.js';
import { directTransaction } from '../../db/direct-read.js';
import { AppError } from '../../errors/app-error.js';
import { eventsCommitted, type OutboxKind } from '../events/event-log.js';
import { run } from './records.js';

/** What a batched write did in the batch's transaction: its answer, and the outbox kinds it gave rows to. */
export interface WriteResult<T> {
  value: T;
  /** false: it wrote nothing (no event, no row), so it needs no sequencer pass. */
  wrote: boolean;
  queued?: readonly OutboxKind[];
}

/** One write of a batch (docs/write-batches.md). */
export interface BatchedWrite<T> {
  ctx: RequestContext;
  /**
   * The first row it locks (a conversation id, or its agent and user): a batch runs its writes in this
   * order, arrival order among equals, so that every batch takes its locks in one order.
   */
  order: number | string;
  /**
   * `oneStatement`: one statement that writes everything or nothing, whose refusals (AppError) come only
   * after it wrote nothing. Otherwise the write runs under a savepoint of its own.
   */
  oneStatement: boolean;
  /** The write on its own. */
  work(tx: EntityManager): Promise<WriteResult<T>>;
  /** A one-statement write whose statement the batch's writes with the same `statement` share (docs/write-batches.md). */
  shared?: { statement: SharedStatement; part: unknown };
}

/**
 * One statement for several writes' `part`s, in a batch's transaction: each write's result, or its refusal (an
 * AppError, when it wrote nothing), in the order of the parts; it throws when the database refuses it.
 */
export type SharedStatement = (tx: EntityManager, parts: unknown[]) => Promise<(WriteResult<unknown> | AppError)[]>;

/** The shared form of a write on its own: its `work`. */
export async function alone<T>(statement: SharedStatement, tx: EntityManager, part: unknown): Promise<WriteResult<T>> {
  const [result] = await statement(tx, [part]);
  if (result instanceof AppError) throw result;
  return result as WriteResult<T>;
}

interface Pending {
  write: BatchedWrite<unknown>;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

type Outcome = { ok: true; result: WriteResult<unknown> } | { ok: false; err: unknown };

/** A one-statement write failed in the database: its transaction is aborted; the batch runs again without it. */
class Excluded extends Error {
  constructor(
    readonly pending: Pending,
    readonly reason: unknown,
  ) {
    super('a batched write failed');
  }
}

/** A shared statement failed in the database: the batch runs again, each of its writes on its own. */
class Split extends Error {}

/** Whole-batch retries of a deadlock or a serialization failure before the write that met it is left out. */
const RETRIES = 3;
const retryable = (err: unknown) => ['40P01', '40001'].includes((err as { code?: unknown } | null)?.code as string);

/**
 * Coalesced writes (issue 69): per project and kind, a write that arrives while a batch of its kind is in
 * flight in this process joins the next one, up to `max` writes; no timer (a batch is what queued during
 * the previous one, or what arrived in the same turn of the event loop). A batch is one transaction, one
 * commit and one sequencer pass; each write still gets its own answer or its own error, and a write that
 * fails in the database never fails the others. A lone write is a batch of one.
 */
export class WriteBatches {
  private readonly queues = new Map<string, { waiting: Pending[] }>();

  constructor(private readonly max: number) {}

  submit<T>(kind: string, write: BatchedWrite<T>): Promise<T> {
    const key = `${write.ctx.project.id}:${kind}`;
    return new Promise<T>((resolve, reject) => {
      let queue = this.queues.get(key);
      const pending = { write, resolve, reject } as Pending;
      if (queue) return void queue.waiting.push(pending);
      this.queues.set(key, (queue = { waiting: [pending] }));
      const q = queue;
      setImmediate(() => this.next(key, q));
    });
  }

  private next(key: string, queue: { waiting: Pending[] }): void {
    const batch = queue.waiting.splice(0, this.max);
    if (!batch.length) return void this.queues.delete(key);
    // the next batch starts once this one's transaction is over: its sequencer pass and answers overlap the next's statement
    let done = false;
    const over = () => {
      if (done) return;
      done = true;
      this.next(key, queue);
    };
    void runBatch(batch, over).finally(over);
  }
}

/** Runs a batch to its end: every write resolved or rejected; never rejects. `committed`: its transaction is over. */
async function runBatch(batch: Pending[], committed: () => void): Promise<void> {
  let left = ordered(batch);
  let share = true;
  for (let attempt = 0; left.length;) {
    try {
      // the first write's EntityManager carries the transaction (its request waits for the batch meanwhile)
      const { em } = left[0].write.ctx;
      const outcomes = oneStatementFor(left, share)
        ? await runAll(em, left, share)
        : await directTransaction(em, (tx) => runAll(tx, left, share));
      committed();
      return await settle(left, outcomes);
    } catch (err) {
      if (err instanceof Split) {
        share = false;
        continue;
      }
      const reason = err instanceof Excluded ? err.reason : err;
      if (retryable(reason) && attempt++ < RETRIES) continue;
      if (!(err instanceof Excluded)) return left.forEach((p) => p.reject(err));
      err.pending.reject(reason);
      left = left.filter((p) => p !== err.pending);
      // the others share their statement again
      share = true;
    }
  }
}

/**
 * Whether the batch is one statement (a lone one-statement write, or writes that all share one): atomic on its
 * own, it runs in autocommit, without BEGIN and COMMIT round trips (a lone write costs what it did before batching).
 */
function oneStatementFor(batch: Pending[], share: boolean): boolean {
  const [first] = batch;
  if (batch.length === 1) return first.write.oneStatement;
  const statement = first.write.shared?.statement;
  return share && statement !== undefined && batch.every((p) => p.write.shared?.statement === statement);
}

function ordered(batch: Pending[]): Pending[] {
  const at = new Map(batch.map((p, i) => [p, i]));
  const key = (p: Pending) => p.write.order;
  return [...batch].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : at.get(a)! - at.get(b)!));
}

/** The shared statements first (each over all its writes; one write alone runs its `work`), then the other writes in order. */
async function runAll(tx: EntityManager, batch: Pending[], share: boolean): Promise<Outcome[]> {
  const outcomes = new Map<Pending, Outcome>();
  const groups = new Map<SharedStatement, Pending[]>();
  for (const p of share ? batch : [])
    if (p.write.shared) groups.set(p.write.shared.statement, [...(groups.get(p.write.shared.statement) ?? []), p]);
  for (const [statement, group] of groups) if (group.length > 1) await runShared(tx, statement, group, outcomes);
  for (const pending of batch) if (!outcomes.has(pending)) outcomes.set(pending, await runOne(tx, pending));
  return batch.map((p) => outcomes.get(p)!);
}

async function runShared(tx: EntityManager, statement: SharedStatement, group: Pending[], outcomes: Map<Pending, Outcome>): Promise<void> {
  let results: (WriteResult<unknown> | AppError)[];
  try {
    results = await statement(
      tx,
      group.map((p) => p.write.shared!.part),
    );
  } catch (err) {
    throw retryable(err) ? err : new Split();
  }
  group.forEach((p, i) =>
    outcomes.set(p, results[i] instanceof AppError ? { ok: false, err: results[i] } : { ok: true, result: results[i] }),
  );
}

async function runOne(tx: EntityManager, pending: Pending): Promise<Outcome> {
  const { write } = pending;
  if (write.oneStatement) {
    try {
      return { ok: true, result: await write.work(tx) };
    } catch (err) {
      if (err instanceof AppError) return { ok: false, err };
      throw new Excluded(pending, err);
    }
  }
  await run(tx, 'savepoint batched_write', []);
  try {
    const result = await write.work(tx);
    await run(tx, 'release savepoint batched_write', []);
    return { ok: true, result };
  } catch (err) {
    if (retryable(err)) throw err;
    await run(tx, 'rollback to savepoint batched_write', []);
    return { ok: false, err };
  }
}

/** After the commit: refusals answered, then one sequencer pass for the writes that wrote, then their answers. */
async function settle(batch: Pending[], outcomes: Outcome[]): Promise<void> {
  const queued = new Set<OutboxKind>();
  let wrote = false;
  outcomes.forEach((o, i) => {
    if (!o.ok) return batch[i].reject(o.err);
    wrote ||= o.result.wrote;
    for (const kind of o.result.queued ?? []) queued.add(kind);
  });
  if (wrote || queued.size) await eventsCommitted(batch[0].write.ctx, [...queued]);
  outcomes.forEach((o, i) => o.ok && batch[i].resolve(o.result.value));
}
