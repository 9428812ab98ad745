import { Redis } from 'ioredis';
import pg from 'pg';
import { RateLimiterPostgres, RateLimiterRedis, RateLimiterRes, RLWrapperTimeouts, type RateLimiterAbstract } from 'rate-limiter-flexible';

/** Every store call is bounded: a dead or locked store fails the call instead of hanging the request. */
export const STORE_TIMEOUT_MS = 1000;
/** A statement of the PostgreSQL store (the counters, the hourly sweep) on the server; its callers stopped waiting long before. */
const STORE_STATEMENT_TIMEOUT_MS = 5000;

function bounded(limiter: RateLimiterAbstract, failures: { count: number }): RateLimiterAbstract {
  return counted(new RLWrapperTimeouts({ limiter, timeoutMs: STORE_TIMEOUT_MS }), failures);
}

/** Counts store calls that failed (a rejection that is not a RateLimiterRes "over the limit"); the caller still sees the rejection. */
function counted(limiter: RateLimiterAbstract, failures: { count: number }): RateLimiterAbstract {
  return new Proxy(limiter, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const result = value.apply(target, args);
        if (result && typeof result.then === 'function') {
          result.then(undefined, (err: unknown) => {
            if (!(err instanceof RateLimiterRes)) failures.count++;
          });
        }
        return result;
      };
    },
  });
}

export interface LimiterOptions {
  keyPrefix: string;
  points: number;
  duration: number;
}

/**
 * The counting store shared by every server process: PostgreSQL (table `rate_limits`, made
 * by the migrations) by default, Redis when REDIS_URL is set. Counting itself is
 * rate-limiter-flexible's.
 */
export interface LimiterStore {
  kind: 'postgres' | 'redis';
  /** Store calls that failed (timeout, connection, error) since the process started. */
  failures: { count: number };
  create(opts: LimiterOptions): RateLimiterAbstract;
  close(): Promise<void>;
}

export function createLimiterStore(opts: { databaseUrl: string; redisUrl?: string }): LimiterStore {
  return opts.redisUrl ? redisStore(opts.redisUrl, namespaceOf(opts.databaseUrl)) : postgresStore(opts.databaseUrl);
}

/** Redis keys start with the database's name, so deployments (and test databases) sharing one Redis never share counts. */
export function namespaceOf(databaseUrl: string): string {
  try {
    return decodeURIComponent(new URL(databaseUrl).pathname.slice(1)) || 'ordergraph';
  } catch {
    return 'ordergraph';
  }
}

function postgresStore(databaseUrl: string): LimiterStore {
  // Each statement is bounded on the server (statement_timeout, a startup parameter) and on the
  // client (query_timeout, for a frozen server). pool.query releases a connection whose statement
  // failed with the error, and pg-pool then destroys it instead of returning it to the pool: a
  // statement that timed out on the client never leaves a busy connection behind (docs/faults.md).
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: 5,
    connectionTimeoutMillis: 2000,
    statement_timeout: STORE_STATEMENT_TIMEOUT_MS,
    query_timeout: STORE_STATEMENT_TIMEOUT_MS + 1000,
  });
  pool.on('error', () => undefined); // a dropped idle connection is retried by the next query
  // One sweep per process (not one per limiter): rows expired over an hour ago, every 5 minutes.
  const sweep = setInterval(() => {
    pool.query('delete from rate_limits where expire < $1', [Date.now() - 3_600_000]).catch(() => undefined);
  }, 5 * 60_000);
  sweep.unref();
  // rate-limiter-flexible names its statements (server-side prepared statements, kept per
  // connection); behind a transaction-mode PgBouncer the next transaction may run on a server
  // connection that never saw them. Sent unnamed, every statement is parsed where it runs.
  const unnamed = { query: (q: { text: string; values?: unknown[] }) => pool.query({ text: q.text, values: q.values }) };
  const failures = { count: 0 };
  return {
    kind: 'postgres',
    failures,
    create: (o) =>
      bounded(
        new RateLimiterPostgres({
          storeClient: unnamed,
          storeType: 'pool',
          tableName: 'rate_limits',
          tableCreated: true,
          clearExpiredByTimeout: false,
          ...o,
        }),
        failures,
      ),
    close: () => {
      clearInterval(sweep);
      return pool.end();
    },
  };
}

function redisStore(url: string, namespace: string): LimiterStore {
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    lazyConnect: false,
  });
  client.on('error', () => undefined); // ioredis reconnects by itself; a failed command rejects
  // the outcome of the first connection attempt, whichever it is
  const firstAttempt = new Promise<void>((resolve) => {
    for (const outcome of ['ready', 'error', 'close']) client.once(outcome, () => resolve());
  });
  const failures = { count: 0 };
  return {
    kind: 'redis',
    failures,
    create: (o) =>
      bounded(
        afterFirstAttempt(
          firstAttempt,
          new RateLimiterRedis({ storeClient: client, rejectIfRedisNotReady: true, ...o, keyPrefix: `${namespace}:${o.keyPrefix}` }),
        ),
        failures,
      ),
    close: async () => {
      client.disconnect();
    },
  };
}

/** The limiter's calls that reach the store (the ones RLWrapperTimeouts bounds). */
const STORE_CALLS = new Set<string | symbol>(['consume', 'penalty', 'reward', 'get', 'set', 'block', 'delete']);

/**
 * A process that has just started does not refuse its first requests while its Redis connection is
 * being made: until the first attempt has an outcome, a call waits for it (within STORE_TIMEOUT_MS,
 * as every call: `bounded` wraps this). After that, a client that is not ready fails at once.
 */
function afterFirstAttempt(firstAttempt: Promise<void>, limiter: RateLimiterAbstract): RateLimiterAbstract {
  let pending: Promise<void> | null = firstAttempt.then(() => void (pending = null));
  return new Proxy(limiter, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function' || !STORE_CALLS.has(prop)) return value;
      return (...args: unknown[]) => (pending ? pending.then(() => value.apply(target, args)) : value.apply(target, args));
    },
  });
}

/** The 429 headers of CONTRACT §7. */
export function rateLimitHeaders(h: { limit: number; msBeforeNext: number; scope: string; key: string }): Record<string, string> {
  const seconds = String(Math.max(1, Math.ceil(h.msBeforeNext / 1000)));
  return {
    'retry-after': seconds,
    'x-ratelimit-limit': String(h.limit),
    'x-ratelimit-remaining': '0',
    'x-ratelimit-reset': seconds,
    'x-ratelimit-scope': h.scope,
    'x-ratelimit-key': h.key,
  };
}
