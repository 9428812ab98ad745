import type { FastifyBaseLogger } from 'fastify';
import type { AppError } from '../errors/app-error.js';
import { appError, validationError } from '../errors/codes.js';

/** Seconds a client is asked to wait before retrying while the database is unavailable. */
export const RETRY_AFTER_SECONDS = 5;

/** SQLSTATE classes and codes that mean "the database cannot serve now", not "the request is wrong". */
const UNAVAILABLE_SQLSTATES = /^(08|53|57P)/; // connection exception, insufficient resources, operator intervention
/**
 * What the request sent, refused by the database: data exceptions (class 22: out-of-range numbers,
 * invalid text or byte sequences, LIKE escapes…) and 08P01, the protocol violation a NUL in a
 * parameter causes (class 08 otherwise means the connection failed).
 */
const INPUT_SQLSTATES = /^(22|08P01$)/;
const QUERY_CANCELED = '57014'; // statement_timeout
/** A statement in a transaction whose earlier statement failed: after a fault, what the transaction's first failure was. */
const IN_FAILED_TRANSACTION = '25P02';
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
const MESSAGES = [
  /timeout acquiring a connection/i, // knex: the pool gave no connection within the acquire timeout
  /timeout exceeded when trying to connect/i, // pg-pool (the limiter's store)
  /query read timeout/i, // pg: no answer within the client-side bound (a frozen server)
  /connection terminated/i,
  /connection (is )?closed/i,
  /terminating connection/i,
  /the database system is (starting up|shutting down|in recovery mode)/i,
  /client has encountered a connection error/i,
  /client was closed and is not queryable/i, // pg: a statement sent on a connection closed after a fault
  /transaction query already complete/i, // knex: a statement of a transaction that a fault already ended
  /the database is down: one probe/i, // db/breaker.ts: no new pool connection while the database is known to be down
];

/**
 * Whether an error (or one it wraps) says the database is down, frozen, saturated or too slow.
 * A network code counts only on the database's side: the request socket's own ECONNRESET (a
 * client that went away, `isClientAbort`) is not an outage, nor an error that names another
 * `dependency` (an S3 media store that cannot be reached), whatever it wraps.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (isClientAbort(err) || isRejectedInput(err)) return false;
  for (
    let e = err, depth = 0;
    e && typeof e === 'object' && depth < 5;
    e = (e as { cause?: unknown; originalError?: unknown }).cause ?? (e as { originalError?: unknown }).originalError, depth++
  ) {
    const { name, code, message, dependency } = e as { name?: string; code?: unknown; message?: unknown; dependency?: unknown };
    // another dependency's failure (a media store: services/media/store.ts) names it: its ECONNREFUSED is not the database's
    if (typeof dependency === 'string') return false;
    if (name === 'KnexTimeoutError' || name === 'ConnectionException') return true;
    if (
      typeof code === 'string' &&
      (code === QUERY_CANCELED || code === IN_FAILED_TRANSACTION || UNAVAILABLE_SQLSTATES.test(code) || NETWORK_CODES.has(code))
    )
      return true;
    if (typeof message === 'string' && MESSAGES.some((re) => re.test(message))) return true;
  }
  return false;
}

/**
 * Whether the database refused a value the request carried (INPUT_SQLSTATES, in the error or one it
 * wraps): a 400 (`rejectedInput`), never an outage, logged as a warning (CONTRACT §11).
 */
export function isRejectedInput(err: unknown): boolean {
  return rejectedSqlState(err) !== undefined;
}

/** The SQLSTATE of a refused value (what a log line may say of it: the message can quote the value). */
export function rejectedSqlState(err: unknown): string | undefined {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; e = causeOrOriginal(e), depth++) {
    const { code } = e as { code?: unknown };
    if (typeof code === 'string' && INPUT_SQLSTATES.test(code)) return code;
  }
  return undefined;
}

/** A failure of the database's: unavailable, or a value of the request it refused. */
export function isDatabaseFailure(err: unknown): boolean {
  return isRejectedInput(err) || isDatabaseUnavailable(err);
}

/** 400 ERROR_VALIDATION: a value the database refused (the field is not known at that point). */
export function rejectedInput(): AppError {
  return validationError([{ field: 'request', key: 'value_refused' }]);
}

function causeOrOriginal(e: object): unknown {
  return (e as { cause?: unknown }).cause ?? (e as { originalError?: unknown }).originalError;
}

/**
 * A request whose client went away before its body arrived: Node's `aborted` ECONNRESET from the
 * request stream (no syscall, unlike a socket error on a database connection), or Fastify's
 * content-type parser reporting the same.
 */
