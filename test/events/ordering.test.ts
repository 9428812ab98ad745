import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';
import { openSse } from '../support/sse.js';
import { agent, customerKey, customers, emit, listen } from './support.js';

/**
 * The resume guarantee of CONTRACT §9.4 under concurrency: many writers commit events at once
 * (customers opening their current conversations over HTTP, which emits conversation.created, and
 * direct appends of several events per transaction) while one reader keeps disconnecting and
 * resuming with Last-Event-ID. The union of what it received must be exactly the committed events
 * of the project, each once, in id order. Without the per-project lock of services/events/event-log.ts
 * (ids taken before commit, committed out of order) the reader misses events.
 */
const USERS_PER_ENGINE = 40;
const AGENTS_PER_ENGINE = 3;
const DIRECT_WRITES = 150;

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  const extra = customers(2000, USERS_PER_ENGINE * ENGINES.length);
  const base = baseFixture().projects[0];
  await db.load(
    baseFixture({
      users: [...base.users!, ...extra.users!],
      api_keys: [...base.api_keys!, ...extra.api_keys!],
      agents: ENGINES.flatMap((e, i) =>
        Array.from({ length: AGENTS_PER_ENGINE }, (_, j) => agent(10 + i * 10 + j, `ord-${e}-${j}`, 1 + (j % 2))),
      ),
    }),
  );
}, 120_000);
afterAll(() => db.orm.close());

/** Runs `tasks` with at most `n` at a time. */
async function pool(n: number, tasks: (() => Promise<unknown>)[]): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < tasks.length) await tasks[next++]();
    }),
  );
}

describe.each(ENGINES)('ordering under concurrent writers (%s)', (engine) => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await startApp(engine, db);
    base = await listen(t.app);
  });
  afterAll(() => t.close());

  it('a reader that disconnects and resumes repeatedly receives every committed event once, in order', async () => {
    const acmeId = (await db.sql<{ id: number }>("select id from projects where code = 'acme'"))[0].id;
    const [{ max }] = await db.sql<{ max: string | null }>('select max(id)::text as max from ai_events where project_id = ?', [acmeId]);
    const start = Number(max ?? 0);
    const received: number[] = [];
    let writing = true;
    let sessions = 0;

    const reader = (async () => {
      for (;;) {
        const last = received.length ? received[received.length - 1] : start;
        const c = await openSse(`${base}/v400/en/acme/ai/events`, { 'x-api-key': KEYS.server, 'last-event-id': String(last) });
        expect(c.status).toBe(200);
        sessions++;
        const stay = 5 + Math.floor(Math.random() * 40);
        await new Promise((r) => setTimeout(r, stay));
        c.close();
        for (const e of c.events) {
          expect(e.event).not.toBe('stream.reset');
          received.push(Number(e.id));
        }
        if (!writing) {
          const [{ top }] = await db.sql<{ top: string }>('select max(id)::text as top from ai_events where project_id = ?', [acmeId]);
          if (received.length && received[received.length - 1] >= Number(top)) return;
        }
      }
    })();

    const userIds = Array.from({ length: USERS_PER_ENGINE }, (_, i) => 2000 + ENGINES.indexOf(engine) * USERS_PER_ENGINE + i);
    const agentExts = Array.from({ length: AGENTS_PER_ENGINE }, (_, j) => `ord-${engine}-${j}`);
    const opens = userIds.flatMap((u) =>
      agentExts.map((ext) => async () => {
        const res = await fetch(`${base}/v400/en/acme/ai/agents/${ext}/conversations/current`, {
          headers: { 'x-api-key': customerKey(u) },
        });
        expect(res.status).toBe(200);
      }),
    );
    const direct = Array.from({ length: DIRECT_WRITES }, (_, i) => async () => {
      const n = 1 + (i % 3);
      await emit(
        db.orm,
        t.services,
        acmeId,
        Array.from({ length: n }, (_, k) => ({
          type: 'message.created' as const,
          agent_id: 10,
          business_id: 1,
          conversation_id: 1,
          data: { id: i * 10 + k },
        })),
      );
    });
    const tasks = Array.from({ length: Math.max(opens.length, direct.length) }, (_, i) => [opens[i], direct[i]])
      .flat()
      .filter(Boolean);
    await pool(16, tasks);
    writing = false;
    await reader;

    const committed = (
      await db.sql<{ id: string }>('select id::text as id from ai_events where project_id = ? and id > ? order by ai_events.id', [
        acmeId,
        start,
      ])
    ).map((r) => Number(r.id));
    expect(committed.length).toBe(opens.length + direct.reduce((n, _, i) => n + 1 + (i % 3), 0));
    expect(new Set(received).size).toBe(received.length); // none twice
    expect(received).toEqual(committed); // none missing, in order
    expect(sessions).toBeGreaterThan(5);
  }, 120_000);
});
