import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isDatabaseUnavailable, isRejectedInput } from '../../src/db/unavailable.js';
import { getSchema } from '../../src/graph/schema.js';
import { checkSubscription } from '../../src/graph/subscription.js';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';
import { MetaWebhooks } from '../support/whatsapp-fake.js';

/**
 * Finding 5 of issue 39 (CONTRACT §11, "no input is an outage"): a NUL (U+0000) in a request's
 * string made PostgreSQL's protocol refuse the statement (08P01), which counted as a connection
 * failure: 503, an error-level "database unavailable" line and a tripped breaker. Now every string of
 * a request is checked once (path, query, JSON body at any depth, /graphql variables and literals)
 * and answered 400 naming the field; a signed WhatsApp notification is stored without the NUL; and
 * whatever the database refuses as data (class 22, 08P01) is a 400, never an outage.
 */
const web = (id: number, ext: string) => ({
  id,
  business_id: 1,
  name: `Agent ${ext}`,
  provider: 'web',
  provider_type: 'chat',
  provider_external_id: ext,
  enabled: true,
});
const WA = (e: number) => 50 + e;
const APP_SECRET = (id: number) => `app-secret-${id}`;
const waAgent = (id: number) => ({
  id,
  business_id: 1,
  name: `WA ${id}`,
  provider: 'whatsapp',
  provider_type: 'chat',
  provider_external_id: `wa-${id}`,
  enabled: true,
  credentials: {
    waba_id: `waba${id}`,
    phone_number_id: `pn${id}`,
    access_token: `tok-${id}`,
    app_secret: APP_SECRET(id),
    verify_token: 'v',
  },
});
const conversation = (id: number, agentId: number) => ({
  id,
  agent_id: agentId,
  user_id: null,
  contact: `c${id}`,
  business_id: 1,
  status: 'active',
  usage: {},
  created_at: '2026-11-01T12:00:00Z',
});

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(
    baseFixture({
      agents: [web(1, 'w1'), web(2, 'w2'), waAgent(WA(0)), waAgent(WA(1))],
      conversations: [conversation(1, 1), conversation(2, 2)],
    }),
  );
});
afterAll(() => db.orm.close());

