import { causeOf } from '../db/unavailable.js';

/** At most one claim per this many ms comes of commit wake-ups (`wake`). */
export const WAKE_INTERVAL_MS = 20;

export interface OutboxLog {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** One claimed attempt. `group` bounds concurrency within a queue (a webhook, a conversation). */
export interface OutboxJob {
  id: string;
  group: string;
}

/** One attempt's result, as `record` receives it. */
export interface OutboxResult<J extends OutboxJob, R> {
  job: J;
  result: R;
}

/**
 * What a durable outbox table provides to the worker. `claim` and `record` are single statements or
 * short transactions against the shared database, so any number of processes may run one worker each:
 *
 * - `claim` locks due rows with FOR UPDATE SKIP LOCKED and, in the same statement, counts the
 *   attempt, leases the row (`next_attempt_at` moved past the attempt's deadline) and names its
 *   process (`claimed_by = owner`), so no other process takes the same attempt. A process that dies
 *   mid-attempt stops beating: within seconds another releases its claims (`claimed_by` cleared,
 *   `next_attempt_at` now: process-liveness.ts) and the attempt is made again; the lease remains
 *   the bound for a process that beats but hangs. `busy` is how many attempts of each group this
 *   process has in flight.
 * - `attempt` makes the attempt (outside any transaction) and resolves with its result.
 * - `record` writes a batch of results, each only if its row is still at the claimed attempt, and
 *   clears `claimed_by` with every result it writes (a backing-off row is not a claim). It rejects
 *   only when the batch could not be written (its rows keep their leases: tried again later).
 *   It may also claim, in its own transaction, up to `free` further attempts (the slots the batch
 *   frees) under `owner`: they start as soon as it resolves, without a claim of their own. It
 *   resolves with them, or with null when it did not look (the worker then claims).
 *
 * So an outbox table has, besides its own columns, `next_attempt_at timestamptz` and
 * `claimed_by uuid null` (with a partial index `where claimed_by is not null`), and names itself in
 * `table`. `owner` is null when the worker runs without liveness (tests): the lease alone then.
 */
export interface OutboxQueue<J extends OutboxJob, R> {
  /** Names the worker in log lines ("webhook dispatcher", "whatsapp sender"). */
  readonly name: string;
  /** The outbox table, whose `claimed_by` and `next_attempt_at` the liveness releases. */
  readonly table: string;
  claim(limit: number, busy: ReadonlyMap<string, number>, owner: string | null): Promise<J[]>;
  attempt(job: J): Promise<R>;
  record(results: OutboxResult<J, R>[], free: number, owner: string | null): Promise<J[] | null>;
}

/** This process's identity as claims name it (process-liveness.ts). */
export interface ClaimOwner {
  readonly id: string;
  /** Whether nobody can have declared this process dead: claims are made and started only then. */
  fresh(): boolean;
  /** Releases the dead processes' claims of `table`, then calls `wake`. */
  register(table: string, wake: () => void): void;
}

export interface OutboxWorkerOptions {
  /** Attempts in flight in this process. */
  concurrency: number;
  /** The safety poll: an idle worker claims this often even when nobody woke it. */
  pollMs: number;
  /** How long `stop` waits for the attempts in flight (each is bounded by its own deadline). */
  drainMs: number;
  log: OutboxLog;
  /** Claims name this process, and are released within seconds of its death; absent: leases only. */
  liveness?: ClaimOwner;
}

/**
 * The claim / attempt / record loop shared by every outbox of the service (webhook deliveries,
 * WhatsApp replies). Woken by `kick()` (after a commit in this process, or a notification from
 * another) and by a poll; claims are coalesced (one at a time, another right after when asked).
 * At most `concurrency` attempts in flight (an attempt holds its slot until its result is written;
 * a claim in progress holds the slots it may fill). Results are recorded in batches, one `record`
 * at a time: those that arrive while one is being written go together in the next (a group commit:
 * the cost of a write, a transaction and its commit, is shared by every result of the batch, so the
 * rate grows with the load instead of being capped by one write per attempt); a `record` that
 * claims the next attempts in its transaction saves their claim and the wait for it. The database
 * going away costs one log line per cause and a one-second pause, never a crash. With `liveness`,
 * claims name this process, it claims and starts attempts only while its heartbeat is fresh, and
 * the claims of a process that died are released within seconds (process-liveness.ts).
 */
export class OutboxWorker<J extends OutboxJob, R> {
  private readonly inFlight = new Map<string, { done: Promise<void>; release: () => void }>();
  private results: OutboxResult<J, R>[] = [];
  private recording = false;
  /** Slots a claim in progress (or a record's) may fill. */
  private reserved = 0;
  /** A claim found no slot free while some were reserved. */
  private starved = false;
  private readonly perGroup = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = true;
  private claiming = false;
  private again = false;
  private pausedUntil = 0;
  private lastFailure: string | null = null;
  private lastWake = 0;
  private wakeTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly queue: OutboxQueue<J, R>,
    private readonly opts: OutboxWorkerOptions,
  ) {
    // a release of dead claims, a new identity, or this process fresh again: due rows may be waiting
    opts.liveness?.register(queue.table, () => this.kick());
  }

