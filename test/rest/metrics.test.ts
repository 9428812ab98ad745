import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS, USERS } from '../support/fixtures.js';
import { prng } from '../support/random.js';

// ---- fixture data: seeded, spread over Aug–Nov 2026 and over the last 34 hours ------------

const rnd = prng(20261121);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];

const AGENTS = [
  { id: 1, business_id: 1, name: 'WA chat', provider: 'whatsapp', provider_type: 'chat', provider_external_id: 'wa-chat' },
  { id: 2, business_id: 2, name: 'WA voice', provider: 'whatsapp', provider_type: 'voice', provider_external_id: 'wa-voice' },
  { id: 3, business_id: 3, name: 'IG chat', provider: 'instagram', provider_type: 'chat', provider_external_id: 'ig-chat' },
  { id: 4, business_id: 1, name: 'Web chat', provider: 'web', provider_type: 'chat', provider_external_id: 'web-chat' },
];
const agentById = new Map(AGENTS.map((a) => [a.id, a]));
const CATALOG = Array.from({ length: 14 }, (_, i) => ({ product_id: i + 1, name: `Product ${i + 1}`, cents: 150 + 75 * (i % 5) }));
const ORDER_STATUSES = [0, 1, 1, 2, 3, 5, 7, 11, 15, 16];
const BUSINESSES: (number | null)[] = [1, 1, 2, 3, null];

interface Conv {
  id: number;
  agent_id: number;
  user_id: number | null;
  business_id: number | null;
  status: 'active' | 'closed';
  status_reason: string | null;
  usage: { cost?: number; response_time_ms?: number };
  created_at: string;
  closed_at: string | null;
}
interface Line {
  product_id: number;
  name: string;
  quantity: number;
  price: number;
  cents: number;
}
interface Ord {
  id: number;
  business_id: number | null;
  customer_id: number;
  conversation_id: number | null;
  status: number;
  summary: { total: number };
  cents: number;
  created_at: string;
  products: Line[];
}

const MONTH_START = Date.parse('2026-08-28T00:00:00Z');
const MONTH_SPAN = Date.parse('2026-11-04T00:00:00Z') - MONTH_START;
const NOW = Date.now();
// Edges of the zones used below, so boundaries are exercised on purpose.
const EDGES = [
  '2026-08-31T18:29:00Z',
  '2026-08-31T18:30:00Z',
  '2026-09-30T18:29:59Z',
  '2026-09-30T18:30:00Z',
  '2026-09-30T20:59:00Z',
  '2026-09-30T21:00:00Z',
  '2026-10-01T03:59:00Z',
  '2026-10-01T04:00:00Z',
  '2026-10-01T04:59:00Z',
  '2026-10-01T05:00:00Z',
  '2026-10-31T18:29:00Z',
  '2026-10-31T18:30:00Z',
  '2026-10-31T23:59:59Z',
  '2026-11-01T00:00:00Z',
  '2026-11-01T03:59:00Z',
  '2026-11-01T04:00:00Z',
  '2026-11-01T04:59:00Z',
  '2026-11-01T05:00:00Z',
  '2026-09-30T18:14:00Z',
  '2026-09-30T18:15:00Z',
];

function timestamps(n: number): string[] {
  const out = [...EDGES];
  for (let i = 0; i < n; i++) out.push(new Date(MONTH_START + Math.floor((rnd() * MONTH_SPAN) / 1000) * 1000).toISOString());
  // The last 34 hours, for the current-day cases (never in the future).
  for (let i = 0; i < 60; i++) out.push(new Date(NOW - 60_000 - Math.floor(rnd() * 34 * 3600) * 1000).toISOString());
  return out;
}

