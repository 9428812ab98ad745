import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestContext } from '../../src/context/index.js';
import { ensureBenchData, rebuildMetricsRollups } from '../../src/bench-data/seed.js';
import { coverSigned } from '../../src/services/metrics/cover.js';
import { BACKFILL_SQL } from '../../src/db/migrations/Migration20261122000000_metrics_hour_grains.js';
import { MetricsService, type MetricsArgs, type MetricsMode } from '../../src/services/metrics/metrics.service.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture } from '../support/fixtures.js';
import { prng } from '../support/random.js';

/**
 * Property: on random data, the rollup (fast) path of every metric equals the raw-scan
 * reference exactly, for several zones and periods; and it still does after random plain-SQL
 * inserts, updates and deletes of orders, order lines and conversations.
 */

const rnd = prng(5);
const int = (n: number) => Math.floor(rnd() * n);
const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)];

const NOW = Date.now();
const DAY = 86_400_000;
const AGENTS = [
  { id: 1, business_id: 1, name: 'a', provider: 'whatsapp', provider_type: 'chat', provider_external_id: 'a1', enabled: true },
  { id: 2, business_id: 2, name: 'b', provider: 'whatsapp', provider_type: 'voice', provider_external_id: 'a2', enabled: true },
  { id: 3, business_id: 3, name: 'c', provider: 'instagram', provider_type: 'chat', provider_external_id: 'a3', enabled: true },
  { id: 4, business_id: null, name: 'd', provider: 'web', provider_type: 'chat', provider_external_id: 'a4', enabled: true },
  { id: 5, business_id: 1, name: 'e', provider: 'whatsapp', provider_type: 'chat', provider_external_id: 'a5', enabled: true },
];
const BUSINESSES = [1, 2, 3, null];
const STATUSES = [0, 1, 2, 3, 4, 5, 6, 11, 15, 16, 20];
const REASONS = ['completed', 'abandoned', 'failed', null];

let db: TestDatabase;
let projectId: number;
const service = new MetricsService();

function ctx(): RequestContext {
  return {
    requestId: 'property',
    project: { id: projectId, ai_enabled: true },
    caller: { kind: 'server', apiKeyId: 0 },
    em: db.orm.em.fork(),
    lang: 'en',
    ip: '127.0.0.1',
  } as unknown as RequestContext;
}

const ts = () => new Date(NOW - int(95 * DAY)).toISOString();
const sqlStr = (s: string | null) => (s === null ? 'null' : `'${s}'`);
const bizSql = () => String(pick(BUSINESSES));
const json = (o: unknown) => `'${JSON.stringify(o)}'::jsonb`;

function usage() {
  const u: Record<string, unknown> = {};
  if (rnd() < 0.85) u.cost = int(500) / 100;
  if (rnd() < 0.7) u.response_time_ms = rnd() < 0.1 ? String(100 + int(900)) : 100 + int(4000);
  if (rnd() < 0.05) u.cost = 'n/a';
  return u;
}

function summary() {
  const r = rnd();
  if (r < 0.05) return {};
  if (r < 0.08) return { total: 'not a number' };
  if (r < 0.12) return { total: String(int(100000) / 100) };
  return { total: int(100000) / 100 };
}

async function insertConversations(n: number): Promise<void> {
  const rows = Array.from({ length: n }, () => {
    const a = pick(AGENTS);
    const reason = pick(REASONS);
    return `(${projectId}, ${a.id}, null, ${rnd() < 0.8 ? String(a.business_id) : bizSql()}, 'closed', ${sqlStr(reason)}, ${json(usage())}, '${ts()}')`;
  });
  await db.sql(
    `insert into ai_conversations (project_id, agent_id, user_id, business_id, status, status_reason, usage, created_at) values ${rows.join(', ')}`,
  );
}

async function conversationIds(): Promise<number[]> {
  return (await db.sql<{ id: number }>('select id from ai_conversations where project_id = ?', [projectId])).map((r) => r.id);
}

