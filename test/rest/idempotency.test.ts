import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdempotencyStore } from '../../src/db/idempotency-store.js';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { ensureEmitted } from '../support/dist.js';
import { baseFixture, KEYS, PASSWORD } from '../support/fixtures.js';
import { startServe, stopServe, type ServeProcess } from '../support/serve-process.js';

/**
 * Idempotency-Key on the AI module's POST routes (CONTRACT §9.2): one run per key under
 * concurrency, kept answers replayed, reuse and in-progress refusals, what is not kept, caller
 * scope, expiry and cleanup, and a replay by a restarted `serve` process.
 */
// Not WhatsApp agents: an assistant message is then sent nowhere (whatsapp-replies.test.ts replays a sent reply).
const agent = (id: number, ext: string) => ({
  id,
  business_id: 1,
  name: ext,
  provider: 'web',
  provider_type: 'chat',
  provider_external_id: ext,
  enabled: true,
});
const base = (i: number) => 10 + i * 10;
const conv = (id: number, extra: Record<string, unknown> = {}) => ({
  id,
  agent_id: 1,
  user_id: null,
  contact: `c${id}`,
  business_id: 1,
  status: 'active',
  usage: {},
  created_at: '2026-11-01T12:00:00Z',
  ...extra,
});

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(
    baseFixture({
      agents: [agent(1, 'idem')],
      // per engine i: base+0 the concurrency target, base+1 misc, base+2 closed; 90 the restart test
      conversations: [
        ...ENGINES.flatMap((_, i) => [
          conv(base(i)),
          conv(base(i) + 1),
          conv(base(i) + 2, { status: 'closed', status_reason: 'failed', closed_at: '2026-11-01T13:00:00Z' }),
        ]),
        conv(90),
      ],
    }),
  );
  await db.load({ projects: [{ code: 'demo', name: 'Demo' }] });
}, 300_000);
afterAll(() => db.orm.close());

const count = async (conversationId: number) =>
  (await db.sql<{ n: number }>('select count(*)::int as n from ai_messages where conversation_id = ?', [conversationId]))[0].n;

