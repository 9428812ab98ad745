import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS, USERS } from '../support/fixtures.js';
import { openSse } from '../support/sse.js';
import { MetaWebhooks } from '../support/whatsapp-fake.js';

/**
 * CONTRACT §15.1–15.4 over HTTP: the menu, a conversation's cart priced from it, an order placed exactly once per
 * cart version, its way through the platform's statuses, the events and the metrics that follow. Each engine has
 * its own conversations (ids by engine) on one database.
 */
const now = () => new Date().toISOString();
/** Conversations per engine: 10 + 100·e …; business 1 (owner's) unless said. */
const C = (e: number, n: number) => 10 + 100 * e + n;
const conversationsOf = (e: number) => [
  { id: C(e, 0), agent_id: 1, business_id: 1, contact: `52155000${e}0000`, status: 'active', created_at: now() },
  { id: C(e, 1), agent_id: 1, business_id: 1, contact: `52155000${e}0001`, status: 'active', created_at: now() },
  {
    id: C(e, 2),
    agent_id: 1,
    business_id: 1,
    contact: `52155000${e}0002`,
    status: 'closed',
    status_reason: 'completed',
    created_at: now(),
  },
  {
    id: C(e, 3),
    agent_id: 1,
    business_id: 1,
    contact: `52155000${e}0003`,
    status: 'active',
    handler: 'human',
    assignee_id: USERS.admin,
    created_at: now(),
  },
  { id: C(e, 4), agent_id: 2, business_id: 2, contact: `52155000${e}0004`, status: 'active', created_at: now() },
  ...Array.from({ length: 6 }, (_, i) => ({
    id: C(e, 10 + i),
    agent_id: 1,
    business_id: 1,
    user_id: USERS.customer,
    contact: `52155000${e}001${i}`,
    status: 'active',
    created_at: now(),
  })),
];

const APP_SECRET = 'orders-app-secret';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  const fixture = baseFixture({
    agents: [
      {
        id: 1,
        business_id: 1,
        name: 'WA',
        provider: 'whatsapp',
        provider_type: 'chat',
        provider_external_id: 'wa-orders',
        enabled: true,
        credentials: { waba_id: 'waba-orders', phone_number_id: 'pn-orders', access_token: 'token', app_secret: APP_SECRET },
      },
      {
        id: 2,
        business_id: 2,
        name: 'WA2',
        provider: 'whatsapp',
        provider_type: 'chat',
        provider_external_id: 'wa-orders-2',
        enabled: true,
      },
    ],
    products: [
      { id: 1, business_id: 1, name: 'Margarita', price: 9.5, retailer_id: 'margarita' },
      { id: 2, business_id: 1, name: 'Cola', price: 2.35 },
      { id: 3, business_id: 1, name: 'Tiramisù', price: 4.05, retailer_id: 'tiramisu', enabled: false },
      { id: 4, business_id: 2, name: 'Norte pizza', price: 11, retailer_id: 'margarita' },
    ],
    conversations: [...conversationsOf(0), ...conversationsOf(1)],
  });
  const acme = fixture.projects[0];
  acme.businesses = [
    { id: 1, name: 'Acme Centro', franchise_id: 1, currency: 'EUR', delivery_price: 2.5, tax_rate: 10 },
    { id: 2, name: 'Acme Norte', franchise_id: 1, currency: 'USD' },
    { id: 3, name: 'Acme Sur' },
  ];
  await db.load(fixture);
});
afterAll(() => db.orm.close());

