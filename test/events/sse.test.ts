import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS, PASSWORD } from '../support/fixtures.js';
import { openSse, type SseClient } from '../support/sse.js';
import { agent, customerKey, customers, emit, listen } from './support.js';

/**
 * The SSE routes of CONTRACT §9.4 over real sockets, under both engines: visibility by level and
 * business, resume with Last-Event-ID / ?last_event_id, stream.reset, keep-alive, bad input,
 * query-string credentials (never logged), the current-conversation stream, and the slow-client cap.
 */
const CUSTOMERS = customers(1000, 4);
const AGENTS = ENGINES.flatMap((e, i) => [
  agent(10 + i * 10, `b1-${e}`, 1),
  agent(11 + i * 10, `b2-${e}`, 2),
  agent(12 + i * 10, `cur-${e}`, 1),
]);

let db: TestDatabase;
let acmeId: number;
beforeAll(async () => {
  db = await createTestDatabase();
  const fixture = baseFixture({
    agents: AGENTS,
    users: [...baseFixture().projects[0].users!, ...CUSTOMERS.users!],
    api_keys: [...baseFixture().projects[0].api_keys!, ...CUSTOMERS.api_keys!],
  });
  fixture.projects[1].agents = [agent(101, 'other-bot', 101)];
  fixture.projects.push({
    code: 'noai',
    name: 'No AI',
    ai_enabled: false,
    api_keys: [{ key: 'noai-server-key-0123456789', server: true }],
  });
  await db.load(fixture);
  acmeId = (await db.sql<{ id: number }>("select id from projects where code = 'acme'"))[0].id;
});
afterAll(() => db.orm.close());

const parse = (c: SseClient) => c.events.filter((e) => e.event !== 'stream.reset').map((e) => JSON.parse(e.data));