describe.each(ENGINES)('Idempotency-Key (%s)', (engine) => {
  const B = base(ENGINES.indexOf(engine));
  const K = (name: string) => `${engine}-${name}`;
  let t: TestApp;
  const post = (path: string, body: unknown, key: string | undefined, auth: { key?: string; token?: string } = { key: KEYS.server }) =>
    t.api({ method: 'POST', path, body, ...auth, headers: key === undefined ? {} : { 'idempotency-key': key } });

  beforeAll(async () => {
    t = await startApp(engine, db);
  });
  afterAll(() => t.close());

  it('50 concurrent identical POSTs with one key: one message, identical 200s, the rest 409', async () => {
    const body = { role: 'assistant', content: 'once', usage: { cost: 0.5, input_tokens: 7 } };
    const answers = await Promise.all(Array.from({ length: 50 }, () => post(`/ai/conversations/${B}/messages`, body, K('fifty'))));
    const ok = answers.filter((a) => a.statusCode === 200);
    const busy = answers.filter((a) => a.statusCode === 409);
    expect(ok.length + busy.length).toBe(50);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    expect(ok.filter((a) => a.headers['idempotent-replayed'] !== 'true')).toHaveLength(1);
    expect(new Set(ok.map((a) => a.body)).size).toBe(1);
    for (const b of busy) {
      expect(b.json().code).toBe('ERROR_IDEMPOTENCY_IN_PROGRESS');
      expect(b.headers['retry-after']).toBe('1');
      expect(b.json().result).toHaveLength(1);
    }
    expect(await count(B)).toBe(1);

    // afterwards every retry is the kept answer, and the usage was added once
    const again = await post(
      `/ai/conversations/${B}/messages`,
      { usage: { input_tokens: 7, cost: 0.5 }, content: 'once', role: 'assistant' },
      K('fifty'),
    );
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(ok[0].body);
    expect(await count(B)).toBe(1);
    const [row] = await db.sql<{ usage: unknown }>('select usage from ai_conversations where id = ?', [B]);
    expect(row.usage).toEqual({ cost: 0.5, input_tokens: 7 });
  });

  it('the same key with another body, path or method is 400 ERROR_IDEMPOTENCY_KEY_REUSED', async () => {
    const first = await post(`/ai/conversations/${B + 1}/messages`, { role: 'user', content: 'a' }, K('reuse'));
    expect(first.statusCode).toBe(200);
    for (const [path, body] of [
      [`/ai/conversations/${B + 1}/messages`, { role: 'user', content: 'b' }],
      [`/ai/conversations/${B + 1}/messages`, { role: 'user', content: 'a', public: true }],
      [`/ai/conversations/${B}/messages`, { role: 'user', content: 'a' }],
      [`/ai/conversations/${B + 1}/close`, { status_reason: 'completed' }],
    ] as const) {
      const res = await post(path, body, K('reuse'));
      expect([res.statusCode, res.json().code], path).toEqual([400, 'ERROR_IDEMPOTENCY_KEY_REUSED']);
    }
    // another language is the same request
    const es = await t.api({
      method: 'POST',
      lang: 'es',
      path: `/ai/conversations/${B + 1}/messages`,
      body: { role: 'user', content: 'a' },
      key: KEYS.server,
      headers: { 'idempotency-key': K('reuse') },
    });
    expect(es.headers['idempotent-replayed']).toBe('true');
    expect(await db.sql('select status from ai_conversations where id = ?', [B + 1])).toEqual([{ status: 'active' }]);
  });

  it("keeps the operation's own 400s, not refusals before it", async () => {
    const closed = await post(`/ai/conversations/${B + 2}/messages`, { role: 'user', content: 'x' }, K('closed'));
    expect(closed.json().code).toBe('ERROR_AI_CONVERSATION_CLOSED');
    const replay = await post(`/ai/conversations/${B + 2}/messages`, { role: 'user', content: 'x' }, K('closed'));
    expect([replay.statusCode, replay.headers['idempotent-replayed'], replay.body]).toEqual([400, 'true', closed.body]);

    // input validation and authentication refusals are not kept: the key is still free
    const invalid = await post(`/ai/conversations/${B + 1}/messages`, { role: 'robot', content: 'x' }, K('late'));
    expect(invalid.json().code).toBe('ERROR_VALIDATION');
    const unauthorized = await post(`/ai/conversations/${B + 1}/messages`, { role: 'user', content: 'x' }, K('late'), {
      key: 'nope-0123456789',
    });
    expect(unauthorized.statusCode).toBe(401);
    const ran = await post(`/ai/conversations/${B + 1}/messages`, { role: 'user', content: 'late' }, K('late'));
    expect([ran.statusCode, ran.headers['idempotent-replayed']]).toEqual([200, undefined]);
  });

  it('scopes keys to the caller: a user is one caller by session or key; another caller runs its own', async () => {
    const body = { role: 'user', content: 'scoped' };
    const before = await count(B + 1);
    const byKey = await post(`/ai/conversations/${B + 1}/messages`, body, K('scope'), { key: KEYS.admin });
    const login = await t.api({ method: 'POST', path: '/auth', body: { email: 'admin@acme.test', password: PASSWORD } });
    const token = login.json().result.session.access_token;
    const bySession = await post(`/ai/conversations/${B + 1}/messages`, body, K('scope'), { token });
    expect([bySession.headers['idempotent-replayed'], bySession.body]).toEqual(['true', byKey.body]);
    const byServer = await post(`/ai/conversations/${B + 1}/messages`, body, K('scope'), { key: KEYS.server });
    expect([byServer.statusCode, byServer.headers['idempotent-replayed']]).toEqual([200, undefined]);
    expect(await count(B + 1)).toBe(before + 2);
  });

  it('refuses malformed keys with 400 naming Idempotency-Key; no key means no idempotency', async () => {
    for (const key of ['', 'with space', 'x'.repeat(256), 'ñandú']) {
      const res = await post(`/ai/conversations/${B + 1}/messages`, { role: 'user', content: 'x' }, key);
      expect([res.statusCode, res.json().code], JSON.stringify(key)).toEqual([400, 'ERROR_VALIDATION']);
      expect(res.json().result[0]).toContain('Idempotency-Key');
    }
    expect(
      (await post(`/ai/conversations/${B + 1}/messages`, { role: 'user', content: 'x' }, K('x'.repeat(255)).slice(0, 255))).statusCode,
    ).toBe(200);
    const before = await count(B + 1);
    await post(`/ai/conversations/${B + 1}/messages`, { role: 'user', content: 'twice' }, undefined);
    await post(`/ai/conversations/${B + 1}/messages`, { role: 'user', content: 'twice' }, undefined);
    expect(await count(B + 1)).toBe(before + 2);
  });

  it('an expired key runs again; a running key whose lease ended (a dead process) is taken over', async () => {
    const body = { role: 'user', content: 'exp' };
    await post(`/ai/conversations/${B + 1}/messages`, body, K('exp'));
    await db.sql("update idempotency_keys set expires_at = now() - interval '1 second' where key = ?", [K('exp')]);
    const other = await post(`/ai/conversations/${B + 1}/messages`, { role: 'user', content: 'another body' }, K('exp'));
    expect([other.statusCode, other.headers['idempotent-replayed']]).toEqual([200, undefined]);

    await db.sql("update idempotency_keys set status = null, response = null, lease_until = now() + interval '1 minute' where key = ?", [
      K('exp'),
    ]);
    const busy = await post(`/ai/conversations/${B + 1}/messages`, { role: 'user', content: 'another body' }, K('exp'));
    expect(busy.statusCode).toBe(409);
    await db.sql("update idempotency_keys set lease_until = now() - interval '1 second' where key = ?", [K('exp')]);
    const taken = await post(`/ai/conversations/${B + 1}/messages`, { role: 'user', content: 'another body' }, K('exp'));
    expect([taken.statusCode, taken.headers['idempotent-replayed']]).toEqual([200, undefined]);
  });

  it('browsers may send the key and read the replay header (CORS)', async () => {
    const preflight = await t.app.inject({
      method: 'OPTIONS',
      url: `/v400/en/acme/ai/conversations/${B + 1}/messages`,
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'x-api-key, idempotency-key, content-type',
      },
    });
    expect(preflight.statusCode).toBe(204);
    expect(String(preflight.headers['access-control-allow-headers']).toLowerCase()).toContain('idempotency-key');
    const replay = await t.api({
      method: 'POST',
      path: `/ai/conversations/${B + 1}/messages`,
      key: KEYS.server,
      body: { role: 'user', content: 'a' },
      headers: { 'idempotency-key': K('reuse'), origin: 'https://app.example' },
    });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(String(replay.headers['access-control-expose-headers']).toLowerCase()).toContain('idempotent-replayed');
  });

  it('covers every AI POST route (current messages and close too)', async () => {
    const cur = (key: string) => post('/ai/agents/idem/conversations/current/messages', { content: 'hi' }, key, { key: KEYS.customer });
    const a = await cur(K('cur'));
    const b = await cur(K('cur'));
    expect([b.headers['idempotent-replayed'], b.body]).toEqual(['true', a.body]);
    const close = (key: string) => post(`/ai/conversations/${a.json().result.conversation_id}/close`, { status_reason: 'completed' }, key);
    const c1 = await close(K('close'));
    const c2 = await close(K('close'));
    expect([c1.statusCode, c2.statusCode, c2.headers['idempotent-replayed'], c2.body]).toEqual([200, 200, 'true', c1.body]);
  });
});