async function insertOrders(n: number): Promise<void> {
  const convIds = await conversationIds();
  const rows = Array.from({ length: n }, () => {
    const conv = rnd() < 0.8 && convIds.length ? String(pick(convIds)) : 'null';
    return `(${projectId}, ${bizSql()}, ${conv}, ${pick(STATUSES)}, ${json(summary())}, '${ts()}')`;
  });
  const ids = await db.sql<{ id: number }>(
    `insert into orders (project_id, business_id, conversation_id, status, summary, created_at) values ${rows.join(', ')} returning id`,
  );
  const lines: string[] = [];
  for (const { id } of ids) {
    const k = 1 + int(4);
    for (let i = 0; i < k; i++) {
      const p = int(25);
      const pid = p === 0 ? 'null' : String(p);
      const name = rnd() < 0.05 ? `Renamed ${p}` : `Product ${p}`;
      lines.push(`(${projectId}, ${id}, ${pid}, '${name}', ${1 + int(5)}, ${(100 + int(2000)) / 100})`);
      if (rnd() < 0.1) lines.push(`(${projectId}, ${id}, ${pid}, '${name}', ${1 + int(3)}, ${(100 + int(2000)) / 100})`); // same product twice
    }
  }
  await db.sql(`insert into order_products (project_id, order_id, product_id, name, quantity, price) values ${lines.join(', ')}`);
}

async function orderIds(): Promise<number[]> {
  return (await db.sql<{ id: number }>('select id from orders where project_id = ?', [projectId])).map((r) => r.id);
}

const some = (ids: number[], n: number) => [...new Set(Array.from({ length: n }, () => pick(ids)))].join(', ');

/** Random plain-SQL changes, as other parts of the platform might make them. */
async function mutate(): Promise<void> {
  const oids = await orderIds();
  const cids = await conversationIds();
  const steps: (() => Promise<unknown>)[] = [
    () => db.sql(`update orders set status = ${pick(STATUSES)} where id in (${some(oids, 25)})`),
    () => db.sql(`update orders set status = (status + 1) % 17 where id in (${some(oids, 25)})`),
    () =>
      db.sql(`update orders set created_at = created_at + interval '${int(48 * 60) - 24 * 60} minutes' where id in (${some(oids, 20)})`),
    () => db.sql(`update orders set business_id = ${bizSql()} where id in (${some(oids, 15)})`),
    () => db.sql(`update orders set conversation_id = null where id in (${some(oids, 10)})`),
    () => db.sql(`update orders set conversation_id = ${pick(cids)} where id in (${some(oids, 10)})`),
    () => db.sql(`update orders set summary = ${json(summary())} where id in (${some(oids, 10)})`),
    () => db.sql(`delete from orders where id in (${some(oids, 10)})`),
    () => insertOrders(20),
    () => insertConversations(10),
    () => db.sql(`update ai_conversations set status_reason = ${sqlStr(pick(REASONS))} where id in (${some(cids, 20)})`),
    () => db.sql(`update ai_conversations set usage = ${json(usage())} where id in (${some(cids, 10)})`),
    () => db.sql(`update ai_conversations set created_at = created_at - interval '${int(3000)} minutes' where id in (${some(cids, 15)})`),
    () => db.sql(`update ai_conversations set agent_id = ${pick(AGENTS).id} where id in (${some(cids, 8)})`),
    () => db.sql(`update ai_conversations set business_id = ${bizSql()} where id in (${some(cids, 8)})`),
    () => db.sql(`delete from ai_conversations where id in (${some(cids, 6)})`),
    () => db.sql(`update order_products set quantity = quantity + 1 where order_id in (${some(oids, 15)})`),
    () =>
      db.sql(
        `update order_products set name = 'Product 1', product_id = 1 where id in (select id from order_products where project_id = ${projectId} order by random() limit 10)`,
      ),
    () =>
      db.sql(
        `delete from order_products where id in (select id from order_products where project_id = ${projectId} order by random() limit 15)`,
      ),
    () =>
      db.sql(
        `update order_products set order_id = ${pick(oids)} where id in (select id from order_products where project_id = ${projectId} order by random() limit 3)`,
      ),
  ];
  for (let i = 0; i < 40; i++) {
    const k = int(steps.length);
    await steps[k]();
    if (process.env.METRICS_DEBUG) {
      try {
        await totalsAgree();
      } catch (e) {
        throw new Error(`step ${k} broke the totals: ${(e as Error).message}`, { cause: e });
      }
    }
  }
}

