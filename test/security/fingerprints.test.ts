import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/rest/idempotency.js';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';

/**
 * Finding 8 of issue 39 (CONTRACT §11, "fingerprints that reveal nothing"): `POST /ai/agents` with
 * an `Idempotency-Key` kept `sha256(verify_token)` in clear for 24 h (`idempotency_keys.body`), which
 * a short token gives away in seconds. What is kept to recognise a retry (§9.2) is now an HMAC under
 * a key derived from CREDENTIALS_KEY of the body's canonical JSON: no value, no plain hash of one;
 * the replay (also from another process with the same key) and the reuse refusal still work.
 */
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(baseFixture());
});
afterAll(() => db.orm.close());

describe.each(ENGINES)('idempotency fingerprints (%s)', (engine) => {
  let t: TestApp;
  let second: TestApp;
  beforeAll(async () => {
    t = await startApp(engine, db);
    second = await startApp(engine, db); // another process, the same CREDENTIALS_KEY
  });
  afterAll(async () => {
    await t.close();
    await second.close();
  });

  const verifyToken = `vt-${engine}`; // short: the review's case
  const body = (token: string) => ({
    name: 'Hooked',
    provider: 'whatsapp',
    provider_type: 'chat',
    provider_external_id: `fp-${engine}`,
    credentials: { waba_id: 'waba1', phone_number_id: `pn-${engine}`, access_token: 'tok', app_secret: 'app', verify_token: token },
  });
  const create = (app: TestApp, key: string, payload: unknown) =>
    app.api({ method: 'POST', path: '/ai/agents', key: KEYS.server, body: payload, headers: { 'idempotency-key': key } });

  it('keeps neither the values nor their plain SHA-256; replays (from another process too) and refuses another body', async () => {
    const key = `fp-${engine}`;
    const first = await create(t, key, body(verifyToken));
    expect(first.statusCode, first.body).toBe(200);

    const [row] = await db.sql<{ text: string; body: unknown }>(
      'select row_to_json(k)::text as text, body from idempotency_keys k where key = ?',
      [key],
    );
    for (const value of [verifyToken, 'app', 'tok']) {
      expect(row.text).not.toContain(`"${value}"`);
      expect(row.text).not.toContain(sha256(value));
    }
    expect(row.text).not.toContain(sha256(canonicalJson(body(verifyToken))));
    expect(row.text).not.toContain(sha256(JSON.stringify(body(verifyToken))));
    expect(row.body).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);

    // the same body, members in another order: the same request
    const reverse = (o: object) => Object.fromEntries(Object.entries(o).reverse());
    const reordered = reverse({ ...body(verifyToken), credentials: reverse(body(verifyToken).credentials) });
    for (const app of [t, second]) {
      const replay = await create(app, key, reordered);
      expect(replay.statusCode).toBe(200);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.json().result.id).toBe(first.json().result.id);
    }
    const other = await create(second, key, body(`${verifyToken}-2`));
    expect(other.statusCode).toBe(400);
    expect(other.json().code).toBe('ERROR_IDEMPOTENCY_KEY_REUSED');
    expect(await db.sql('select id from ai_agents where provider_external_id = ?', [`fp-${engine}`])).toHaveLength(1);
  });
});
