import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';

/**
 * Finding 5 of issue 29 (CONTRACT §11): `POST /ai/webhooks` with an `Idempotency-Key` kept the whole
 * answer, the webhook's `secret` included, in clear in idempotency_keys for 24 h. The kept answer
 * is now sealed with the credential cipher, and the replay still returns the secret.
 */
let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(baseFixture());
});
afterAll(() => db.orm.close());

describe.each(ENGINES)('idempotent answers at rest (%s)', (engine) => {
  let t: TestApp;
  let origin: string;
  beforeAll(async () => {
    t = await startApp(engine, db);
    origin = await t.listen();
  });
  afterAll(() => t.close());

  const create = (key: string) =>
    fetch(`${origin}/v400/en/acme/ai/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': KEYS.server, 'idempotency-key': key },
      body: JSON.stringify({ url: `https://93.184.216.34/${engine}`, events: ['*'] }),
    });

  it('keeps no secret bytes in idempotency_keys, and the replay returns the same secret', async () => {
    const key = `hook-${engine}`;
    const first = await create(key);
    expect(first.status).toBe(200);
    const made = (await first.json()) as any;
    const secret: string = made.result.secret;
    expect(secret.length).toBeGreaterThanOrEqual(16);

    const [row] = await db.sql<{ response: string; text: string }>(
      'select response, row_to_json(k)::text as text from idempotency_keys k where key = ?',
      [key],
    );
    expect(row.response).toBeTruthy();
    expect(row.text).not.toContain(secret);
    expect(row.text).not.toContain(Buffer.from(secret).toString('base64').slice(0, 16));
    expect(row.response).not.toContain('"secret"');

    const replay = await create(key);
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await replay.json()).toEqual(made);
    expect(await db.sql('select id from ai_webhooks where url = ?', [`https://93.184.216.34/${engine}`])).toHaveLength(1);
  });
});