const ZONES: Omit<MetricsArgs, 'month'>[] = [
  {},
  { timezone: 'Asia/Kolkata' },
  { timezone: 'Asia/Kathmandu' },
  { timezone: 'America/New_York' },
  { timezone: 'Australia/Adelaide' },
  { timezone_offset: -12 },
  { timezone_offset: 14 },
];
const monthOf = (ms: number) => new Date(ms).toISOString().slice(0, 7);
const MONTHS = [...new Set([monthOf(NOW - 62 * DAY), monthOf(NOW - 31 * DAY), monthOf(NOW)]), undefined];
const FILTERS: MetricsArgs[] = [{}, { business_id: 1 }, { franchise_id: 1 }];
const ENDPOINTS = ['agents', 'chats', 'orders', 'overview', 'performance', 'products'] as const;

async function compareAll(only?: { zones: typeof ZONES; filters: MetricsArgs[] }): Promise<number> {
  let compared = 0;
  for (const zone of only?.zones ?? ZONES)
    for (const month of MONTHS)
      for (const filter of only?.filters ?? FILTERS) {
        const args: MetricsArgs = { ...zone, ...filter, month };
        for (const endpoint of ENDPOINTS) {
          const run = (mode: MetricsMode) =>
            (service[endpoint] as (c: RequestContext, a: MetricsArgs, m: MetricsMode) => Promise<unknown>)(ctx(), args, mode);
          const [fast, raw] = await Promise.all([run('rollup'), run('raw')]);
          expect(fast, `${endpoint} ${JSON.stringify(args)}`).toEqual(raw);
          compared++;
        }
      }
  return compared;
}

/** Folds every pending conversation delta into the rollups, as the compactor of `serve` does. */
async function compact(): Promise<void> {
  for (;;) {
    const [{ moved }] = await db.sql<{ moved: number }>('select metrics_compact_conversations(1000) as moved');
    if (Number(moved) < 1000) return;
  }
}

/** Whole-table invariants: the rollups' totals equal the raw tables' totals. */
async function totalsAgree(): Promise<void> {
  // the order rollups are read directly: fold the pending order deltas first, as the compactor would
  await compact();
  const [o] = await db.sql<any>(
    `select (select coalesce(sum(orders), 0)::text from metrics_order_rollup where project_id = ? and grain = 0) r0,
            (select coalesce(sum(orders), 0)::text from metrics_order_rollup where project_id = ? and grain = 1) r1,
            (select coalesce(sum(orders), 0)::text from metrics_order_rollup where project_id = ? and grain = 3) r3,
            (select coalesce(sum(orders), 0)::text from metrics_order_rollup where project_id = ? and grain = 4) r4,
            (select count(*)::text from orders o join ai_conversations c on c.id = o.conversation_id where o.project_id = ?) raw,
            (select coalesce(sum(times_sold), 0)::text from metrics_product_rollup where project_id = ? and grain = 1) p1,
            (select coalesce(sum(op.quantity), 0)::text from order_products op join orders o on o.id = op.order_id
               join ai_conversations c on c.id = o.conversation_id where o.project_id = ?) praw,
            (select (coalesce(sum(conversations), 0) + (select coalesce(sum(conversations), 0) from metrics_conversation_delta where project_id = ?))::text
               from metrics_conversation_rollup where project_id = ? and grain = 0) c0,
            (select (coalesce(sum(conversations), 0) + (select coalesce(sum(conversations), 0) from metrics_conversation_delta where project_id = ?))::text
               from metrics_conversation_rollup where project_id = ? and grain = 3) c3,
            (select (coalesce(sum(conversations), 0) + (select coalesce(sum(conversations), 0) from metrics_conversation_delta where project_id = ?))::text
               from metrics_conversation_rollup where project_id = ? and grain = 4) c4,
            (select count(*)::text from ai_conversations where project_id = ?) craw`,
    Array(14).fill(projectId),
  );
  expect(o.r0).toBe(o.raw);
  expect(o.r1).toBe(o.raw);
  expect(o.r3).toBe(o.raw);
  expect(o.r4).toBe(o.raw);
  expect(o.p1).toBe(o.praw);
  expect(o.c0).toBe(o.craw);
  expect(o.c3).toBe(o.craw);
  expect(o.c4).toBe(o.craw);
  await seriesRollupsFollow();
}

