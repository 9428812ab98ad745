import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS, USERS } from '../support/fixtures.js';
import { openSse } from '../support/sse.js';

/**
 * People who take over (CONTRACT §10.2): POST /ai/conversations/{id}/handoff (levels, assignee rules,
 * no-change answers, closed conversations), its `conversation.handoff` event (log, SSE, webhook outbox),
 * the 409 for the agent runtime's answers while a person handles the conversation, `author_id`, and
 * the list's filters and sorting. Both engines share the database: each uses its own agents and conversations.
 */
const OWNER2_KEY = 'acme-owner2-key-0123456789';
// A web agent: assistant messages here are never sent anywhere (no WhatsApp window applies).
const agent = (id: number, ext: string, business_id: number) => ({
  id,
  business_id,
  name: `Agent ${ext}`,
  provider: 'web',
  provider_type: 'chat',
  provider_external_id: ext,
  enabled: true,
});
const base = (i: number) => 10 + i * 20;
const conversation = (id: number, agentId: number, extra: Record<string, unknown> = {}) => ({
  id,
  agent_id: agentId,
  user_id: null,
  contact: `c${id}`,
  business_id: 1,
  status: 'active',
  usage: {},
  created_at: '2026-11-01T12:00:00Z',
  ...extra,
});
// Per engine: B handoff by users, B+1 server key and the 409, B+2 closed, B+3 business 2, B+4 assignee rules, B+5 already human (list).
const CONVERSATIONS = ENGINES.flatMap((_, i) => {
  const B = base(i);
  return [
    conversation(B, B),
    conversation(B + 1, B),
    conversation(B + 2, B, { status: 'closed', status_reason: 'completed', closed_at: '2026-11-01T13:00:00Z' }),
    conversation(B + 3, B + 1, { business_id: 2 }),
    conversation(B + 4, B),
    conversation(B + 5, B, { handler: 'human', assignee_id: USERS.owner }),
  ];
});

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  const fixture = baseFixture({
    agents: ENGINES.flatMap((e, i) => [agent(base(i), `h-${e}`, 1), agent(base(i) + 1, `h2-${e}`, 2)]),
    conversations: CONVERSATIONS,
  });
  fixture.projects[0].api_keys!.push({ key: OWNER2_KEY, user_id: USERS.owner2 });
  fixture.projects[1].agents = [agent(101, 'h-other', 101)];
  fixture.projects[1].conversations = [conversation(101, 101, { business_id: 101 })];
  await db.load(fixture);
});
afterAll(() => db.orm.close());

const handoffEvents = (conversationId: number) =>
  db.sql<{ id: string; data: any }>(
    "select id, data from ai_events where conversation_id = ? and type = 'conversation.handoff' order by id",
    [conversationId],
  );
const messageCount = async (conversationId: number) =>
  (await db.sql<{ n: number }>('select count(*)::int as n from ai_messages where conversation_id = ?', [conversationId]))[0].n;