  start(): this {
    if (!this.stopped) return this;
    this.stopped = false;
    this.timer = setInterval(() => this.kick(), this.opts.pollMs);
    this.timer.unref();
    this.kick();
    return this;
  }

  /** Stops claiming and waits for the attempts in flight, at most `drainMs`. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    clearTimeout(this.wakeTimer);
    this.wakeTimer = undefined;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.inFlight.values()].map((f) => f.done)),
      new Promise((resolve) => (timer = setTimeout(resolve, this.opts.drainMs))),
    ]);
    clearTimeout(timer);
  }

  /**
   * A wake-up from a commit anywhere (one per committed write): at most one claim per
   * WAKE_INTERVAL_MS comes of these, so a busy API does not turn every commit into a claim in every
   * process. `kick` (this process's own results, the poll) is not throttled.
   */
  wake(): void {
    if (this.stopped || this.wakeTimer) return;
    const wait = this.lastWake + WAKE_INTERVAL_MS - Date.now();
    if (wait <= 0) {
      this.lastWake = Date.now();
      this.kick();
      return;
    }
    this.wakeTimer = setTimeout(() => {
      this.wakeTimer = undefined;
      this.lastWake = Date.now();
      this.kick();
    }, wait);
    this.wakeTimer.unref();
  }

  /** Looks for due rows now. */
  kick(): void {
    if (this.stopped) return;
    if (this.claiming) {
      this.again = true;
      return;
    }
    if (Date.now() < this.pausedUntil) return;
    this.claiming = true;
    void this.claimLoop().finally(() => {
      this.claiming = false;
    });
  }

  get busy(): number {
    return this.inFlight.size;
  }

  private get free(): number {
    return this.stopped ? 0 : Math.max(0, this.opts.concurrency - this.inFlight.size - this.reserved);
  }

  /** The identity claims are made under now (null without liveness). */
  private get owner(): string | null {
    return this.opts.liveness?.id ?? null;
  }

  /** Whether this worker may claim: it runs, and its process beats (a claim made while it might be declared dead could be taken twice). */
  private get mayClaim(): boolean {
    return !this.stopped && (!this.opts.liveness || this.opts.liveness.fresh());
  }

