import { Redis } from 'ioredis';
import pg from 'pg';
import { RateLimiterPostgres, RateLimiterRedis, RLWrapperTimeouts, type RateLimiterAbstract } from 'rate-limiter-flexible';

/** Every store call is bounded: a dead or locked store fails the call instead of hanging the request. */
export const STORE_TIMEOUT_MS = 1000;

function bounded(limiter: RateLimiterAbstract): RateLimiterAbstract {
  return new RLWrapperTimeouts({ limiter, timeoutMs: STORE_TIMEOUT_MS });
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
  create(opts: LimiterOptions): RateLimiterAbstract;
  close(): Promise<void>;
}

export function createLimiterStore(opts: { databaseUrl: string; redisUrl?: string }): LimiterStore {
  return opts.redisUrl ? redisStore(opts.redisUrl, namespaceOf(opts.databaseUrl)) : postgresStore(opts.databaseUrl);
}

/** Redis keys start with the database's name, so deployments (and test databases) sharing one Redis never share counts. */
function namespaceOf(databaseUrl: string): string {
  try {
    return decodeURIComponent(new URL(databaseUrl).pathname.slice(1)) || 'ordergraph';
  } catch {
    return 'ordergraph';
  }
}

function postgresStore(databaseUrl: string): LimiterStore {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 5, connectionTimeoutMillis: 2000 });
  pool.on('error', () => undefined); // a dropped idle connection is retried by the next query
  // One sweep per process (not one per limiter): rows expired over an hour ago, every 5 minutes.
  const sweep = setInterval(() => {
    pool.query('delete from rate_limits where expire < $1', [Date.now() - 3_600_000]).catch(() => undefined);
  }, 5 * 60_000);
  sweep.unref();
  return {
    kind: 'postgres',
    create: (o) => bounded(
      new RateLimiterPostgres({
        storeClient: pool,
        storeType: 'pool',
        tableName: 'rate_limits',
        tableCreated: true,
        clearExpiredByTimeout: false,
        ...o,
      })),
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
  return {
    kind: 'redis',
    create: (o) => bounded(new RateLimiterRedis({ storeClient: client, rejectIfRedisNotReady: true, ...o, keyPrefix: `${namespace}:${o.keyPrefix}` })),
    close: async () => {
      client.disconnect();
    },
  };
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
