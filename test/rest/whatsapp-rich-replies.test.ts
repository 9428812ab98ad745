import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { WhatsAppSender } from '../../src/workers/whatsapp-sender.js';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, testCipher, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';
import { CLOUD_ANSWERS, startWhatsAppFake, type WhatsAppFake } from '../support/whatsapp-fake.js';

/**
 * Replies that are more than text (CONTRACT §12.4) over HTTP, a real database and a local Cloud API,
 * under both engines: the typing indicator (read receipt + typing_indicator for the newest inbound
 * message, at most one provider call per conversation and second).
 */
const base = (e: number) => 500 + e * 10;
const AGENT = { main: 1, disabled: 2, web: 3 };
const TIMEOUT_MS = 1000;
const creds = (id: number) => ({
  waba_id: `waba${id}`,
  phone_number_id: `pn${id}`,
  access_token: `EAAG-rich-token-${id}`,
  app_secret: `app-secret-${id}`,
  verify_token: `verify-${id}`,
});

let db: TestDatabase;
let fake: WhatsAppFake;
let projectId: number;
let contactSeq = 0;
const contact = () => `34700${process.pid % 1000}${String(++contactSeq).padStart(4, '0')}`;

beforeAll(async () => {
  db = await createTestDatabase();
  fake = await startWhatsAppFake();
  const agents: Record<string, unknown>[] = [];
  for (const e of [0, 1]) {
    const b = base(e);
    const agent = (id: number, provider: string, enabled = true) => ({
      id,
      business_id: 1,
      name: `Rich${id}`,
      provider,
      provider_type: 'chat',
      provider_external_id: `rich-${id}`,
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

describe.each(ENGINES.map((engine, e) => [engine, e] as const))('Rich WhatsApp replies (%s)', (engine, e) => {
  const MAIN = base(e) + AGENT.main;
  let t: TestApp;
  let sender: WhatsAppSender;

  beforeAll(async () => {
    t = await startApp(engine, db, { config: { whatsappApiUrl: fake.url, providerTimeoutMs: TIMEOUT_MS } });
    sender = new WhatsAppSender({
      orm: db.orm,
      cipher: testCipher,
      config: { ...loadConfig({}).whatsappSends, retryBaseMs: 40, pollMs: 200 },
      apiUrl: fake.url,
      timeoutMs: TIMEOUT_MS,
      log: { info: () => undefined, warn: () => undefined, error: () => undefined },
      onEvents: (p) => t.services.events.sequence(p),
    }).start();
    t.services.events.onCommit(() => sender.wake());
  });
  afterAll(async () => {
    await sender.stop();
    await t.close();
  });

  /** A WhatsApp conversation (agent MAIN unless said) with inbound messages `inbound` (external ids, oldest first), the newest `inboundAgoMs` ago. */
  async function conversation(
    opts: { agent?: number; inboundAgoMs?: number | null; contact?: string | null; inbound?: string[] } = {},
  ): Promise<{ id: number; contact: string | null; inbound: string[] }> {
    const to = opts.contact === undefined ? contact() : opts.contact;
    const ago = opts.inboundAgoMs === undefined ? 60_000 : opts.inboundAgoMs;
    const [row] = await db.sql<{ id: number }>(
      `insert into ai_conversations (project_id, agent_id, business_id, contact, status, usage, last_inbound_at)
       values (?, ?, 1, ?, 'active', '{}', ${ago === null ? 'null' : 'now() - make_interval(secs => ?)'}) returning id`,
      ago === null ? [projectId, opts.agent ?? MAIN, to] : [projectId, opts.agent ?? MAIN, to, ago / 1000],
    );
    const inbound = opts.inbound ?? (ago === null ? [] : [`wamid.IN${row.id}.1`, `wamid.IN${row.id}.2`]);
    for (const [i, id] of inbound.entries()) {
      await db.sql(
        `insert into ai_messages (project_id, conversation_id, role, content, public, external_id, created_at)
         values (?, ?, 'user', ?, true, ?, now() - make_interval(secs => ?))`,
        [projectId, row.id, `hola ${i}`, id, (ago ?? 0) / 1000 + (inbound.length - i)],
      );
    }
    return { id: row.id, contact: to, inbound };
  }

  const typing = (conversationId: number, opts: { key?: string; lang?: string } = {}) =>
    t.api({ method: 'POST', path: `/ai/conversations/${conversationId}/typing`, key: opts.key ?? KEYS.server, lang: opts.lang });
  const typingCalls = (messageId: string) => fake.requestsTo('typing').filter((r) => r.body?.message_id === messageId);

  describe('POST .../typing', () => {
    it('marks the newest inbound message read with the typing indicator; one provider call per conversation and second', async () => {
      const c = await conversation();
      const newest = c.inbound.at(-1)!;
      const results = await Promise.all([1, 2, 3, 4, 5].map(() => typing(c.id)));
      for (const res of results) expect(res.json()).toEqual({ error: false, result: true });
      const calls = typingCalls(newest);
      expect(calls).toHaveLength(1);
      expect(calls[0].path).toBe(`/v21.0/pn${MAIN}/messages`);
      expect(calls[0].headers.authorization).toBe(`Bearer ${creds(MAIN).access_token}`);
      expect(calls[0].body).toEqual({
        messaging_product: 'whatsapp',
        status: 'read',
        message_id: newest,
        typing_indicator: { type: 'text' },
      });
      await new Promise((r) => setTimeout(r, 1100));
      expect((await typing(c.id)).json().result).toBe(true);
      expect(typingCalls(newest)).toHaveLength(2);
    });

    it('the graph mutation does the same', async () => {
      const c = await conversation();
      const res = await t.app.inject({
        method: 'POST',
        url: '/graphql',
        headers: { 'x-api-key': KEYS.server },
        payload: { query: `mutation ($id: Int!) { showAiConversationTyping(conversation_id: $id) }`, variables: { id: c.id } },
      });
      expect(res.json()).toEqual({ data: { showAiConversationTyping: true } });
      expect(typingCalls(c.inbound.at(-1)!)).toHaveLength(1);
    });

    it('answers false for other conversations, 400 with a closed window, and the provider errors of §6.1', async () => {
      const web = await conversation({ agent: base(e) + AGENT.web });
      expect((await typing(web.id)).json()).toEqual({ error: false, result: false });
      const contactless = await conversation({ contact: null });
      expect((await typing(contactless.id)).json()).toEqual({ error: false, result: false });
      for (const c of [await conversation({ inboundAgoMs: null }), await conversation({ inboundAgoMs: 25 * 3600_000 })]) {
        for (const lang of ['en', 'es', 'fr', 'ar']) {
          const res = await typing(c.id, { lang });
          expect(res.statusCode).toBe(400);
          expect(res.json().code).toBe('ERROR_WHATSAPP_WINDOW_CLOSED');
        }
      }
      const before = fake.requestsTo('typing').length;
      const rejected = await conversation();
      fake.fail('send', CLOUD_ANSWERS.unauthorized, { times: 1 });
      const res = await typing(rejected.id);
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('ERROR_AI_PROVIDER_REJECTED');
      expect(JSON.stringify(res.json())).not.toContain(creds(MAIN).access_token);
      const down = await conversation();
      fake.fail('send', CLOUD_ANSWERS.serverError, { times: 1 });
      expect((await typing(down.id)).statusCode).toBe(502);
      expect(fake.requestsTo('typing').length - before).toBe(2);
    });

    it('unknown, malformed, closed and other levels', async () => {
      expect((await typing(2_000_000_000)).json().code).toBe('ERROR_AI_CONVERSATION_NOT_FOUND');
      const res = await t.api({ method: 'POST', path: '/ai/conversations/abc/typing', key: KEYS.server });
      expect(res.statusCode).toBe(400);
      const c = await conversation();
      await db.sql("update ai_conversations set status = 'closed' where id = ?", [c.id]);
      expect((await typing(c.id)).json().code).toBe('ERROR_AI_CONVERSATION_CLOSED');
      expect((await typing(c.id, { key: KEYS.customer })).statusCode).toBe(401); // a level-3 user, as every AI_ADMIN route answers it
    });
  });
});