describe.each(ENGINES.map((engine, e) => [engine, e] as const))('no input is an outage (%s)', (engine, e) => {
  let t: TestApp;
  const lines: string[] = [];
  beforeAll(async () => {
    t = await startApp(engine, db, { logStream: { write: (l) => void lines.push(l) }, config: { logLevel: 'info' } });
  });
  afterAll(() => t.close());

  const errorLines = () => lines.map((l) => JSON.parse(l)).filter((l) => l.level >= 50);
  const expectNul = (res: { statusCode: number; body: string }, field: string) => {
    expect(res.statusCode, res.body).toBe(400);
    const body = JSON.parse(res.body);
    expect(body.code).toBe('ERROR_VALIDATION');
    expect(body.result.join(' ')).toContain(`The field ${field} must not contain the NUL character`);
  };
  const graphql = (payload: Record<string, unknown>) =>
    t.app.inject({ method: 'POST', url: '/graphql', headers: { 'x-api-key': KEYS.server }, payload });

  it('refuses a NUL in a JSON body at any depth with 400 naming the field, and stores nothing', async () => {
    expectNul(
      await t.api({ method: 'POST', path: '/ai/conversations/1/messages', key: KEYS.server, body: { role: 'user', content: 'hi\u0000' } }),
      'content',
    );
    expectNul(await t.api({ method: 'PATCH', path: '/ai/agents/2', key: KEYS.server, body: { name: 'Menu\u0000' } }), 'name');
    expectNul(
      await t.api({ method: 'PATCH', path: '/ai/agents/2', key: KEYS.server, body: { credentials: { access_token: 'a\u0000b' } } }),
      'credentials.access_token',
    );
    expectNul(
      await t.api({
        method: 'POST',
        path: '/ai/webhooks',
        key: KEYS.server,
        body: { url: 'https://93.184.216.34/h\u0000', events: ['*'] },
      }),
      'url',
    );
    // JSON text in an object's place (the SDK's form) is decoded, then checked
    expectNul(
      await t.api({
        method: 'PATCH',
        path: '/ai/agents/2',
        key: KEYS.server,
        body: { credentials: JSON.stringify({ access_token: '\u0000' }) },
      }),
      'credentials.access_token',
    );
    expect(await db.sql('select id from ai_messages where conversation_id = 1')).toEqual([]);
    expect((await db.sql<{ name: string }>('select name from ai_agents where id = 2'))[0].name).toBe('Agent w2');
  });

  it('refuses a NUL in the query string and the path', async () => {
    expectNul(await t.api({ path: '/ai/agents', key: KEYS.server, query: { orderBy: 'id\u0000' } }), 'orderBy');
    expectNul(await t.api({ path: '/ai/agents/w1%00/conversations/current', key: KEYS.server }), 'provider_external_id');
    expectNul(await t.api({ path: '/ai/agents', project: 'acme%00', key: KEYS.server }), 'project');
  });

  it('refuses a NUL in /graphql variables (POST and GET) and inline literals with ERROR_VALIDATION', async () => {
    const mutation = 'mutation($n: String) { updateAiAgent(agent_id: 2, name: $n) { id } }';
    expectNul(await graphql({ query: mutation, variables: { n: 'x\u0000' } }), 'variables.n');
    const get = await t.app.inject({
      method: 'GET',
      url: '/graphql',
      headers: { 'x-api-key': KEYS.server },
      query: { query: 'query($w: JSON) { aiAgents(where: $w) { data { id } } }', variables: '{"w": {"name": "a\\u0000"}}' },
    });
    expectNul(get, 'variables.w.name');

    const literal = await graphql({ query: 'mutation { updateAiAgent(agent_id: 2, name: "x\\u0000") { id } }' });
    expect(literal.statusCode).toBe(400);
    const [err] = JSON.parse(literal.body).errors;
    expect(err.extensions.code).toBe('ERROR_VALIDATION');
    expect(err.message).toContain('The field name must not contain the NUL character');
    const inJson = await graphql({ query: '{ aiAgents(where: {name: "\\u0000"}) { data { id } } }' });
    expect(inJson.statusCode).toBe(400);
    expect(JSON.parse(inJson.body).errors[0].message).toContain('The field where.name must not contain');
    expect((await db.sql<{ name: string }>('select name from ai_agents where id = 2'))[0].name).toBe('Agent w2');
  });

  it('stores a signed WhatsApp text without its NUL and answers 200 (Meta stops retrying)', async () => {
    const origin = await t.listen();
    const raw = JSON.stringify(
      MetaWebhooks.notification(`pn${WA(e)}`, {
        messages: [{ id: `wamid.nul.${engine}`, from: '525512345678', text: 'hi\u0000there' }],
        contacts: [{ wa_id: '525512345678', name: 'Carl\u0000' }],
      }),
    );
    const res = await fetch(`${origin}/v400/en/acme/ai/webhooks/whatsapp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-hub-signature-256': `sha256=${createHmac('sha256', APP_SECRET(WA(e)))
          .update(raw)
          .digest('hex')}`,
      },
      body: raw,
    });
    expect(res.status, await res.text()).toBe(200);
    const rows = await db.sql<{ content: string }>(
      'select m.content from ai_messages m join ai_conversations c on c.id = m.conversation_id where c.agent_id = ?',
      [WA(e)],
    );
    expect(rows.map((r) => r.content)).toEqual(['hithere']);
  });

  it('never logged an error nor reported the database unavailable', async () => {
    expect(errorLines()).toEqual([]);
    expect(lines.join('\n')).not.toContain('database unavailable');
    const ready = await t.app.inject({ url: '/health/ready' });
    expect(ready.statusCode).toBe(200);
  });
});

describe('subscriptions (graphql-ws subscribe messages)', () => {
  it('refuse a NUL in a variable or a literal before anything runs, naming it', async () => {
    const schema = await getSchema();
    const query = 'subscription ($p: String!) { aiCurrentConversationEvents(provider_external_id: $p) { id } }';
    expect(checkSubscription(schema, { query, variables: { p: 'w1' } })).not.toBeInstanceOf(Array);
    const byVariable = checkSubscription(schema, { query, variables: { p: 'w1\u0000' } });
    expect((byVariable as readonly { message: string }[])[0].message).toContain('The field variables.p must not contain the NUL character');
    const literal = 'subscription { aiCurrentConversationEvents(provider_external_id: "w\\u0000") { id } }';
    const byLiteral = checkSubscription(schema, { query: literal });
    expect((byLiteral as readonly { message: string }[])[0].message).toContain(
      'The field provider_external_id must not contain the NUL character',
    );
  });
});

describe('database errors caused by input are not outages', () => {
  const failure = async (text: string, params: unknown[] = []) => {
    try {
      await db.sql(text, params);
    } catch (err) {
      return err;
    }
    throw new Error(`no error from ${text}`);
  };

  it.each([
    ['a NUL in a parameter (08P01)', 'select ?::text as v', ['a\u0000']],
    ['a LIKE pattern ending in the escape character (22025)', "select 'x' ilike chr(92) as v", []],
    ['an integer out of range (22003)', 'select ?::int as v', ['99999999999']],
    ['an invalid byte sequence (22021)', "select convert_from('\\xff'::bytea, 'UTF8') as v", []],
    ['a NUL escape in jsonb text (22P05)', "select (?::jsonb)->>'a' as v", ['{"a": "\\u0000"}']],
  ])('%s', async (_name, text, params) => {
    const err = await failure(text, params);
    expect(isRejectedInput(err)).toBe(true);
    expect(isDatabaseUnavailable(err)).toBe(false);
    // the connection that refused it still serves
    expect(await db.sql('select 1 as one')).toEqual([{ one: 1 }]);
  });

  it.each(ENGINES)('answers such an error as 400 with a warning, under %s', async (engine) => {
    const lines: string[] = [];
    const t = await startApp(engine, db, { logStream: { write: (l) => void lines.push(l) }, config: { logLevel: 'info' } });
    try {
      const err = await failure('select ?::int as v', ['99999999999']);
      const { databaseFailure } = await import('../../src/graph/engines.js');
      const mapped = databaseFailure(t.app, err, { message: 'x' });
      expect(mapped.extensions).toMatchObject({ code: 'ERROR_VALIDATION', status: 400 });
      const logged = lines.map((l) => JSON.parse(l));
      expect(logged.filter((l) => l.level >= 50)).toEqual([]);
      expect(logged.some((l) => l.level === 40 && l.sqlstate === '22003')).toBe(true);
      expect((await t.app.inject({ url: '/health/ready' })).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });
});
