import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';
import { freePort } from '../support/net.js';
import { openSse } from '../support/sse.js';
import { listen } from './support.js';
import { appendEvents } from '../../src/services/events/event-log.js';

/**
 * A notification only says "events up to N in project P": when every notification is lost (here:
 * the bus is a Redis nobody answers at, and the commit tells no one), the streams still get the
 * event from the slow poll of the log.
 */
let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(baseFixture());
});
afterAll(() => db.orm.close());

describe.each(ENGINES)('lost notifications (%s)', (engine) => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await startApp(engine, db, { config: { redisUrl: `redis://127.0.0.1:${await freePort()}`, eventsPollMs: 300 } });
    base = await listen(t.app);
  });
  afterAll(() => t.close());

  it('only delay an event: the poll of the log delivers it', async () => {
    const acmeId = (await db.sql<{ id: number }>("select id from projects where code = 'acme'"))[0].id;
    const c = await openSse(`${base}/v400/en/acme/ai/events`, { 'x-api-key': KEYS.server });
    expect(c.status).toBe(200);
    // appended and committed without a sequencer pass (as when the writer's process dies right after
    // its commit), and nobody listens to PostgreSQL's NOTIFY here: the poll sequences and delivers it
    await db.orm.em
      .fork()
      .transactional((tx) =>
        appendEvents(tx, acmeId, [
          { type: 'conversation.created', agent_id: null, business_id: null, conversation_id: 1, data: { id: 424242 } },
        ]),
      );
    await c.until((s) => s.events.some((e) => e.event === 'conversation.created' && JSON.parse(e.data).data.id === 424242), 5_000);
    c.close();
  });
});
