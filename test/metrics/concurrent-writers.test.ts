import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestContext } from '../../src/context/index.js';
import { MetricsService, type MetricsArgs } from '../../src/services/metrics/metrics.service.js';
import type { SeriesArgs } from '../../src/services/metrics/series-plan.js';
import { MetricsCompactor } from '../../src/workers/metrics-compactor.js';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { ensureEmitted } from '../support/dist.js';
import { baseFixture, KEYS } from '../support/fixtures.js';
import { startServe, stopServe } from '../support/serve-process.js';

/**
 * Writers of different conversations of one agent share no lock, and metrics stay exact (issue 34):
 * the conversation trigger appends deltas, reads add them to the rollups, a compactor folds them in.
 * Every metrics answer read over HTTP right after the writes equals the raw recount (the service's
 * `raw` mode: the reference queries over conversations), with deltas pending, while a compactor
 * runs, after it has folded everything, and with two `serve` processes compacting at once.
 */
const N = 20;
const WRITES = 4;
const REASONS = ['completed', 'abandoned', 'failed'];
// Per block (engine or process): N writers' conversations, then 2 for the lock case.
const BLOCKS = { mercurius: 1000, apollo: 2000, processes: 3000 } as const;
const AGENT = (base: number) => ({
  id: base,
  business_id: 1,
  name: `Writer ${base}`,
  provider: 'web',
  provider_type: 'chat',
  provider_external_id: `cw-${base}`,
  enabled: true,
});
const conversations = (base: number) =>
  Array.from({ length: N + 2 }, (_, j) => ({
    id: base + j,
    agent_id: base,
    user_id: null,
    contact: `cw-${base + j}`,
    business_id: 1,
    status: 'active',
    usage: {},
    // several conversations per 15-minute bucket, hour and day: the rows writers used to share
    created_at: j >= N ? '2026-11-03T10:05:00Z' : `2026-11-0${1 + (j % 3)}T${String(10 + (j % 2)).padStart(2, '0')}:0${j % 4}:00Z`,
  }));

const service = new MetricsService();
const silent = { warn: () => undefined, info: () => undefined } as never;
let db: TestDatabase;
let projectId: number;

beforeAll(async () => {
  db = await createTestDatabase();
  const bases = Object.values(BLOCKS);
  await db.load(baseFixture({ agents: bases.map(AGENT), conversations: bases.flatMap(conversations) }));
  [{ id: projectId }] = await db.sql<{ id: number }>("select id from projects where code = 'acme'");
  await ensureEmitted('metrics concurrent-writers.test');
}, 300_000);
afterAll(() => db.orm.close());

function ctx(): RequestContext {
  return {
    requestId: 'recount',
    project: { id: projectId, ai_enabled: true },
    caller: { kind: 'server', apiKeyId: 0 },
    em: db.orm.em.fork(),
    lang: 'en',
    ip: '127.0.0.1',
  } as unknown as RequestContext;
}

const MONTH: MetricsArgs[] = [{ month: '2026-11' }, { month: '2026-11', timezone: 'Asia/Kolkata' }, { month: '2026-11', business_id: 1 }];
const SERIES: SeriesArgs[] = ['conversations', 'completed_chats', 'failed_chats', 'average_cost', 'success_rate'].flatMap((metric) => [
  { metric, group_by: 'hour', from: '2026-11-01', to: '2026-11-04' },
  { metric, group_by: 'day', from: '2026-10-30', to: '2026-11-05', timezone: 'Asia/Kolkata' },
  { metric, group_by: 'month', from: '2026-11-01', to: '2026-11-30' },
]);

type Get = (path: string, query: Record<string, string>) => Promise<any>;
const strings = (a: object) => Object.fromEntries(Object.entries(a).map(([k, v]) => [k, String(v)]));

/** Every conversation metric read through `get` equals the service's raw recount of the same moment. */
async function metricsEqualRecount(get: Get): Promise<void> {
  for (const args of MONTH)
    for (const name of ['chats', 'performance', 'overview', 'agents'] as const) {
      const http = await get(`/ai/metrics/${name}`, strings(args));
      expect(http, `${name} ${JSON.stringify(args)}`).toEqual(await service[name](ctx(), args, 'raw'));
    }
  for (const args of SERIES) {
    const http = await get('/ai/metrics/series', strings(args));
    expect(http, JSON.stringify(args)).toEqual(await service.series(ctx(), args, 'raw'));
  }
}

/** Each writer adds messages with usage to its own conversation, then closes it. */
async function write(post: (path: string, body: unknown) => Promise<number>, base: number): Promise<void> {
  await Promise.all(
    Array.from({ length: N }, async (_, j) => {
      const id = base + j;
      for (let k = 0; k < WRITES; k++) {
        const usage = { cost: (j + k + 1) / 1000, response_time_ms: 100 + 37 * j + k, input_tokens: 10, output_tokens: 5 };
        expect(await post(`/ai/conversations/${id}/messages`, { role: 'assistant', content: `reply ${k}`, usage })).toBe(200);
      }
      if (j % 4 !== 3) expect(await post(`/ai/conversations/${id}/close`, { status_reason: REASONS[j % 3] })).toBe(200);
    }),
  );
}

