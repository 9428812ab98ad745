import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS, USERS } from '../support/fixtures.js';
import { MetaWebhooks, startWhatsAppFake, type WhatsAppFake } from '../support/whatsapp-fake.js';

/**
 * CONTRACT §10.6: a template send is also a public `assistant` message of `type` `template` in the active
 * conversation of (agent, `to`), opening one when none is active, with the send's provider id and statuses.
 * Each engine has its own agent; the provider is the local fake.
 */
const base = (e: number) => 400 + e * 10;
const secret = (id: number) => `app-secret-${id}`;
const creds = (id: number) => ({ waba_id: `waba${id}`, phone_number_id: `pn${id}`, access_token: `token-${id}`, app_secret: secret(id) });
const template = (agentId: number) => ({
  id: `t${agentId}`,
  name: 'order_ready',
  language: 'es',
  category: 'UTILITY',
  status: 'APPROVED',
  components: [{ type: 'BODY', text: 'Hola {{1}}, tu pedido {{2}} está listo' }],
});

let db: TestDatabase;
let fake: WhatsAppFake;
beforeAll(async () => {
  db = await createTestDatabase();
  fake = await startWhatsAppFake();
  const agents = ENGINES.map((_, e) => ({
    id: base(e),
    business_id: 1,
    name: `WA ${base(e)}`,
    provider: 'whatsapp',
    provider_type: 'chat',
    provider_external_id: `wa-tpl-${base(e)}`,
    enabled: true,
    credentials: creds(base(e)),
  }));
  const templates = ENGINES.map((_, e) => {
    const tpl = template(base(e));
    fake.addAccount({ ...creds(base(e)), templates: [tpl] });
    const { id, ...rest } = tpl;
    return { id: base(e) * 10, agent_id: base(e), external_id: id, ...rest };
  });
  await db.load(baseFixture({ agents, templates }));
});
afterAll(async () => {
  await fake.close();
  await db.orm.close();
});

describe.each(ENGINES.map((engine, e) => [engine, e] as const))('template sends in the conversation (%s)', (engine, e) => {
  const AGENT = base(e);
  const phone = (n: number) => `52155${AGENT}00${n}`;
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(engine, db, { config: { whatsappApiUrl: fake.url } });
  });
  afterAll(() => t?.close());

  const send = async (to: string, key = KEYS.admin) => {
    const res = await t.api({
      method: 'POST',
      path: `/ai/agents/${AGENT}/templates/${AGENT * 10}/send`,
      key,
      body: { to: `+${to}`, body_parameters: ['Lucía', 'A-17'] },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().result.message_id as string;
  };
  const webhook = async (body: unknown) => {
    const raw = JSON.stringify(body);
    const res = await t.app.inject({
      method: 'POST',
      url: '/v400/en/acme/ai/webhooks/whatsapp',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': MetaWebhooks.signature(raw, secret(AGENT)) },
      payload: raw,
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().result as { messages: number; statuses: number };
  };
  const conversationsOf = async (contact: string) => {
    const res = await t.api({
      path: '/ai/conversations',
      key: KEYS.server,
      query: { where: JSON.stringify({ contact, agent_id: AGENT }) },
    });
    return res.json().result as Record<string, any>[];
  };
  const messagesOf = async (conversationId: number) =>
    (await t.api({ path: `/ai/conversations/${conversationId}/messages`, key: KEYS.server, query: { page_size: '100' } })).json()
      .result as Record<string, any>[];

  it('a send to a contact without an active conversation opens one holding the template message', async () => {
    const mid = await send(phone(1));
    const [conversation] = await conversationsOf(phone(1));
    expect(conversation).toMatchObject({ status: 'active', contact: phone(1), messages_count: 1, window_expires_at: null });
    const [message] = await messagesOf(conversation.id);
    expect(message).toMatchObject({
      role: 'assistant',
      public: true,
      type: 'template',
      content: 'Hola Lucía, tu pedido A-17 está listo',
      payload: { template_id: AGENT * 10, name: 'order_ready', language: 'es', body_parameters: ['Lucía', 'A-17'] },
      external_id: mid,
      delivery_status: 'accepted',
      author_id: USERS.admin,
    });
    // one request reached the provider: the template; the message has no row in the send outbox
    expect(fake.requestsTo('send').filter((r) => r.body?.to === phone(1))).toHaveLength(1);
    expect(await db.sql('select 1 from ai_message_sends where message_id = ?', [message.id])).toEqual([]);
    // the events: conversation.created, message.created (with the message record)
    const events = await db.sql<{ type: string; data: any }>('select type, data from ai_events where conversation_id = ? order by id', [
      conversation.id,
    ]);
    expect(events.map((ev) => ev.type)).toEqual(['conversation.created', 'message.created']);
    expect(events[1].data).toMatchObject({ id: message.id, type: 'template', external_id: mid });
  });

  it("Meta's statuses move the send and the message together", async () => {
    const mid = await send(phone(2), KEYS.server);
    const [conversation] = await conversationsOf(phone(2));
    const status = (s: string) => webhook(MetaWebhooks.notification(`pn${AGENT}`, { statuses: [{ id: mid, status: s }] }));
    expect(await status('delivered')).toEqual({ messages: 0, statuses: 1 });
    const sendRow = async () => (await db.sql<{ status: string }>('select status from ai_template_sends where message_id = ?', [mid]))[0];
    expect((await sendRow()).status).toBe('delivered');
    expect((await messagesOf(conversation.id))[0]).toMatchObject({ delivery_status: 'delivered', author_id: null });
    expect(await status('read')).toEqual({ messages: 0, statuses: 1 });
    expect((await sendRow()).status).toBe('read');
    expect((await messagesOf(conversation.id))[0].delivery_status).toBe('read');
    const types = await db.sql<{ type: string }>(`select type from ai_events where conversation_id = ? and type = 'message.status'`, [
      conversation.id,
    ]);
    expect(types).toHaveLength(2);
  });

  it("a send to a contact with an active conversation joins it; the customer's answer lands in the same one", async () => {
    await webhook(
      MetaWebhooks.notification(`pn${AGENT}`, {
        messages: [
          {
            from: phone(3),
            id: `wamid.tpl.${process.pid}.${AGENT}.1`,
            text: 'hola',
            timestamp: String(Math.floor(Date.now() / 1000) - 2 * 86400),
          },
        ],
      }),
    );
    const [before] = await conversationsOf(phone(3));
    await send(phone(3));
    await webhook(
      MetaWebhooks.notification(`pn${AGENT}`, {
        messages: [{ from: phone(3), id: `wamid.tpl.${process.pid}.${AGENT}.2`, text: 'gracias' }],
      }),
    );
    const rows = await conversationsOf(phone(3));
    expect(rows.map((c) => [c.id, c.messages_count])).toEqual([[before.id, 3]]);
    expect((await messagesOf(before.id)).map((m) => [m.role, m.type])).toEqual([
      ['user', 'text'],
      ['assistant', 'template'],
      ['user', 'text'],
    ]);
  });
});