const convs: Conv[] = [];
const activePairs = new Set<string>();
for (const [i, created_at] of timestamps(120).entries()) {
  const agent = pick(AGENTS);
  let status: Conv['status'] = 'closed';
  let user_id: number | null = null;
  if (rnd() < 0.3) {
    const user = pick([USERS.admin, USERS.owner, USERS.customer, USERS.cityManager, USERS.owner2]);
    if (!activePairs.has(`${agent.id}:${user}`)) {
      activePairs.add(`${agent.id}:${user}`);
      status = 'active';
      user_id = user;
    }
  }
  const usage: Conv['usage'] = {};
  if (rnd() < 0.9) usage.cost = Math.round(rnd() * 300) / 100;
  if (rnd() < 0.8) usage.response_time_ms = 200 + Math.floor(rnd() * 3000);
  convs.push({
    id: i + 1,
    agent_id: agent.id,
    user_id,
    business_id: rnd() < 0.8 ? agent.business_id : pick(BUSINESSES),
    status,
    status_reason: status === 'active' ? null : pick(['completed', 'completed', 'abandoned', 'failed']),
    usage,
    created_at,
    closed_at: status === 'active' ? null : created_at,
  });
}

const orders: Ord[] = [];
for (const [i, created_at] of timestamps(220).entries()) {
  const lines: Line[] = [];
  const n = 1 + Math.floor(rnd() * 3);
  for (let k = 0; k < n; k++) {
    const p = pick(CATALOG);
    const quantity = 1 + Math.floor(rnd() * 4);
    lines.push({ product_id: p.product_id, name: p.name, quantity, price: p.cents / 100, cents: p.cents });
  }
  const cents = 500 + Math.floor(rnd() * 9000);
  orders.push({
    id: i + 1,
    business_id: pick(BUSINESSES),
    customer_id: USERS.customer,
    conversation_id: rnd() < 0.75 ? pick(convs).id : null,
    status: pick(ORDER_STATUSES),
    summary: { total: cents / 100 },
    cents,
    created_at,
    products: lines,
  });
}
const convById = new Map(convs.map((c) => [c.id, c]));

// ---- the independent reference, computed here from the rows above --------------------------

type Range = [number, number];
interface Period {
  cur: Range;
  prev: Range;
}
const r2 = (x: number) => (x < 0 ? -1 : 1) * Number(`${Math.round(Number(`${Math.abs(x)}e2`))}e-2`);
const change = (c: number, p: number) => (p === 0 ? (c > 0 ? 100 : 0) : r2(((c - p) / p) * 100));
const cmpInt = (c: number, p: number) => ({ current: c, previous: p, change_percentage: change(c, p) });
const cmpVal = (c: number, p: number) => ({ current: r2(c), previous: r2(p), change_percentage: change(c, p) });
const div = (a: number, b: number) => (b === 0 ? 0 : a / b);
const within = (t: string, [s, e]: Range) => Date.parse(t) >= s && Date.parse(t) < e;
const inScope = (b: number | null, biz: number[] | null) => biz === null || (b !== null && biz.includes(b));
const aiOrders = (r: Range, biz: number[] | null) =>
  orders.filter((o) => o.conversation_id !== null && within(o.created_at, r) && inScope(o.business_id, biz));
const convsIn = (r: Range, biz: number[] | null) => convs.filter((c) => within(c.created_at, r) && inScope(c.business_id, biz));
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const GROUP = (s: number) => ([1, 11, 15].includes(s) ? 'completed' : [2, 5, 16].includes(s) ? 'cancelled' : 'active');

