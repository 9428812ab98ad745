import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '../../src/platform/secrets.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { ensureEmitted } from '../support/dist.js';
import { baseFixture, KEYS, PASSWORD, USERS } from '../support/fixtures.js';
import { startServe, stopServe, type ServeProcess } from '../support/serve-process.js';

/**
 * The freshness rule of the caches (identity 1 s, project 2 s): with two real `serve` processes on
 * one database that have both just answered (so both hold the old state), a revoked key, a deleted
 * or expired session, a disabled user, a changed config and a changed project are seen by both
 * processes no later than 2 s after the change is committed.
 */
const FRESH_MS = 2000;
const SERVER_KEY = 'fresh-server-key-0123456789';
const ENGINES = ['mercurius', 'apollo'] as const;

/** The base fixture's keys plus one to revoke, and one config entry to change. */
const fixture = () => {
  const f = baseFixture({ configs: [{ key: 'fresh_entry', value: 'old', public: true }] });
  f.projects[0].api_keys = [...(f.projects[0].api_keys ?? []), { key: SERVER_KEY, server: true }];
  return f;
};

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(fixture());
  await db.load({ projects: [{ code: 'demo', name: 'Demo' }] }); // keeps `serve` from seeding its demo project
  await ensureEmitted('freshness.test');
}, 300_000);
afterAll(() => db.orm.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(ENGINES)('two serve processes on one database (%s)', (engine) => {
  let servers: ServeProcess[] = [];
  beforeAll(async () => {
    servers = await Promise.all([startServe(db.url, { GRAPHQL_ENGINE: engine }), startServe(db.url, { GRAPHQL_ENGINE: engine })]);
  }, 120_000);
  afterAll(() => stopServe(servers), 30_000);

  const configs = (s: ServeProcess, auth: { key?: string; token?: string }) =>
    fetch(`${s.base}/v400/en/acme/configs`, {
      headers: { ...(auth.key ? { 'x-api-key': auth.key } : {}), ...(auth.token ? { authorization: `Bearer ${auth.token}` } : {}) },
    });

  async function login(email: string): Promise<string> {
    const res = await fetch(`${servers[0].base}/v400/en/acme/auth`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: PASSWORD }),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { result: { session: { access_token: string } } }).result.session.access_token;
  }

  /** Both processes answer `before` (and so hold it), the change commits, and 2 s later both answer `after`. */
  async function seenWithin2s(
    request: (s: ServeProcess) => Promise<Response>,
    before: number,
    change: () => Promise<unknown>,
    after: number,
  ) {
    for (const s of servers) for (let i = 0; i < 3; i++) expect((await request(s)).status).toBe(before);
    const committed = Date.now();
    await change();
    await sleep(Math.max(0, committed + FRESH_MS - Date.now()));
    for (const s of servers) expect((await request(s)).status, s.base).toBe(after);
  }

  it('a revoked API key', async () => {
    await seenWithin2s(
      (s) => configs(s, { key: SERVER_KEY }),
      200,
      () => db.sql('delete from api_keys where key_hash = ?', [sha256(SERVER_KEY)]),
      401,
    );
    await db.load(fixture());
  }, 30_000);

  it('a deleted session', async () => {
    const token = await login('admin@acme.test');
    await seenWithin2s(
      (s) => configs(s, { token }),
      200,
      () => db.sql('delete from sessions where token_hash = ?', [sha256(token)]),
      401,
    );
  }, 30_000);

  it('an expired session', async () => {
    const token = await login('admin@acme.test');
    await seenWithin2s(
      (s) => configs(s, { token }),
      200,
      () => db.sql("update sessions set expires_at = now() - interval '1 millisecond' where token_hash = ?", [sha256(token)]),
      401,
    );
  }, 30_000);

  it('a disabled user, by session and by user-bound key', async () => {
    const token = await login('customer@acme.test');
    try {
      for (const s of servers) expect((await configs(s, { key: KEYS.customer })).status).toBe(200);
      await seenWithin2s(
        (s) => configs(s, { token }),
        200,
        () => db.sql('update users set enabled = false where id = ?', [USERS.customer]),
        401,
      );
      for (const s of servers) expect((await configs(s, { key: KEYS.customer })).status).toBe(401);
    } finally {
      await db.sql('update users set enabled = true where id = ?', [USERS.customer]);
    }
  }, 30_000);

  it('a changed config', async () => {
    const value = async (s: ServeProcess) => {
      const body = (await (await configs(s, { key: KEYS.server })).json()) as { result: { key: string; value: string }[] };
      return body.result.find((e) => e.key === 'fresh_entry')?.value;
    };
    for (const s of servers) expect(await value(s)).toBe('old');
    const committed = Date.now();
    await db.sql("update configs set value = 'new' where key = 'fresh_entry'");
    await sleep(Math.max(0, committed + FRESH_MS - Date.now()));
    for (const s of servers) expect(await value(s)).toBe('new');
    await db.sql("update configs set value = 'old' where key = 'fresh_entry'");
  }, 30_000);

  /** `/graphql` has no project in its path: the credential names it; the same rule holds. */
  const graphql = (s: ServeProcess, auth: { key?: string; token?: string }) =>
    fetch(`${s.base}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(auth.key ? { 'x-api-key': auth.key } : {}),
        ...(auth.token ? { authorization: `Bearer ${auth.token}` } : {}),
      },
      body: JSON.stringify({ query: '{ project { code } }' }),
    });

  it('through /graphql: a revoked API key, a deleted session, a disabled user and an inactive subscription', async () => {
    await seenWithin2s(
      (s) => graphql(s, { key: SERVER_KEY }),
      200,
      () => db.sql('delete from api_keys where key_hash = ?', [sha256(SERVER_KEY)]),
      401,
    );
    await db.load(fixture());
    const token = await login('admin@acme.test');
    await seenWithin2s(
      (s) => graphql(s, { token }),
      200,
      () => db.sql('delete from sessions where token_hash = ?', [sha256(token)]),
      401,
    );
    const second = await login('admin@acme.test');
    try {
      await seenWithin2s(
        (s) => graphql(s, { token: second }),
        200,
        () => db.sql('update users set enabled = false where id = ?', [USERS.admin]),
        401,
      );
    } finally {
      await db.sql('update users set enabled = true where id = ?', [USERS.admin]);
    }
    try {
      await seenWithin2s(
        (s) => graphql(s, { key: KEYS.server }),
        200,
        () => db.sql("update projects set subscription_active = false where code = 'acme'"),
        401,
      );
    } finally {
      await db.sql("update projects set subscription_active = true where code = 'acme'");
    }
    await sleep(FRESH_MS);
  }, 40_000);

  it('a changed project (maintenance on, then off)', async () => {
    const request = (s: ServeProcess) => configs(s, { key: KEYS.server });
    await seenWithin2s(request, 200, () => db.sql("update projects set maintenance = true where code = 'acme'"), 503);
    await seenWithin2s(request, 503, () => db.sql("update projects set maintenance = false where code = 'acme'"), 200);
  }, 30_000);
});
