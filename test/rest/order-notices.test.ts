import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { ConversionSender, MAX_CONVERSION_ATTEMPTS } from '../../src/workers/conversion-sender.js';
import { WhatsAppSender } from '../../src/workers/whatsapp-sender.js';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, testCipher, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';
import { CLOUD_ANSWERS, startWhatsAppFake, type WhatsAppFake } from '../support/whatsapp-fake.js';

/**
 * CONTRACT §15.5 (order notices on WhatsApp) and §15.6 (the Conversions API Purchase event) over HTTP, a real
 * database and a local Cloud API, under both engines: the notice inside the window (filled, `order_id`, in order after
 * an AI reply posted just before; closed and handed-off conversations included), outside it with and without a
 * template, none on a repeated status, none for an app conversation; one Purchase event with the exact body, none
 * without `ctwa_clid` or `dataset_id`, retried after a 500 and a timeout, never sent when too old. The reply sender
 * and the conversions sender run in this process with short deadlines, woken by commits as `serve` wires them.
 */
const base = (e: number) => 600 + e * 10;
const AGENT = { main: 1, noDataset: 2, web: 3 };
const TIMEOUT_MS = 800;
const RETRY_BASE_MS = 40;
const creds = (id: number, dataset = true) => ({
  waba_id: `waba${id}`,
  phone_number_id: `pn${id}`,
  access_token: `EAAG-notice-token-${id}`,
  ...(dataset ? { dataset_id: `ds${id}` } : {}),
});
const TEMPLATE_BODY = 'Order {{1}} is on its way: {{2}}, arriving {{3}}';
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

let db: TestDatabase;
let fake: WhatsAppFake;
let projectId: number;
let contactSeq = 0;
const contact = () => `34611${process.pid % 1000}${String(++contactSeq).padStart(4, '0')}`;

beforeAll(async () => {
  db = await createTestDatabase();
  fake = await startWhatsAppFake();
  const agents: Record<string, unknown>[] = [];
  const templates: Record<string, unknown>[] = [];
  const products: Record<string, unknown>[] = [];
  for (const e of [0, 1]) {
    const b = base(e);
    const agent = (id: number, provider: string, credentials: Record<string, string> | undefined) => ({
      id,
      business_id: 1,
      name: `N${id}`,
      provider,
      provider_type: 'chat',
      provider_external_id: `notice-${id}`,
      enabled: true,
      ...(credentials ? { credentials } : {}),
    });
    agents.push(
      agent(b + AGENT.main, 'whatsapp', creds(b + AGENT.main)),
      agent(b + AGENT.noDataset, 'whatsapp', creds(b + AGENT.noDataset, false)),
      agent(b + AGENT.web, 'web', undefined),
    );
    const tpl = {
      name: 'order_on_way',
      language: 'en',
      category: 'UTILITY',
      status: 'APPROVED',
      components: [{ type: 'BODY', text: TEMPLATE_BODY }],
    };
    fake.addAccount({ ...creds(b + AGENT.main), templates: [{ id: `t${b}`, ...tpl }] });
    fake.addAccount({ ...creds(b + AGENT.noDataset, false), templates: [] });
    templates.push(
      { id: b * 10 + 1, agent_id: b + AGENT.main, external_id: `t${b}`, ...tpl },
      { id: b * 10 + 2, agent_id: b + AGENT.main, external_id: `p${b}`, ...tpl, name: 'pending_one', status: 'PENDING' },
      { id: b * 10 + 3, agent_id: b + AGENT.noDataset, external_id: `o${b}`, ...tpl, name: 'other_agent' },
    );
    products.push({ id: b + 1, business_id: 1, name: `Margarita ${e}`, price: 9.5 });
  }
  const fixture = baseFixture({ agents, templates, products });
  fixture.projects[0].businesses = [
    { id: 1, name: 'Acme Centro', franchise_id: 1, currency: 'EUR' },
    { id: 2, name: 'Acme Norte', franchise_id: 1 },
    { id: 3, name: 'Acme Sur' },
  ];
  await db.load(fixture);
  [{ id: projectId }] = await db.sql<{ id: number }>("select id from projects where code = 'acme'");
});
afterAll(async () => {
  await fake.close();
  await db.orm.close();
});