const pending = async () => Number((await db.sql<{ n: string }>('select count(*) n from metrics_conversation_delta'))[0].n);

describe.each(ENGINES)('concurrent writers of one agent (%s)', (engine) => {
  const base = BLOCKS[engine];
  let t: TestApp;
  const get: Get = async (path, query) => {
    const res = await t.api({ path, key: KEYS.server, query });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().result;
  };
  const post = async (path: string, body: unknown) => (await t.api({ method: 'POST', path, key: KEYS.server, body })).statusCode;

  beforeAll(async () => {
    t = await startApp(engine, db);
  });
  afterAll(() => t.close());

  it("a write waits for no other conversation's open transaction, even one in the same rollup buckets", async () => {
    const [held, other] = [base + N, base + N + 1];
    const knex = db.orm.em.getConnection().getKnex();
    const trx = await knex.transaction();
    try {
      // another writer's change of usage and state, not yet committed, on a conversation of the same agent and 15 minutes
      await trx.raw(
        `update ai_conversations set usage = '{"cost": 2, "response_time_ms": 50}', status = 'closed', status_reason = 'failed' where id = ?`,
        [held],
      );
      const bounded = <T>(p: Promise<T>) =>
        Promise.race([
          p,
          new Promise<never>((_, no) => setTimeout(() => no(new Error('the write waited for another conversation')), 10_000)),
        ]);
      expect(
        await bounded(
          post(`/ai/conversations/${other}/messages`, { role: 'assistant', content: 'x', usage: { cost: 1, response_time_ms: 70 } }),
        ),
      ).toBe(200);
      expect(await bounded(post(`/ai/conversations/${other}/close`, { status_reason: 'completed' }))).toBe(200);
      await metricsEqualRecount(get);
    } finally {
      await trx.commit();
    }
    await metricsEqualRecount(get);
  }, 60_000);

  it('N writers on N conversations: metrics equal the raw recount with deltas pending, while compacting, and once compacted', async () => {
    await write(post, base);
    expect(await pending()).toBeGreaterThan(0);
    await metricsEqualRecount(get);

    // the same again while a compactor folds deltas in, reads in between
    await db.sql("update ai_conversations set status = 'active', status_reason = null, closed_at = null where agent_id = ?", [base]);
    const compactor = new MetricsCompactor(db.orm, 0, silent);
    let writing = true;
    const folding = (async () => {
      while (writing) {
        await compactor.pass();
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    try {
      await write(post, base);
      await metricsEqualRecount(get);
    } finally {
      writing = false;
      await folding;
    }
    await metricsEqualRecount(get);

    await compactor.pass();
    expect(await pending()).toBe(0);
    await metricsEqualRecount(get);
  }, 120_000);
});

describe('two serve processes compacting at once', () => {
  it('writers through both, compactors in both: totals stay exact, and every delta is folded once', async () => {
    const base = BLOCKS.processes;
    const env = { METRICS_COMPACT_MS: '20' };
    const servers = await Promise.all([startServe(db.url, env), startServe(db.url, { ...env, GRAPHQL_ENGINE: 'apollo' })]);
    try {
      let n = 0;
      const post = async (path: string, body: unknown) => {
        const s = servers[n++ % 2];
        const res = await fetch(`${s.base}/v400/en/acme${path}`, {
          method: 'POST',
          headers: { 'x-api-key': KEYS.server, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        await res.arrayBuffer();
        return res.status;
      };
      const getFrom =
        (i: number): Get =>
        async (path, query) => {
          const res = await fetch(`${servers[i].base}/v400/en/acme${path}?${new URLSearchParams(query)}`, {
            headers: { 'x-api-key': KEYS.server },
          });
          expect(res.status).toBe(200);
          return ((await res.json()) as any).result;
        };
      await write(post, base);
      await metricsEqualRecount(getFrom(0));
      await metricsEqualRecount(getFrom(1));
      // both compactors drain the deltas (within seconds), and the rollups alone then hold the raw totals
      for (let i = 0; i < 100 && (await pending()) > 0; i++) await new Promise((r) => setTimeout(r, 100));
      expect(await pending()).toBe(0);
      const [rolled] = await db
        .sql<any>(
          `select (select sum(conversations)::text from metrics_conversation_rollup where project_id = ? and grain = g) conversations,
                (select sum(cost)::text from metrics_conversation_rollup where project_id = ? and grain = g) cost,
                (select count(*)::text from ai_conversations where project_id = ?) raw_conversations,
                (select sum(coalesce(metrics_num(usage -> 'cost'), 0))::text from ai_conversations where project_id = ?) raw_cost
           from (values (0), (1), (2), (3), (4)) v(g)`,
          Array(4).fill(projectId),
        )
        .then((rows) => rows.filter((r) => r.conversations !== r.raw_conversations || Number(r.cost) !== Number(r.raw_cost)));
      expect(rolled).toBeUndefined();
      await metricsEqualRecount(getFrom(0));
      await metricsEqualRecount(getFrom(1));
    } finally {
      await stopServe(servers);
    }
  }, 180_000);
});
