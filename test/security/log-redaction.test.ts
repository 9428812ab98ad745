import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS, PASSWORD } from '../support/fixtures.js';
import { openSse } from '../support/sse.js';

/**
 * Finding 4 of issue 29 and its log-capture test (CONTRACT §11: no credential reaches a log in any
 * spelling of its parameter name, nor Meta's hub.verify_token). The server logs at debug level into
 * a buffer; requests carry every kind of credential over a real socket; then the captured output
 * is searched for each credential's value.
 */
const OPERATOR_TOKEN = 'operator-token-log-capture-7f3a9c1e5b';
const VERIFY_TOKEN = 'meta-verify-token-4b8e2d6a0c';
const AGENT_ACCESS_TOKEN = 'EAAG-agent-access-token-9d1f3b';
const WRONG_KEY = 'wrong-key-never-logged-5e7a1c3d';
const WRONG_PASSWORD = 'wrong-password-never-logged-2c4e';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(
    baseFixture({
      agents: [
        {
          id: 1,
          business_id: 1,
          name: 'WA',
          provider: 'whatsapp',
          provider_type: 'chat',
          provider_external_id: 'wa-log',
          enabled: true,
          credentials: {
            waba_id: 'waba-log',
            phone_number_id: 'pn-log',
            access_token: AGENT_ACCESS_TOKEN,
            app_secret: 'app-secret-log-1a2b3c',
            verify_token: VERIFY_TOKEN,
          },
        },
      ],
    }),
  );
});
afterAll(() => db.orm.close());

describe.each(ENGINES)('credentials never reach the log (%s)', (engine) => {
  let t: TestApp;
  let origin: string;
  const lines: string[] = [];
  beforeAll(async () => {
    t = await startApp(engine, db, {
      logStream: { write: (line) => void lines.push(line) },
      config: { logLevel: 'debug', operatorToken: OPERATOR_TOKEN },
    });
    origin = await t.listen();
  });
  afterAll(() => t.close());

  const at = (path: string) => `${origin}/v400/en/acme${path}`;
  const login = async (password = PASSWORD) => {
    const res = await fetch(at('/auth'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@acme.test', password }),
    });
    return { status: res.status, token: ((await res.json()) as any).result?.session?.access_token as string | undefined };
  };
  /** Opens an SSE stream and closes it at once; its status. */
  const stream = async (path: string) => {
    const c = await openSse(at(path));
    c.close();
    return c.status;
  };
  const logged = () => lines.join('');

  it("opens streams with encoded credential names (the review's api%5Fkey and %61pi_key) and logs none of their values", async () => {
    const { token } = await login();
    // the query parser decodes the names: these are credentials to the server, so they must be to the redaction too
    expect(await stream(`/ai/events?api%5Fkey=${KEYS.server}`)).toBe(200);
    expect(await stream(`/ai/events?%61pi_key=${KEYS.admin}`)).toBe(200);
    expect(await stream(`/ai/events?%61ccess%5Ftoken=${token}`)).toBe(200);
    // spellings the server does not take as credentials are still not logged
    expect(await stream(`/ai/events?API_KEY=${KEYS.owner}&api%255Fkey=${WRONG_KEY}`)).toBe(401);
    const verify = await fetch(at(`/ai/webhooks/whatsapp?hub.mode=subscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=1158201444`));
    expect(await verify.text()).toBe('1158201444');
    const encoded = await fetch(at(`/ai/webhooks/whatsapp?hub.mode=subscribe&hub%2Everify%5Ftoken=${VERIFY_TOKEN}&hub.challenge=42`));
    expect(await encoded.text()).toBe('42');

    await new Promise((r) => setTimeout(r, 200));
    const text = logged();
    expect(text).toContain('/ai/events?api%5Fkey=[Redacted]');
    expect(text).toContain('hub.verify_token=[Redacted]&hub.challenge=1158201444');
    for (const secret of [KEYS.server, KEYS.admin, KEYS.owner, token!, WRONG_KEY, VERIFY_TOKEN]) expect(text).not.toContain(secret);
  });

  it('logs no credential of any kind: headers, query strings, passwords, the operator token, a replayed webhook secret', async () => {
    const used: string[] = [
      KEYS.server,
      KEYS.admin,
      KEYS.customer,
      PASSWORD,
      WRONG_PASSWORD,
      WRONG_KEY,
      OPERATOR_TOKEN,
      VERIFY_TOKEN,
      AGENT_ACCESS_TOKEN,
    ];
    // passwords in POST /auth, right and wrong
    const { status, token } = await login();
    expect(status).toBe(200);
    used.push(token!);
    expect((await login(WRONG_PASSWORD)).status).toBe(401);
    // X-Api-Key, Bearer, a wrong key, and credentials on a path that does not exist (404, logged by the router)
    expect((await fetch(at('/configs'), { headers: { 'x-api-key': KEYS.customer } })).status).toBe(200);
    expect((await fetch(at('/configs'), { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    expect((await fetch(at('/configs'), { headers: { 'x-api-key': WRONG_KEY } })).status).toBe(401);
    expect((await fetch(at(`/nowhere?api_key=${KEYS.server}&access_token=${token}&Access%5FToken=${token}`))).status).toBe(404);
    expect((await fetch(`${origin}/v400/en/acme/%zz?api_key=${KEYS.admin}`)).status).toBeGreaterThanOrEqual(400);
    // ?api_key=, ?access_token= and their encoded spellings on the streams
    for (const q of [
      `api_key=${KEYS.server}`,
      `access_token=${token}`,
      `api%5Fkey=${KEYS.admin}`,
      `%61ccess_token=${token}`,
      `Api_Key=${WRONG_KEY}`,
    ])
      await stream(`/ai/events?${q}`);
    // Meta's verification, matched and not
    await fetch(at(`/ai/webhooks/whatsapp?hub.mode=subscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=7`));
    await fetch(at(`/ai/webhooks/whatsapp?hub.mode=subscribe&HUB.VERIFY_TOKEN=${VERIFY_TOKEN}&hub.challenge=8`));
    // the operator token on /graphql, right and in a tenant's operation
    const graphql = (query: string) =>
      fetch(`${origin}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${OPERATOR_TOKEN}` },
        body: JSON.stringify({ query }),
      });
    expect((await graphql('{ applicationMaintenance }')).status).toBe(200);
    expect((await graphql('{ project { code } }')).status).toBe(401);
    // a webhook's secret: created with an Idempotency-Key, then replayed
    const hook = () =>
      fetch(at('/ai/webhooks'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': KEYS.server, 'idempotency-key': `log-capture-${engine}` },
        body: JSON.stringify({ url: `https://93.184.216.34/log-${engine}`, events: ['*'] }),
      });
    const created = (await (await hook()).json()) as any;
    const replay = await hook();
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(((await replay.json()) as any).result.secret).toBe(created.result.secret);
    used.push(created.result.secret);

    await new Promise((r) => setTimeout(r, 200));
    const text = logged();
    expect(lines.length).toBeGreaterThan(40); // the requests above were logged: the search below searched something
    expect(text).toContain('"msg":"incoming request"');
    for (const secret of used) expect(text, `a credential in the log: ${secret.slice(0, 6)}…`).not.toContain(secret);
  });
});
