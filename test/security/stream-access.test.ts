import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FixtureProject } from '../../src/fixtures/types.js';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS, PASSWORD } from '../support/fixtures.js';
import { openSse, type SseClient } from '../support/sse.js';
import { emit } from '../events/support.js';

/**
 * CONTRACT §11, "streams end when access ends" (issue 29, finding 3): an SSE stream open on an
 * administrator's credential keeps delivering until the credential stops being valid (user
 * disabled, project inactive, key deleted, AI module off, session expired); then it ends within
 * the re-validation interval (shortened here to REVALIDATE_MS) and shows nothing more, while a
 * stream of a credential that is still valid goes on.
 */
const REVALIDATE_MS = 400;
const SCENARIOS = ['user', 'project', 'key', 'ai', 'session'] as const;
type Scenario = (typeof SCENARIOS)[number];

const code = (s: Scenario, engine: string) => `rv-${s}-${engine}`;
const key = (s: Scenario, engine: string) => `rv-${s}-${engine}-admin-key-0123456789`;
const email = (s: Scenario, engine: string) => `admin@rv-${s}-${engine}.test`;

/** One project per scenario and engine, each with an administrator and their key. */
function projects(): FixtureProject[] {
  let id = 500;
  return ENGINES.flatMap((engine) =>
    SCENARIOS.map((s) => {
      const userId = id++;
      return {
        code: code(s, engine),
        name: `Revocation ${s} ${engine}`,
        ai_enabled: true,
        users: [{ id: userId, name: 'Ada', email: email(s, engine), password: PASSWORD, level: 0 }],
        api_keys: [{ key: key(s, engine), user_id: userId }],
      };
    }),
  );
}

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  const fixture = baseFixture();
  fixture.projects.push(...projects());
  await db.load(fixture);
});
afterAll(() => db.orm.close());

/** A non-public message of the project: only its administrators' streams show it. */
const secretMessage = (n: number) => ({
  type: 'message.created' as const,
  data: { id: n, role: 'assistant', content: `internal note ${n}`, public: false },
  agent_id: null,
  business_id: null,
  public: false,
});

describe.each(ENGINES)('open streams end when their access ends (%s)', (engine) => {
  let t: TestApp;
  let base: string;
  const streams: SseClient[] = [];
  const projectId = async (c: string) => (await db.sql<{ id: number }>('select id from projects where code = ?', [c]))[0].id;

  beforeAll(async () => {
    t = await startApp(engine, db, { config: { streams: { perCredential: 20, perProject: 2000, revalidateMs: REVALIDATE_MS } } });
    base = await t.listen();
  });
  afterAll(async () => {
    for (const s of streams) s.close();
    await t.close();
  });

  const open = async (project: string, headers: Record<string, string>) => {
    const s = await openSse(`${base}/v400/en/${project}/ai/events`, headers);
    streams.push(s);
    expect(s.status).toBe(200);
    return s;
  };

  /** The credential the stream of scenario `s` is opened with: the key, or (session) a token of POST /auth. */
  async function credential(s: Scenario): Promise<Record<string, string>> {
    if (s !== 'session') return { 'x-api-key': key(s, engine) };
    const res = await fetch(`${base}/v400/en/${code(s, engine)}/auth`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: email(s, engine), password: PASSWORD }),
    });
    expect(res.status).toBe(200);
    return { authorization: `Bearer ${((await res.json()) as any).result.session.access_token}` };
  }

  /** What ends the access of scenario `s`, as an operator or administrator would do it in the database. */
  async function revoke(s: Scenario): Promise<void> {
    const c = code(s, engine);
    if (s === 'user') await db.sql('update users set enabled = false where email = ?', [email(s, engine)]);
    if (s === 'project') await db.sql('update projects set subscription_active = false where code = ?', [c]);
    if (s === 'key') await db.sql('delete from api_keys where project_id = (select id from projects where code = ?)', [c]);
    if (s === 'ai') await db.sql('update projects set ai_enabled = false where code = ?', [c]);
    if (s === 'session')
      await db.sql(
        "update sessions set expires_at = now() - interval '1 second' where project_id = (select id from projects where code = ?)",
        [c],
      );
  }

  it.each(SCENARIOS)(
    '%s: the stream delivers, then ends within the re-validation interval and shows nothing more',
    async (s) => {
      const c = code(s, engine);
      const pid = await projectId(c);
      const headers = await credential(s);
      const stream = await open(c, headers);
      // another project's stream, whose access stays, is not touched
      const control = await open('acme', { 'x-api-key': KEYS.server });

      await emit(db.orm, t.services, pid, [secretMessage(1)]);
      await stream.until((x) => x.events.length === 1, 5000);

      await revoke(s);
      const revokedAt = Date.now();
      await Promise.race([stream.closed, new Promise((r) => setTimeout(r, REVALIDATE_MS * 2 + 2000))]);
      expect(stream.ended).toBe(true);
      expect(Date.now() - revokedAt).toBeLessThan(REVALIDATE_MS * 2 + 1500);

      await emit(db.orm, t.services, pid, [secretMessage(2)]);
      await new Promise((r) => setTimeout(r, 300));
      expect(stream.events.map((e) => JSON.parse(e.data).data.id)).toEqual([1]);

      // once the per-process caches of callers (1 s) and projects (2 s) have expired, a new stream is refused too
      await new Promise((r) => setTimeout(r, 2100));
      const again = await openSse(`${base}/v400/en/${c}/ai/events`, headers);
      streams.push(again);
      expect(again.status).toBeGreaterThanOrEqual(401);
      expect(again.status).toBeLessThan(404);

      expect(control.ended).toBe(false);
      await emit(db.orm, t.services, await projectId('acme'), [secretMessage(3)]);
      await control.until((x) => x.events.some((e) => JSON.parse(e.data).data.id === 3), 5000);
      control.close();
    },
    20_000,
  );
});
