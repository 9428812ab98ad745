import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture } from '../support/fixtures.js';
import { openSse, type SseClient } from '../support/sse.js';
import { emit } from '../events/support.js';

/**
 * CONTRACT §11, "streams show only what their caller may still see" (issue 39, finding 4), under
 * both engines over real sockets: a business owner's (level 2) stream of /ai/events shows the events
 * of their businesses; once a business is no longer theirs, the re-checks (STREAMS_REVALIDATE_MS,
 * shortened here) end the stream within the interval and nothing of that business reaches it,
 * non-public messages included; a business they gain is shown from the next re-check on, without
 * a reconnection. (Subscriptions on /graphql admit only server keys and level 0, who see every
 * business: no level-2 subscription exists to scope.)
 */
const REVALIDATE_MS = 400;
const OWNER = { mercurius: 60, apollo: 61 } as const;
const ownerKey = (engine: string) => `acme-scope-${engine}-key-0123456789`;

let db: TestDatabase;
let acmeId: number;
beforeAll(async () => {
  db = await createTestDatabase();
  const base = baseFixture().projects[0];
  await db.load(
    baseFixture({
      users: [
        ...base.users!,
        ...ENGINES.map((e) => ({ id: OWNER[e], name: `Owner ${e}`, email: `scope-${e}@acme.test`, level: 2, business_ids: [1] })),
      ],
      api_keys: [...base.api_keys!, ...ENGINES.map((e) => ({ key: ownerKey(e), user_id: OWNER[e] }))],
    }),
  );
  acmeId = (await db.sql<{ id: number }>("select id from projects where code = 'acme'"))[0].id;
});
afterAll(() => db.orm.close());

/** A non-public message of business `business` (as the system writes them): only who sees that business sees it. */
const note = (n: number, business: number) => ({
  type: 'message.created' as const,
  data: { id: n, role: 'system', content: `internal note ${n}`, public: false },
  agent_id: null,
  business_id: business,
  public: false,
});
const ids = (s: SseClient) => s.events.map((e) => JSON.parse(e.data).data.id);

describe.each(ENGINES)('streams follow what a business owner may see (%s)', (engine) => {
  let t: TestApp;
  let base: string;
  const streams: SseClient[] = [];

  beforeAll(async () => {
    t = await startApp(engine, db, { config: { streams: { perCredential: 20, perProject: 2000, revalidateMs: REVALIDATE_MS } } });
    base = await t.listen();
  });
  afterAll(async () => {
    for (const s of streams) s.close();
    await t.close();
  });

  const open = async () => {
    const s = await openSse(`${base}/v400/en/acme/ai/events`, { 'x-api-key': ownerKey(engine) });
    streams.push(s);
    expect(s.status).toBe(200);
    return s;
  };

  it('a business gained is shown from the next re-check on; a business lost ends the stream within the interval, and none of its events arrive', async () => {
    const user = OWNER[engine];
    const stream = await open();
    await emit(db.orm, t.services, acmeId, [note(1, 1), note(2, 3)]);
    await stream.until((s) => ids(s).includes(1), 5000);

    // business 3 becomes theirs: shown without a reconnection once the re-check has run
    await db.sql('insert into user_businesses (project_id, user_id, business_id) values (?, ?, 3)', [acmeId, user]);
    await new Promise((r) => setTimeout(r, REVALIDATE_MS * 2 + 300));
    await emit(db.orm, t.services, acmeId, [note(3, 3)]);
    await stream.until((s) => ids(s).includes(3), 5000);
    expect(ids(stream)).toEqual([1, 3]);
    expect(stream.ended).toBe(false);

    // business 1 is no longer theirs: the stream ends within the interval, nothing of business 1 after
    await db.sql('delete from user_businesses where user_id = ? and business_id = 1', [user]);
    const lostAt = Date.now();
    await Promise.race([stream.closed, new Promise((r) => setTimeout(r, REVALIDATE_MS * 2 + 2000))]);
    expect(stream.ended).toBe(true);
    expect(Date.now() - lostAt).toBeLessThan(REVALIDATE_MS * 2 + 1500);
    await emit(db.orm, t.services, acmeId, [note(4, 1)]);

    // the client resumes: it sees business 3, never business 1
    const resumed = await openSse(`${base}/v400/en/acme/ai/events?last_event_id=0`, { 'x-api-key': ownerKey(engine) });
    streams.push(resumed);
    await emit(db.orm, t.services, acmeId, [note(5, 3), note(6, 1)]);
    await resumed.until((s) => ids(s).includes(5), 5000);
    await new Promise((r) => setTimeout(r, 300));
    expect(ids(resumed)).not.toContain(4);
    expect(ids(resumed)).not.toContain(6);
    expect(ids(resumed)).not.toContain(1);
    expect(ids(stream)).toEqual([1, 3]);

    await db.sql('delete from user_businesses where user_id = ? and business_id = 3', [user]);
    await db.sql('insert into user_businesses (project_id, user_id, business_id) values (?, ?, 1)', [acmeId, user]);
  }, 30_000);
});