describe.each(ENGINES)('handoff (%s)', (engine) => {
  const B = base(ENGINES.indexOf(engine));
  let t: TestApp;
  const post = (path: string, body: unknown, key = KEYS.server, lang = 'en') => t.api({ method: 'POST', path, body, key, lang });
  const handoff = (id: number | string, body: unknown, key = KEYS.server, lang = 'en') =>
    post(`/ai/conversations/${id}/handoff`, body, key, lang);
  const addMessage = (id: number, body: unknown, key = KEYS.server, lang = 'en') =>
    post(`/ai/conversations/${id}/messages`, body, key, lang);

  beforeAll(async () => {
    t = await startApp(engine, db);
  });
  afterAll(() => t.close());

  it('a user takes a conversation over (assignee: the caller), the change emits one event, a repeat answers 200 and emits nothing', async () => {
    const taken = await handoff(B, { handler: 'human' }, KEYS.admin);
    expect(taken.statusCode, taken.body).toBe(200);
    const record = taken.json().result;
    expect(record).toMatchObject({ id: B, status: 'active', handler: 'human', assignee_id: USERS.admin, messages_count: 0 });
    const log = await handoffEvents(B);
    expect(log).toHaveLength(1);
    // events are shared by every caller: they carry no caller's unread_count (CONTRACT §10.5)
    const { unread_count: _unread, ...shared } = record;
    expect(log[0].data).toEqual(shared);

    const again = await handoff(B, { handler: 'human', assignee_id: null }, KEYS.admin);
    expect(again.statusCode).toBe(200);
    expect(again.json().result).toMatchObject({ handler: 'human', assignee_id: USERS.admin });
    expect(await handoffEvents(B)).toHaveLength(1);

    // the owner of the conversation's business takes it from the administrator: a change
    const owner = await handoff(B, { handler: 'human' }, KEYS.owner);
    expect(owner.json().result).toMatchObject({ handler: 'human', assignee_id: USERS.owner });
    const back = await handoff(B, { handler: 'ai' }, KEYS.owner);
    expect(back.json().result).toMatchObject({ handler: 'ai', assignee_id: null });
    expect((await handoffEvents(B)).map((e) => [e.data.handler, e.data.assignee_id])).toEqual([
      ['human', USERS.admin],
      ['human', USERS.owner],
      ['ai', null],
    ]);
    const same = await handoff(B, { handler: 'ai', assignee_id: null }, KEYS.owner);
    expect([same.statusCode, same.json().result.handler]).toEqual([200, 'ai']);
    expect(await handoffEvents(B)).toHaveLength(3);
    const stored = await db.sql('select handler, assignee_id from ai_conversations where id = ?', [B]);
    expect(stored).toEqual([{ handler: 'ai', assignee_id: null }]);
  });

  it('levels: server keys and levels 0/2 only; another business or project is not found', async () => {
    expect((await handoff(B + 4, { handler: 'human' }, KEYS.customer)).statusCode).toBe(401);
    expect((await handoff(B + 4, { handler: 'human' }, '')).statusCode).toBe(401);
    const foreign = await handoff(B + 3, { handler: 'human' }, KEYS.owner);
    expect([foreign.statusCode, foreign.json().code]).toEqual([400, 'ERROR_AI_CONVERSATION_NOT_FOUND']);
    const otherProject = await handoff(101, { handler: 'human' }, KEYS.server);
    expect([otherProject.statusCode, otherProject.json().code]).toEqual([400, 'ERROR_AI_CONVERSATION_NOT_FOUND']);
    for (const id of ['0', '99999999999', String(B + 999)]) {
      expect((await handoff(id, { handler: 'human' })).json().code).toBe('ERROR_AI_CONVERSATION_NOT_FOUND');
    }
    expect(
      (
        await t.api({
          method: 'POST',
          path: `/ai/conversations/${B + 3}/handoff`,
          body: { handler: 'human' },
          key: KEYS.otherServer,
          project: 'other',
        })
      ).json().code,
    ).toBe('ERROR_AI_CONVERSATION_NOT_FOUND');
    // the owner of business 2 takes its conversation: the assignee is the caller
    const own = await handoff(B + 3, { handler: 'human' }, OWNER2_KEY);
    expect(own.json().result).toMatchObject({ handler: 'human', assignee_id: USERS.owner2 });
    expect(await handoffEvents(101)).toHaveLength(0);
  });

  it('validates the body and the assignee: a level 0 or 2 user of the project who can see the conversation', async () => {
    const named = async (body: unknown, field: string) => {
      const res = await handoff(B + 4, body);
      expect([res.statusCode, res.json().code], JSON.stringify(body)).toEqual([400, 'ERROR_VALIDATION']);
      expect(res.json().result.join(' '), JSON.stringify(body)).toContain(field);
    };
    await named({}, 'handler');
    await named({ handler: 'bot' }, 'handler');
    await named({ handler: null }, 'handler');
    await named({ handler: 'ai', assignee_id: USERS.admin }, 'assignee_id');
    await named({ handler: 'human', assignee_id: 'me' }, 'assignee_id');
    await named({ handler: 'human', assignee_id: 0 }, 'assignee_id');
    await named({ handler: 'human', assignee_id: 1.5 }, 'assignee_id');
    await named({ handler: 'human', assignee_id: USERS.customer }, 'assignee_id'); // level 3
    await named({ handler: 'human', assignee_id: USERS.cityManager }, 'assignee_id'); // level 1
    await named({ handler: 'human', assignee_id: USERS.owner2 }, 'assignee_id'); // level 2, another business
    await named({ handler: 'human', assignee_id: USERS.otherAdmin }, 'assignee_id'); // another project
    await named({ handler: 'human', assignee_id: 99999 }, 'assignee_id');
    expect(await handoffEvents(B + 4)).toHaveLength(0);
    expect((await db.sql('select handler from ai_conversations where id = ?', [B + 4]))[0].handler).toBe('ai');

    const toOwner = await handoff(B + 4, { handler: 'human', assignee_id: USERS.owner });
    expect(toOwner.json().result).toMatchObject({ handler: 'human', assignee_id: USERS.owner });
    const toAdmin = await handoff(B + 4, { handler: 'human', assignee_id: USERS.admin }, KEYS.owner);
    expect(toAdmin.json().result).toMatchObject({ handler: 'human', assignee_id: USERS.admin });
    // a server key without an assignee: nobody in particular
    const nobody = await handoff(B + 4, { handler: 'human' });
    expect(nobody.json().result).toMatchObject({ handler: 'human', assignee_id: null });
    expect(await handoffEvents(B + 4)).toHaveLength(3);
  });

  it('a closed conversation is refused and unchanged', async () => {
    const res = await handoff(B + 2, { handler: 'human' }, KEYS.admin, 'es');
    expect([res.statusCode, res.json().code]).toEqual([400, 'ERROR_AI_CONVERSATION_CLOSED']);
    expect(res.json().result).toEqual(['La conversación está cerrada.']);
    expect(await db.sql('select handler, assignee_id from ai_conversations where id = ?', [B + 2])).toEqual([
      { handler: 'ai', assignee_id: null },
    ]);
    expect(await handoffEvents(B + 2)).toHaveLength(0);
  });

  it('while a person handles it, the agent runtime may not answer (409, nothing stored); people and other roles may', async () => {
    const ai = await addMessage(B + 1, { role: 'assistant', content: 'AI answer' });
    expect(ai.statusCode, ai.body).toBe(200);
    expect(ai.json().result.author_id).toBeNull();
    expect((await handoff(B + 1, { handler: 'human' })).json().result).toMatchObject({ handler: 'human', assignee_id: null });
    const before = await messageCount(B + 1);
    const eventsBefore = (await db.sql<{ n: number }>('select count(*)::int as n from ai_events where conversation_id = ?', [B + 1]))[0].n;

    for (const lang of ['en', 'es', 'fr', 'ar']) {
      const refused = await addMessage(B + 1, { role: 'assistant', content: 'AI again', usage: { cost: 1 } }, KEYS.server, lang);
      expect([refused.statusCode, refused.json().error, refused.json().code]).toEqual([409, true, 'ERROR_AI_CONVERSATION_HANDED_OFF']);
      expect(Array.isArray(refused.json().result)).toBe(true);
      expect(refused.json().result[0]).toMatch(/\S/);
      expect(refused.json().result[0]).not.toContain('ERROR_');
    }
    expect(await messageCount(B + 1)).toBe(before);
    expect((await db.sql<{ n: number }>('select count(*)::int as n from ai_events where conversation_id = ?', [B + 1]))[0].n).toBe(
      eventsBefore,
    );
    expect((await db.sql('select usage from ai_conversations where id = ?', [B + 1]))[0].usage).toEqual({});

    const note = await addMessage(B + 1, { role: 'system', content: 'a person took over' });
    expect([note.statusCode, note.json().result.author_id]).toEqual([200, null]);
    const byAdmin = await addMessage(B + 1, { role: 'assistant', content: 'Hi, Ada here' }, KEYS.admin);
    expect([byAdmin.statusCode, byAdmin.json().result.author_id]).toEqual([200, USERS.admin]);
    const byOwner = await addMessage(B + 1, { role: 'assistant', content: 'Olga here' }, KEYS.owner);
    expect([byOwner.statusCode, byOwner.json().result.author_id]).toEqual([200, USERS.owner]);
    const stored = await db.sql('select role, author_id from ai_messages where conversation_id = ? order by id', [B + 1]);
    expect(stored).toEqual([
      { role: 'assistant', author_id: null },
      { role: 'system', author_id: null },
      { role: 'assistant', author_id: USERS.admin },
      { role: 'assistant', author_id: USERS.owner },
    ]);

    expect((await handoff(B + 1, { handler: 'ai' })).json().result.handler).toBe('ai');
    expect((await addMessage(B + 1, { role: 'assistant', content: 'AI is back' })).statusCode).toBe(200);
  });

  it('author_id on the current-conversation message: the user; in the messages list too', async () => {
    const res = await post(`/ai/agents/h-${engine}/conversations/current/messages`, { content: 'Hola' }, KEYS.customer);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().result.author_id).toBe(USERS.customer);
    const listed = await t.api({ path: `/ai/conversations/${res.json().result.conversation_id}/messages`, key: KEYS.admin });
    expect(listed.json().result.map((m: { author_id: number }) => m.author_id)).toEqual([USERS.customer]);
  });

  it('the list filters and sorts by handler and assignee_id', async () => {
    const list = async (query: Record<string, string>) => {
      const res = await t.api({ path: '/ai/conversations', key: KEYS.server, query: { page_size: '100', ...query } });
      expect(res.statusCode, res.body).toBe(200);
      return res.json().result as { id: number; handler: string; assignee_id: number | null }[];
    };
    const human = await list({ where: JSON.stringify({ handler: 'human', agent_id: B }) });
    expect(human.length).toBeGreaterThan(0);
    expect(human.every((c) => c.handler === 'human')).toBe(true);
    expect(human.map((c) => c.id)).toContain(B + 5);
    const owned = await list({ where: JSON.stringify({ assignee_id: USERS.owner }) });
    expect(owned.map((c) => c.id)).toContain(B + 5);
    expect(owned.every((c) => c.assignee_id === USERS.owner)).toBe(true);

    const sorted = await list({ where: JSON.stringify({ agent_id: B }), orderBy: '-handler,-assignee_id' });
    const keys = sorted.map((c) => [c.handler, c.assignee_id ?? 0] as const);
    const handlers = keys.map((k) => k[0]);
    expect(handlers).toEqual([...handlers].sort().reverse());
    expect(handlers[0]).toBe('human');
    expect((await t.api({ path: '/ai/conversations', key: KEYS.server, query: { orderBy: 'handlerx' } })).statusCode).toBe(400);
    const bad = await t.api({ path: '/ai/conversations', key: KEYS.server, query: { where: JSON.stringify({ assignee_id: 'x' }) } });
    expect(bad.statusCode).toBe(400);
  });

  it('the event reaches an SSE stream and a subscription filtered to conversation.handoff, and the webhook outbox', async () => {
    const created = await post('/ai/webhooks', { url: 'https://93.184.216.34/handoff', events: ['conversation.handoff'] });
    expect(created.statusCode, created.body).toBe(200);
    const webhookId = created.json().result.id;
    const origin = await t.listen();
    const stream = await openSse(`${origin}/v400/en/acme/ai/events?types=conversation.handoff&conversation_id=${B + 4}`, {
      'x-api-key': KEYS.admin,
    });
    const ws = createClient({
      url: `${origin.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { 'X-Api-Key': KEYS.server },
      retryAttempts: 0,
      lazy: true,
    });
    const subscribed: any[] = [];
    const stop = ws.subscribe(
      { query: 'subscription { aiEvents(types: ["conversation.handoff"]) { id type data } }' },
      { next: (v) => subscribed.push(v), error: (e) => subscribed.push({ error: e }), complete: () => undefined },
    );
    try {
      expect(stream.status).toBe(200);
      await new Promise((r) => setTimeout(r, 500)); // the subscription is open
      const res = await handoff(B + 4, { handler: 'ai' }, KEYS.admin);
      expect(res.statusCode).toBe(200);
      await stream.until((s) => s.events.length >= 1, 5000);
      expect(stream.events[0].event).toBe('conversation.handoff');
      const { unread_count: _unread, ...shared } = res.json().result;
      expect(JSON.parse(stream.events[0].data).data).toEqual(shared);
      for (let waited = 0; subscribed.length === 0 && waited < 5000; waited += 25) await new Promise((r) => setTimeout(r, 25));
      expect(subscribed[0]?.data?.aiEvents, JSON.stringify(subscribed)).toMatchObject({
        type: 'conversation.handoff',
        data: shared,
      });
      // the customer's current-conversation stream never carries it
      const current = (await t.api({ path: `/ai/agents/h-${engine}/conversations/current`, key: KEYS.customer })).json().result;
      const own = await openSse(`${origin}/v400/en/acme/ai/agents/h-${engine}/conversations/current/events`, {
        'x-api-key': KEYS.customer,
      });
      try {
        expect(own.status).toBe(200);
        expect((await handoff(current.id, { handler: 'human' }, KEYS.admin)).json().result.handler).toBe('human');
        expect(
          (await post(`/ai/agents/h-${engine}/conversations/current/messages`, { content: 'still there?' }, KEYS.customer)).statusCode,
        ).toBe(200);
        await own.until((s) => s.events.length >= 1, 5000);
        await new Promise((r) => setTimeout(r, 200));
        expect(own.events.map((e) => e.event)).toEqual(['message.created']);
      } finally {
        own.close();
      }
      const [event] = (await handoffEvents(B + 4)).slice(-1);
      const deliveries = await db.sql('select webhook_id, event_type from ai_webhook_deliveries where event_id = ?', [event.id]);
      expect(deliveries).toEqual([{ webhook_id: webhookId, event_type: 'conversation.handoff' }]);
    } finally {
      stop();
      await ws.dispose();
      stream.close();
      await t.api({ method: 'DELETE', path: `/ai/webhooks/${webhookId}`, key: KEYS.server });
    }
  });

  it('the graph mutation runs the same service', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { 'x-api-key': KEYS.server },
      payload: { query: `mutation { handoffAiConversation(conversation_id: ${B + 4}, handler: "ai") { id handler assignee_id } }` },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.handoffAiConversation).toMatchObject({ id: B + 4, handler: 'ai', assignee_id: null });
  });
});
