import type { FastifyBaseLogger } from 'fastify';
import type { AppError } from '../errors/app-error.js';
import { appError } from '../errors/codes.js';

/** Seconds a client is asked to wait before retrying while the database is unavailable. */
export const RETRY_AFTER_SECONDS = 5;

/** SQLSTATE classes and codes that mean "the database cannot serve now", not "the request is wrong". */
const UNAVAILABLE_SQLSTATES = /^(08|53|57P)/; // connection exception, insufficient resources, operator intervention
const QUERY_CANCELED = '57014'; // statement_timeout
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
const MESSAGES = [
  /timeout acquiring a connection/i, // knex: the pool gave no connection within the acquire timeout
  /query read timeout/i, // pg: no answer within the client-side bound (a frozen server)
  /connection terminated/i,
  /connection (is )?closed/i,
  /terminating connection/i,
  /the database system is (starting up|shutting down|in recovery mode)/i,
  /client has encountered a connection error/i,
];

/** Whether an error (or one it wraps) says the database is down, frozen, saturated or too slow. */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown; originalError?: unknown }).cause ?? (e as { originalError?: unknown }).originalError, depth++) {
    const { name, code, message } = e as { name?: string; code?: unknown; message?: unknown };
    if (name === 'KnexTimeoutError' || name === 'ConnectionException') return true;
    if (typeof code === 'string' && (code === QUERY_CANCELED || UNAVAILABLE_SQLSTATES.test(code) || NETWORK_CODES.has(code))) return true;
    if (typeof message === 'string' && MESSAGES.some((re) => re.test(message))) return true;
  }
  return false;
}

/** 503 ERROR_SERVICE_UNAVAILABLE with Retry-After. */
export function serviceUnavailable(): AppError {
  return appError('ERROR_SERVICE_UNAVAILABLE', undefined, { headers: { 'retry-after': String(RETRY_AFTER_SECONDS) } });
}

/** The cause of a database failure in one short line: no SQL, no stack. */
export function causeOf(err: unknown): string {
  const e = err as { name?: string; code?: unknown; message?: unknown };
  // MikroORM's driver exceptions prefix the driver's message with the SQL: keep what follows it
  const message = String(e?.message ?? err).split(' - ').pop()!.split('\n')[0].slice(0, 200);
  return [e?.name, typeof e?.code === 'string' ? e.code : undefined, message].filter(Boolean).join(': ');
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
  ) {}

  failed(err: unknown): void {
    if (!this.failing) {
      this.failing = true;
      this.log.error({ cause: causeOf(err) }, 'database unavailable: answering 503 until it recovers');
      this.timer = setInterval(() => this.summarise(), this.intervalMs);
      this.timer.unref();
      return;
    }
    this.count++;
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