/** The narrow rollups of the series equal the wide rollups summed over agent and status, row for row. */
async function seriesRollupsFollow(): Promise<void> {
  for (const [narrow, wide, keys, values] of [
    ['metrics_order_series', 'metrics_order_rollup', 'business_id', ['orders', 'revenue']],
    ['metrics_conversation_series', 'metrics_conversation_rollup', 'business_id, state', ['conversations', 'cost']],
  ] as const) {
    const key = `project_id, grain, bucket, ${keys}`;
    const nonzero = values.map((v) => `${v} <> 0`).join(' or ');
    const [{ differ }] = await db.sql<{ differ: number }>(
      `select count(*)::int as differ from (
         (select ${key}, ${values.join(', ')} from ${narrow} where ${nonzero}
          except all
          select ${key}, ${values.map((v) => `sum(${v})`).join(', ')} from ${wide} group by ${key} having ${values.map((v) => `sum(${v}) <> 0`).join(' or ')})
         union all
         (select ${key}, ${values.map((v) => `sum(${v})`).join(', ')} from ${wide} group by ${key} having ${values.map((v) => `sum(${v}) <> 0`).join(' or ')}
          except all
          select ${key}, ${values.join(', ')} from ${narrow} where ${nonzero})) d`,
    );
    expect(differ, narrow).toBe(0);
  }
}

beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(baseFixture({ agents: AGENTS }));
  [{ id: projectId }] = await db.sql<{ id: number }>("select id from projects where code = 'acme'");
  await insertConversations(300);
  await insertOrders(600);
}, 120_000);
afterAll(() => db.orm.close());

