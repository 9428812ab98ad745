import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS, PASSWORD, USERS } from '../support/fixtures.js';

/**
 * The current-conversation pair (spec §4.3, CONTRACT §6.2). Both engines share this file's
 * database, so every case that creates a conversation uses an agent of its engine.
 */
const agent = (id: number, ext: string, extra: Record<string, unknown> = {}) => ({
  id,
  business_id: 1,
  name: `Agent ${ext}`,
  provider: 'whatsapp',
  provider_type: 'chat',
  provider_external_id: ext,
  enabled: true,
  ...extra,
});

const AGENTS = [
  agent(1, 'with-messages'),
  agent(2, 'acme-off', { enabled: false }),
  ...ENGINES.flatMap((e, i) => [
    agent(10 + i * 10, `cur-${e}`),
    agent(11 + i * 10, `race-${e}`),
    agent(12 + i * 10, `two-${e}`),
    agent(13 + i * 10, `server-${e}`),
    agent(14 + i * 10, `none-${e}`),
    agent(15 + i * 10, `guest-${e}`, { business_id: null }),
    agent(16 + i * 10, `handoff-${e}`),
  ]),
];

const at = (minute: number) => new Date(Date.UTC(2026, 10, 1, 12, minute)).toISOString();

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  const fixture = baseFixture({
    agents: AGENTS,
    conversations: [
      // The customer's active conversation with agent 1, and an older closed one.
      { id: 1, agent_id: 1, user_id: USERS.customer, business_id: 1, status: 'active', created_at: at(0) },
      {
        id: 2,
        agent_id: 1,
        user_id: USERS.customer,
        business_id: 1,
        status: 'closed',
        status_reason: 'completed',
        created_at: at(0),
        closed_at: at(1),
      },
    ],
    messages: [
      // ids out of time order: the result is ordered by created_at.
      { id: 1, conversation_id: 1, role: 'assistant', content: 'second', public: true, created_at: at(5) },
      { id: 2, conversation_id: 1, role: 'user', content: 'first', public: true, created_at: at(3) },
      { id: 3, conversation_id: 1, role: 'system', content: 'hidden prompt', public: false, created_at: at(4) },
      { id: 4, conversation_id: 2, role: 'user', content: 'old conversation', public: true, created_at: at(1) },
    ],
  });
  fixture.projects[1].agents = [agent(101, 'other-bot', { business_id: 101 })];
  fixture.projects.push({
    code: 'noai',
    name: 'No AI',
    ai_enabled: false,
    api_keys: [{ key: 'noai-server-key-0123456789', server: true }],
    agents: [agent(201, 'noai-bot', { business_id: null })],
  });
  await db.load(fixture);
});
afterAll(() => db.orm.close());

const activeRows = (agentId: number) =>
  db.sql<{ id: number; user_id: number | null }>(
    "select id, user_id from ai_conversations where agent_id = ? and status = 'active' order by id",
    [agentId],
  );

