import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { loadConfig } from '../../src/config.js';
import { MAX_SEND_ATTEMPTS, WhatsAppSender } from '../../src/workers/whatsapp-sender.js';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, testCipher, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';
import { openSse, type SseClient } from '../support/sse.js';
import { CLOUD_ANSWERS, MetaWebhooks, startWhatsAppFake, type WhatsAppFake } from '../support/whatsapp-fake.js';

/**
 * Replies on WhatsApp (CONTRACT §10.1) over HTTP, a real database and a local Cloud API, under both
 * engines: the exact request, pending → accepted, what is never sent, the window, the length limit,
 * retries and final failures, order within a conversation, idempotent replays, Meta's statuses
 * (forward only, early ones, `message.status` on SSE) and disabled agents. The sender runs in this
 * process with short deadlines, woken by commits as `serve` wires it.
 */
const base = (e: number) => 300 + e * 10;
const AGENT = { main: 1, disabled: 2, web: 3 };
const TIMEOUT_MS = 1000;
const RETRY_BASE_MS = 40;
const creds = (id: number) => ({
  waba_id: `waba${id}`,
  phone_number_id: `pn${id}`,
  access_token: `EAAG-reply-token-${id}`,
  app_secret: `app-secret-${id}`,
  verify_token: `verify-${id}`,
});

let db: TestDatabase;
let fake: WhatsAppFake;
let projectId: number;
let contactSeq = 0;
const contact = () => `34600${process.pid % 1000}${String(++contactSeq).padStart(4, '0')}`;

beforeAll(async () => {
  db = await createTestDatabase();
  fake = await startWhatsAppFake();
  const agents: Record<string, unknown>[] = [];
  for (const e of [0, 1]) {
    const b = base(e);
    const agent = (id: number, provider: string, enabled = true) => ({
      id,
      business_id: 1,
      name: `R${id}`,
      provider,
      provider_type: 'chat',
      provider_external_id: `reply-${id}`,
      enabled,
      credentials: creds(id),
    });
    agents.push(agent(b + AGENT.main, 'whatsapp'), agent(b + AGENT.disabled, 'whatsapp', false), agent(b + AGENT.web, 'web'));
    fake.addAccount({ ...creds(b + AGENT.main), templates: [] });
  }
  await db.load(baseFixture({ agents }));
  [{ id: projectId }] = await db.sql<{ id: number }>("select id from projects where code = 'acme'");
});
afterAll(async () => {
  await fake.close();
  await db.orm.close();
});