export function isClientAbort(err: unknown): boolean {
  const { code, message, syscall } = (err ?? {}) as { code?: unknown; message?: unknown; syscall?: unknown };
  return (code === 'ECONNRESET' || code === 'ECONNABORTED') && syscall === undefined && message === 'aborted';
}

/** 503 ERROR_SERVICE_UNAVAILABLE with Retry-After. */
export function serviceUnavailable(): AppError {
  return appError('ERROR_SERVICE_UNAVAILABLE', undefined, { headers: { 'retry-after': String(RETRY_AFTER_SECONDS) } });
}

/** The cause of a database failure in one short line: no SQL, no stack. */
export function causeOf(err: unknown): string {
  const e = err as { name?: string; code?: unknown; message?: unknown };
  // MikroORM's driver exceptions prefix the driver's message with the SQL: keep what follows it
  const message = String(e?.message ?? err)
    .split(' - ')
    .pop()!
    .split('\n')[0]
    .slice(0, 200);
  return [e?.name, typeof e?.code === 'string' ? e.code : undefined, message].filter(Boolean).join(': ');
}

/**
 * An error for a log line without SQL: MikroORM's driver exceptions (and knex's) carry the
 * statement in their message, their stack's first line and `sql`; the line keeps the name, the
 * code, the cause (causeOf) and the stack's frames.
 */
export function safeError(err: unknown): Record<string, unknown> {
  if (!err || typeof err !== 'object') return { message: causeOf(err) };
  const e = err as { name?: unknown; code?: unknown; stack?: unknown };
  const frames =
    typeof e.stack === 'string'
      ? e.stack
          .split('\n')
          .filter((l) => /^\s+at /.test(l))
          .join('\n')
      : undefined;
  return { type: e.name, code: typeof e.code === 'string' ? e.code : undefined, message: causeOf(err), stack: frames };
}

/**
 * At most one log line per key per interval: `admit(key)` says false while the key's last line is
 * younger than the interval, otherwise how many were held back since (0 the first time). Keys are
 * causes (a short text); past MAX_KEYS distinct ones the oldest are forgotten.
 */
export class LineLimiter {
  private static readonly MAX_KEYS = 200;
  private readonly last = new Map<string, { at: number; held: number }>();

  constructor(private readonly intervalMs = 5000) {}

  admit(key: string, now = Date.now()): number | false {
    const seen = this.last.get(key);
    if (seen && now - seen.at < this.intervalMs) {
      seen.held++;
      return false;
    }
    if (!seen && this.last.size >= LineLimiter.MAX_KEYS) this.last.delete(this.last.keys().next().value as string);
    this.last.delete(key);
    this.last.set(key, { at: now, held: 0 });
    return seen?.held ?? 0;
  }
}

/**
 * While the database fails, the log gets one error line with the cause, then at most one summary
 * line per interval with the count of failed requests, then one line when failures stop.
 */
export class OutageLog {
  private failing = false;
  private count = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly log: FastifyBaseLogger,
    private readonly intervalMs = 5000,
    /** Told of every failure (the breaker, db/breaker.ts, probes the database). */
    private readonly onFailure?: () => void,
  ) {
    this.lines = new LineLimiter(intervalMs);
  }

  /** Lines of failures that are not outages (rest/errors.ts, rest/pipeline.ts): one per cause per interval. */
  private readonly lines: LineLimiter;

  /**
   * A failure that is not an outage (a fault of ours, or one not recognised): an error line
   * without SQL, at most one per message and cause per interval, with the count held back since.
   */
  unexpected(log: FastifyBaseLogger, err: unknown, msg: string): void {
    const cause = causeOf(err);
    const held = this.lines.admit(`${msg}\u0000${cause}`);
    if (held === false) return;
    log.error({ cause, err: safeError(err), ...(held ? { heldBack: held } : {}) }, msg);
  }

  failed(err: unknown): void {
    this.onFailure?.();
    if (!this.failing) {
      this.failing = true;
      this.log.error({ cause: causeOf(err) }, 'database unavailable: answering 503 until it recovers');
      this.timer = setInterval(() => this.summarise(), this.intervalMs);
      this.timer.unref();
      return;
    }
    this.count++;
  }

  /** A request answered 503 at once while the database is known to be down: counted in the summaries. */
  refused(): void {
    if (this.failing) this.count++;
  }

  private summarise(): void {
    if (this.count > 0) {
      this.log.warn({ failedRequests: this.count, intervalMs: this.intervalMs }, 'database still unavailable');
      this.count = 0;
      return;
    }
    this.log.info('database failures stopped');
    this.stop();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.failing = false;
    this.count = 0;
  }
}
