import pg from 'pg';
import { closeAtOnce, type StatementClock } from './connection-guard.js';
import { CLIENT_READ_MARGIN_MS, type DatabaseBounds } from './orm.js';
import { causeOf } from './unavailable.js';

export interface BreakerOptions {
  /** The database the probe connects to (the serving pool's). */
  url: string;
  bounds: DatabaseBounds;
  clock?: StatementClock;
  /** A probe with no answer within this many ms marks the database down. */
  probeDeadlineMs?: number;
  /** A statement waiting longer than this makes the breaker probe (at most once per this interval). */
  suspectAfterMs?: number;
  /** Pause between a failed probe and the next while down. */
  retryMs?: number;
  onChange?: (down: boolean, cause?: string) => void;
}

/**
 * How long a connection attempt of its own (the probe's while down, the heartbeat's) may wait for a server that does
 * not answer. A frozen server accepts nothing, and each attempt given up stays in its listen queue: at the thaw
 * PostgreSQL forks and authenticates a backend for each, in order, before the attempts that still want an answer.
 */
export const PATIENT_CONNECT_MS = 10_000;

/** What a new pool connection meets while the database is known to be down (gatePool). */
const DOWN_MESSAGE = 'the database is down: one probe checks for recovery';

/**
 * Fail fast while the database is known to be down (docs/faults.md). A request's database failure,
 * or a statement of the pool waiting past `suspectAfterMs`, starts a probe: `select 1` on a
 * connection of its own. No answer within `probeDeadlineMs`, or a failure, marks the database
 * down: requests then get 503 at once (rest/errors.ts) and readiness fails, while one probe at a
 * time keeps asking. A probe that waits is kept, not replaced: a frozen server answers it the
 * moment it runs again, so the first requests after recovery succeed at once.
 */
export class DatabaseBreaker {
  private down = false;
  private probing = false;
  private lastProbe = 0;
  private client: pg.Client | undefined;
  /** A connection attempt under way (stop() ends it: it may wait PATIENT_CONNECT_MS). */
  private connecting: pg.Client | undefined;
  private watch: NodeJS.Timeout | undefined;
  private retry: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly deadlineMs: number;
  private readonly suspectMs: number;
  private readonly retryMs: number;

  constructor(private readonly opts: BreakerOptions) {
    this.deadlineMs = opts.probeDeadlineMs ?? 1000;
    this.suspectMs = opts.suspectAfterMs ?? 1000;
    this.retryMs = opts.retryMs ?? 200;
  }

  get isDown(): boolean {
    return this.down;
  }

  /** Watches the pool's statements (every quarter of `suspectAfterMs`). */
  start(): this {
    const clock = this.opts.clock;
    if (clock) {
      this.watch = setInterval(
        () => {
          if (!this.down && clock.oldestMs() > this.suspectMs && performance.now() - this.lastProbe > this.suspectMs) this.probe();
        },
        Math.max(50, this.suspectMs / 4),
      );
      this.watch.unref();
    }
    return this;
  }

  /** A request met a database failure: check now (nothing happens while a probe runs). */
  suspect(): void {
    this.probe();
  }

  private probe(): void {
    if (this.probing || this.stopped) return;
    this.probing = true;
    this.lastProbe = performance.now();
    const deadline = setTimeout(() => this.mark(true, `no answer to a probe within ${this.deadlineMs} ms`), this.deadlineMs);
    deadline.unref();
    this.ping()
      .then(
        () => this.mark(false),
        (err: unknown) => this.mark(true, causeOf(err)),
      )
      .finally(() => {
        clearTimeout(deadline);
        this.probing = false;
        this.lastProbe = performance.now();
        if (this.down && !this.stopped) {
          this.retry = setTimeout(() => this.probe(), this.retryMs);
          this.retry.unref();
        }
      });
  }

  private async ping(): Promise<void> {
    const client = this.client ?? (await this.connect());
    try {
      await client.query('select 1');
    } catch (err) {
      this.drop(client);
      throw err;
    }
  }

  private async connect(): Promise<pg.Client> {
    const { bounds } = this.opts;
    const client = new pg.Client({
      connectionString: this.opts.url,
      connectionTimeoutMillis: this.down ? Math.max(PATIENT_CONNECT_MS, bounds.acquireTimeoutMs) : bounds.acquireTimeoutMs,
      query_timeout: bounds.statementTimeoutMs > 0 ? bounds.statementTimeoutMs + CLIENT_READ_MARGIN_MS : undefined,
      application_name: 'ordergraph-probe',
      keepAlive: true,
    });
    client.on('error', () => this.drop(client));
    this.connecting = client;
    try {
      await client.connect();
    } catch (err) {
      this.drop(client);
      throw err;
    } finally {
      this.connecting = undefined;
    }
    if (this.stopped) {
      this.drop(client);
      throw new Error('stopped');
    }
    this.client = client;
    return client;
  }

  /** Closes a probe connection at once (a frozen server would not answer a polite end). */
  private drop(client: pg.Client): void {
    if (this.client === client) this.client = undefined;
    closeAtOnce(client);
  }

  private mark(down: boolean, cause?: string): void {
    if (this.stopped || down === this.down) return;
    this.down = down;
    this.opts.onChange?.(down, cause);
  }

  /**
   * While the database is known to be down, a new connection of this knex client's pool fails at once instead of
   * connecting: only the probe knocks. Every attempt given up on a frozen server waits in its listen queue, and at
   * the thaw PostgreSQL forks a backend for each before the ones that still want an answer (65 such attempts after a
   * 30 s freeze held the first answer back 1.2–1.9 s). The pool's connections that exist are handed out as before.
   */
  gatePool(client: { acquireRawConnection(): Promise<unknown> }): this {
    const acquire = client.acquireRawConnection.bind(client);
    client.acquireRawConnection = () => (this.down ? Promise.reject(new Error(DOWN_MESSAGE)) : acquire());
    return this;
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.watch);
    clearTimeout(this.retry);
    if (this.client) this.drop(this.client);
    if (this.connecting) this.drop(this.connecting);
  }
}