async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 6000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out; last: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe.each(ENGINES.map((engine, e) => [engine, e] as const))('order notices and the ad credit, §15.5–15.6 (%s)', (engine, e) => {
  const MAIN = base(e) + AGENT.main;
  const NO_DATASET = base(e) + AGENT.noDataset;
  const WEB = base(e) + AGENT.web;
  const PRODUCT = base(e) + 1;
  const TEMPLATE = base(e) * 10 + 1;
  let t: TestApp;
  let sender: WhatsAppSender;
  let conversions: ConversionSender;

  beforeAll(async () => {
    t = await startApp(engine, db, { config: { whatsappApiUrl: fake.url, providerTimeoutMs: TIMEOUT_MS } });
    const config = { ...loadConfig({}).whatsappSends, retryBaseMs: RETRY_BASE_MS, pollMs: 200 };
    const common = { orm: db.orm, cipher: testCipher, config, apiUrl: fake.url, timeoutMs: TIMEOUT_MS, log: quiet };
    sender = new WhatsAppSender({ ...common, onEvents: (p) => t.services.events.sequence(p) }).start();
    conversions = new ConversionSender({ ...common, onEvents: (p) => t.services.events.sequence(p) }).start();
    t.services.events.onWork((kind) => {
      if (kind === null || kind === 'sends') sender.wake();
      if (kind === null || kind === 'conversions') conversions.wake();
    });
  });
  afterAll(async () => {
    await sender.stop();
    await conversions.stop();
    await t?.close();
  });

  const call = (method: 'GET' | 'POST' | 'PUT' | 'PATCH', path: string, body?: unknown, key = KEYS.server) =>
    t.api({ method, path, body, key });
  const orderMessages = (agentId: number) => ({
    '0': { text: 'Order {{order}} received: {{total}} ({{eta}})' },
    '7': { text: 'Order {{order}} accepted, ready in {{eta}}', template_id: null, locale: 'en' },
    '4': { text: 'Order {{order}} is ready' },
    '9': { text: 'Order {{order}} picked up, {{total}}', template_id: agentId === MAIN ? TEMPLATE : null },
  });

  /** A conversation of `agent` whose contact wrote `inboundAgoMs` ago (null: never), optionally from an ad. */
  async function conversation(
    opts: { agent?: number; inboundAgoMs?: number | null; referral?: Record<string, unknown> | null; contact?: string | null } = {},
  ): Promise<{ id: number; contact: string | null }> {
    const to = opts.contact === undefined ? contact() : opts.contact;
    const ago = opts.inboundAgoMs === undefined ? 60_000 : opts.inboundAgoMs;
    const [row] = await db.sql<{ id: number }>(
      `insert into ai_conversations (project_id, agent_id, business_id, contact, status, usage, last_inbound_at, referral)
       values (?, ?, 1, ?, 'active', '{}', case when ?::float8 is null then null else now() - make_interval(secs => ?::float8) end, ?::jsonb)
       returning id`,
      [
        projectId,
        opts.agent ?? MAIN,
        to,
        ago === null ? null : ago / 1000,
        ago === null ? null : ago / 1000,
        opts.referral ? JSON.stringify(opts.referral) : null,
      ],
    );
    return { id: row.id, contact: to };
  }
  async function placeOrder(conversationId: number, quantity = 1): Promise<Record<string, any>> {
    const cart = await call('PUT', `/ai/conversations/${conversationId}/cart`, {
      business_id: 1,
      delivery_type: 2,
      lines: [{ product_id: PRODUCT, quantity }],
    });
    expect(cart.statusCode, cart.body).toBe(200);
    const placed = await call('POST', `/ai/conversations/${conversationId}/orders`, {
      cart_version: cart.json().result.version,
      paymethod: 'cash',
    });
    expect(placed.statusCode, placed.body).toBe(200);
    return placed.json().result;
  }
  const move = async (orderId: number, status: number, reason?: string) => {
    const res = await call('POST', `/ai/orders/${orderId}/status`, { status, ...(reason ? { reason } : {}) });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().result;
  };
  const notices = (orderId: number) => db.sql<Record<string, any>>('select * from ai_messages where order_id = ? order by id', [orderId]);
  const sendsTo = (to: string | null) => fake.requestsTo('send').filter((r) => r.body?.to === to);
  const eventsOf = (uuid: string) => fake.requests.filter((r) => r.path.endsWith('/events') && r.body?.data?.[0]?.event_id === uuid);
  const order = async (id: number) => (await call('GET', `/ai/orders/${id}`)).json().result;
  const updatesOf = async (id: number) =>
    (
      await db.sql<{ n: number }>("select count(*)::int as n from ai_events where type = 'order.updated' and (data->>'id')::bigint = ?", [
        id,
      ])
    )[0].n;
  // the sender's event is in the log once the pass after its commit ran, a moment after the order shows the change
  const orderUpdated = (id: number) =>
    until(
      () => updatesOf(id),
      (n) => n > 0,
    );

  it('PATCH /ai/agents/{id} sets order_messages by the rules, naming the member; dataset_id is a credential', async () => {
    const patch = (id: number, body: unknown) => call('PATCH', `/ai/agents/${id}`, body);
    const refused = async (body: unknown, field: string) => {
      const res = await patch(MAIN, body);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().code).toBe('ERROR_VALIDATION');
      expect(res.json().result.join(' ')).toContain(field);
    };
    await refused({ order_messages: { '99': { text: 'x' } } }, 'order_messages.99');
    await refused({ order_messages: { ready: { text: 'x' } } }, 'order_messages.ready');
    await refused({ order_messages: { '7': { text: '' } } }, 'order_messages.7.text');
    await refused({ order_messages: { '7': { text: '   ' } } }, 'order_messages.7.text');
    await refused({ order_messages: { '7': {} } }, 'order_messages.7.text');
    await refused({ order_messages: { '7': { text: 'x'.repeat(1025) } } }, 'order_messages.7.text');
    await refused({ order_messages: { '7': { text: 'x', price: 1 } } }, 'order_messages.7.price');
    await refused({ order_messages: { '7': { text: 'x', template_id: base(e) * 10 + 3 } } }, 'order_messages.7.template_id');
    await refused({ order_messages: { '7': { text: 'x', template_id: base(e) * 10 + 2 } } }, 'order_messages.7.template_id');
    await refused({ order_messages: { '7': { text: 'x', template_id: 'one' } } }, 'order_messages.7.template_id');
    await refused({ order_messages: ['x'] }, 'order_messages');
    const es = await t.api({
      method: 'PATCH',
      path: `/ai/agents/${MAIN}`,
      body: { order_messages: { '4': { text: '' } } },
      key: KEYS.server,
      lang: 'es',
    });
    expect(es.json().result.join(' ')).toMatch(/^El campo order_messages\.4\.text/);

    const set = await patch(MAIN, { order_messages: orderMessages(MAIN), credentials: { dataset_id: `ds${MAIN}` } });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json().result.order_messages['9']).toEqual({
      text: 'Order {{order}} picked up, {{total}}',
      template_id: TEMPLATE,
      locale: null,
    });
    expect(set.json().result.credentials).toMatchObject({ dataset_id: true, access_token: true });
    expect(JSON.stringify(set.json())).not.toContain(`ds${MAIN}`);
    expect((await call('GET', `/ai/agents/${NO_DATASET}`)).json().result.credentials.dataset_id).toBe(false);
    for (const id of [NO_DATASET, WEB]) expect((await patch(id, { order_messages: orderMessages(id) })).statusCode).toBe(200);
    // the graph: the same rules and the same record
    const gql = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { 'x-api-key': KEYS.server },
      payload: { query: `{ aiAgent(agent_id: ${MAIN}) { order_messages } }` },
    });
    expect(gql.json().data.aiAgent.order_messages['7'].text).toBe('Order {{order}} accepted, ready in {{eta}}');
    // null removes them; absent leaves them
    expect((await patch(NO_DATASET, { name: 'renamed' })).json().result.order_messages).not.toBeNull();
  });

  it('inside the window: a filled public assistant notice with order_id, sent in order after the AI reply posted just before', async () => {
    const c = await conversation();
    const reply = await call('POST', `/ai/conversations/${c.id}/messages`, { role: 'assistant', content: 'Your order is placed!' });
    expect(reply.statusCode, reply.body).toBe(200);
    const o = await placeOrder(c.id, 2);
    expect(o.conversion).toBeNull();
    const [placed] = await notices(o.id);
    expect(placed).toMatchObject({
      role: 'assistant',
      public: true,
      type: 'text',
      content: `Order ${o.id} received: 19.00 EUR (-)`,
      conversation_id: c.id,
      author_id: null,
    });
    expect(placed.id).toBeGreaterThan(reply.json().result.id);
    await until(
      () => notices(o.id),
      (rows) => rows.every((r) => r.delivery_status === 'accepted'),
    );
    expect(sendsTo(c.contact).map((r) => r.body.text.body)).toEqual(['Your order is placed!', `Order ${o.id} received: 19.00 EUR (-)`]);
    expect(sendsTo(c.contact)[1].body).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: c.contact,
      type: 'text',
      text: { body: `Order ${o.id} received: 19.00 EUR (-)`, preview_url: false },
    });
    // the record shows order_id, on REST and in the event
    const listed = await t.api({ path: `/ai/conversations/${c.id}/messages`, key: KEYS.server, query: { fields: 'id,order_id' } });
    expect(listed.json().result).toEqual([
      { id: reply.json().result.id, order_id: null },
      { id: placed.id, order_id: o.id },
    ]);
    const [{ data }] = await db.sql<{ data: any }>("select data from ai_events where type = 'message.created' and (data->>'id')::int = ?", [
      placed.id,
    ]);
    expect(data.order_id).toBe(o.id);

    // a move with an entry: the reason fills {{eta}}; a repeated status sends nothing; a status without entry, nothing
    await move(o.id, 7, '20 min');
    await move(o.id, 7, 'again');
    await move(o.id, 3);
    // handed to a person, then closed: still the restaurant's notice
    expect((await call('POST', `/ai/conversations/${c.id}/handoff`, { handler: 'human' })).statusCode).toBe(200);
    await move(o.id, 4);
    expect((await call('POST', `/ai/conversations/${c.id}/close`, { status_reason: 'completed' })).statusCode).toBe(200);
    await move(o.id, 9);
    const rows = await until(
      () => notices(o.id),
      (r) => r.length === 4 && r.every((m) => m.delivery_status === 'accepted'),
    );
    expect(rows.map((r) => r.content)).toEqual([
      `Order ${o.id} received: 19.00 EUR (-)`,
      `Order ${o.id} accepted, ready in 20 min`,
      `Order ${o.id} is ready`,
      `Order ${o.id} picked up, 19.00 EUR`,
    ]);
    expect(sendsTo(c.contact).map((r) => r.body.text.body)).toEqual(['Your order is placed!', ...rows.map((r) => r.content)]);
  });

  it('outside the window: the entry’s template (shown in the thread, with order_id), or nothing without one', async () => {
    const c = await conversation({ inboundAgoMs: 25 * 3600_000 });
    const o = await placeOrder(c.id);
    // "0" has no template: nothing stored, nothing sent
    await move(o.id, 7, '20 min');
    expect(await notices(o.id)).toEqual([]);
    await move(o.id, 9, 'at 13:05');
    const [notice] = await until(
      () => notices(o.id),
      (r) => r.length === 1 && r[0].delivery_status === 'accepted',
    );
    const parameters = [String(o.id), '9.50 EUR', 'at 13:05'];
    expect(notice).toMatchObject({
      role: 'assistant',
      public: true,
      type: 'template',
      content: `Order ${o.id} is on its way: 9.50 EUR, arriving at 13:05`,
      payload: { template_id: TEMPLATE, name: 'order_on_way', language: 'en', body_parameters: parameters },
      conversation_id: c.id,
    });
    expect(notice.external_id).toMatch(/^wamid\./);
    const [sent] = sendsTo(c.contact);
    expect(sent.body).toMatchObject({
      messaging_product: 'whatsapp',
      to: c.contact,
      type: 'template',
      template: {
        name: 'order_on_way',
        language: { code: 'en' },
        components: [{ type: 'body', parameters: parameters.map((text) => ({ type: 'text', text })) }],
      },
    });
    expect(sendsTo(c.contact)).toHaveLength(1);
    // the send log has it as §6.1's sends
    const log = await t.api({
      path: `/ai/agents/${MAIN}/templates/sends`,
      key: KEYS.server,
      query: { where: JSON.stringify({ to: c.contact }) },
    });
    expect(log.json().result).toEqual([
      expect.objectContaining({ template_id: TEMPLATE, message_id: notice.external_id, status: 'accepted' }),
    ]);
  });

  it('a move through /graphql tells the customer as the REST route does, once; the graph shows order_id and conversion', async () => {
    const c = await conversation();
    const o = await placeOrder(c.id);
    const gql = (query: string) =>
      t.app.inject({ method: 'POST', url: '/graphql', headers: { 'x-api-key': KEYS.server }, payload: { query } });
    for (let i = 0; i < 2; i++) {
      const res = await gql(`mutation { moveAiOrder(order_id: ${o.id}, status: 7, reason: "15 min") { id status conversion { status } } }`);
      expect(res.json().data.moveAiOrder).toEqual({ id: o.id, status: 7, conversion: null });
    }
    const rows = await until(
      () => notices(o.id),
      (r) => r.length === 2 && r.every((m) => m.delivery_status === 'accepted'),
    );
    expect(rows.map((r) => r.content)).toEqual([`Order ${o.id} received: 9.50 EUR (-)`, `Order ${o.id} accepted, ready in 15 min`]);
    const read = await gql(`{ aiConversationMessages(conversation_id: ${c.id}) { items { id order_id } } }`);
    expect(read.json().data.aiConversationMessages.items).toEqual(rows.map((r) => ({ id: r.id, order_id: o.id })));
  });

  it('no notice for an app conversation (no contact, not a WhatsApp agent)', async () => {
    const app = await conversation({ agent: WEB, contact: null });
    const o = await placeOrder(app.id);
    await move(o.id, 7, 'soon');
    const noContact = await conversation({ contact: null });
    const o2 = await placeOrder(noContact.id);
    await move(o2.id, 4);
    expect(await notices(o.id)).toEqual([]);
    expect(await notices(o2.id)).toEqual([]);
  });

  it('one Purchase event with the exact body for an order from an ad; conversion pending then sent, with order.updated', async () => {
    const ad = { source_id: 'ad-1', source_type: 'ad', ctwa_clid: `clid-${engine}-1` };
    const c = await conversation({ referral: ad });
    const o = await placeOrder(c.id, 3);
    expect(o.conversion).toEqual({ status: 'pending', error: null, sent_at: null });
    const done = await until(
      () => order(o.id),
      (r) => r.conversion?.status !== 'pending',
    );
    expect(done.conversion).toMatchObject({ status: 'sent', error: null });
    expect(new Date(done.conversion.sent_at).getTime()).toBeGreaterThan(new Date(o.created_at).getTime());
    const [request] = eventsOf(o.uuid);
    expect(eventsOf(o.uuid)).toHaveLength(1);
    expect(request.path).toBe(`/v21.0/ds${MAIN}/events`);
    expect(request.headers.authorization).toBe(`Bearer EAAG-notice-token-${MAIN}`);
    expect(request.body).toEqual({
      data: [
        {
          event_name: 'Purchase',
          event_time: Math.floor(new Date(o.created_at).getTime() / 1000),
          event_id: o.uuid,
          action_source: 'business_messaging',
          messaging_channel: 'whatsapp',
          user_data: { whatsapp_business_account_id: `waba${MAIN}`, ctwa_clid: ad.ctwa_clid },
          custom_data: { currency: 'EUR', value: 28.5 },
        },
      ],
    });
    expect(await orderUpdated(o.id)).toBe(1);
    const [{ data }] = await db.sql<{ data: any }>("select data from ai_events where type = 'order.updated' and (data->>'id')::int = ?", [
      o.id,
    ]);
    expect(data.conversion.status).toBe('sent');
    // the order.created event carried it pending
    const [created] = await db.sql<{ data: any }>("select data from ai_events where type = 'order.created' and (data->>'id')::int = ?", [
      o.id,
    ]);
    expect(created.data.conversion).toEqual({ status: 'pending', error: null, sent_at: null });
    await new Promise((r) => setTimeout(r, 300));
    expect(eventsOf(o.uuid)).toHaveLength(1);
  });

  it('no event without a ctwa_clid, or without the dataset_id', async () => {
    const noClid = await placeOrder((await conversation({ referral: { source_id: 'ad-2', source_type: 'ad' } })).id);
    const noDataset = await placeOrder((await conversation({ agent: NO_DATASET, referral: { ctwa_clid: 'clid-x' } })).id);
    const noReferral = await placeOrder((await conversation()).id);
    await new Promise((r) => setTimeout(r, 400));
    for (const o of [noClid, noDataset, noReferral]) {
      expect(o.conversion).toBeNull();
      expect((await order(o.id)).conversion).toBeNull();
      expect(eventsOf(o.uuid)).toEqual([]);
    }
    const [{ n }] = await db.sql<{ n: number }>('select count(*)::int as n from ai_conversion_sends where order_id = any(?::bigint[])', [
      `{${[noClid.id, noDataset.id, noReferral.id].join(',')}}`,
    ]);
    expect(n).toBe(0);
  });

  it('retried after a 500 and a timeout, then sent once', async () => {
    fake.fail('events', CLOUD_ANSWERS.serverError, { times: 1 });
    fake.fail('events', { hang: true }, { times: 1 });
    try {
      const o = await placeOrder((await conversation({ referral: { ctwa_clid: `clid-${engine}-retry` } })).id);
      const done = await until(
        () => order(o.id),
        (r) => r.conversion?.status !== 'pending',
        8000,
      );
      expect(done.conversion.status).toBe('sent');
      expect(eventsOf(o.uuid)).toHaveLength(3);
      const [row] = await db.sql<Record<string, any>>('select * from ai_conversion_sends where order_id = ?', [o.id]);
      expect(row).toMatchObject({ status: 'done', attempts: 3, claimed_by: null });
      expect(await orderUpdated(o.id)).toBe(1);
      expect(MAX_CONVERSION_ATTEMPTS).toBe(8);
    } finally {
      fake.reset();
      fake.dropHung();
    }
  });

  it('eight failed attempts: failed with the last error, never a ninth', async () => {
    fake.fail('events', CLOUD_ANSWERS.serverError, { times: MAX_CONVERSION_ATTEMPTS });
    try {
      const o = await placeOrder((await conversation({ referral: { ctwa_clid: `clid-${engine}-8` } })).id);
      const done = await until(
        () => order(o.id),
        (r) => r.conversion?.status !== 'pending',
        15_000,
      );
      expect(done.conversion).toEqual({ status: 'failed', error: '1: An unknown error has occurred.', sent_at: null });
      await new Promise((r) => setTimeout(r, 300));
      expect(eventsOf(o.uuid)).toHaveLength(MAX_CONVERSION_ATTEMPTS);
      expect(await orderUpdated(o.id)).toBe(1);
    } finally {
      fake.reset();
    }
  }, 30_000);

  it('an event more than 7 days old when it could be sent is failed "too old", never sent', async () => {
    fake.fail('events', { hang: true }, { times: 1 });
    try {
      const o = await placeOrder((await conversation({ referral: { ctwa_clid: `clid-${engine}-old` } })).id);
      // the first attempt hangs; meanwhile the order is (as if) 8 days old
      await until(
        async () => eventsOf(o.uuid),
        (r) => r.length === 1,
      );
      await db.sql("update orders set created_at = now() - interval '8 days' where id = ?", [o.id]);
      const done = await until(
        () => order(o.id),
        (r) => r.conversion?.status !== 'pending',
        5000,
      );
      expect(done.conversion).toEqual({ status: 'failed', error: 'too old', sent_at: null });
      expect(eventsOf(o.uuid)).toHaveLength(1);
      expect(fake.conversionEvents().filter((r) => r.body.data[0].event_id === o.uuid)).toEqual([]);
      expect(await orderUpdated(o.id)).toBe(1);
    } finally {
      fake.reset();
      fake.dropHung();
    }
  });
});