function reference(endpoint: string, { cur, prev }: Period, biz: number[] | null): unknown {
  const oc = aiOrders(cur, biz);
  const op = aiOrders(prev, biz);
  const cc = convsIn(cur, biz);
  const cp = convsIn(prev, biz);
  const rev = (os: Ord[]) => sum(os.map((o) => o.cents)) / 100;
  const reason = (cs: Conv[], why: string) => cs.filter((c) => c.status === 'closed' && c.status_reason === why).length;
  const cost = (cs: Conv[]) => sum(cs.map((c) => Math.round((c.usage.cost ?? 0) * 100))) / 100;
  const rt = (cs: Conv[]) => {
    const xs = cs.filter((c) => c.usage.response_time_ms !== undefined).map((c) => c.usage.response_time_ms!);
    return div(sum(xs), xs.length);
  };
  switch (endpoint) {
    case 'agents': {
      const m = new Map<string, { provider: string; provider_type: string; orders: number; cents: number }>();
      for (const o of oc) {
        const a = agentById.get(convById.get(o.conversation_id!)!.agent_id)!;
        const k = `${a.provider}/${a.provider_type}`;
        const e = m.get(k) ?? { provider: a.provider, provider_type: a.provider_type, orders: 0, cents: 0 };
        e.orders++;
        e.cents += o.cents;
        m.set(k, e);
      }
      return [...m.values()]
        .sort(
          (x, y) =>
            y.orders - x.orders ||
            y.cents - x.cents ||
            x.provider.localeCompare(y.provider) ||
            x.provider_type.localeCompare(y.provider_type),
        )
        .map((e) => ({
          provider: e.provider,
          provider_type: e.provider_type,
          orders: e.orders,
          revenue: r2(e.cents / 100),
          participation_percentage: r2((e.orders / oc.length) * 100),
        }));
    }
    case 'chats':
      return {
        active_chats: { current: cc.filter((c) => c.status === 'active').length },
        total_chats: cmpInt(cc.length, cp.length),
        completed_chats: cmpInt(reason(cc, 'completed'), reason(cp, 'completed')),
        abandoned_chats: cmpInt(reason(cc, 'abandoned'), reason(cp, 'abandoned')),
        failed_chats: cmpInt(reason(cc, 'failed'), reason(cp, 'failed')),
        success_rate: cmpVal(div(reason(cc, 'completed'), cc.length) * 100, div(reason(cp, 'completed'), cp.length) * 100),
      };
    case 'orders': {
      const g = (os: Ord[], name: string) => os.filter((o) => GROUP(o.status) === name).length;
      return {
        total_orders: cmpInt(oc.length, op.length),
        total_revenue: cmpVal(rev(oc), rev(op)),
        average_revenue: cmpVal(div(rev(oc), oc.length), div(rev(op), op.length)),
        completed_orders: cmpInt(g(oc, 'completed'), g(op, 'completed')),
        cancelled_orders: cmpInt(g(oc, 'cancelled'), g(op, 'cancelled')),
        active_orders: cmpInt(g(oc, 'active'), g(op, 'active')),
      };
    }
    case 'performance':
      return {
        average_cost: cmpVal(div(cost(cc), cc.length), div(cost(cp), cp.length)),
        average_response_time_ms: cmpVal(rt(cc), rt(cp)),
        human_minutes_saved: cmpInt(cc.length * 5, cp.length * 5),
        roi: cmpVal(div(oc.length, cost(cc)), div(op.length, cost(cp))),
        conversion_rate: cmpVal(div(oc.length, cc.length) * 100, div(op.length, cp.length) * 100),
      };
    case 'products': {
      const m = new Map<string, { product_id: number; name: string; times_sold: number; orders: Set<number>; cents: number }>();
      for (const o of oc)
        for (const l of o.products) {
          const k = `${l.product_id}/${l.name}`;
          const e = m.get(k) ?? { product_id: l.product_id, name: l.name, times_sold: 0, orders: new Set<number>(), cents: 0 };
          e.times_sold += l.quantity;
          e.orders.add(o.id);
          e.cents += l.quantity * l.cents;
          m.set(k, e);
        }
      return [...m.values()]
        .sort((x, y) => y.times_sold - x.times_sold || y.cents - x.cents || x.product_id - y.product_id || x.name.localeCompare(y.name))
        .slice(0, 10)
        .map((e) => ({
          product_id: e.product_id,
          name: e.name,
          times_sold: e.times_sold,
          orders: e.orders.size,
          revenue: r2(e.cents / 100),
        }));
    }
    case 'overview': {
      const types = [...new Set([...cc, ...cp].map((c) => agentById.get(c.agent_id)!.provider_type))].sort();
      const byType = (cs: Conv[], t: string) => cs.filter((c) => agentById.get(c.agent_id)!.provider_type === t).length;
      return {
        orders: cmpInt(oc.length, op.length),
        revenue: { total: cmpVal(rev(oc), rev(op)), average: cmpVal(div(rev(oc), oc.length), div(rev(op), op.length)) },
        conversations: {
          total: cmpInt(cc.length, cp.length),
          by_provider_type: types.map((t) => ({ provider_type: t, ...cmpInt(byType(cc, t), byType(cp, t)) })),
        },
      };
    }
  }
  throw new Error(endpoint);
}

