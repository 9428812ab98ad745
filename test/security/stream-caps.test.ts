import { createClient, type Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';
import { openSse, type SseClient } from '../support/sse.js';
import { agent, customerKey, customers } from '../events/support.js';

/**
 * CONTRACT §11, "streams are bounded" (issue 29, finding 7), in one process under both engines:
 * 20 open streams per credential, SSE and subscriptions together; the 21st is a 429
 * ERROR_RATE_LIMIT with Retry-After (a subscription: an error whose extensions.code says so);
 * another credential is not affected; a stream closed by its client frees its slot within 1 s.
 * Across processes, and the per-project cap: stream-caps-processes.test.ts.
 */
const CAP = 20;
const CUSTOMER = customers(1000, 1);
const QUERY = 'subscription Live { aiEvents { id type } }';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  const base = baseFixture().projects[0];
  await db.load(
    baseFixture({
      agents: ENGINES.map((e, i) => agent(10 + i, `cap-${e}`, 1)),
      users: [...base.users!, ...CUSTOMER.users!],
      api_keys: [...base.api_keys!, ...CUSTOMER.api_keys!],
    }),
  );
});
afterAll(() => db.orm.close());

describe.each(ENGINES)('stream caps per credential (%s)', (engine) => {
  let t: TestApp;
  let base: string;
  const streams: SseClient[] = [];
  const clients: Client[] = [];

  beforeAll(async () => {
    t = await startApp(engine, db, { config: { streams: { perCredential: CAP, perProject: 2000, revalidateMs: 30_000 } } });
    base = await t.listen();
  });
  afterAll(async () => {
    for (const s of streams) s.close();
    for (const c of clients) await c.dispose();
    await t.close();
  });

  const sse = async (path: string, key: string) => {
    const s = await openSse(`${base}/v400/en/acme${path}`, { 'x-api-key': key });
    streams.push(s);
    return s;
  };

  /** A subscription on /graphql with `key`: resolves with the first answer (an event, an error, or the end). */
  function subscribe(key: string): Promise<{ errors: any[]; stop: () => void }> {
    const c = createClient({
      url: `${base.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { 'X-Api-Key': key },
      retryAttempts: 0,
      lazy: true,
    });
    clients.push(c);
    return new Promise((resolve) => {
      const stop = c.subscribe(
        { query: QUERY },
        {
          next: (v: any) => resolve({ errors: v.errors ?? [], stop }),
          error: (e: any) => resolve({ errors: Array.isArray(e) ? e : [e], stop }),
          complete: () => resolve({ errors: [], stop }),
        },
      );
      // an admitted subscription answers nothing until an event: after a moment it counts as open
      setTimeout(() => resolve({ errors: [], stop }), 1500);
    });
  }

  const expectRefused = async (s: SseClient) => {
    expect(s.status).toBe(429);
    expect(Number(s.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    const body = JSON.parse(s.body());
    expect(body).toMatchObject({ error: true, code: 'ERROR_RATE_LIMIT' });
    expect(body.result[0]).toMatch(/Try again in \d+ seconds/);
  };

  it(`one key holds ${CAP} streams (SSE and subscriptions together); the next is a 429 with Retry-After, others are not affected`, async () => {
    const held: SseClient[] = [];
    for (let i = 0; i < CAP - 1; i++) held.push(await sse('/ai/events', KEYS.admin));
    expect(held.map((s) => s.status)).toEqual(Array(CAP - 1).fill(200));
    const sub = await subscribe(KEYS.admin); // the 20th: a subscription
    expect(sub.errors).toEqual([]);

    await expectRefused(await sse('/ai/events', KEYS.admin));
    const refusedSub = await subscribe(KEYS.admin);
    expect(refusedSub.errors.map((e) => e.extensions?.code)).toContain('ERROR_RATE_LIMIT');

    // the cap is the credential's: another key of the project opens its streams
    expect((await sse('/ai/events', KEYS.server)).status).toBe(200);

    // a stream its client closes frees its slot within 1 s
    held.pop()!.close();
    const closedAt = Date.now();
    let again = await sse('/ai/events', KEYS.admin);
    while (again.status !== 200 && Date.now() - closedAt < 1000) {
      await new Promise((r) => setTimeout(r, 100));
      again = await sse('/ai/events', KEYS.admin);
    }
    expect(again.status).toBe(200);
    expect(Date.now() - closedAt).toBeLessThan(1000);
    await expectRefused(await sse('/ai/events', KEYS.admin));

    // and so does a subscription that ends
    sub.stop();
    await new Promise((r) => setTimeout(r, 1000));
    expect((await sse('/ai/events', KEYS.admin)).status).toBe(200);
    for (const s of held) s.close();
  }, 30_000);

  it(`a customer's key holds ${CAP} current-conversation streams, not more`, async () => {
    const key = customerKey(1000);
    const opened = await fetch(`${base}/v400/en/acme/ai/agents/cap-${engine}/conversations/current`, { headers: { 'x-api-key': key } });
    expect(opened.status).toBe(200);
    const path = `/ai/agents/cap-${engine}/conversations/current/events`;
    const held: SseClient[] = [];
    for (let i = 0; i < CAP; i++) held.push(await sse(path, key));
    expect(held.map((s) => s.status)).toEqual(Array(CAP).fill(200));
    await expectRefused(await sse(path, key));
    for (const s of held) s.close();
  }, 30_000);
});
