import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestContext } from '../../src/context/index.js';
import { MetricsService, type MetricsMode } from '../../src/services/metrics/metrics.service.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { ensureEmitted } from '../support/dist.js';
import { baseFixture, KEYS } from '../support/fixtures.js';
import { startServe, stopServe, type ServeProcess } from '../support/serve-process.js';
import { openSse } from '../support/sse.js';
import { agent, customers } from './support.js';

/**
 * A tenant's busy hour (issue 34): 20 writers, each on its own conversation of one project, post
 * messages with usage and then close their conversations, alternating between two real `serve`
 * processes (mercurius and Apollo) on one database, while one SSE reader keeps disconnecting and
 * resuming with Last-Event-ID, alternating processes too. Every committed event must arrive once,
 * in id order, each conversation's events in the order of its changes; and the metrics must equal a
 * recount from the raw rows.
 */
const WRITERS = 20;
const MESSAGES = 12;
const FIRST = 700;
const conversationIds = Array.from({ length: WRITERS }, (_, i) => FIRST + i);

let db: TestDatabase;
let projectId: number;
beforeAll(async () => {
  db = await createTestDatabase();
  const now = new Date().toISOString();
  const base = baseFixture().projects[0];
  const people = customers(3000, WRITERS); // one active conversation per agent and user
  await db.load(
    baseFixture({
      users: [...base.users!, ...people.users!],
      agents: [{ ...agent(10, 'busy-bot', 1), provider: 'app' }],
      conversations: conversationIds.map((id, i) => ({
        id,
        agent_id: 10,
        user_id: 3000 + i,
        business_id: 1,
        status: 'active',
        status_reason: null,
        usage: {},
        created_at: now,
      })),
    }),
  );
  [{ id: projectId }] = await db.sql<{ id: number }>("select id from projects where code = 'acme'");
  await ensureEmitted('events busy-hour.test');
}, 300_000);
afterAll(() => db.orm.close());

const post = (p: ServeProcess, path: string, body: unknown) =>
  fetch(`${p.base}/v400/en/acme${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': KEYS.server },
    body: JSON.stringify(body),
  });

const maxEventId = async () =>
  Number(
    (await db.sql<{ top: string | null }>('select max(id)::text as top from ai_events where project_id = ?', [projectId]))[0].top ?? 0,
  );

function metricsContext(): RequestContext {
  return {
    requestId: 'busy-hour',
    project: { id: projectId, ai_enabled: true },
    caller: { kind: 'server', apiKeyId: 0 },
    em: db.orm.em.fork(),
    lang: 'en',
    ip: '127.0.0.1',
  } as unknown as RequestContext;
}

describe('a busy hour across two serve processes', () => {
  let servers: ServeProcess[] = [];
  beforeAll(async () => {
    const env = { DATABASE_DIRECT_URL: db.directUrl };
    servers = await Promise.all([startServe(db.url, env), startServe(db.url, { ...env, GRAPHQL_ENGINE: 'apollo' })]);
  }, 120_000);
  afterAll(() => stopServe(servers));

  it('20 writers on 20 conversations: every event once, in id order, per conversation in order; metrics equal the raw recount', async () => {
    const start = await maxEventId();
    const received: { id: number; event: string; conversation: number; message: number | null }[] = [];
    let writing = true;
    let sessions = 0;

    const reader = (async () => {
      for (;;) {
        const last = received.length ? received[received.length - 1].id : start;
        const c = await openSse(`${servers[sessions % 2].base}/v400/en/acme/ai/events`, {
          'x-api-key': KEYS.server,
          'last-event-id': String(last),
        });
        expect(c.status).toBe(200);
        sessions++;
        await new Promise((r) => setTimeout(r, 10 + Math.floor(Math.random() * 40)));
        c.close();
        for (const e of c.events) {
          expect(e.event).not.toBe('stream.reset');
          const body = JSON.parse(e.data);
          const data = body.data;
          received.push({
            id: Number(e.id),
            event: e.event,
            conversation: data.conversation_id ?? data.id,
            message: e.event === 'message.created' ? data.id : null,
          });
        }
        if (!writing && received.length && received[received.length - 1].id >= (await maxEventId())) return;
      }
    })();

    await Promise.all(
      conversationIds.map(async (id, w) => {
        for (let i = 0; i < MESSAGES; i++) {
          const res = await post(servers[(w + i) % 2], `/ai/conversations/${id}/messages`, {
            role: i % 2 ? 'assistant' : 'user',
            content: `m${i}`,
            public: true,
            usage: { cost: 0.01 * (1 + (i % 5)), input_tokens: 10 + i, output_tokens: 5, response_time_ms: 200 + 10 * i },
          });
          expect(res.status, `${await res.clone().text()} ${servers.map((s) => s.output().slice(-1500)).join('\n')}`).toBe(200);
        }
        const closed = await post(servers[w % 2], `/ai/conversations/${id}/close`, { status_reason: w % 3 ? 'completed' : 'failed' });
        expect(closed.status, await closed.clone().text()).toBe(200);
      }),
    );
    writing = false;
    await reader;

    // Every committed event once, in id order.
    const committed = await db.sql<{ id: string; type: string }>(
      'select id::text as id, type from ai_events where project_id = ? and id > ? order by ai_events.id',
      [projectId, start],
    );
    expect(committed).toHaveLength(WRITERS * (MESSAGES + 1));
    const got = received.map((e) => e.id);
    const want = committed.map((e) => Number(e.id));
    const missing = want.filter((id) => !got.includes(id));
    const twice = got.filter((id, i) => got.indexOf(id) !== i);
    expect({ missing, twice, received: got.length }).toEqual({ missing: [], twice: [], received: want.length });
    expect(got).toEqual(want); // in id order
    expect(sessions).toBeGreaterThan(5);

    // Each conversation's events in the order of its changes: its messages by id, then its closing.
    for (const id of conversationIds) {
      const mine = received.filter((e) => e.conversation === id);
      const messages = (await db.sql<{ id: number }>('select id from ai_messages where conversation_id = ? order by id', [id])).map(
        (r) => r.id,
      );
      expect(mine.map((e) => e.message)).toEqual([...messages, null]);
      expect(mine.at(-1)!.event).toBe('conversation.closed');
    }

    // Metrics follow every write: the service's answers over HTTP equal the raw-scan reference.
    const service = new MetricsService();
    for (const [endpoint, path] of [
      ['chats', 'chats'],
      ['performance', 'performance'],
    ] as const) {
      const res = await fetch(`${servers[0].base}/v400/en/acme/ai/metrics/${path}`, { headers: { 'x-api-key': KEYS.server } });
      expect(res.status).toBe(200);
      const raw = await (service[endpoint] as (c: RequestContext, a: object, m: MetricsMode) => Promise<unknown>)(
        metricsContext(),
        {},
        'raw',
      );
      expect(((await res.json()) as { result: unknown }).result, endpoint).toEqual(raw);
    }
    const [{ n, cost }] = await db.sql<{ n: number; cost: string }>(
      "select count(*)::int as n, sum((usage->>'cost')::numeric)::text as cost from ai_conversations where project_id = ? and id between ? and ?",
      [projectId, FIRST, FIRST + WRITERS - 1],
    );
    expect(n).toBe(WRITERS);
    expect(Number(cost)).toBeCloseTo(WRITERS * 0.01 * (1 + 2 + 3 + 4 + 5 + 1 + 2 + 3 + 4 + 5 + 1 + 2), 6);
  }, 180_000);
});
