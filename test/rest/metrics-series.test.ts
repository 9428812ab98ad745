import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';
import { prng } from '../support/random.js';

/**
 * GET /ai/metrics/series (CONTRACT §9.5) against the single-period metrics (§6.3) and against
 * an independent reference computed here with Intl from the fixture rows: zones UTC,
 * Asia/Kolkata (+05:30), Europe/Madrid across both 2026 DST changes (Mar 29, Oct 25) and a
 * fixed offset; rows are placed on purpose at local midnights and DST edges.
 */
const rnd = prng(20261123);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];

const AGENTS = [
  { id: 1, business_id: 1, name: 'WA chat', provider: 'whatsapp', provider_type: 'chat', provider_external_id: 'wa-chat', enabled: true },
  { id: 2, business_id: 2, name: 'Web chat', provider: 'web', provider_type: 'chat', provider_external_id: 'web-chat', enabled: true },
];
const EDGES = [
  // Madrid: local midnights in winter (23:00Z) and summer (22:00Z), the DST hours themselves
  '2026-03-28T23:00:00Z',
  '2026-03-28T22:59:59Z',
  '2026-03-29T00:59:59Z',
  '2026-03-29T01:00:00Z',
  '2026-03-29T21:59:59Z',
  '2026-03-29T22:00:00Z',
  '2026-10-24T21:59:59Z',
  '2026-10-24T22:00:00Z',
  '2026-10-25T00:30:00Z',
  '2026-10-25T01:30:00Z',
  '2026-10-25T22:59:59Z',
  '2026-10-25T23:00:00Z',
  '2026-03-31T21:59:59Z',
  '2026-03-31T22:00:00Z',
  '2026-10-31T22:59:59Z',
  '2026-10-31T23:00:00Z',
  '2026-02-28T22:59:59Z',
  '2026-02-28T23:00:00Z',
  // Kolkata local midnights (18:30Z), UTC midnights, offset −5 midnights (05:00Z)
  '2026-03-28T18:29:59Z',
  '2026-03-28T18:30:00Z',
  '2026-03-31T18:30:00Z',
  '2026-02-28T18:29:00Z',
  '2026-10-31T18:30:00Z',
  '2026-09-30T18:29:00Z',
  '2026-03-01T00:00:00Z',
  '2026-02-28T23:59:59Z',
  '2026-04-01T00:00:00Z',
  '2026-10-01T00:00:00Z',
  '2026-11-01T00:00:00Z',
  '2026-10-31T23:59:59Z',
  '2026-03-01T05:00:00Z',
  '2026-03-01T04:59:59Z',
  '2026-04-01T05:00:00Z',
  '2026-10-01T05:00:00Z',
  '2026-11-01T05:00:00Z',
];
const SPANS: [string, string][] = [
  ['2026-02-25T00:00:00Z', '2026-04-04T00:00:00Z'],
  ['2026-09-27T00:00:00Z', '2026-11-04T00:00:00Z'],
];
function timestamps(n: number): string[] {
  const out = [...EDGES];
  for (let i = 0; i < n; i++) {
    const [a, b] = pick(SPANS).map(Date.parse);
    out.push(new Date(a + Math.floor((rnd() * (b - a)) / 1000) * 1000).toISOString());
  }
  return out;
}

interface Conv {
  id: number;
  agent_id: number;
  business_id: number;
  status: string;
  status_reason: string | null;
  usage: { cost?: number };
  cents: number;
  created_at: string;
}
const convs: Conv[] = timestamps(260).map((created_at, i) => {
  const agent = pick(AGENTS);
  const closed = rnd() < 0.9;
  const cents = rnd() < 0.85 ? Math.floor(rnd() * 400) : 0;
  return {
    id: i + 1,
    agent_id: agent.id,
    business_id: agent.business_id,
    // active ones: user-less, contact-less conversations may not share (agent, user): give each its own closed twin
    status: closed ? 'closed' : 'active',
    status_reason: closed ? pick(['completed', 'completed', 'abandoned', 'failed', null]) : null,
    usage: cents ? { cost: cents / 100 } : {},
    cents,
    created_at,
  };
});
// one active conversation per agent without a user is allowed: keep only the first active per agent
const seenActive = new Set<number>();
for (const c of convs)
  if (c.status === 'active') {
    if (seenActive.has(c.agent_id)) {
      c.status = 'closed';
      c.status_reason = 'abandoned';
    }
    seenActive.add(c.agent_id);
  }

