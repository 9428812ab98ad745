import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { ensureEmitted } from '../support/dist.js';
import { baseFixture } from '../support/fixtures.js';
import { startServe, stopServe, type ServeProcess } from '../support/serve-process.js';

/**
 * Idle closing (CONTRACT §9.1) by two real `serve` processes on one database, sweeping every
 * 150 ms: every idle conversation of a project with `ai_idle_close_minutes` is closed as
 * abandoned exactly once (one conversation.closed event, closed_at set once); recent ones, closed
 * ones and projects without a positive config are left alone.
 */
const IDLE = 250; // generated idle conversations: several batches of 100, raced by both processes
const ago = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
const agent = (id: number, businessId: number) => ({
  id,
  business_id: businessId,
  name: `a${id}`,
  provider: 'whatsapp',
  provider_type: 'chat',
  provider_external_id: `idle-${id}`,
  enabled: true,
});
const conv = (id: number, agentId: number, createdMinutesAgo: number, extra: Record<string, unknown> = {}) => ({
  id,
  agent_id: agentId,
  user_id: null,
  contact: `c${id}`,
  business_id: null,
  status: 'active',
  usage: {},
  created_at: ago(createdMinutesAgo),
  ...extra,
});

let db: TestDatabase;
let servers: ServeProcess[] = [];
beforeAll(async () => {
  db = await createTestDatabase();
  const fixture = baseFixture({
    agents: [agent(1, 1)],
    configs: [{ key: 'ai_idle_close_minutes', value: '5' }],
    conversations: [
      conv(1, 1, 60), // no messages, created an hour ago: idle
      conv(2, 1, 60), // a message 1 minute ago: not idle
      conv(3, 1, 1), // created a minute ago: not idle
      conv(4, 1, 60), // newest message 30 minutes ago: idle
      conv(5, 1, 60, { status: 'closed', status_reason: 'completed', closed_at: ago(50) }), // already closed
    ],
    messages: [
      { id: 1, conversation_id: 2, role: 'user', content: 'recent', public: true, created_at: ago(1) },
      { id: 2, conversation_id: 4, role: 'user', content: 'old', public: true, created_at: ago(40) },
      { id: 3, conversation_id: 4, role: 'assistant', content: 'older reply', public: true, created_at: ago(30) },
    ],
  });
  fixture.projects[1].agents = [agent(101, 101)];
  fixture.projects[1].configs = [{ key: 'ai_idle_close_minutes', value: '0' }];
  fixture.projects[1].conversations = [conv(101, 101, 60)];
  fixture.projects.push({
    code: 'noconfig',
    name: 'No config',
    ai_enabled: true,
    businesses: [{ id: 201, name: 'B' }],
    agents: [agent(201, 201)],
    conversations: [conv(201, 201, 600)],
  });
  fixture.projects.push({ code: 'demo', name: 'Demo' });
  await db.load(fixture);
  await db.sql(
    `insert into ai_conversations (project_id, agent_id, contact, status, usage, created_at, updated_at)
     select 1, 1, 'gen-' || g, 'active', '{}', now() - interval '2 hours', now() - interval '2 hours' from generate_series(1, ?) g`,
    [IDLE],
  );
  await ensureEmitted('idle-close.test');
}, 300_000);
afterAll(async () => {
  await stopServe(servers);
  await db.orm.close();
});

it('two serve processes close every idle conversation exactly once', async () => {
  const [{ closed_at: fiveClosedAt }] = await db.sql<{ closed_at: Date }>('select closed_at from ai_conversations where id = 5');
  const closedBefore = new Date(fiveClosedAt).getTime();
  const env = { DATABASE_DIRECT_URL: db.directUrl, AI_IDLE_SWEEP_MS: '150' };
  servers = await Promise.all([startServe(db.url, env), startServe(db.url, env)]);

  const expected = IDLE + 2; // the generated ones, 1 and 4
  const deadline = Date.now() + 30_000;
  let closed = 0;
  while (Date.now() < deadline) {
    [{ n: closed }] = await db.sql<{ n: number }>("select count(*)::int as n from ai_conversations where status_reason = 'abandoned'");
    if (closed >= expected) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  expect(closed).toBe(expected);
  // a few more passes of both processes change nothing
  await new Promise((r) => setTimeout(r, 1000));

  const rows = await db.sql<{
    id: number;
    contact: string;
    status: string;
    status_reason: string | null;
    closed_at: Date | null;
    events: number;
    event_closed_at: string | null;
  }>(
    `select c.id, c.contact, c.status, c.status_reason, c.closed_at,
            (select count(*)::int from ai_events e where e.conversation_id = c.id and e.type = 'conversation.closed') as events,
            (select e.data->>'closed_at' from ai_events e where e.conversation_id = c.id and e.type = 'conversation.closed' limit 1) as event_closed_at
       from ai_conversations c order by c.id`,
  );
  const byId = new Map(rows.map((r) => [Number(r.id), r]));
  const idle = rows.filter((r) => r.id === 1 || r.id === 4 || r.contact.startsWith('gen-'));
  expect(idle).toHaveLength(expected);
  for (const r of idle) {
    expect(r.status, `conversation ${r.id}`).toBe('closed');
    expect(r.status_reason).toBe('abandoned');
    expect(r.events, `events of ${r.id}`).toBe(1);
    expect(new Date(r.event_closed_at!).getTime()).toBe(new Date(r.closed_at!).getTime()); // closed_at set once
  }
  for (const id of [2, 3, 101, 201]) {
    expect(byId.get(id)).toMatchObject({ status: 'active', status_reason: null, events: 0 });
  }
  expect(byId.get(5)).toMatchObject({ status_reason: 'completed', events: 0 });
  expect(new Date(byId.get(5)!.closed_at!).getTime()).toBe(closedBefore);
  // the event carries the record with its messages_count
  const [event] = await db.sql<{ data: any }>("select data from ai_events where conversation_id = 4 and type = 'conversation.closed'");
  expect(event.data).toMatchObject({ id: 4, status: 'closed', status_reason: 'abandoned', messages_count: 2 });
  for (const s of servers) expect(s.output()).not.toMatch(/idle sweep failed/);
}, 120_000);