describe('metrics rollups equal the raw-scan reference', () => {
  it('covers a half-hour-zone month with one month bucket and, at each edge, a 6-hour block and two quarter-hours', () => {
    const parts = coverSigned(Date.parse('2026-09-30T18:30:00Z'), Date.parse('2026-10-31T18:30:00Z'));
    expect(parts.filter((p) => p.grain === 2)).toEqual([
      { grain: 2, start: Date.parse('2026-10-01T00:00:00Z'), end: Date.parse('2026-11-01T00:00:00Z'), sign: 1 },
    ]);
    expect(parts.some((p) => p.sign === -1)).toBe(true);
    // Each 5.5-hour edge is one 6-hour block minus the two quarter-hours of the half hour, not 22 quarter-hours.
    const span = (grain: number, ms: number) => parts.filter((p) => p.grain === grain).reduce((n, p) => n + (p.end - p.start) / ms, 0);
    expect(span(0, 900_000)).toBe(4);
    expect(span(4, 6 * 3_600_000)).toBe(2);
    // The signed parts add up to exactly the range, bucket by bucket.
    const weight = new Map<number, number>();
    for (const p of parts) {
      for (let t = p.start; t < p.end; t += 900_000) weight.set(t, (weight.get(t) ?? 0) + p.sign);
    }
    for (const [t, w] of weight)
      expect(w, new Date(t).toISOString()).toBe(t >= Date.parse('2026-09-30T18:30:00Z') && t < Date.parse('2026-10-31T18:30:00Z') ? 1 : 0);
  });

  it('on random data, for every endpoint, zone, period and filter', async () => {
    await totalsAgree();
    expect(await compareAll()).toBe(ZONES.length * MONTHS.length * FILTERS.length * ENDPOINTS.length);
    const [{ n }] = await db.sql<{ n: string }>('select count(*)::text n from metrics_order_state');
    expect(Number(n)).toBeGreaterThan(300);
  }, 120_000);

  for (let round = 1; round <= 3; round++) {
    it(`after random plain-SQL inserts, updates and deletes (round ${round})`, async () => {
      await mutate();
      // the conversation changes wait as deltas: reads add them; then the same once they are folded in
      expect(Number((await db.sql<{ n: string }>('select count(*) n from metrics_conversation_delta'))[0].n)).toBeGreaterThan(0);
      await totalsAgree();
      await compareAll();
      await compact();
      await totalsAgree();
      await compareAll({ zones: [{}, { timezone: 'Asia/Kolkata' }], filters: [{}, { business_id: 1 }] });
    }, 120_000);
  }

  it('after a provider_type change of an agent (resolved at query time)', async () => {
    await db.sql("update ai_agents set provider_type = 'voice' where id = 5");
    await compareAll();
  }, 120_000);

  it('after a bulk multi-statement transaction', async () => {
    await db.orm.em.getConnection().transactional(async (tx) => {
      const conn = db.orm.em.getConnection();
      await conn.execute(`update orders set status = 1 where project_id = ? and id % 3 = 0`, [projectId], 'run', tx);
      await conn.execute(`delete from orders where project_id = ? and id % 7 = 0`, [projectId], 'run', tx);
      await conn.execute(
        `update ai_conversations set status_reason = 'failed' where project_id = ? and id % 5 = 0`,
        [projectId],
        'run',
        tx,
      );
    });
    await totalsAgree();
    await compareAll();
  }, 120_000);

  it('the set-based rebuild (used after bulk loads) produces exactly what the triggers keep', async () => {
    const snapshot = async () => {
      await compact();
      const rows = await db.sql<any>(
        `select 'o' t, grain, bucket::text, business_id, agent_id::text k, status_group::text s, orders::text a, revenue::text b, '' c, '' d
           from metrics_order_rollup where project_id = ? and (orders <> 0 or revenue <> 0)
         union all
         select 'p', grain, bucket::text, business_id, product_id::text, name, times_sold::text, orders::text, revenue::text, ''
           from metrics_product_rollup where project_id = ? and (times_sold <> 0 or orders <> 0 or revenue <> 0)
         union all
         select 'c', grain, bucket::text, business_id, agent_id::text, state::text, conversations::text, cost::text, rt_sum::text, rt_count::text
           from metrics_conversation_rollup where project_id = ? and (conversations <> 0 or cost <> 0 or rt_sum <> 0 or rt_count <> 0)
         union all
         select 's', 0, created_at::text, business_id, order_id::text, status_group::text, agent_id::text, total::text, '', ''
           from metrics_order_state where project_id = ?`,
        Array(4).fill(projectId),
      );
      const norm = (v: string) => (/^-?[0-9]+\.[0-9]+$/.test(v) ? String(Number(v)) : v);
      return rows
        .map((r: any) =>
          Object.values(r)
            .map((v) => norm(String(v)))
            .join('|'),
        )
        .sort();
    };
    const byTriggers = await snapshot();
    for (const grain of [3, 4]) expect(byTriggers.filter((r) => r.startsWith(`o|${grain}|`)).length).toBeGreaterThan(0);
    await rebuildMetricsRollups(db.orm, projectId);
    expect(await snapshot()).toEqual(byTriggers);
    // The hour grains' migration backfills them from the 15-minute rows: the same rows again.
    await db.sql('delete from metrics_order_rollup where grain in (3, 4)');
    await db.sql('delete from metrics_product_rollup where grain in (3, 4)');
    await db.sql('delete from metrics_conversation_rollup where grain in (3, 4)');
    expect(await snapshot()).not.toEqual(byTriggers);
    for (const sql of BACKFILL_SQL) await db.sql(sql);
    expect(await snapshot()).toEqual(byTriggers);
  }, 120_000);

  it('seed-bench: deterministic, resumable, rollups equal to the reference', async () => {
    const first = await ensureBenchData(db.orm, 1500);
    expect(first).toMatchObject({ orders: 1500, inserted: 1500, rebuilt: true });
    const again = await ensureBenchData(db.orm, 1500);
    expect(again).toMatchObject({ orders: 1500, inserted: 0, rebuilt: false });
    const more = await ensureBenchData(db.orm, 2500);
    expect(more).toMatchObject({ orders: 2500, inserted: 1000 });
    const [{ lines }] = await db.sql<any>(
      "select count(*)::int lines from order_products op join orders o on o.id = op.order_id join projects p on p.id = o.project_id where p.code = 'bench-metrics'",
    );
    expect(lines).toBeGreaterThanOrEqual(2500 * 2);
    expect(lines).toBeLessThanOrEqual(2500 * 4);
    const saved = projectId;
    [{ id: projectId }] = await db.sql<{ id: number }>("select id from projects where code = 'bench-metrics'");
    try {
      await totalsAgree();
      await compareAll({ zones: [{}, { timezone: 'Asia/Kolkata' }], filters: [{}, { franchise_id: 900001 }] });
    } finally {
      projectId = saved;
    }
  }, 120_000);

  it('after TRUNCATE of the source tables (last: it empties every project)', async () => {
    await db.sql('truncate order_products');
    await totalsAgree();
    await compareAll({ zones: [{}, { timezone: 'Asia/Kolkata' }], filters: [{}] });
    await db.sql('truncate ai_conversations cascade');
    await totalsAgree();
    await compareAll({ zones: [{}, { timezone: 'Asia/Kolkata' }], filters: [{}] });
    const [{ n }] = await db.sql<{ n: string }>(
      'select (select count(*) from metrics_order_rollup) + (select count(*) from metrics_conversation_rollup) n',
    );
    expect(Number(n)).toBe(0);
  }, 120_000);
});