interface Ord {
  id: number;
  business_id: number;
  conversation_id: number | null;
  status: number;
  cents: number;
  created_at: string;
}
const orders: Ord[] = timestamps(420).map((created_at, i) => ({
  id: i + 1,
  business_id: pick([1, 2, 3]),
  conversation_id: rnd() < 0.8 ? pick(convs).id : null,
  status: pick([0, 1, 2, 5, 11]),
  cents: 100 + Math.floor(rnd() * 9900),
  created_at,
}));

// ---- the reference: local calendar units with Intl, independent of the service -------------

const fmt = new Map<string, Intl.DateTimeFormat>();
function wall(zone: string | number, ms: number): { y: number; m: number; d: number; h: number } {
  if (typeof zone === 'number') {
    const t = new Date(ms + zone * 3_600_000);
    return { y: t.getUTCFullYear(), m: t.getUTCMonth() + 1, d: t.getUTCDate(), h: t.getUTCHours() };
  }
  let f = fmt.get(zone);
  if (!f)
    fmt.set(
      zone,
      (f = new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
      })),
    );
  const p = Object.fromEntries(f.formatToParts(new Date(ms)).map((x) => [x.type, Number(x.value)]));
  return { y: p.year, m: p.month, d: p.day, h: p.hour };
}
const dayKey = (w: { y: number; m: number; d: number }) => `${w.y}-${String(w.m).padStart(2, '0')}-${String(w.d).padStart(2, '0')}`;
const r2 = (x: number) => (x < 0 ? -1 : 1) * Number(`${Math.round(Number(`${Math.abs(x)}e2`))}e-2`);
const div = (a: number, b: number) => (b === 0 ? 0 : a / b);

type Metric =
  | 'orders'
  | 'revenue'
  | 'conversations'
  | 'completed_chats'
  | 'abandoned_chats'
  | 'failed_chats'
  | 'success_rate'
  | 'average_cost'
  | 'conversion_rate';
const METRICS: Metric[] = [
  'orders',
  'revenue',
  'conversations',
  'completed_chats',
  'abandoned_chats',
  'failed_chats',
  'success_rate',
  'average_cost',
  'conversion_rate',
];

/** §6.3 applied to the rows whose local day satisfies `inBucket`. */
function referenceValue(metric: Metric, inBucket: (ms: number) => boolean, biz: number[] | null = null): number {
  const ok = (b: number | null) => biz === null || (b !== null && biz.includes(b));
  const os = orders.filter((o) => o.conversation_id !== null && ok(o.business_id) && inBucket(Date.parse(o.created_at)));
  const cs = convs.filter((c) => ok(c.business_id) && inBucket(Date.parse(c.created_at)));
  const reason = (r: string) => cs.filter((c) => c.status === 'closed' && c.status_reason === r).length;
  const cost = cs.reduce((a, c) => a + c.cents, 0) / 100;
  switch (metric) {
    case 'orders':
      return os.length;
    case 'revenue':
      return r2(os.reduce((a, o) => a + o.cents, 0) / 100);
    case 'conversations':
      return cs.length;
    case 'completed_chats':
      return reason('completed');
    case 'abandoned_chats':
      return reason('abandoned');
    case 'failed_chats':
      return reason('failed');
    case 'success_rate':
      return r2(div(reason('completed'), cs.length) * 100);
    case 'average_cost':
      return r2(div(cost, cs.length));
    case 'conversion_rate':
      return r2(div(os.length, cs.length) * 100);
  }
}