// ---- periods, computed independently of the service -----------------------------------

const at = (s: string) => Date.parse(s);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** The current day at a fixed offset, as of now (not NOW: a file may run across the offset's midnight). */
function today(offsetHours: number): Period {
  const off = offsetHours * HOUR;
  const start = Math.floor((Date.now() + off) / DAY) * DAY - off;
  return { cur: [start, start + DAY], prev: [start - DAY, start] };
}

const ENDPOINTS = ['agents', 'chats', 'orders', 'overview', 'performance', 'products'] as const;

interface Case {
  name: string;
  query: Record<string, string>;
  period: Period;
}
/** A case of the current day: its period read as of each use (`today`), not once. */
const currentDay = (name: string, offsetHours: number, query: Record<string, string>): Case => ({
  name,
  query,
  get period() {
    return today(offsetHours);
  },
});
const CASES: Case[] = [
  {
    name: 'UTC, a month',
    query: { month: '2026-10' },
    period: { cur: [at('2026-10-01T00:00Z'), at('2026-11-01T00:00Z')], prev: [at('2026-09-01T00:00Z'), at('2026-10-01T00:00Z')] },
  },
  {
    name: 'America/New_York (DST ends on Nov 1), a month',
    query: { month: '2026-10', timezone: 'America/New_York' },
    period: { cur: [at('2026-10-01T04:00Z'), at('2026-11-01T04:00Z')], prev: [at('2026-09-01T04:00Z'), at('2026-10-01T04:00Z')] },
  },
  {
    name: 'Asia/Kolkata (+05:30), a month',
    query: { month: '2026-10', timezone: 'Asia/Kolkata' },
    period: { cur: [at('2026-09-30T18:30Z'), at('2026-10-31T18:30Z')], prev: [at('2026-08-31T18:30Z'), at('2026-09-30T18:30Z')] },
  },
  {
    name: 'Asia/Kathmandu (+05:45), a month',
    query: { month: '2026-10', timezone: 'Asia/Kathmandu' },
    period: { cur: [at('2026-09-30T18:15Z'), at('2026-10-31T18:15Z')], prev: [at('2026-08-31T18:15Z'), at('2026-09-30T18:15Z')] },
  },
  {
    name: 'offset +3, a month',
    query: { month: '2026-10', timezone_offset: '3' },
    period: { cur: [at('2026-09-30T21:00Z'), at('2026-10-31T21:00Z')], prev: [at('2026-08-31T21:00Z'), at('2026-09-30T21:00Z')] },
  },
  {
    name: 'offset -5, a month',
    query: { month: '2026-10', timezone_offset: '-5' },
    period: { cur: [at('2026-10-01T05:00Z'), at('2026-11-01T05:00Z')], prev: [at('2026-09-01T05:00Z'), at('2026-10-01T05:00Z')] },
  },
  {
    name: 'timezone wins over timezone_offset',
    query: { month: '2026-10', timezone: 'Asia/Kolkata', timezone_offset: '-5' },
    period: { cur: [at('2026-09-30T18:30Z'), at('2026-10-31T18:30Z')], prev: [at('2026-08-31T18:30Z'), at('2026-09-30T18:30Z')] },
  },
  currentDay('UTC, the current day', 0, {}),
  currentDay('offset +14, the current day', 14, { timezone_offset: '14' }),
  currentDay('offset -12, the current day', -12, { timezone_offset: '-12' }),
  currentDay('offset +5, the current day', 5, { timezone_offset: '5' }),
  {
    name: 'a month whose previous month is empty (change rule)',
    query: { month: '2026-08' },
    period: { cur: [at('2026-08-01T00:00Z'), at('2026-09-01T00:00Z')], prev: [at('2026-07-01T00:00Z'), at('2026-08-01T00:00Z')] },
  },
];

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  const fixture = baseFixture({
    agents: AGENTS.map((a) => ({ ...a, enabled: true })),
    conversations: convs as any[],
    orders: orders.map(({ cents, products, ...o }) => ({ ...o, products: products.map(({ cents: _c, ...l }) => l) })),
  });
  // The other project's AI orders must never show up in acme's metrics.
  fixture.projects[1].agents = [
    { id: 901, business_id: 101, name: 'Other', provider: 'whatsapp', provider_type: 'chat', provider_external_id: 'o-1', enabled: true },
  ];
  fixture.projects[1].conversations = [
    {
      id: 901,
      agent_id: 901,
      business_id: 101,
      status: 'closed',
      status_reason: 'completed',
      usage: { cost: 1 },
      created_at: '2026-10-10T10:00:00Z',
    },
  ];
  fixture.projects[1].orders = [
    {
      id: 901,
      business_id: 101,
      conversation_id: 901,
      status: 1,
      summary: { total: 999 },
      created_at: '2026-10-10T10:00:00Z',
      products: [{ product_id: 1, name: 'Product 1', quantity: 50, price: 9 }],
    },
  ];
  fixture.projects.push({
    code: 'noai',
    name: 'No AI',
    ai_enabled: false,
    api_keys: [{ key: 'noai-metrics-key-0123456789', server: true }],
  });
  await db.load(fixture);
}, 60_000);
afterAll(() => db.orm.close());

