import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';
import { openSse } from '../support/sse.js';

/**
 * CONTRACT §16 over HTTP, both engines: a project whose ids pass 2^32 (a fixture with such ids, then every sequence
 * moved past 2^32 so what the service creates is too) reads every kind of record by id on REST and /graphql; ids are
 * JSON numbers; a path id is 1–18 digits (leading zeros allowed), else 400 naming it; one no record has answers the
 * resource's not-found code, however large.
 */
const BIG = 5_000_000_000;
const NEXT = 6_000_000_000;
const A = BIG + 1; // agent
const T = BIG + 2; // template
const P = BIG + 3; // product
const C = BIG + 4; // conversation
const M = BIG + 5; // message
const O = BIG + 6; // order
const MEDIA = 'big-ids-media-1';
const HUGE = '999999999999999999';

let db: TestDatabase;
let sendId: number;
beforeAll(async () => {
  db = await createTestDatabase();
  // the project's own id past 2^32 too: every key built from it (the sequencer's and the streams' locks) is 64-bit
  await db.sql("select setval('projects_id_seq', ?)", [BIG]);
  await db.load(
    baseFixture({
      products: [{ id: P, business_id: 1, name: 'Pizza grande', price: 12.5, retailer_id: 'pizza-grande' }],
      agents: [
        {
          id: A,
          business_id: 1,
          name: 'Big WA',
          provider: 'whatsapp',
          provider_type: 'chat',
          provider_external_id: 'big-ids-agent',
          enabled: true,
        },
      ],
      templates: [{ id: T, agent_id: A, external_id: 'big-tpl', name: 'hello', language: 'es', category: 'UTILITY', status: 'APPROVED' }],
      conversations: [
        { id: C, agent_id: A, business_id: 1, contact: '5215550006401', status: 'active', created_at: new Date().toISOString() },
      ],
      messages: [{ id: M, conversation_id: C, role: 'user', content: 'hola, ¿tienen pizza?' }],
      orders: [
        {
          id: O,
          business_id: 1,
          conversation_id: C,
          status: 0,
          summary: { total: 25 },
          products: [{ product_id: P, name: 'Pizza grande', quantity: 2, price: 12.5 }],
        },
      ],
    }),
  );
  // every sequence past 2^32: what the service creates from here on (sends, replies, webhooks, messages, events) too
  const sequences = await db.sql<{ name: string }>(
    `select sequencename as name from pg_sequences where schemaname = 'public' and sequencename <> 'mikro_orm_migrations_id_seq'`,
  );
  for (const { name } of sequences) await db.sql('select setval(?::regclass, ?)', [name, NEXT]);
  const [send] = await db.sql<{ id: number }>(
    `insert into ai_template_sends (project_id, agent_id, template_id, message_id, "to")
     select project_id, id, ?, 'wamid.big-ids', '5215550006401' from ai_agents where id = ? returning id`,
    [T, A],
  );
  sendId = send.id;
  await db.sql(
    `insert into ai_media (id, project_id, origin, conversation_id, message_id, agent_id, status, mime_type)
     select ?, project_id, 'inbound', id, ?, agent_id, 'pending', 'image/jpeg' from ai_conversations where id = ?`,
    [MEDIA, M, C],
  );
  await db.sql(
    `update ai_messages set type = 'image', payload = jsonb_build_object('media', jsonb_build_object('id', ?::text)) where id = ?`,
    [MEDIA, M],
  );
});
afterAll(() => db.orm.close());

describe('ids past 2^32', () => {
  it('are bigint in the database and read as JS numbers', async () => {
    expect(sendId).toBeGreaterThan(NEXT);
    const [project] = await db.sql<{ id: number }>("select id from projects where code = 'acme'");
    expect(project.id).toBeGreaterThan(BIG);
    expect(typeof sendId).toBe('number');
  });
});