const ZONES: { name: string; query: Record<string, string>; zone: string | number; echo: string }[] = [
  { name: 'UTC', query: {}, zone: 'UTC', echo: 'UTC' },
  { name: 'Asia/Kolkata', query: { timezone: 'Asia/Kolkata' }, zone: 'Asia/Kolkata', echo: 'Asia/Kolkata' },
  { name: 'Europe/Madrid', query: { timezone: 'Europe/Madrid' }, zone: 'Europe/Madrid', echo: 'Europe/Madrid' },
  { name: 'offset -5', query: { timezone_offset: '-5' }, zone: -5, echo: 'UTC-05:00' },
];
const MONTHS = [
  { month: '2026-03', from: '2026-03-01', to: '2026-03-31', days: 31 },
  { month: '2026-10', from: '2026-10-01', to: '2026-10-31', days: 31 },
];

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  const fixture = baseFixture({
    agents: AGENTS,
    conversations: convs.map(({ cents: _c, ...c }) => ({ ...c, closed_at: c.status === 'closed' ? c.created_at : null })),
    orders: orders.map(({ cents, ...o }) => ({
      ...o,
      customer_id: 3,
      summary: { total: cents / 100 },
      products: [{ product_id: 1, name: 'P', quantity: 1, price: cents / 100 }],
    })),
  });
  await db.load(fixture);
}, 60_000);
afterAll(() => db.orm.close());