  private async claimLoop(): Promise<void> {
    do {
      this.again = false;
      // not fresh: the liveness wakes this worker once a beat succeeds again
      if (!this.mayClaim) return;
      const free = this.free;
      if (free <= 0) {
        // the slots are taken or reserved (a record may be claiming): claim again after the record
        this.starved = true;
        return;
      }
      let batch: J[];
      const owner = this.owner;
      this.reserved += free;
      try {
        batch = await this.queue.claim(free, this.perGroup, owner);
        this.recovered();
      } catch (err) {
        this.failure('claim', err);
        this.pausedUntil = Date.now() + 1000;
        return;
      } finally {
        this.reserved -= free;
      }
      for (const job of batch) this.launch(job, owner);
      // a full batch may have left more due rows behind
      if (batch.length === free) this.again = true;
    } while (this.again && !this.stopped);
  }

  private launch(job: J, owner: string | null): void {
    // claimed while `stop` began: left to its lease (or freed when this process's row is deleted at
    // its stop), rather than started in a process that will not wait for it
    if (this.stopped) return;
    // claimed under an identity this process no longer has, or while it may have been declared dead:
    // the claim may be (or be about to be) released to another process, so this one must not start it
    const liveness = this.opts.liveness;
    if (liveness && (owner !== liveness.id || !liveness.fresh())) return;
    this.perGroup.set(job.group, (this.perGroup.get(job.group) ?? 0) + 1);
    let release!: () => void;
    const done = new Promise<void>((resolve) => (release = resolve));
    this.inFlight.set(job.id, { done, release });
    this.queue.attempt(job).then(
      (result) => this.recordSoon({ job, result }),
      (err) => {
        this.opts.log.error({ err, job: job.id }, `${this.queue.name}: attempt failed unexpectedly`);
        this.release([job]);
        this.kick();
      },
    );
  }

  /** Frees the jobs' slots (their results are written, or will be tried again after their leases). */
  private release(jobs: J[]): void {
    for (const job of jobs) {
      const slot = this.inFlight.get(job.id);
      if (!slot) continue;
      this.inFlight.delete(job.id);
      const n = (this.perGroup.get(job.group) ?? 1) - 1;
      if (n > 0) this.perGroup.set(job.group, n);
      else this.perGroup.delete(job.group);
      slot.release();
    }
  }

  /** Queues a result for the next batch. */
  private recordSoon(done: OutboxResult<J, R>): void {
    this.results.push(done);
    if (!this.recording) void this.recordLoop();
  }

  private async recordLoop(): Promise<void> {
    this.recording = true;
    while (this.results.length) {
      const batch = this.results;
      this.results = [];
      // the slots this batch frees (for the replies next in line behind its own); the others stay
      // with claims, which wake-ups may start meanwhile
      const free = !this.mayClaim
        ? 0
        : Math.max(0, Math.min(batch.length, this.opts.concurrency - this.inFlight.size - this.reserved + batch.length));
      let next: J[] | null = null;
      const owner = this.owner;
      this.reserved += free;
      try {
        next = await this.queue.record(batch, free, owner);
        this.recovered();
      } catch (err) {
        this.failure('record', err);
      } finally {
        this.reserved -= free;
      }
      this.release(batch.map((b) => b.job));
      for (const job of next ?? []) this.launch(job, owner);
      if (next === null || next.length >= free || this.starved) {
        this.starved = false;
        this.kick();
      }
    }
    this.recording = false;
  }

  /** One log line per cause while the database keeps failing the same way. */
  private failure(where: string, err: unknown): void {
    const e = err as { code?: string; message?: string };
    const cause = `${where}:${e?.code ?? String(e?.message ?? err).slice(0, 80)}`;
    if (cause === this.lastFailure) return;
    this.lastFailure = cause;
    this.opts.log.warn({ where, code: e?.code, cause: causeOf(err) }, `${this.queue.name}: database unavailable, retrying`);
  }

  private recovered(): void {
    if (this.lastFailure === null) return;
    this.lastFailure = null;
    this.opts.log.info({}, `${this.queue.name}: database available again`);
  }
}

/** The backoff and the bounded-attempt rule of every outbox: attempts.ts. */
export { backoffMs } from './attempts.js';