describe('cleanup of expired keys', () => {
  it('deletes expired keys in batches through the expiry index and keeps the rest', async () => {
    await db.sql(
      `insert into idempotency_keys (project_id, caller, key, method, path, body, token, status, response, lease_until, expires_at)
       select 1, 'k:cleanup', 'old-' || g, 'POST', '/x', null::jsonb, gen_random_uuid(), 200, '{}', now(), now() - interval '1 hour' from generate_series(1, 7) g
       union all
       select 1, 'k:cleanup', 'new-' || g, 'POST', '/x', null::jsonb, gen_random_uuid(), 200, '{}', now(), now() + interval '1 hour' from generate_series(1, 3) g`,
    );
    const store = new IdempotencyStore(db.orm);
    expect(await store.deleteExpired(3, 2)).toBe(6); // two batches of 3 at most per call
    expect(await store.deleteExpired(3, 2)).toBe(1);
    expect(await db.sql("select count(*)::int as n from idempotency_keys where caller = 'k:cleanup'")).toEqual([{ n: 3 }]);
    // the batch query can use the expiry index (the planner picks it once scans are priced out)
    const plan = await db.orm.em.transactional(async (tx) => {
      const c = tx.getConnection();
      await c.execute('set local enable_seqscan = off', [], 'run', tx.getTransactionContext());
      return c.execute<{ 'QUERY PLAN': string }[]>(
        'explain select ctid from idempotency_keys where expires_at < now() order by expires_at limit 500',
        [],
        'all',
        tx.getTransactionContext(),
      );
    });
    expect(plan.map((r) => r['QUERY PLAN']).join('\n')).toContain('idempotency_keys_expires_idx');
  });
});

describe('replay by a restarted serve process', () => {
  let server: ServeProcess | undefined;
  afterAll(() => stopServe(server ? [server] : []));

  it('keeps the answer in PostgreSQL across a restart', async () => {
    await ensureEmitted('idempotency.test');
    const env = { DATABASE_DIRECT_URL: db.directUrl, CREDENTIALS_KEY: 'test-credentials-key' };
    const send = (s: ServeProcess) =>
      fetch(`${s.base}/v400/en/acme/ai/conversations/90/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': KEYS.server, 'idempotency-key': 'restart-key' },
        body: JSON.stringify({ role: 'assistant', content: 'survives', usage: { output_tokens: 4 } }),
      });
    server = await startServe(db.url, env);
    const first = await send(server);
    const firstBody = await first.text();
    expect(first.status).toBe(200);
    await stopServe([server]);
    server = await startServe(db.url, env);
    const replay = await send(server);
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await replay.text()).toBe(firstBody);
    expect(await count(90)).toBe(1);
  }, 180_000);
});
