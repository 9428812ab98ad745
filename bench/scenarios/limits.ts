import { Redis } from 'ioredis';
import type { BenchScenario, PrepareScenarios } from '../types.js';

const OFF = { code: 'bench-limits-off', key: 'bench-limits-off-server-key-0123456789' };
const ON = { code: 'bench-limits-on', key: 'bench-limits-on-server-key-0123456789' };
/** One project-scope rule, far above what a run sends: every request spends a point, none is refused. */
const RULES = [{ scope: 'project' as const, points: 1_000_000_000, duration_s: 60, on_error: 'closed' as const }];

/** REDIS_URL, or a Redis answering on 127.0.0.1:6379; null when there is none. */
async function findRedis(): Promise<string | null> {
  const url = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
  const client = new Redis(url, { lazyConnect: true, connectTimeout: 1000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === 'PONG' ? url : null;
  } catch {
    return null;
  } finally {
    client.disconnect();
  }
}

/**
 * The overhead of usage limits on one route (GET /configs, server key): a project without limits,
 * the same with one limit counted in PostgreSQL, and counted in Redis. The store is per process,
 * so each "limits on" scenario names the store it runs on through `config`.
 */
export const prepare: PrepareScenarios = async ({ load }) => {
  await load({
    projects: [OFF, ON].map((p) => ({
      code: p.code,
      name: p.code,
      api_keys: [{ key: p.key, server: true }],
      rate_limits: p === ON ? RULES : [],
      configs: Array.from({ length: 10 }, (_, i) => ({ key: `limits_config_${i}`, value: `v${i}`, public: true })),
    })),
  });
  const route = (p: typeof OFF) => ({ method: 'GET' as const, path: `/v400/en/${p.code}/configs`, headers: { 'x-api-key': p.key } });
  const scenarios: BenchScenario[] = [
    { name: 'limits off: GET /configs', ...route(OFF), config: { redisUrl: undefined } },
    { name: 'limits on (PostgreSQL): GET /configs', ...route(ON), config: { redisUrl: undefined } },
  ];
  const redisUrl = await findRedis();
  if (redisUrl) scenarios.push({ name: 'limits on (Redis): GET /configs', ...route(ON), config: { redisUrl } });
  else console.log('limits: no Redis (REDIS_URL unset and nothing on 127.0.0.1:6379): the Redis scenario is skipped');
  return scenarios;
};