describe.each(ENGINES)('GET /ai/metrics/series (%s)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(engine, db);
  });
  afterAll(() => t.close());

  const get = async (path: string, query: Record<string, string>, status = 200) => {
    const res = await t.api({ path: `/ai/metrics/${path}`, key: KEYS.server, query });
    expect(res.statusCode, res.body).toBe(status);
    return res.json();
  };
  const series = async (query: Record<string, string>) => (await get('series', query)).result;

  describe.each(ZONES)('$name', ({ query: zq, zone, echo }) => {
    it.each(MONTHS)(
      '$month: day points equal the reference per local day, and sum to the month of /orders, /chats',
      async ({ month, from, to, days }) => {
        const [orderM, chatM] = [(await get('orders', { month, ...zq })).result, (await get('chats', { month, ...zq })).result];
        const sums: Record<string, number> = {};
        for (const metric of METRICS) {
          const r = await series({ metric, group_by: 'day', from, to, ...zq });
          expect(r.metric).toBe(metric);
          expect(r.group_by).toBe('day');
          expect(r.timezone).toBe(echo);
          expect(r.points).toHaveLength(days);
          for (const [i, p] of r.points.entries()) {
            const day = `${month}-${String(i + 1).padStart(2, '0')}`;
            expect(p.start.slice(0, 19)).toBe(`${day}T00:00:00`);
            expect(p.value, `${metric} ${day}`).toBe(referenceValue(metric, (ms) => dayKey(wall(zone, ms)) === day));
          }
          sums[metric] = r.points.reduce((a: number, p: { value: number }) => a + p.value, 0);
        }
        expect(sums.orders).toBe(orderM.total_orders.current);
        expect(r2(sums.revenue)).toBe(orderM.total_revenue.current);
        expect(sums.conversations).toBe(chatM.total_chats.current);
        expect(sums.completed_chats).toBe(chatM.completed_chats.current);
        expect(sums.abandoned_chats).toBe(chatM.abandoned_chats.current);
        expect(sums.failed_chats).toBe(chatM.failed_chats.current);
        expect(sums.orders).toBeGreaterThan(20); // the month is not trivially empty
      },
    );

    it.each(MONTHS)(
      '$month: the month point equals /orders, /chats and /performance for that month, to the cent',
      async ({ month, from, to }) => {
        const o = (await get('orders', { month, ...zq })).result;
        const c = (await get('chats', { month, ...zq })).result;
        const perf = (await get('performance', { month, ...zq })).result;
        const expected: Record<Metric, number> = {
          orders: o.total_orders.current,
          revenue: o.total_revenue.current,
          conversations: c.total_chats.current,
          completed_chats: c.completed_chats.current,
          abandoned_chats: c.abandoned_chats.current,
          failed_chats: c.failed_chats.current,
          success_rate: c.success_rate.current,
          average_cost: perf.average_cost.current,
          conversion_rate: perf.conversion_rate.current,
        };
        for (const metric of METRICS) {
          const r = await series({ metric, group_by: 'month', from, to, ...zq });
          expect(r.points).toHaveLength(1);
          expect(r.points[0].start.slice(0, 19)).toBe(`${from}T00:00:00`);
          expect(r.points[0].value, metric).toBe(expected[metric]);
          expect(r.points[0].value, metric).toBe(referenceValue(metric, (ms) => dayKey(wall(zone, ms)).startsWith(month)));
        }
      },
    );

    it('ISO weeks start on Monday; partial weeks count only their days inside the range', async () => {
      // 2026-03-04 is a Wednesday; 2026-04-02 a Thursday
      for (const metric of ['orders', 'revenue', 'success_rate'] as Metric[]) {
        const r = await series({ metric, group_by: 'week', from: '2026-03-04', to: '2026-04-02', ...zq });
        expect(r.points.map((p: { start: string }) => p.start.slice(0, 10))).toEqual([
          '2026-03-02',
          '2026-03-09',
          '2026-03-16',
          '2026-03-23',
          '2026-03-30',
        ]);
        for (const [i, p] of r.points.entries()) {
          const monday = Date.UTC(2026, 2, 2 + 7 * i);
          const inside = (ms: number) => {
            const k = dayKey(wall(zone, ms));
            const d = Date.parse(`${k}T00:00:00Z`);
            return d >= monday && d < monday + 7 * 86_400_000 && k >= '2026-03-04' && k <= '2026-04-02';
          };
          expect(p.value, `${metric} week ${i}`).toBe(referenceValue(metric, inside));
        }
      }
    });
  });

  it('Europe/Madrid: 23 hour points on 2026-03-29 and 25 on 2026-10-25, real hours, summing to the day', async () => {
    const madrid = { timezone: 'Europe/Madrid' };
    const spring = await series({ metric: 'orders', group_by: 'hour', from: '2026-03-29', to: '2026-03-29', ...madrid });
    expect(spring.points).toHaveLength(23);
    expect(spring.points.slice(0, 3).map((p: { start: string }) => p.start)).toEqual([
      '2026-03-29T00:00:00+01:00',
      '2026-03-29T01:00:00+01:00',
      '2026-03-29T03:00:00+02:00',
    ]);
    expect(spring.points[22].start).toBe('2026-03-29T23:00:00+02:00');
    const autumn = await series({ metric: 'orders', group_by: 'hour', from: '2026-10-25', to: '2026-10-25', ...madrid });
    expect(autumn.points).toHaveLength(25);
    expect(autumn.points.slice(1, 4).map((p: { start: string }) => p.start)).toEqual([
      '2026-10-25T01:00:00+02:00',
      '2026-10-25T02:00:00+02:00',
      '2026-10-25T02:00:00+01:00',
    ]);
    for (const [r, day] of [
      [spring, '2026-03-29'],
      [autumn, '2026-10-25'],
    ] as const) {
      for (const p of r.points) {
        const start = Date.parse(p.start);
        expect(p.value, p.start).toBe(referenceValue('orders', (ms) => ms >= start && ms < start + 3_600_000));
      }
      const d = await series({ metric: 'orders', group_by: 'day', from: day, to: day, ...madrid });
      expect(r.points.reduce((a: number, p: { value: number }) => a + p.value, 0)).toBe(d.points[0].value);
    }
    const days = await series({ metric: 'conversations', group_by: 'day', from: '2026-03-28', to: '2026-03-30', ...madrid });
    expect(days.points.map((p: { start: string }) => p.start)).toEqual([
      '2026-03-28T00:00:00+01:00',
      '2026-03-29T00:00:00+01:00',
      '2026-03-30T00:00:00+02:00',
    ]);
  });

  it('Asia/Kolkata hours start at :30 UTC and count the half hours correctly', async () => {
    const r = await series({ metric: 'conversations', group_by: 'hour', from: '2026-03-29', to: '2026-03-29', timezone: 'Asia/Kolkata' });
    expect(r.points).toHaveLength(24);
    expect(r.points[0].start).toBe('2026-03-29T00:00:00+05:30');
    for (const p of r.points) {
      const start = Date.parse(p.start);
      expect(p.value, p.start).toBe(referenceValue('conversations', (ms) => ms >= start && ms < start + 3_600_000));
    }
  });

  it('business_id and franchise_id restrict the series; zero-filled empty buckets', async () => {
    const b = await series({ metric: 'revenue', group_by: 'month', from: '2026-03-01', to: '2026-03-31', business_id: '2' });
    expect(b.points[0].value).toBe(referenceValue('revenue', (ms) => dayKey(wall('UTC', ms)).startsWith('2026-03'), [2]));
    const f = await series({ metric: 'orders', group_by: 'month', from: '2026-10-01', to: '2026-10-31', franchise_id: '1' });
    expect(f.points[0].value).toBe(referenceValue('orders', (ms) => dayKey(wall('UTC', ms)).startsWith('2026-10'), [1, 2]));
    expect(f.points[0].value).toBeGreaterThan(0);
    const empty = await series({ metric: 'success_rate', group_by: 'month', from: '2025-01-01', to: '2025-12-31' });
    expect(empty.points).toHaveLength(12);
    expect(empty.points.every((p: { value: number }) => p.value === 0)).toBe(true);
    const res = await t.api({
      path: '/ai/metrics/series',
      key: KEYS.server,
      query: { metric: 'orders', group_by: 'day', from: '2026-03-01', to: '2026-03-02', business_id: '101' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('ERROR_BUSINESS_NOT_FOUND');
  });

  const ok = { metric: 'orders', group_by: 'day', from: '2026-03-01', to: '2026-03-31' };
  it.each([
    ['metric', { ...ok, metric: 'profit' }],
    ['metric', { group_by: 'day', from: '2026-03-01', to: '2026-03-31' }],
    ['group_by', { ...ok, group_by: 'year' }],
    ['from', { ...ok, from: '2026-02-30' }],
    ['from', { ...ok, from: '01/03/2026' }],
    ['to', { ...ok, to: undefined }],
    ['to', { ...ok, from: '2026-03-02', to: '2026-03-01' }],
    ['to', { ...ok, group_by: 'hour', from: '2026-03-01', to: '2026-04-01' }],
    ['to', { ...ok, group_by: 'day', from: '2026-01-01', to: '2027-01-02' }],
    ['to', { ...ok, group_by: 'week', from: '2026-01-01', to: '2027-01-02' }],
    ['to', { ...ok, group_by: 'month', from: '2026-01-01', to: '2031-01-01' }],
    ['timezone', { ...ok, timezone: 'Mars/Olympus' }],
    ['timezone_offset', { ...ok, timezone_offset: '15' }],
  ])('400 ERROR_VALIDATION naming %s for %j', async (field, query) => {
    const q = Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined)) as Record<string, string>;
    const body = await get('series', q, 400);
    expect(body).toMatchObject({ error: true, code: 'ERROR_VALIDATION' });
    expect(body.result.join(' ')).toContain(field);
  });

  it('the longest ranges are accepted', async () => {
    expect((await series({ ...ok, group_by: 'hour', from: '2026-03-01', to: '2026-03-31' })).points).toHaveLength(31 * 24);
    expect(
      (await series({ ...ok, group_by: 'hour', from: '2026-03-01', to: '2026-03-31', timezone: 'Europe/Madrid' })).points,
    ).toHaveLength(31 * 24 - 1);
    expect((await series({ ...ok, group_by: 'day', from: '2026-01-01', to: '2027-01-01' })).points).toHaveLength(366);
    expect((await series({ ...ok, group_by: 'week', from: '2026-01-01', to: '2027-01-01', timezone: 'Asia/Kolkata' })).points).toHaveLength(
      53,
    );
    expect((await series({ ...ok, group_by: 'month', from: '2026-01-15', to: '2031-01-14' })).points).toHaveLength(61);
  });
});