describe.each(ENGINES)('current conversation (%s)', (engine) => {
  let t: TestApp;
  const ext = (name: string) => `${name}-${engine}`;
  const agentId = (name: string) => AGENTS.find((a) => a.provider_external_id === ext(name))!.id;
  const current = (providerExternalId: string, auth: { key?: string; token?: string }, path = '') =>
    t.api({ path: `/ai/agents/${providerExternalId}/conversations/current${path}`, ...auth });

  beforeAll(async () => {
    t = await startApp(engine, db);
  });
  afterAll(() => t.close());

  async function login(email: string): Promise<string> {
    const res = await t.api({ method: 'POST', path: '/auth', body: { email, password: PASSWORD } });
    expect(res.statusCode).toBe(200);
    return res.json().result.session.access_token;
  }

  it('creates the active conversation on first call and returns the same one after', async () => {
    const first = await current(ext('cur'), { key: KEYS.customer });
    expect(first.statusCode).toBe(200);
    const body = first.json();
    expect(body.error).toBe(false);
    expect(body.result).toMatchObject({
      agent_id: agentId('cur'),
      user_id: USERS.customer,
      business_id: 1,
      status: 'active',
      status_reason: null,
      closed_at: null,
      handler: 'ai',
      assignee_id: null,
    });
    expect(typeof body.result.id).toBe('number');
    expect(Object.keys(body.result).sort()).toEqual([
      'agent_id',
      'assignee_id',
      'business_id',
      'closed_at',
      'contact',
      'created_at',
      'handler',
      'id',
      'status',
      'status_reason',
      'updated_at',
      'user_id',
      'window_expires_at',
    ]);
    const second = await current(ext('cur'), { key: KEYS.customer });
    expect(second.json().result).toEqual(body.result);
    expect(await activeRows(agentId('cur'))).toEqual([{ id: body.result.id, user_id: USERS.customer }]);
  });

  it('carries handler and assignee_id (CONTRACT §10.2): a customer app sees that a person answers', async () => {
    const first = await current(ext('handoff'), { key: KEYS.customer });
    expect(first.json().result).toMatchObject({ handler: 'ai', assignee_id: null });
    const id = first.json().result.id;
    const handoff = await t.api({
      method: 'POST',
      path: `/ai/conversations/${id}/handoff`,
      key: KEYS.server,
      body: { handler: 'human', assignee_id: USERS.admin },
    });
    expect(handoff.statusCode, handoff.body).toBe(200);
    const after = await current(ext('handoff'), { key: KEYS.customer });
    expect(after.json().result).toMatchObject({ id, handler: 'human', assignee_id: USERS.admin });
  });

  it('returns the existing active conversation, not the closed one', async () => {
    const res = await current('with-messages', { key: KEYS.customer });
    expect(res.statusCode).toBe(200);
    expect(res.json().result).toMatchObject({ id: 1, status: 'active' });
  });

  it('200 concurrent first calls for one (agent, user) produce exactly one conversation', async () => {
    const responses = await Promise.all(Array.from({ length: 200 }, () => current(ext('race'), { key: KEYS.customer })));
    const statuses = new Set(responses.map((r) => r.statusCode));
    expect([...statuses]).toEqual([200]);
    const ids = new Set(responses.map((r) => r.json().result.id));
    expect(ids.size).toBe(1);
    const rows = await activeRows(agentId('race'));
    expect(rows).toHaveLength(1);
    expect(rows[0].id).toBe([...ids][0]);
    const all = await db.sql<{ n: number }>('select count(*)::int as n from ai_conversations where agent_id = ?', [agentId('race')]);
    expect(all[0].n).toBe(1);
  });

  it('gives two users two conversations, and a session token works like a key', async () => {
    const token = await login('city@acme.test');
    const a = (await current(ext('two'), { key: KEYS.customer })).json().result;
    const b = (await current(ext('two'), { token })).json().result;
    const c = (await current(ext('two'), { key: KEYS.admin })).json().result;
    expect(new Set([a.id, b.id, c.id]).size).toBe(3);
    expect([a.user_id, b.user_id, c.user_id]).toEqual([USERS.customer, USERS.cityManager, USERS.admin]);
    expect(await activeRows(agentId('two'))).toHaveLength(3);
  });

  it('a server key has the (agent, no user) conversation', async () => {
    const first = (await current(ext('server'), { key: KEYS.server })).json().result;
    expect(first.user_id).toBeNull();
    const again = (await current(ext('server'), { key: KEYS.server })).json().result;
    expect(again.id).toBe(first.id);
    expect(await activeRows(agentId('server'))).toEqual([{ id: first.id, user_id: null }]);
  });

  it('lets a guest in', async () => {
    const auth = await t.api({ method: 'POST', path: '/auth', body: { guest_token: randomUUID() } });
    expect(auth.statusCode).toBe(200);
    const guest = auth.json().result;
    expect(guest.guest).toBe(true);
    const res = await current(ext('guest'), { token: guest.session.access_token });
    expect(res.statusCode).toBe(200);
    expect(res.json().result).toMatchObject({ user_id: guest.id, business_id: null, status: 'active' });
  });

  it("404 ERROR_AI_AGENT_NOT_FOUND for an unknown provider_external_id, or another project's", async () => {
    for (const id of ['no-such-agent', 'other-bot']) {
      const res = await current(id, { key: KEYS.customer });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: true, code: 'ERROR_AI_AGENT_NOT_FOUND', result: ['The AI agent was not found.'] });
    }
    const es = await t.api({ path: '/ai/agents/nope/conversations/current', key: KEYS.customer, lang: 'es' });
    expect(es.json().result).toEqual(['No se encontró el agente de IA.']);
  });

  it('409 with the conflict details when the agent is disabled, on both operations', async () => {
    const res = await current('acme-off', { key: KEYS.customer });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({
      error: true,
      code: 'ERROR_AI_CONVERSATION_CONFLICT',
      result: { message: 'The AI agent is disabled.', agent_id: 2, reason: 'AGENT_DISABLED' },
    });
    const fr = await t.api({ path: '/ai/agents/acme-off/conversations/current/messages', key: KEYS.customer, lang: 'fr' });
    expect(fr.statusCode).toBe(409);
    expect(fr.json().result).toEqual({ message: "L'agent IA est désactivé.", agent_id: 2, reason: 'AGENT_DISABLED' });
    expect(await activeRows(2)).toEqual([]);
  });

  it("400 for a provider_external_id outside the spec's pattern", async () => {
    const res = await current('bad%20id', { key: KEYS.customer });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('ERROR_VALIDATION');
  });

  it('401 without credentials, 403 when the AI module is off', async () => {
    expect((await current(ext('cur'), {})).statusCode).toBe(401);
    const off = await t.api({ project: 'noai', path: '/ai/agents/noai-bot/conversations/current', key: 'noai-server-key-0123456789' });
    expect(off.statusCode).toBe(403);
    expect(off.json().code).toBe('ERROR_AI_MODULE_DISABLED');
  });

  describe('messages', () => {
    it('returns only public messages of the active conversation, oldest first', async () => {
      const res = await current('with-messages', { key: KEYS.customer }, '/messages');
      expect(res.statusCode).toBe(200);
      expect(res.json().result.map((m: any) => [m.id, m.content])).toEqual([
        [2, 'first'],
        [1, 'second'],
      ]);
      expect(res.json().result[0]).toEqual({
        id: 2,
        conversation_id: 1,
        role: 'user',
        content: 'first',
        public: true,
        created_at: at(3),
        usage: null,
        external_id: null,
        delivery_status: null,
        delivery_error: null,
        author_id: null,
        // CONTRACT §12.2: every message carries its type (text when posted without one), payload and reply_to_id
        type: 'text',
        payload: null,
        reply_to_id: null,
        source: 'api',
        edited_at: null,
        edits: [],
        revoked_at: null,
        referral: null,
        referred_product: null,
        order_id: null,
      });
    });

    it('404 ERROR_AI_CONVERSATION_NOT_FOUND when there is no active conversation, and creates none', async () => {
      const res = await current(ext('none'), { key: KEYS.customer }, '/messages');
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: true, code: 'ERROR_AI_CONVERSATION_NOT_FOUND', result: ['The conversation was not found.'] });
      const rows = await db.sql<{ n: number }>('select count(*)::int as n from ai_conversations where agent_id = ?', [agentId('none')]);
      expect(rows[0].n).toBe(0);
    });

    it('404 ERROR_AI_AGENT_NOT_FOUND for an unknown agent', async () => {
      const res = await current('nobody', { key: KEYS.customer }, '/messages');
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('ERROR_AI_AGENT_NOT_FOUND');
    });

    it("is the caller's conversation: another user has none", async () => {
      const res = await current('with-messages', { key: KEYS.admin }, '/messages');
      expect(res.statusCode).toBe(404);
    });
  });

  describe('on /graphql', () => {
    const gql = (query: string, variables: Record<string, unknown>, key = KEYS.server) =>
      t.app.inject({ method: 'POST', url: '/graphql', headers: { 'x-api-key': key }, payload: { query, variables } });

    it('runs the same operations with the same rules', async () => {
      const q = 'query ($p: String!) { aiCurrentConversation(provider_external_id: $p) { id user_id status } }';
      const a = (await gql(q, { p: ext('server') })).json();
      const rest = (await current(ext('server'), { key: KEYS.server })).json().result;
      expect(a.data.aiCurrentConversation).toEqual({ id: rest.id, user_id: null, status: 'active' });
      const missing = (await gql(q, { p: 'nope' })).json();
      expect(missing.errors[0].extensions).toMatchObject({ code: 'ERROR_AI_AGENT_NOT_FOUND', status: 404 });
      const off = (await gql(q, { p: 'acme-off' })).json();
      expect(off.errors[0].extensions).toMatchObject({
        code: 'ERROR_AI_CONVERSATION_CONFLICT',
        status: 409,
        result: { agent_id: 2, reason: 'AGENT_DISABLED' },
      });
      const hostile = (await gql(q, { p: "x' or 1=1 --" })).json();
      expect(hostile.errors[0].extensions.code).toBe('ERROR_AI_AGENT_NOT_FOUND');
      // a NUL in a variable is refused before anything runs (CONTRACT §11)
      const nul = await gql(q, { p: "x' or 1=1 --\u0000" });
      expect(nul.statusCode).toBe(400);
      expect(nul.json()).toMatchObject({ error: true, code: 'ERROR_VALIDATION' });
    });
  });
});

describe('the database enforces one active conversation per (agent, user)', () => {
  it('refuses a second active row for a user and for no user, and allows closed ones', async () => {
    const insert = (userId: number | null, status = 'active') =>
      db.sql(
        `insert into ai_conversations (project_id, agent_id, user_id, status, status_reason)
         select id, 1, ?, ?, ? from projects where code = 'acme'`,
        [userId, status, status === 'closed' ? 'completed' : null],
      );
    await expect(insert(USERS.customer)).rejects.toThrow(/ai_conversations_active_uq/);
    await insert(null);
    await expect(insert(null)).rejects.toThrow(/ai_conversations_active_uq/);
    await insert(USERS.customer, 'closed');
    await db.sql('delete from ai_conversations where agent_id = 1 and id > 2');
  });
});