describe.each(ENGINES)('64-bit ids (%s)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    // webhooks to 127.0.0.1 (never called: no event they ask for happens)
    t = await startApp(engine, db, { config: { webhooks: { ...loadConfig({}).webhooks, allowPrivateNetworks: true } } });
  });
  afterAll(() => t.close());

  const get = (path: string, key = KEYS.server) => t.api({ path, key });
  const graph = async (query: string, variables: Record<string, unknown> = {}) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { 'x-api-key': KEYS.server },
      payload: { query, variables },
    });
    return res.json();
  };
  const ok = async (path: string) => {
    const res = await get(path);
    expect(res.statusCode, `${path}: ${res.body}`).toBe(200);
    return res.json().result;
  };

  it('reads every kind of record by id on REST, ids as JSON numbers', async () => {
    const agent = await ok(`/ai/agents/${A}`);
    expect(agent.id).toBe(A);

    const templates = await ok(`/ai/agents/${A}/templates`);
    expect(JSON.stringify(templates)).toContain(`"id":${T}`);

    const sends = await ok(`/ai/agents/${A}/templates/sends`);
    expect(sends.items ?? sends).toEqual(expect.arrayContaining([expect.objectContaining({ id: sendId, template_id: T })]));

    const conversation = await ok(`/ai/conversations/${C}`);
    expect(conversation).toMatchObject({ id: C, agent_id: A, business_id: 1 });

    const messages = await ok(`/ai/conversations/${C}/messages?where=${encodeURIComponent(JSON.stringify({ id: M }))}`);
    expect((messages.items ?? messages).map((m: { id: number }) => m.id)).toEqual([M]);

    // the file of message M, found by its ids (still downloading: 409, where an unknown message is 400 not found)
    const media = await get(`/ai/conversations/${C}/messages/${M}/media`);
    expect([media.statusCode, media.json().code]).toEqual([409, 'ERROR_AI_MEDIA_PENDING']);

    const product = await ok(`/ai/products/${P}`);
    expect(product).toMatchObject({ id: P, business_id: 1 });

    const order = await ok(`/ai/orders/${O}`);
    expect(order).toMatchObject({ id: O, conversation_id: C, business_id: 1 });
    expect(JSON.stringify(order)).toContain(`"product_id":${P}`);

    const orders = await ok(`/ai/conversations/${C}/orders`);
    expect(JSON.stringify(orders)).toContain(`"id":${O}`);

    const cart = await get(`/ai/conversations/${C}/cart`);
    expect([200, 400]).toContain(cart.statusCode);
    if (cart.statusCode === 400) expect(cart.json().code).toBe('ERROR_AI_CART_NOT_FOUND');
  });

  it('creates records with ids past 2^32 and reads them back by id (messages, replies, webhooks, events)', async () => {
    const origin = await t.listen();
    const stream = await openSse(`${origin}/v400/en/acme/ai/events?types=message.created`, { 'x-api-key': KEYS.server });
    const added = await t.api({
      method: 'POST',
      path: `/ai/conversations/${C}/messages`,
      key: KEYS.server,
      body: { role: 'user', content: `otra pregunta (${engine})`, reply_to_id: M },
    });
    expect(added.statusCode, added.body).toBe(200);
    const message = added.json().result;
    expect(message.id).toBeGreaterThan(NEXT);
    expect(message.reply_to_id).toBe(M);
    const listed = await ok(`/ai/conversations/${C}/messages?where=${encodeURIComponent(JSON.stringify({ id: message.id }))}`);
    expect((listed.items ?? listed).map((m: { id: number }) => m.id)).toEqual([message.id]);

    await stream.until((s) => s.events.some((ev) => ev.data.includes(`"id":${message.id}`)), 10_000);
    stream.close();
    const event = stream.events.find((ev) => ev.data.includes(`"id":${message.id}`))!;
    expect(Number(event.id)).toBeGreaterThan(NEXT);
    expect(JSON.parse(event.data)).toMatchObject({ id: Number(event.id), data: { id: message.id, conversation_id: C } });

    const seen = await t.api({ method: 'POST', path: `/ai/conversations/${C}/seen`, key: KEYS.admin, body: { message_id: message.id } });
    expect(seen.statusCode, seen.body).toBe(200);

    const reply = await t.api({
      method: 'POST',
      path: '/ai/replies',
      key: KEYS.server,
      body: { shortcut: `big-${engine}`, content: 'Abrimos a las 12' },
    });
    expect(reply.statusCode, reply.body).toBe(200);
    const replyId = reply.json().result.id;
    expect(replyId).toBeGreaterThan(NEXT);
    const patched = await t.api({
      method: 'PATCH',
      path: `/ai/replies/${replyId}`,
      key: KEYS.server,
      body: { content: 'Abrimos a las 13' },
    });
    expect(patched.json().result).toMatchObject({ id: replyId, content: 'Abrimos a las 13' });

    const hook = await t.api({
      method: 'POST',
      path: '/ai/webhooks',
      key: KEYS.server,
      body: { url: `http://127.0.0.1:9/big-${engine}`, events: ['order.status'] },
    });
    expect(hook.statusCode, hook.body).toBe(200);
    const hookId = hook.json().result.id;
    expect(hookId).toBeGreaterThan(NEXT);
    expect((await get(`/ai/webhooks/${hookId}/deliveries`)).statusCode).toBe(200);
    const deleted = await t.api({ method: 'DELETE', path: `/ai/webhooks/${hookId}`, key: KEYS.server });
    expect(deleted.json().result.id).toBe(hookId);
  });

  it('reads them by id on /graphql (SafeInt), ids as JSON numbers', async () => {
    const res = await graph(
      `query ($a: SafeInt!, $c: SafeInt!, $p: SafeInt!, $o: SafeInt!, $m: SafeInt!) {
        aiAgent(agent_id: $a) { id }
        aiConversation(id: $c) { id agent_id }
        aiProduct(product_id: $p) { id }
        aiOrder(order_id: $o) { id conversation_id }
        aiMessageMedia(conversation_id: $c, message_id: $m) { id }
        aiTemplates(agent_id: $a) { id }
      }`,
      { a: A, c: C, p: P, o: O, m: M },
    );
    expect(res.errors, JSON.stringify(res.errors)).toBeUndefined();
    expect(res.data).toMatchObject({
      aiAgent: { id: A },
      aiConversation: { id: C, agent_id: A },
      aiProduct: { id: P },
      aiOrder: { id: O, conversation_id: C },
      aiMessageMedia: { id: MEDIA },
    });
    expect(res.data.aiTemplates.map((x: { id: number }) => x.id)).toContain(T);
    // a literal past 2^31 is a SafeInt (GraphQL's Int would refuse it)
    const literal = await graph(`{ aiConversation(id: ${C}) { id } }`);
    expect(literal.data.aiConversation.id).toBe(C);
    const missing = await graph(`{ aiConversation(id: ${BIG + 99}) { id } }`);
    expect(missing.errors[0].extensions.code).toBe('ERROR_AI_CONVERSATION_NOT_FOUND');
  });

  it('takes a path id of 1–18 digits, leading zeros allowed', async () => {
    expect((await ok(`/ai/conversations/${String(C).padStart(18, '0')}`)).id).toBe(C);
    expect((await ok(`/ai/agents/${String(A).padStart(18, '0')}`)).id).toBe(A);
    expect((await ok(`/ai/orders/0${O}`)).id).toBe(O);
  });

  const routes: { name: string; method?: 'GET' | 'PATCH' | 'DELETE'; path: (id: string) => string; body?: unknown; code: string }[] = [
    { name: 'agent_id', path: (id) => `/ai/agents/${id}`, code: 'ERROR_AI_AGENT_NOT_FOUND' },
    { name: 'agent_id', path: (id) => `/ai/agents/${id}/templates`, code: 'ERROR_AI_AGENT_NOT_FOUND' },
    { name: 'conversation_id', path: (id) => `/ai/conversations/${id}`, code: 'ERROR_AI_CONVERSATION_NOT_FOUND' },
    { name: 'conversation_id', path: (id) => `/ai/conversations/${id}/messages`, code: 'ERROR_AI_CONVERSATION_NOT_FOUND' },
    { name: 'message_id', path: (id) => `/ai/conversations/${C}/messages/${id}/media`, code: 'ERROR_AI_MESSAGE_NOT_FOUND' },
    { name: 'product_id', path: (id) => `/ai/products/${id}`, code: 'ERROR_AI_PRODUCT_NOT_FOUND' },
    { name: 'order_id', path: (id) => `/ai/orders/${id}`, code: 'ERROR_AI_ORDER_NOT_FOUND' },
    { name: 'reply_id', method: 'PATCH', path: (id) => `/ai/replies/${id}`, body: { content: 'x' }, code: 'ERROR_AI_REPLY_NOT_FOUND' },
    { name: 'webhook_id', method: 'DELETE', path: (id) => `/ai/webhooks/${id}`, code: 'ERROR_WEBHOOK_NOT_FOUND' },
  ];

  it.each(routes)('$name in $code: an id no record has is not found however large; 19 digits or a non-digit is a 400', async (r) => {
    const call = (id: string) => t.api({ method: r.method ?? 'GET', path: r.path(id), key: KEYS.server, body: r.body });
    for (const id of [String(BIG + 99), '2147483648', '4294967296', '9007199254740993', HUGE, `00000${BIG + 99}`]) {
      const res = await call(id);
      expect(res.json().code, `${r.path(id)}: ${res.body}`).toBe(r.code);
      expect([400, 404]).toContain(res.statusCode);
    }
    for (const id of ['9223372036854775807', '1'.repeat(19), '12a']) {
      const res = await call(id);
      expect([res.statusCode, res.json().code], `${r.path(id)}: ${res.body}`).toEqual([400, 'ERROR_VALIDATION']);
      expect(JSON.stringify(res.json().result)).toContain(r.name);
    }
  });
});