describe.each(ENGINES.map((engine, e) => [engine, e] as const))('orders the AI takes, §15 (%s)', (engine, e) => {
  let t: TestApp;
  let origin: string;
  beforeAll(async () => {
    t = await startApp(engine, db);
    origin = await t.listen();
  });
  afterAll(() => t?.close());

  const call = (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown, key = KEYS.server, lang = 'en') =>
    t.api({ method, path, body, key, lang });
  const cart = (id: number) => `/ai/conversations/${id}/cart`;
  const putCart = (id: number, body: unknown, key = KEYS.server) => call('PUT', cart(id), body, key);
  const place = (id: number, body: unknown, key = KEYS.server, headers: Record<string, string> = {}) =>
    t.api({ method: 'POST', path: `/ai/conversations/${id}/orders`, body, key, headers });
  const move = (id: number, body: unknown, key = KEYS.server) => call('POST', `/ai/orders/${id}/status`, body, key);
  const pickup = (lines: unknown[]) => ({ business_id: 1, delivery_type: 2, lines });

  describe('the menu (§15.1)', () => {
    it('creates, changes and lists products; level 2 only in their businesses; nothing unknown answers', async () => {
      const made = await call('POST', '/ai/products', {
        business_id: 1,
        name: `Calzone ${engine}`,
        price: 12.4,
        retailer_id: `calzone-${engine}`,
      });
      expect(made.statusCode, made.body).toBe(200);
      const p = made.json().result;
      expect(p).toMatchObject({ business_id: 1, name: `Calzone ${engine}`, price: 12.4, enabled: true, retailer_id: `calzone-${engine}` });
      expect(Object.keys(p).sort()).toEqual(['business_id', 'created_at', 'enabled', 'id', 'name', 'price', 'retailer_id', 'updated_at']);

      const changed = await call('PATCH', `/ai/products/${p.id}`, { price: 13, enabled: false }, KEYS.owner);
      expect(changed.json().result).toMatchObject({ price: 13, enabled: false, retailer_id: `calzone-${engine}` });
      const cleared = await call('PATCH', `/ai/products/${p.id}`, { retailer_id: null });
      expect(cleared.json().result.retailer_id).toBeNull();

      // another business's product, for a level-2 owner of business 1: unknown; another project's: unknown
      for (const [path, key] of [
        ['/ai/products/4', KEYS.owner],
        ['/ai/products/1', KEYS.otherServer],
        ['/ai/products/999999999999999999', KEYS.server],
      ] as const) {
        const res = await t.api({ path, key, project: key === KEYS.otherServer ? 'other' : 'acme' });
        expect(res.statusCode, path).toBe(400);
        expect(res.json().code).toBe('ERROR_AI_PRODUCT_NOT_FOUND');
      }
      const notTheirs = await call('POST', '/ai/products', { business_id: 2, name: 'x', price: 1 }, KEYS.owner);
      expect(notTheirs.statusCode).toBe(400);
      expect(notTheirs.json().result.join(' ')).toContain('business_id');
      const duplicate = await call('POST', '/ai/products', { business_id: 1, name: 'again', price: 1, retailer_id: 'margarita' });
      expect(duplicate.statusCode).toBe(400);
      expect(duplicate.json().result.join(' ')).toContain('retailer_id');
      expect((await call('POST', '/ai/products', { business_id: 1, name: 'x', price: 1.234 })).statusCode).toBe(400);
      expect((await call('POST', '/ai/products', { business_id: 1, name: 'x', price: '1' })).statusCode).toBe(400);
      expect((await call('GET', '/ai/products', undefined, KEYS.customer)).statusCode).toBe(401);

      const listed = await t.api({ path: '/ai/products', key: KEYS.owner, query: { q: 'TIRAMISU', page_size: '100' } });
      expect(listed.json().result.map((r: { id: number }) => r.id)).toEqual([3]);
      const owners = await t.api({ path: '/ai/products', key: KEYS.owner, query: { page_size: '100' } });
      expect(owners.json().result.every((r: { business_id: number }) => r.business_id === 1)).toBe(true);
      const byRetailer = await t.api({
        path: '/ai/products',
        key: KEYS.server,
        query: { where: JSON.stringify({ retailer_id: 'margarita' }), orderBy: '-price' },
      });
      expect(byRetailer.json().result.map((r: { id: number }) => r.id)).toEqual([4, 1]);
    });
  });

  describe('the cart (§15.2)', () => {
    it('prices every line from the menu, rounds as written, and names what cannot be ordered', async () => {
      const res = await putCart(C(e, 0), {
        business_id: 1,
        delivery_type: 1,
        address: 'Calle Mayor 1',
        location: { latitude: 40.4, longitude: -3.7 },
        lines: [
          { product_id: 1, quantity: 2, comment: 'sin albahaca' },
          { retailer_id: 'margarita', quantity: 1 },
          { product_id: 2, quantity: 3 },
          { retailer_id: 'tiramisu', quantity: 1 },
          { retailer_id: 'nope', quantity: 1 },
          { product_id: 4, quantity: 1 },
        ],
      });
      expect(res.statusCode, res.body).toBe(200);
      const c = res.json().result;
      // 3 × 9.50 + 3 × 2.35 = 35.55; tax 10 % = 3.555 → 3.56; delivery 2.50 → 41.61
      expect(c.summary).toEqual({ subtotal: 35.55, discount: 0, delivery_price: 2.5, tax: 3.56, total: 41.61 });
      expect(c.currency).toBe('EUR');
      expect(c.lines[0]).toEqual({
        product_id: 1,
        retailer_id: 'margarita',
        name: 'Margarita',
        quantity: 2,
        price: 9.5,
        total: 19,
        comment: 'sin albahaca',
      });
      expect(c.lines[1]).toMatchObject({ product_id: 1, retailer_id: 'margarita', total: 9.5 });
      expect(c.problems).toEqual([
        { line: 3, product_id: 3, retailer_id: 'tiramisu', reason: 'disabled' },
        { line: 4, product_id: null, retailer_id: 'nope', reason: 'unknown' },
        // another business's product is unknown in this cart's business
        { line: 5, product_id: 4, retailer_id: null, reason: 'unknown' },
      ]);
      expect(c.version).toBeGreaterThan(0);
      expect(Object.keys(c).sort()).toEqual(
        [
          'address',
          'business_id',
          'comment',
          'conversation_id',
          'currency',
          'delivery_type',
          'lines',
          'location',
          'problems',
          'summary',
          'updated_at',
          'version',
        ].sort(),
      );
      const read = await call('GET', cart(C(e, 0)), undefined, KEYS.owner);
      expect(read.json().result).toEqual(c);
    });

    it('refuses what a cart cannot hold, naming the member', async () => {
      const line = { product_id: 1, quantity: 1 };
      const cases: [unknown, string][] = [
        [pickup([{ product_id: 1, quantity: 0 }]), 'lines.0.quantity'],
        [pickup([{ product_id: 1, quantity: 1000 }]), 'lines.0.quantity'],
        [pickup([{ product_id: 1, quantity: '2' }]), 'lines.0.quantity'],
        [pickup(Array.from({ length: 101 }, () => line)), 'lines'],
        [pickup([]), 'lines'],
        [pickup([{ product_id: 1, retailer_id: 'margarita', quantity: 1 }]), 'lines.0'],
        [pickup([{ quantity: 1 }]), 'lines.0'],
        [pickup([{ product_id: 1, quantity: 1, price: 0.01 }]), 'lines.0.price'],
        [{ ...pickup([line]), delivery_type: 9 }, 'delivery_type'],
        [{ ...pickup([line]), delivery_type: 1 }, 'address'],
        [{ ...pickup([line]), business_id: 2 }, 'business_id'],
        [{ ...pickup([line]), location: { latitude: 91, longitude: 0 } }, 'location.latitude'],
      ];
      for (const [body, member] of cases) {
        const res = await putCart(C(e, 1), body);
        expect(res.statusCode, `${member}: ${res.body}`).toBe(400);
        expect(res.json().code).toBe('ERROR_VALIDATION');
        expect(res.json().result.join(' '), member).toContain(member);
      }
      const closed = await putCart(C(e, 2), pickup([line]));
      expect(closed.json().code).toBe('ERROR_AI_CONVERSATION_CLOSED');
      const notSeen = await putCart(C(e, 4), { ...pickup([line]), business_id: 2 }, KEYS.owner);
      expect(notSeen.json().code).toBe('ERROR_AI_CONVERSATION_NOT_FOUND');
      const none = await call('GET', cart(C(e, 1)));
      expect(none.json().code).toBe('ERROR_AI_CART_NOT_FOUND');
    });

    it('keeps its version exactly while it shows the same, and never repeats one', async () => {
      const body = pickup([{ product_id: 2, quantity: 2 }]);
      const first = (await putCart(C(e, 1), body)).json().result;
      const again = (await putCart(C(e, 1), body)).json().result;
      expect(again).toEqual(first);
      const seen = new Set([first.version]);
      // a menu change reprices the cart: a new version with the new figures
      await call('PATCH', '/ai/products/2', { price: 2.4 });
      const repriced = (await call('GET', cart(C(e, 1)))).json().result;
      expect(repriced.version).toBeGreaterThan(first.version);
      expect(repriced.summary.subtotal).toBe(4.8);
      seen.add(repriced.version);
      expect((await call('GET', cart(C(e, 1)))).json().result).toEqual(repriced);
      await call('PATCH', '/ai/products/2', { price: 2.35 });
      // emptied: null, then not found; the next cart goes on counting
      const removed = await call('DELETE', cart(C(e, 1)));
      expect(removed.json()).toEqual({ error: false, result: null });
      expect((await call('GET', cart(C(e, 1)))).json().code).toBe('ERROR_AI_CART_NOT_FOUND');
      const next = (await putCart(C(e, 1), body)).json().result;
      expect(next.summary).toEqual(first.summary);
      expect(seen.has(next.version)).toBe(false);
      expect(next.version).toBeGreaterThan(Math.max(...seen));
    });
    it('concurrent replacements of one cart: each answered at a version of its own, with its cart.updated, the last one kept', async () => {
      const id = C(e, 15);
      const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => putCart(id, pickup([{ product_id: 2, quantity: i + 1 }]))));
      expect(answers.map((a) => a.statusCode)).toEqual(Array(12).fill(200));
      const byVersion = new Map(answers.map((a) => [a.json().result.version as number, a.json().result.lines[0].quantity as number]));
      expect(byVersion.size).toBe(12);
      const events = await db.sql<{ v: number; q: number }>(
        `select (data->>'version')::int as v, (data->'lines'->0->>'quantity')::int as q
           from ai_events where conversation_id = ? and type = 'cart.updated' order by id`,
        [id],
      );
      // one event per answer, in version order, each showing what that answer showed
      expect(events.map((ev) => ev.v)).toEqual([...byVersion.keys()].sort((a, b) => a - b));
      for (const ev of events) expect(ev.q).toBe(byVersion.get(ev.v));
      const kept = (await call('GET', cart(id))).json().result;
      expect(kept.version).toBe(events.at(-1)!.v);
      expect(kept.lines[0].quantity).toBe(events.at(-1)!.q);
    });
  });

  describe("a customer's catalog cart (§15.2)", () => {
    it('an inbound order message replaces the cart in its transaction: menu prices, unknown retailer ids as problems', async () => {
      const meta = new MetaWebhooks(`${origin}/v400/en/acme/ai/webhooks/whatsapp`);
      const from = `34600${e}00077`;
      const order = (id: string, items: unknown[]) =>
        MetaWebhooks.notification('pn-orders', {
          messages: [{ id, from, type: 'order', extra: { order: { catalog_id: 'cat-1', text: 'para llevar', product_items: items } } }],
        });
      const delivered = await meta.post(
        order(`wamid.cart.${engine}.1`, [
          { product_retailer_id: 'margarita', quantity: 2, item_price: 0.01, currency: 'EUR' },
          { product_retailer_id: 'tiramisu', quantity: 1, item_price: 4.05, currency: 'EUR' },
          { product_retailer_id: 'calzone-unknown', quantity: 1, item_price: 1, currency: 'EUR' },
        ]),
        APP_SECRET,
      );
      expect(delivered.status).toBe(200);
      const [conversation] = await db.sql<{ id: number }>('select id from ai_conversations where contact = ?', [from]);
      const c = (await call('GET', cart(conversation.id))).json().result;
      expect(c).toMatchObject({ business_id: 1, delivery_type: 1, currency: 'EUR' });
      expect(
        c.lines.map((l: { retailer_id: string; quantity: number; price: number | null }) => [l.retailer_id, l.quantity, l.price]),
      ).toEqual([
        ['margarita', 2, 9.5],
        ['tiramisu', 1, 4.05],
        ['calzone-unknown', 1, null],
      ]);
      // the menu's price, never Meta's item_price; delivery 2.50 and 10 % tax on 19.00
      expect(c.summary).toEqual({ subtotal: 19, discount: 0, delivery_price: 2.5, tax: 1.9, total: 23.4 });
      expect(c.problems).toEqual([
        { line: 1, product_id: 3, retailer_id: 'tiramisu', reason: 'disabled' },
        { line: 2, product_id: null, retailer_id: 'calzone-unknown', reason: 'unknown' },
      ]);
      // the agent's runtime sets pickup; a second catalog cart keeps it and replaces the lines
      const picked = (
        await putCart(conversation.id, { business_id: 1, delivery_type: 2, lines: [{ product_id: 2, quantity: 1 }], comment: 'sin hielo' })
      ).json().result;
      await meta.post(order(`wamid.cart.${engine}.2`, [{ product_retailer_id: 'margarita', quantity: 1 }]), APP_SECRET);
      const again = (await call('GET', cart(conversation.id))).json().result;
      expect(again).toMatchObject({ delivery_type: 2, comment: 'sin hielo', problems: [] });
      expect(again.lines).toEqual([
        { product_id: 1, retailer_id: 'margarita', name: 'Margarita', quantity: 1, price: 9.5, total: 9.5, comment: null },
      ]);
      expect(again.version).toBeGreaterThan(picked.version);
      const [message] = await db.sql<{ type: string }>('select type from ai_messages where conversation_id = ? order by id desc limit 1', [
        conversation.id,
      ]);
      expect(message.type).toBe('order');
      // Meta's retry of the same delivery changes nothing
      await meta.post(order(`wamid.cart.${engine}.2`, [{ product_retailer_id: 'margarita', quantity: 1 }]), APP_SECRET);
      expect((await call('GET', cart(conversation.id))).json().result.version).toBe(again.version);
    });
  });

  describe('placing (§15.3)', () => {
    it('a price rise after the "yes" is a 409 with the new cart; the new version places one order, exactly once', async () => {
      const id = C(e, 10);
      const confirmed = (await putCart(id, { ...pickup([{ product_id: 1, quantity: 2 }]), comment: 'timbre roto' })).json().result;
      await call('PATCH', '/ai/products/1', { price: 10 });
      const stale = await place(id, { cart_version: confirmed.version, paymethod: 'cash' });
      expect(stale.statusCode, stale.body).toBe(409);
      expect(stale.json().code).toBe('ERROR_AI_CART_CHANGED');
      const current = stale.json().result;
      expect(current.version).toBeGreaterThan(confirmed.version);
      expect(current.summary.subtotal).toBe(20);
      await call('PATCH', '/ai/products/1', { price: 9.5 });
      const back = (await call('GET', cart(id))).json().result;
      expect(back.version).toBeGreaterThan(current.version);

      const placed = await place(id, { cart_version: back.version, paymethod: 'card_pickup' });
      expect(placed.statusCode, placed.body).toBe(200);
      const order = placed.json().result;
      expect(order).toMatchObject({
        business_id: 1,
        conversation_id: id,
        customer_id: USERS.customer,
        status: 0,
        delivery_type: 2,
        paymethod: 'card_pickup',
        currency: 'EUR',
        summary: { subtotal: 19, discount: 0, delivery_price: 0, tax: 1.9, total: 20.9 },
        products: [{ product_id: 1, name: 'Margarita', quantity: 2, price: 9.5, total: 19, comment: null }],
        comment: 'timbre roto',
        conversion: null,
      });
      expect(order.uuid).toMatch(/^[0-9a-f-]{36}$/);
      expect(order.history).toEqual([{ status: 0, at: expect.any(String), by: null, reason: null }]);

      // the same version again, by anyone: the same order, nothing new
      const replay = await place(id, { cart_version: back.version, paymethod: 'cash' }, KEYS.admin);
      expect(replay.json().result).toEqual(order);
      expect((await call('GET', cart(id))).json().code).toBe('ERROR_AI_CART_NOT_FOUND');
      expect((await place(id, { cart_version: back.version + 1, paymethod: 'cash' })).json().code).toBe('ERROR_AI_CART_NOT_FOUND');
      const [{ n }] = await db.sql<{ n: number }>('select count(*)::int as n from orders where conversation_id = ?', [id]);
      expect(n).toBe(1);

      expect((await call('GET', `/ai/orders/${order.id}`, undefined, KEYS.owner)).json().result).toEqual(order);
      expect((await call('GET', `/ai/orders/${order.id}`, undefined, KEYS.otherServer)).statusCode).toBe(401);
      const listed = await t.api({ path: '/ai/orders', key: KEYS.server, query: { where: JSON.stringify({ conversation_id: id }) } });
      expect(listed.json().result).toEqual([order]);
      const byUuid = await t.api({ path: '/ai/orders', key: KEYS.server, query: { where: JSON.stringify({ uuid: order.uuid }) } });
      expect(byUuid.json().result.map((o: { id: number }) => o.id)).toEqual([order.id]);
      const counter = await call('GET', `/ai/conversations/${id}/orders`);
      expect(counter.json().result).toEqual([{ id: order.id, status: 0, total: 20.9, business_id: 1, created_at: order.created_at }]);
    });

    it('20 concurrent places of one version, with and without Idempotency-Key: one order, every answer the same', async () => {
      const id = C(e, 11);
      const v = (await putCart(id, pickup([{ product_id: 2, quantity: 1 }]))).json().result.version;
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          place(
            id,
            { cart_version: v, paymethod: 'cash' },
            i % 2 ? KEYS.server : KEYS.admin,
            i % 3 ? {} : { 'idempotency-key': `k-${engine}-${i}` },
          ),
        ),
      );
      expect(answers.map((a) => a.statusCode)).toEqual(Array(20).fill(200));
      expect(new Set(answers.map((a) => a.json().result.id)).size).toBe(1);
      const [{ n }] = await db.sql<{ n: number }>('select count(*)::int as n from orders where conversation_id = ?', [id]);
      expect(n).toBe(1);
    });

    it('problems, closed and handed-off conversations refuse a place; a person may place it', async () => {
      const id = C(e, 12);
      const withProblem = (await putCart(id, pickup([{ retailer_id: 'tiramisu', quantity: 1 }]))).json().result;
      const refused = await place(id, { cart_version: withProblem.version, paymethod: 'cash' });
      expect(refused.statusCode).toBe(409);
      expect(refused.json().result.problems).toEqual([{ line: 0, product_id: 3, retailer_id: 'tiramisu', reason: 'disabled' }]);
      expect((await place(C(e, 2), { cart_version: 1, paymethod: 'cash' })).json().code).toBe('ERROR_AI_CONVERSATION_CLOSED');
      const human = C(e, 3);
      const v = (await putCart(human, pickup([{ product_id: 1, quantity: 1 }]))).json().result.version;
      const byKey = await place(human, { cart_version: v, paymethod: 'cash' });
      expect(byKey.statusCode).toBe(409);
      expect(byKey.json().code).toBe('ERROR_AI_CONVERSATION_HANDED_OFF');
      const byOwner = await place(human, { cart_version: v, paymethod: 'cash' }, KEYS.owner);
      expect(byOwner.statusCode, byOwner.body).toBe(200);
      expect(byOwner.json().result.history[0].by).toBe(USERS.owner);
      for (const [body, member] of [
        [{ paymethod: 'cash' }, 'cart_version'],
        [{ cart_version: 1, paymethod: 'bitcoin' }, 'paymethod'],
        [{ cart_version: '1', paymethod: 'cash' }, 'cart_version'],
      ] as const) {
        const res = await place(id, body);
        expect(res.statusCode).toBe(400);
        expect(res.json().result.join(' ')).toContain(member);
      }
    });
  });

  describe("the order's way (§15.4), its events and the metrics", () => {
    const overview = async () => {
      const o = (await t.api({ path: '/ai/metrics/orders', key: KEYS.server, query: { timezone: 'UTC' } })).json().result;
      return {
        total: o.total_orders.current,
        completed: o.completed_orders.current,
        cancelled: o.cancelled_orders.current,
        active: o.active_orders.current,
        revenue: o.total_revenue.current,
      };
    };
    const productSold = async (productId: number) => {
      const res = await t.api({ path: '/ai/metrics/products', key: KEYS.server, query: { timezone: 'UTC' } });
      const found = (res.json().result as { product_id: number; times_sold: number }[]).find((p) => p.product_id === productId);
      return found?.times_sold ?? 0;
    };
    const today = () => new Date().toISOString().slice(0, 10);
    const seriesOrders = async () =>
      (
        await t.api({
          path: '/ai/metrics/series',
          key: KEYS.server,
          query: { metric: 'orders', group_by: 'day', from: today(), to: today(), timezone: 'UTC' },
        })
      ).json().result;

    it('moves by the rules; every placement and move changes the metrics at once; events resume without gaps', async () => {
      const stream = await openSse(`${origin}/v400/en/acme/ai/events?types=cart.updated,order.created,order.status`, {
        'x-api-key': KEYS.server,
      });
      const before = await overview();
      const seriesBefore = await seriesOrders();
      const productsBefore = await productSold(2);
      const id = C(e, 13);
      const placedCart = (await putCart(id, pickup([{ product_id: 2, quantity: 2 }]))).json().result;
      const v = placedCart.version;
      const order = (await place(id, { cart_version: v, paymethod: 'cash' })).json().result;
      const placed = await overview();
      expect(placed.total).toBe(before.total + 1);
      expect(placed.active).toBe(before.active + 1);
      expect(placed.revenue).toBeCloseTo(before.revenue + 5.17, 2);
      // the lines count once in the products' figures
      expect((await productSold(2)) - productsBefore).toBe(2);
      expect(JSON.stringify(await seriesOrders())).not.toEqual(JSON.stringify(seriesBefore));

      // 7 then 4: still active; 6 is final but active by the seed's rule
      for (const s of [7, 4, 6]) {
        const res = await move(order.id, { status: s, reason: `to ${s}` }, KEYS.admin);
        expect(res.statusCode, res.body).toBe(200);
        expect(await overview()).toMatchObject({ completed: before.completed, cancelled: before.cancelled, active: before.active + 1 });
      }
      const final = await move(order.id, { status: 7 });
      expect(final.statusCode).toBe(409);
      expect(final.json().code).toBe('ERROR_AI_ORDER_FINAL');
      const same = await move(order.id, { status: 6 });
      expect(same.statusCode).toBe(200);
      expect(same.json().result.history.map((h: { status: number }) => h.status)).toEqual([0, 7, 4, 6]);
      expect(same.json().result.history[3]).toMatchObject({ status: 6, by: USERS.admin, reason: 'to 6' });

      // every group, each from a fresh order
      for (const [status, group] of [
        [10, 'active'],
        [12, 'active'],
        [17, 'active'],
        [1, 'completed'],
        [11, 'completed'],
        [15, 'completed'],
        [2, 'cancelled'],
        [5, 'cancelled'],
        [16, 'cancelled'],
      ] as const) {
        const cid = C(e, 14);
        const ver = (await putCart(cid, pickup([{ product_id: 1, quantity: 1 }]))).json().result.version;
        const o = (await place(cid, { cart_version: ver, paymethod: 'cash' })).json().result;
        const m0 = await overview();
        expect((await move(o.id, { status: 7 })).statusCode).toBe(200);
        const moved = await move(o.id, { status });
        expect(moved.json().result.status).toBe(status);
        const m1 = await overview();
        if (group === 'active') expect(m1).toEqual(m0);
        else {
          expect(m1.active).toBe(m0.active - 1);
          expect(m1[group]).toBe(m0[group] + 1);
        }
        expect((await move(o.id, { status: 4 })).json().code).toBe('ERROR_AI_ORDER_FINAL');
      }

      const pending = (await putCart(C(e, 14), pickup([{ product_id: 2, quantity: 1 }]))).json().result;
      const p = (await place(C(e, 14), { cart_version: pending.version, paymethod: 'other' })).json().result;
      for (const s of [13, 24, -1, 1.5]) {
        const res = await move(p.id, { status: s });
        expect(res.statusCode, String(s)).toBe(400);
        expect(res.json().result.join(' ')).toContain('status');
      }
      expect((await move(p.id, { status: 0 })).statusCode).toBe(200); // the same status: nothing moves
      expect((await move(p.id, { status: 7 }, KEYS.owner)).statusCode).toBe(200);
      expect((await move(999999, { status: 7 })).json().code).toBe('ERROR_AI_ORDER_NOT_FOUND');
      expect((await move(p.id, { status: 7 }, KEYS.customer)).statusCode).toBe(401);

      // the stream saw the cart, the placement and each move, in order; a resume from the middle misses nothing
      await stream.until((c) => c.events.some((ev) => ev.event === 'order.status' && JSON.parse(ev.data).data.id === p.id));
      stream.close();
      const mine = stream.events.filter(
        (ev) => ev.event !== 'stream.reset' && [order.id, p.id].includes(JSON.parse(ev.data).data.id ?? -1),
      );
      expect(mine.map((ev) => ev.event).slice(0, 4)).toEqual(['order.created', 'order.status', 'order.status', 'order.status']);
      // an event's data is the record as REST answers it
      expect(JSON.parse(mine[0].data).data).toEqual(order);
      const carts = stream.events.filter((ev) => ev.event === 'cart.updated').map((ev) => JSON.parse(ev.data).data);
      expect(carts.find((c) => c.conversation_id === id && c.version === v)).toEqual(placedCart);
      const all = stream.events.filter((ev) => ev.id).map((ev) => Number(ev.id));
      const middle = all[Math.floor(all.length / 2)];
      const resumed = await openSse(`${origin}/v400/en/acme/ai/events?types=cart.updated,order.created,order.status`, {
        'x-api-key': KEYS.server,
        'last-event-id': String(middle),
      });
      await resumed.until((c) => c.events.filter((ev) => ev.id).length >= all.filter((i) => i > middle).length);
      resumed.close();
      expect(
        resumed.events
          .filter((ev) => ev.id)
          .map((ev) => Number(ev.id))
          .slice(0, all.filter((i) => i > middle).length),
      ).toEqual(all.filter((i) => i > middle));
    });

    it('the owner of another business sees nothing of these orders; /graphql answers as REST does', async () => {
      const list = await t.api({
        path: '/ai/orders',
        key: KEYS.owner,
        query: { page_size: '100', where: JSON.stringify({ business_id: 2 }) },
      });
      expect(list.json().result).toEqual([]);
      const gql = await t.app.inject({
        method: 'POST',
        url: '/graphql',
        headers: { 'x-api-key': KEYS.server, 'x-project': 'acme' },
        payload: { query: '{ aiOrders(page_size: 1) { items { id status summary { total } } pagination { total } } }' },
      });
      expect(gql.statusCode, gql.body).toBe(200);
      expect(gql.json().data.aiOrders.pagination.total).toBeGreaterThan(0);
    });
  });
});