describe.each(ENGINES)('GET /ai/metrics/* (%s)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(engine, db);
  });
  afterAll(() => t.close());

  const get = (endpoint: string, query: Record<string, string>, key = KEYS.server) =>
    t.api({ path: `/ai/metrics/${endpoint}`, key, query });

  describe.each(CASES)('$name', (c) => {
    it.each(ENDPOINTS)('%s equals the reference computed from the fixture rows', async (endpoint) => {
      // the current day's cases read their period as of the request: asked again if a midnight fell during it
      let period: Period, res;
      do {
        period = c.period;
        res = await get(endpoint, c.query);
      } while (JSON.stringify(c.period) !== JSON.stringify(period));
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ error: false, result: reference(endpoint, period, null) });
    });
  });

  it('has data where the cases expect it (the reference is not trivially empty)', () => {
    const { cur, prev } = CASES[2].period;
    expect(aiOrders(cur, null).length).toBeGreaterThan(20);
    expect(aiOrders(prev, null).length).toBeGreaterThan(20);
    expect(aiOrders(today(0).cur, null).length + aiOrders(today(0).prev, null).length).toBeGreaterThan(5);
    expect((reference('orders', CASES[11].period, null) as any).total_orders.change_percentage).toBe(100);
  });

  it('applies the change rule when the previous period is empty', async () => {
    const body = (await get('orders', { month: '2026-08' })).json();
    expect(body.result.total_orders.previous).toBe(0);
    expect(body.result.total_orders.current).toBeGreaterThan(0);
    expect(body.result.total_orders.change_percentage).toBe(100);
    expect(body.result.total_revenue.change_percentage).toBe(100);
  });

  describe('filters and scoping', () => {
    const monthKolkata = CASES[2];
    it.each(ENDPOINTS)('business_id restricts %s to one business', async (endpoint) => {
      const res = await get(endpoint, { ...monthKolkata.query, business_id: '1' });
      expect(res.json()).toEqual({ error: false, result: reference(endpoint, monthKolkata.period, [1]) });
    });

    it.each(ENDPOINTS)('franchise_id restricts %s to the franchise’s businesses', async (endpoint) => {
      const res = await get(endpoint, { ...CASES[0].query, franchise_id: '1' });
      expect(res.json()).toEqual({ error: false, result: reference(endpoint, CASES[0].period, [1, 2]) });
    });

    it.each(ENDPOINTS)('a level-2 user sees only %s of the businesses they own', async (endpoint) => {
      const res = await get(endpoint, CASES[4].query, KEYS.owner);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ error: false, result: reference(endpoint, CASES[4].period, [1]) });
    });

    it('a level-2 user with a franchise sees only the owned businesses in it', async () => {
      const res = await get('orders', { ...CASES[0].query, franchise_id: '1' }, KEYS.owner);
      expect(res.json()).toEqual({ error: false, result: reference('orders', CASES[0].period, [1]) });
    });

    it('administrators see the whole project', async () => {
      const res = await get('overview', CASES[0].query, KEYS.admin);
      expect(res.json()).toEqual({ error: false, result: reference('overview', CASES[0].period, null) });
    });

    it.each([
      ['a business the owner does not own', { business_id: '2' }, KEYS.owner],
      ['another project’s business', { business_id: '101' }, KEYS.server],
      ['a business that does not exist', { business_id: '999' }, KEYS.server],
      ['a franchise that does not exist', { franchise_id: '999' }, KEYS.server],
    ])('400 ERROR_BUSINESS_NOT_FOUND for %s', async (_name, query, key) => {
      const res = await get('orders', query, key);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error: true, code: 'ERROR_BUSINESS_NOT_FOUND' });
    });
  });

  describe('empty periods', () => {
    const zero = { current: 0, previous: 0, change_percentage: 0 };
    it('gives zeros, never a division by zero', async () => {
      const q = { month: '2020-01' };
      expect((await get('agents', q)).json().result).toEqual([]);
      expect((await get('products', q)).json().result).toEqual([]);
      expect((await get('chats', q)).json().result).toEqual({
        active_chats: { current: 0 },
        total_chats: zero,
        completed_chats: zero,
        abandoned_chats: zero,
        failed_chats: zero,
        success_rate: zero,
      });
      expect((await get('orders', q)).json().result).toEqual({
        total_orders: zero,
        total_revenue: zero,
        average_revenue: zero,
        completed_orders: zero,
        cancelled_orders: zero,
        active_orders: zero,
      });
      expect((await get('performance', q)).json().result).toEqual({
        average_cost: zero,
        average_response_time_ms: zero,
        human_minutes_saved: zero,
        roi: zero,
        conversion_rate: zero,
      });
      expect((await get('overview', q)).json().result).toEqual({
        orders: zero,
        revenue: { total: zero, average: zero },
        conversations: { total: zero, by_provider_type: [] },
      });
    });

    it('gives zeros for a business with no data', async () => {
      await db.sql("insert into businesses (project_id, name) select id, 'Empty' from projects where code = 'acme' returning id");
      const [{ id }] = await db.sql<{ id: number }>("select max(id) id from businesses where name = 'Empty'");
      expect((await get('orders', { month: '2026-10', business_id: String(id) })).json().result.total_orders).toEqual(zero);
    });
  });

  describe('validation and access', () => {
    it.each([
      ['month', { month: '2026-13' }],
      ['month', { month: 'October' }],
      ['month', { month: '2026-1' }],
      ['month', { month: '9999-12' }],
      ['month', { month: '0001-01' }],
      ['timezone', { timezone: 'Mars/Olympus_Mons' }],
      ['timezone', { timezone: '+05:30' }],
      ['timezone_offset', { timezone_offset: '15' }],
      ['timezone_offset', { timezone_offset: '-13' }],
      ['timezone_offset', { timezone_offset: '5.5' }],
      ['timezone_offset', { timezone_offset: 'abc' }],
      ['business_id', { business_id: 'abc' }],
      ['franchise_id', { franchise_id: '-1' }],
    ])('400 ERROR_VALIDATION naming %s for %j', async (field, query) => {
      const res = await get('overview', query);
      expect(res.statusCode).toBe(400);
      const body = res.json();
      expect(body).toMatchObject({ error: true, code: 'ERROR_VALIDATION' });
      expect(body.result.join(' ')).toContain(field);
    });

    it('401 for a customer', async () => {
      const res = await get('overview', {}, KEYS.customer);
      expect(res.statusCode).toBe(401);
    });

    it.each(ENDPOINTS)('403 ERROR_AI_MODULE_DISABLED for %s when the project has no AI module', async (endpoint) => {
      const res = await t.api({ path: `/ai/metrics/${endpoint}`, project: 'noai', key: 'noai-metrics-key-0123456789' });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ error: true, code: 'ERROR_AI_MODULE_DISABLED' });
    });

    it('401 without credentials', async () => {
      const res = await t.api({ path: '/ai/metrics/orders' });
      expect(res.statusCode).toBe(401);
    });
  });
});