async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 5000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out; last: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe.each(ENGINES.map((engine, e) => [engine, e] as const))('WhatsApp replies (%s)', (engine, e) => {
  const MAIN = base(e) + AGENT.main;
  let t: TestApp;
  let origin: string;
  let sender: WhatsAppSender;
  const streams: SseClient[] = [];

  beforeAll(async () => {
    t = await startApp(engine, db, { config: { whatsappApiUrl: fake.url, providerTimeoutMs: TIMEOUT_MS } });
    origin = await t.listen();
    sender = new WhatsAppSender({
      orm: db.orm,
      cipher: testCipher,
      config: { ...loadConfig({}).whatsappSends, retryBaseMs: RETRY_BASE_MS, pollMs: 200 },
      apiUrl: fake.url,
      timeoutMs: TIMEOUT_MS,
      log: { info: () => undefined, warn: () => undefined, error: () => undefined },
      onEvents: (p) => t.services.events.sequence(p),
    }).start();
    t.services.events.onWork((kind) => {
      if (kind === null || kind === 'sends') sender.wake();
    });
  });
  afterAll(async () => {
    for (const s of streams) s.close();
    await sender.stop();
    await t.close();
  });

  /** A WhatsApp conversation (agent MAIN unless said) whose contact wrote `inboundAgoMs` ago (null: never). */
  async function conversation(
    opts: { agent?: number; inboundAgoMs?: number | null; contact?: string | null } = {},
  ): Promise<{ id: number; contact: string | null }> {
    const to = opts.contact === undefined ? contact() : opts.contact;
    const ago = opts.inboundAgoMs === undefined ? 60_000 : opts.inboundAgoMs;
    const [row] = await db.sql<{ id: number }>(
      `insert into ai_conversations (project_id, agent_id, business_id, contact, status, usage, last_inbound_at)
       values (?, ?, 1, ?, 'active', '{}', ${ago === null ? 'null' : 'now() - make_interval(secs => ?)'}) returning id`,
      ago === null ? [projectId, opts.agent ?? MAIN, to] : [projectId, opts.agent ?? MAIN, to, ago / 1000],
    );
    return { id: row.id, contact: to };
  }

  const reply = (conversationId: number, body: Record<string, unknown>, opts: { headers?: Record<string, string>; lang?: string } = {}) =>
    t.api({
      method: 'POST',
      path: `/ai/conversations/${conversationId}/messages`,
      key: KEYS.server,
      body: { role: 'assistant', ...body },
      ...opts,
    });
  const message = async (id: number) => (await db.sql<Record<string, any>>('select * from ai_messages where id = ?', [id]))[0];
  const settled = (id: number, timeoutMs = 5000) =>
    until(
      () => message(id),
      (m) => m.delivery_status !== 'pending',
      timeoutMs,
    );
  const sendsTo = (to: string | null) => fake.requestsTo('send').filter((r) => r.body?.to === to);

  it('sends the exact Cloud API request within 1 s; pending, then accepted with the provider id', async () => {
    const c = await conversation();
    const posted = Date.now();
    const res = await reply(c.id, { content: '¿Entregamos en Calle Mayor? Sí 🚲' });
    expect(res.statusCode).toBe(200);
    const record = res.json().result;
    expect(record).toMatchObject({ role: 'assistant', public: true, delivery_status: 'pending', delivery_error: null, external_id: null });
    const [request] = await until(
      async () => sendsTo(c.contact),
      (r) => r.length > 0,
    );
    expect(Date.now() - posted).toBeLessThan(1000);
    expect(request.method).toBe('POST');
    expect(request.path).toBe(`/v21.0/pn${MAIN}/messages`);
    expect(request.headers.authorization).toBe(`Bearer EAAG-reply-token-${MAIN}`);
    expect(request.body).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: c.contact,
      type: 'text',
      text: { body: '¿Entregamos en Calle Mayor? Sí 🚲', preview_url: false },
    });
    const done = await settled(record.id);
    expect(done.delivery_status).toBe('accepted');
    expect(done.external_id).toMatch(/^wamid\.TEXT/);
    const listed = await t.api({
      path: `/ai/conversations/${c.id}/messages`,
      key: KEYS.server,
      query: { where: JSON.stringify({ delivery_status: 'accepted' }) },
    });
    expect(listed.statusCode, listed.body).toBe(200);
    expect(listed.json().result).toEqual([
      expect.objectContaining({ id: record.id, delivery_status: 'accepted', external_id: done.external_id, delivery_error: null }),
    ]);
    const pending = await t.api({
      path: `/ai/conversations/${c.id}/messages`,
      key: KEYS.server,
      query: { where: JSON.stringify({ delivery_status: 'pending' }), orderBy: '-delivery_status' },
    });
    expect(pending.json().result).toEqual([]);
    const [{ n }] = await db.sql<{ n: number }>(
      "select count(*)::int as n from ai_events where type = 'message.status' and (data->>'id')::int = ?",
      [record.id],
    );
    expect(n).toBe(1);
  });

  it('sends a reply added through the graph mutation too; the graph shows window_expires_at and the window error', async () => {
    const c = await conversation();
    const gql = (query: string) =>
      t.app.inject({ method: 'POST', url: '/graphql', headers: { 'x-api-key': KEYS.server }, payload: { query } });
    const res = await gql(
      `mutation { addAiConversationMessage(conversation_id: ${c.id}, role: "assistant", content: "from the graph") { id delivery_status } }`,
    );
    const added = res.json().data.addAiConversationMessage;
    expect(added.delivery_status).toBe('pending');
    expect((await settled(added.id)).delivery_status).toBe('accepted');
    expect(sendsTo(c.contact).map((r) => r.body.text.body)).toEqual(['from the graph']);
    const [{ last_inbound_at }] = await db.sql<{ last_inbound_at: Date }>('select last_inbound_at from ai_conversations where id = ?', [
      c.id,
    ]);
    const read = await gql(`{ aiConversation(id: ${c.id}) { window_expires_at } }`);
    expect(read.json().data.aiConversation.window_expires_at).toBe(
      new Date(new Date(last_inbound_at).getTime() + 24 * 3600_000).toISOString(),
    );
    const closed = await conversation({ inboundAgoMs: null });
    const refused = await gql(
      `mutation { addAiConversationMessage(conversation_id: ${closed.id}, role: "assistant", content: "x") { id } }`,
    );
    expect(refused.json().errors[0].extensions.code).toBe('ERROR_WHATSAPP_WINDOW_CLOSED');
    expect(
      (await gql(`{ aiConversation(id: ${closed.id}) { window_expires_at } }`)).json().data.aiConversation.window_expires_at,
    ).toBeNull();
  });

  it('never sends other roles, non-public messages, contact-less or non-WhatsApp conversations', async () => {
    const c = await conversation();
    const web = await conversation({ agent: base(e) + AGENT.web });
    const noContact = await conversation({ contact: null, inboundAgoMs: null });
    const posts = [
      reply(c.id, { role: 'user', content: 'u' }),
      reply(c.id, { role: 'system', content: 's' }),
      reply(c.id, { role: 'tool', content: 't' }),
      reply(c.id, { content: 'internal note', public: false }),
      reply(web.id, { content: 'web reply' }),
      reply(noContact.id, { content: 'api reply' }),
    ];
    for (const res of await Promise.all(posts)) {
      expect(res.statusCode).toBe(200);
      expect(res.json().result).toMatchObject({ delivery_status: null, delivery_error: null });
    }
    await new Promise((r) => setTimeout(r, 600));
    expect([...sendsTo(c.contact), ...sendsTo(web.contact), ...sendsTo(null)]).toEqual([]);
    const [{ n }] = await db.sql<{ n: number }>('select count(*)::int as n from ai_message_sends where conversation_id in (?, ?, ?)', [
      c.id,
      web.id,
      noContact.id,
    ]);
    expect(n).toBe(0);
  });

  it('refuses a reply outside the 24-hour window (400, nothing stored), in every language', async () => {
    const expired = await conversation({ inboundAgoMs: 24 * 3600_000 + 60_000 });
    const never = await conversation({ inboundAgoMs: null });
    const texts = new Set<string>();
    for (const lang of ['en', 'es', 'fr', 'ar']) {
      const res = await reply(expired.id, { content: 'late' }, { lang });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error: true, code: 'ERROR_WHATSAPP_WINDOW_CLOSED' });
      texts.add(JSON.stringify(res.json().result));
    }
    expect(texts.size).toBe(4);
    expect((await reply(never.id, { content: 'never wrote' })).json().code).toBe('ERROR_WHATSAPP_WINDOW_CLOSED');
    const [{ n }] = await db.sql<{ n: number }>('select count(*)::int as n from ai_messages where conversation_id in (?, ?)', [
      expired.id,
      never.id,
    ]);
    expect(n).toBe(0);
    // other roles are not sent, so the window does not apply to them
    expect((await reply(expired.id, { role: 'system', content: 'note' })).statusCode).toBe(200);
  });

  it('holds a reply to 4,096 code points (400 naming content, nothing stored)', async () => {
    const c = await conversation();
    const tooLong = await reply(c.id, { content: '😀'.repeat(4097) });
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.json().code).toBe('ERROR_VALIDATION');
    expect(JSON.stringify(tooLong.json().result)).toContain('content');
    expect((await db.sql('select 1 from ai_messages where conversation_id = ?', [c.id])).length).toBe(0);
    const fits = await reply(c.id, { content: '😀'.repeat(4096) });
    expect(fits.statusCode).toBe(200);
    expect((await settled(fits.json().result.id)).delivery_status).toBe('accepted');
    // a non-public note may be longer: it is sent nowhere
    expect((await reply(c.id, { content: 'x'.repeat(5000), public: false })).statusCode).toBe(200);
  });

  it('retries two 500s, then is accepted: three requests, one accepted message', async () => {
    const c = await conversation();
    fake.fail('send', CLOUD_ANSWERS.serverError, { times: 2 });
    const res = await reply(c.id, { content: 'third time lucky' });
    const done = await settled(res.json().result.id);
    fake.reset();
    expect(done).toMatchObject({ delivery_status: 'accepted', delivery_error: null });
    expect(sendsTo(c.contact)).toHaveLength(3);
    const [send] = await db.sql<{ attempts: number; status: string }>(
      'select attempts, status from ai_message_sends where message_id = ?',
      [done.id],
    );
    expect(send).toEqual({ attempts: 3, status: 'done' });
  });

  it("retries 429, Meta's throttling code 130429 and a provider that hangs past PROVIDER_TIMEOUT_MS", async () => {
    const c = await conversation();
    fake.fail('send', { hang: true }, { times: 1 });
    const res = await reply(c.id, { content: 'patience' });
    await until(
      async () => sendsTo(c.contact),
      (r) => r.length === 1,
    );
    fake.reset();
    fake.fail('send', CLOUD_ANSWERS.tooManyRequests, { times: 1 });
    await until(
      async () => sendsTo(c.contact),
      (r) => r.length === 2,
      3000,
    );
    fake.reset();
    fake.fail('send', CLOUD_ANSWERS.throttled, { times: 1 });
    const done = await settled(res.json().result.id);
    fake.reset();
    expect(done.delivery_status).toBe('accepted');
    expect(sendsTo(c.contact)).toHaveLength(4);
  });

  it('fails at once on 131047 and 401, with delivery_error "CODE: TEXT"', async () => {
    for (const [answer, error] of [
      [CLOUD_ANSWERS.reEngagement, '131047: Re-engagement message'],
      [CLOUD_ANSWERS.unauthorized, '190: Invalid OAuth access token - Cannot parse access token'],
    ] as const) {
      const c = await conversation();
      fake.fail('send', answer, { times: 1 });
      const res = await reply(c.id, { content: 'hello again' });
      const done = await settled(res.json().result.id);
      fake.reset();
      expect(done).toMatchObject({ delivery_status: 'failed', delivery_error: error, external_id: null });
      await new Promise((r) => setTimeout(r, 3 * RETRY_BASE_MS));
      expect(sendsTo(c.contact)).toHaveLength(1);
    }
  });

  it(`gives up after ${MAX_SEND_ATTEMPTS} attempts with the last failure ("HTTP 503")`, async () => {
    const c = await conversation();
    fake.fail('send', { status: 503, body: {} }, { times: 100 });
    const res = await reply(c.id, { content: 'unlucky' });
    const done = await settled(res.json().result.id, 20_000);
    fake.reset();
    expect(done).toMatchObject({ delivery_status: 'failed', delivery_error: 'HTTP 503' });
    expect(sendsTo(c.contact)).toHaveLength(MAX_SEND_ATTEMPTS);
  }, 30_000);

  it('keeps the written order under a slow first send', async () => {
    const c = await conversation();
    fake.fail('send', { delayMs: 500 }, { times: 1 }); // slow, within PROVIDER_TIMEOUT_MS
    const ids: number[] = [];
    for (let i = 1; i <= 5; i++) ids.push((await reply(c.id, { content: `part ${i}` })).json().result.id);
    for (const id of ids) expect((await settled(id)).delivery_status).toBe('accepted');
    fake.reset();
    const sent = sendsTo(c.contact);
    expect(sent.map((r) => r.body.text.body)).toEqual(['part 1', 'part 2', 'part 3', 'part 4', 'part 5']);
    // the second was not even asked before the first's slow answer came back
    expect(sent[1].at).toBeGreaterThanOrEqual(sent[0].at + 500 - 5);
  });

  it('sends once when an Idempotency-Key is replayed', async () => {
    const c = await conversation();
    const headers = { 'idempotency-key': `reply-${e}-${Date.now()}` };
    const first = await reply(c.id, { content: 'only once' }, { headers });
    const again = await reply(c.id, { content: 'only once' }, { headers });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().result.id).toBe(first.json().result.id);
    await settled(first.json().result.id);
    await new Promise((r) => setTimeout(r, 300));
    expect(sendsTo(c.contact)).toHaveLength(1);
    expect((await db.sql('select 1 from ai_messages where conversation_id = ?', [c.id])).length).toBe(1);
  });

  it('fails a disabled agent\'s reply with "agent disabled" and no request', async () => {
    const c = await conversation({ agent: base(e) + AGENT.disabled });
    const res = await reply(c.id, { content: 'nobody home' });
    expect(res.statusCode).toBe(200);
    const done = await settled(res.json().result.id, 1500);
    expect(done).toMatchObject({ delivery_status: 'failed', delivery_error: 'agent disabled' });
    expect(sendsTo(c.contact)).toEqual([]);
  });

  it("moves delivery_status forward with Meta's statuses, keeps an early one, and streams message.status", async () => {
    const meta = new MetaWebhooks(`${origin}/v400/en/acme/ai/webhooks/whatsapp`);
    const secret = creds(MAIN).app_secret;
    const status = (id: string, s: string, errors?: { code: number; title: string }[]) =>
      meta.post(MetaWebhooks.notification(`pn${MAIN}`, { statuses: [{ id, status: s, ...(errors ? { errors } : {}) }] }), secret);
    const sse = await openSse(`${origin}/v400/en/acme/ai/events?types=message.status`, { 'x-api-key': KEYS.server });
    streams.push(sse);
    // ... and the aiEvents subscription (graphql-ws)
    const ws = createClient({
      url: `${origin.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { 'X-Api-Key': KEYS.server },
      retryAttempts: 0,
    });
    const subscribed: any[] = [];
    const subErrors: unknown[] = [];
    const unsubscribe = ws.subscribe(
      { query: 'subscription { aiEvents(types: ["message.status"]) { type data } }' },
      { next: (v) => subscribed.push(v), error: (err) => subErrors.push(err), complete: () => undefined },
    );
    await new Promise((r) => setTimeout(r, 300)); // the subscription is open before the first change
    // message.status joins the webhook event types: a webhook that wants it gets a delivery per change
    const hook = await t.api({
      method: 'POST',
      path: '/ai/webhooks',
      key: KEYS.server,
      body: { url: 'https://93.184.215.14/og', events: ['message.status'] },
    });
    expect(hook.statusCode, hook.body).toBe(200);
    const c = await conversation();

    const first = (await reply(c.id, { content: 'tracked' })).json().result;
    const { external_id: wamid } = await settled(first.id);
    expect((await status(wamid, 'delivered')).body.result).toEqual({ messages: 0, statuses: 1 });
    expect((await status(wamid, 'sent')).body.result).toEqual({ messages: 0, statuses: 0 }); // backwards: ignored
    for (const ignored of ['played', 'deleted', 'warning']) expect((await status(wamid, ignored)).body.result.statuses).toBe(0);
    expect((await status(wamid, 'read')).body.result.statuses).toBe(1);
    expect((await status(wamid, 'failed', [{ code: 131026, title: 'Message undeliverable' }])).body.result.statuses).toBe(0); // read is final
    expect(await message(first.id)).toMatchObject({ delivery_status: 'read', delivery_error: null });

    const second = (await reply(c.id, { content: 'undeliverable' })).json().result;
    const { external_id: wamid2 } = await settled(second.id);
    expect((await status(wamid2, 'failed', [{ code: 131026, title: 'Message undeliverable' }])).body.result.statuses).toBe(1);
    expect(await message(second.id)).toMatchObject({ delivery_status: 'failed', delivery_error: '131026: Message undeliverable' });

    // A status that outruns the send's answer: kept, then applied when the message gets its id.
    fake.fail('send', { delayMs: 600 }, { times: 1 }); // within PROVIDER_TIMEOUT_MS
    const third = (await reply(c.id, { content: 'fast status' })).json().result;
    await until(
      async () => sendsTo(c.contact),
      (r) => r.length === 3,
    );
    const early = fake.nextTextId();
    expect((await status(early, 'delivered')).body.result.statuses).toBe(0);
    const done = await settled(third.id);
    fake.reset();
    expect(done).toMatchObject({ external_id: early, delivery_status: 'delivered' });

    const expected = [
      [first.id, 'accepted'],
      [first.id, 'delivered'],
      [first.id, 'read'],
      [second.id, 'accepted'],
      [second.id, 'failed'],
      [third.id, 'accepted'],
      [third.id, 'delivered'],
    ];
    await sse.until((s) => s.events.length >= expected.length);
    const seen = sse.events.map((ev) => JSON.parse(ev.data)).map((ev) => [ev.data.id, ev.data.delivery_status]);
    expect(sse.events.every((ev) => ev.event === 'message.status')).toBe(true);
    expect(seen).toEqual(expected);
    await until(
      async () => subscribed.length,
      (n) => n >= expected.length || subErrors.length > 0,
    );
    unsubscribe();
    await ws.dispose();
    expect(subErrors).toEqual([]);
    expect(subscribed.map((v) => [v.data.aiEvents.data.id, v.data.aiEvents.data.delivery_status])).toEqual(expected);
    const [{ n }] = await db.sql<{ n: number }>(
      "select count(*)::int as n from ai_webhook_deliveries where webhook_id = ? and event_type = 'message.status'",
      [hook.json().result.id],
    );
    expect(n).toBe(expected.length);
  });
});