describe.each(ENGINES)('SSE /ai/events (%s)', (engine) => {
  let t: TestApp;
  let base: string;
  const logs: string[] = [];
  const ext = (name: string) => `${name}-${engine}`;
  const url = (path: string, query = '') => `${base}/v400/en/acme${path}${query}`;
  const current = (name: string, key: string) =>
    fetch(url(`/ai/agents/${ext(name)}/conversations/current`), { headers: { 'x-api-key': key } });
  const streams: SseClient[] = [];
  const sse = async (path: string, headers: Record<string, string> = {}) => {
    const c = await openSse(url(path), headers);
    streams.push(c);
    return c;
  };

  beforeAll(async () => {
    t = await startApp(engine, db, {
      logStream: { write: (line) => void logs.push(line) },
      config: { eventsKeepAliveMs: 300, eventsStreamBufferBytes: 64 * 1024, logLevel: 'info' },
    });
    base = await listen(t.app);
  });
  afterAll(async () => {
    for (const s of streams) s.close();
    await t.close();
  });

  it('sends status and headers at once, then new events as id/event/data with the whole event', async () => {
    const c = await sse('/ai/events', { 'x-api-key': KEYS.server });
    expect(c.status).toBe(200);
    expect(c.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(c.events).toEqual([]);
    const res = await current('b1', customerKey(1000));
    expect(res.status).toBe(200);
    const conv = ((await res.json()) as any).result;
    await c.until((s) => s.events.length >= 1);
    const [e] = c.events;
    expect(e.event).toBe('conversation.created');
    const event = JSON.parse(e.data);
    expect(e.id).toBe(String(event.id));
    expect(Object.keys(event)).toEqual(['id', 'type', 'created_at', 'data']);
    expect(event).toMatchObject({
      type: 'conversation.created',
      data: { id: conv.id, agent_id: conv.agent_id, status: 'active', user_id: 1000 },
    });
    expect(new Date(event.created_at).toISOString()).toBe(event.created_at);
    c.close();
  });

  it("a level-2 user sees only the events of their businesses' agents; an administrator sees all", async () => {
    const owner = await sse('/ai/events', { 'x-api-key': KEYS.owner }); // business 1
    const admin = await sse('/ai/events', { 'x-api-key': KEYS.admin });
    expect(owner.status).toBe(200);
    const a = (await (await current('b2', customerKey(1001))).json()) as any; // business 2
    const b = (await (await current('b1', customerKey(1001))).json()) as any; // business 1
    await admin.until((s) => s.events.length >= 2);
    await owner.until((s) => s.events.length >= 1);
    await new Promise((r) => setTimeout(r, 200));
    expect(parse(admin).map((e) => e.data.id)).toEqual([a.result.id, b.result.id]);
    expect(parse(owner).map((e) => e.data.id)).toEqual([b.result.id]);
    // a customer may not open the project's stream; another project's key may not either
    for (const key of [KEYS.customer, KEYS.otherServer]) {
      const denied = await fetch(url('/ai/events'), { headers: { 'x-api-key': key } });
      expect(denied.status).toBe(401);
    }
    const noai = await fetch(`${base}/v400/en/noai/ai/events`, { headers: { 'x-api-key': 'noai-server-key-0123456789' } });
    expect(noai.status).toBe(403);
  });

  it('resumes with Last-Event-ID and ?last_event_id: every later event once, in order; filters by types and conversation_id', async () => {
    const before = await db.sql<{ id: string }>('select id from ai_events where project_id = ? order by id', [acmeId]);
    const first = Number(before[0].id);
    const all = before.map((r) => Number(r.id));
    const header = await sse('/ai/events', { 'x-api-key': KEYS.server, 'last-event-id': String(first) });
    await header.until((s) => s.events.length >= all.length - 1);
    expect(header.events.map((e) => Number(e.id))).toEqual(all.slice(1));
    const query = await sse(`/ai/events?last_event_id=${first}&types=conversation.created,message.created`, { 'x-api-key': KEYS.server });
    const typed = (
      await db.sql<{ id: string }>(
        "select id from ai_events where project_id = ? and id > ? and type in ('conversation.created', 'message.created') order by id",
        [acmeId, first],
      )
    ).map((r) => Number(r.id));
    await query.until((s) => s.events.length >= typed.length);
    expect(query.events.map((e) => Number(e.id))).toEqual(typed);
    const none = await sse(`/ai/events?last_event_id=${first}&types=template.sent,template.status`, { 'x-api-key': KEYS.server });
    const oneConv = JSON.parse(header.events[0].data).data.id;
    const byConv = await sse(`/ai/events?last_event_id=${first}&conversation_id=${oneConv}`, { 'x-api-key': KEYS.server });
    await byConv.until((s) => s.events.length >= 1);
    await new Promise((r) => setTimeout(r, 300));
    expect(none.events).toEqual([]);
    expect(parse(byConv).map((e) => e.data.id)).toEqual([oneConv]);
  });

  it('refuses a malformed Last-Event-ID, unknown types and a malformed conversation_id with a 400 envelope', async () => {
    for (const [path, headers] of [
      ['/ai/events', { 'last-event-id': 'abc' }],
      ['/ai/events', { 'last-event-id': '-1' }],
      ['/ai/events?last_event_id=1.5', {}],
      ['/ai/events?last_event_id=99999999999999999999', {}],
      ['/ai/events?types=conversation.created,nope', {}],
      ['/ai/events?conversation_id=x', {}],
    ] as [string, Record<string, string>][]) {
      const res = await fetch(url(path), { headers: { 'x-api-key': KEYS.server, ...headers } });
      expect(res.status, path).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/json/);
      const body = (await res.json()) as any;
      expect(body).toMatchObject({ error: true, code: 'ERROR_VALIDATION' });
    }
  });

  it('stream.reset first for an id older than the kept events (pruned), or newer than any; then the kept events', async () => {
    const ids = (await db.sql<{ id: string }>('select id from ai_events where project_id = ? order by id', [acmeId])).map((r) =>
      Number(r.id),
    );
    const c = await sse('/ai/events', { 'x-api-key': KEYS.server, 'last-event-id': String(ids[ids.length - 1] + 1000) });
    await c.until((s) => s.events.length >= 1);
    expect(c.events[0].event).toBe('stream.reset');
    // prune the project's oldest event: a client that saw only the one before it must hear it missed some
    await db.sql("update ai_events set created_at = now() - interval '8 days' where id = ?", [ids[0]]);
    expect(await t.services.events.pruneOld()).toBeGreaterThanOrEqual(1);
    const resumed = await sse('/ai/events', { 'x-api-key': KEYS.server, 'last-event-id': String(ids[0] - 1) });
    await resumed.until((s) => s.events.length >= ids.length);
    expect(resumed.events[0].event).toBe('stream.reset');
    expect(JSON.parse(resumed.events[0].data)).toMatchObject({ type: 'stream.reset' });
    expect(resumed.events.slice(1).map((e) => Number(e.id))).toEqual(ids.slice(1));
    // an id that is still kept resumes without a reset
    const kept = await sse('/ai/events', { 'x-api-key': KEYS.server, 'last-event-id': String(ids[1]) });
    await kept.until((s) => s.events.length >= ids.length - 2);
    expect(kept.events.some((e) => e.event === 'stream.reset')).toBe(false);
  });

  it('sends keep-alive comments on an idle stream', async () => {
    const c = await sse('/ai/events', { 'x-api-key': KEYS.server });
    await c.until((s) => s.comments.includes('keep-alive'), 5_000);
  });

  it('accepts ?api_key= and ?access_token=, and never writes them to the log', async () => {
    const login = await fetch(url('/auth'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@acme.test', password: PASSWORD }),
    });
    const token = ((await login.json()) as any).result.session.access_token as string;
    const byKey = await sse(`/ai/events?api_key=${KEYS.server}`);
    const byToken = await sse(`/ai/events?access_token=${token}`);
    expect(byKey.status).toBe(200);
    expect(byToken.status).toBe(200);
    const wrong = await fetch(url('/ai/events?api_key=wrong-key-0123456789'));
    expect(wrong.status).toBe(401);
    const lost = await fetch(`${base}/v400/en/acme/nowhere?api_key=${KEYS.server}&access_token=${token}`);
    expect(lost.status).toBe(404);
    const text = logs.join('');
    expect(text).toContain('/ai/events?api_key=[Redacted]');
    expect(text).not.toContain(KEYS.server);
    expect(text).not.toContain(token);
    expect(text).not.toContain('wrong-key-0123456789');
  });

  it("the current-conversation stream: the caller's own public messages and the closing, nothing else; 404 without agent or conversation", async () => {
    const key = customerKey(1002);
    const missingConv = await fetch(url(`/ai/agents/${ext('cur')}/conversations/current/events`), { headers: { 'x-api-key': key } });
    expect(missingConv.status).toBe(404);
    expect(((await missingConv.json()) as any).code).toBe('ERROR_AI_CONVERSATION_NOT_FOUND');
    const missingAgent = await fetch(url('/ai/agents/nobody/conversations/current/events'), { headers: { 'x-api-key': key } });
    expect(missingAgent.status).toBe(404);
    const mine = ((await (await current('cur', key)).json()) as any).result;
    const theirs = ((await (await current('cur', customerKey(1003))).json()) as any).result;
    const c = await sse(`/ai/agents/${ext('cur')}/conversations/current/events?api_key=${key}`);
    expect(c.status).toBe(200);
    const agentId = mine.agent_id;
    const msg = (conversationId: number, id: number, pub: boolean) => ({
      type: 'message.created' as const,
      agent_id: agentId,
      business_id: 1,
      conversation_id: conversationId,
      public: pub,
      data: { id, conversation_id: conversationId, role: 'user', content: `m${id}`, public: pub },
    });
    await emit(db.orm, t.services, acmeId, [msg(mine.id, 1, true), msg(mine.id, 2, false), msg(theirs.id, 3, true)]);
    await emit(db.orm, t.services, acmeId, [
      { type: 'conversation.closed', agent_id: agentId, business_id: 1, conversation_id: mine.id, data: { id: mine.id, status: 'closed' } },
    ]);
    await c.until((s) => s.events.length >= 2);
    await new Promise((r) => setTimeout(r, 200));
    expect(c.events.map((e) => e.event)).toEqual(['message.created', 'conversation.closed']);
    expect(JSON.parse(c.events[0].data).data.id).toBe(1);
  });

  it('closes the stream of a client that does not read, past the buffer cap, and stays bounded; the client resumes', async () => {
    // on the other project, so the big events stay out of acme's streams
    const otherId = (await db.sql<{ id: number }>("select id from projects where code = 'other'"))[0].id;
    const other = (query = '') => `${base}/v400/en/other/ai/events${query}`;
    const c = await openSse(other(), { 'x-api-key': KEYS.otherServer });
    streams.push(c);
    c.pause();
    const open = t.services.events.openStreams;
    const big = 'x'.repeat(100_000);
    let last = 0;
    for (let i = 0; i < 60; i++) {
      last = await emit(db.orm, t.services, otherId, [
        { type: 'message.created', agent_id: 101, business_id: 101, conversation_id: 999999, data: { id: i, content: big } },
      ]);
    }
    const deadline = Date.now() + 10_000;
    while (t.services.events.openStreams >= open && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(t.services.events.openStreams).toBeLessThan(open);
    c.resume();
    await c.closed;
    const got = c.events.map((e) => Number(e.id));
    expect(got.length).toBeLessThan(60);
    // resuming from what it got delivers the rest
    const resumed = await openSse(other(), {
      'x-api-key': KEYS.otherServer,
      'last-event-id': String(got.length ? got[got.length - 1] : 0),
    });
    streams.push(resumed);
    await resumed.until((s) => s.events.some((e) => Number(e.id) === last), 15_000);
  });
});
