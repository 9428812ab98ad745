import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUE_VACUUM_MS } from '../../src/db/vacuum.js';
import { MetricsCompactor } from '../../src/workers/metrics-compactor.js';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';
import { until } from '../support/webhook-receiver.js';

/**
 * The queue tables the service empties are vacuumed by the service (src/db/vacuum.ts), whatever autovacuum does:
 * the events' inbox after the sequencer passes that moved rows, the metrics deltas after a compaction that folded
 * some. Observed as PostgreSQL counts it (`pg_stat_user_tables.vacuum_count`, manual vacuums only).
 */
const AGENT = 1;
const silent = { warn: () => undefined, info: () => undefined } as never;

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(
    baseFixture({
      agents: [
        {
          id: AGENT,
          business_id: 1,
          name: 'Agent',
          provider: 'web',
          provider_type: 'chat',
          provider_external_id: 'vacuum-agent',
          enabled: true,
        },
      ],
      conversations: ENGINES.map((_, i) => ({
        id: 1 + i,
        agent_id: AGENT,
        user_id: null,
        contact: `34600000${i}`,
        business_id: 1,
        status: 'active',
        usage: {},
        created_at: '2026-11-01T12:00:00Z',
      })),
    }),
  );
});
afterAll(() => db.orm.close());

const vacuums = async (table: string) =>
  Number((await db.sql<{ n: string }>('select vacuum_count as n from pg_stat_user_tables where relname = ?', [table]))[0].n);

describe.each(ENGINES)('queue tables vacuumed by the service (%s)', (engine) => {
  const conversation = 1 + ENGINES.indexOf(engine);
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(engine, db);
  });
  afterAll(() => t?.close());

  const write = (content: string, usage?: Record<string, number>) =>
    t.api({
      method: 'POST',
      path: `/ai/conversations/${conversation}/messages`,
      key: KEYS.server,
      body: { role: 'assistant', content, ...(usage ? { usage } : {}) },
    });

  it('the events inbox, after passes that moved rows; the events are all in the log', async () => {
    const before = await vacuums('ai_event_inbox');
    for (let i = 0; i < 3; i++) expect((await write(`inbox ${i}`)).statusCode).toBe(200);
    await until(async () => (await vacuums('ai_event_inbox')) > before, 5000, 'a vacuum of ai_event_inbox');
    const [left] = await db.sql<{ n: number }>('select count(*)::int as n from ai_event_inbox');
    expect(left.n).toBe(0);
    const logged = await db.sql<{ n: number }>(
      "select count(*)::int as n from ai_events where type = 'message.created' and conversation_id = ? and data->>'content' like 'inbox %'",
      [conversation],
    );
    expect(logged[0].n).toBe(3);
  });

  it('the events inbox, not again within QUEUE_VACUUM_MS: a vacuum invalidates every cached plan that names the table', async () => {
    const before = await vacuums('ai_event_inbox');
    // the previous test's vacuum was moments ago: past the old spacing (a second), well within QUEUE_VACUUM_MS
    await new Promise((resolve) => setTimeout(resolve, 1500));
    for (let i = 0; i < 3; i++) expect((await write(`spaced ${i}`)).statusCode).toBe(200);
    await until(
      async () => {
        const [n] = await db.sql<{ n: number }>(
          "select count(*)::int as n from ai_events where conversation_id = ? and data->>'content' like 'spaced %'",
          [conversation],
        );
        return n.n === 3;
      },
      5000,
      'the events in the log',
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await vacuums('ai_event_inbox')).toBe(before);
    expect(QUEUE_VACUUM_MS).toBe(10_000);
  });

  it('the metrics deltas, after a compaction that folded some', async () => {
    expect((await write('with usage', { cost: 0.5, response_time_ms: 300 })).statusCode).toBe(200);
    const [pending] = await db.sql<{ n: number }>('select count(*)::int as n from metrics_conversation_delta');
    expect(pending.n).toBeGreaterThan(0);
    const before = await vacuums('metrics_conversation_delta');
    await new MetricsCompactor(db.orm, 0, silent).pass();
    await until(async () => (await vacuums('metrics_conversation_delta')) > before, 5000, 'a vacuum of metrics_conversation_delta');
    const [after] = await db.sql<{ n: number }>('select count(*)::int as n from metrics_conversation_delta');
    expect(after.n).toBe(0);
    // a compaction with nothing to fold vacuums nothing
    const settled = await vacuums('metrics_conversation_delta');
    await new MetricsCompactor(db.orm, 0, silent).pass();
    expect(await vacuums('metrics_conversation_delta')).toBe(settled);
  });
});
