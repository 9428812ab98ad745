import { createClient, type Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS, PASSWORD } from '../support/fixtures.js';
import { openSse, type SseClient } from '../support/sse.js';
import { agent } from '../events/support.js';

/**
 * CONTRACT §11's last rule and issue 44 (items 1 and 4), under both engines over real sockets: a
 * process that holds its most open streams (STREAMS_MAX_OPEN, 3 here: two SSE streams and a
 * subscription; heap and event-loop thresholds off so the test does not depend on the machine's
 * load) refuses the next stream only (SSE: 503 ERROR_SERVICE_UNAVAILABLE with Retry-After; a
 * subscription: an error message with that code) while a write, a read and POST /auth still answer
 * 200 and the held streams go on; /health/ready stays 200 (a load balancer keeps sending requests)
 * and says the stream bound is reached; a stream that closes makes room. Heap pressure still sheds
 * requests (the second test).
 */
const MAX_OPEN = 3;

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(baseFixture({ agents: ENGINES.map((e, i) => agent(10 + i, `shed-${e}`, 1)) }));
});
afterAll(() => db.orm.close());

describe.each(ENGINES)('load shedding (%s)', (engine) => {
  let t: TestApp;
  let base: string;
  const streams: SseClient[] = [];
  const clients: Client[] = [];

  beforeAll(async () => {
    t = await startApp(engine, db, {
      config: { pressure: { maxOpenStreams: MAX_OPEN, maxHeapRatio: 0, maxEventLoopDelayMs: 0, sampleMs: 100 } },
    });
    base = await t.listen();
  });
  afterAll(async () => {
    for (const s of streams) s.close();
    for (const c of clients) await c.dispose();
    await t.close();
  });

  const sse = async () => {
    const s = await openSse(`${base}/v400/en/acme/ai/events`, { 'x-api-key': KEYS.server });
    streams.push(s);
    return s;
  };
  const request = (path: string, init: RequestInit = {}) =>
    fetch(`${base}${path}`, { ...init, headers: { 'content-type': 'application/json', ...(init.headers as object) } });
  const ready = async () => {
    const res = await fetch(`${base}/health/ready`);
    return { status: res.status, body: (await res.json()) as any };
  };

  /** A subscription with the server key: its errors, or none once it has been open a moment. */
  function subscribe(): Promise<any[]> {
    const c = createClient({
      url: `${base.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { 'X-Api-Key': KEYS.server },
      retryAttempts: 0,
      lazy: true,
    });
    clients.push(c);
    return new Promise((resolve) => {
      c.subscribe(
        { query: 'subscription { aiEvents { id } }' },
        {
          next: (v: any) => resolve(v.errors ?? []),
          error: (e: any) => resolve(Array.isArray(e) ? e : [e]),
          complete: () => resolve([]),
        },
      );
      setTimeout(() => resolve([]), 1500);
    });
  }

  it('at the stream bound refuses new streams only: a write, a read and POST /auth answer 200, held streams go on, ready stays 200', async () => {
    expect((await ready()).body).toMatchObject({ status: 'ok', streams: { open: 0, max: MAX_OPEN, full: false } });
    const held = [await sse(), await sse()];
    expect(held.map((s) => s.status)).toEqual([200, 200]);
    expect(await subscribe()).toEqual([]);
    expect(t.services.events.openStreams).toBe(MAX_OPEN);
    expect(t.app.isUnderPressure()).toBe(false);

    // one more stream is refused, SSE and subscription alike
    const excess = await sse();
    expect(excess.status).toBe(503);
    expect(Number(excess.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(excess.body())).toMatchObject({ error: true, code: 'ERROR_SERVICE_UNAVAILABLE' });
    expect((await subscribe()).map((e) => e.extensions?.code)).toEqual(['ERROR_SERVICE_UNAVAILABLE']);

    // requests are answered: a write, a read, a login
    const write = await request(`/v400/en/acme/ai/agents/shed-${engine}/conversations/current/messages`, {
      method: 'POST',
      headers: { 'x-api-key': KEYS.customer },
      body: JSON.stringify({ content: 'still open?' }),
    });
    expect(write.status).toBe(200);
    const message = ((await write.json()) as any).result;
    const read = await request(`/v400/en/acme/ai/agents/shed-${engine}/conversations/current/messages`, {
      headers: { 'x-api-key': KEYS.customer },
    });
    expect(read.status).toBe(200);
    expect(((await read.json()) as any).result.map((m: { id: number }) => m.id)).toContain(message.id);
    const login = await request('/v400/en/acme/auth', {
      method: 'POST',
      body: JSON.stringify({ email: 'admin@acme.test', password: PASSWORD }),
    });
    expect(login.status).toBe(200);
    expect((await request('/v400/en/acme/configs', { headers: { 'x-api-key': KEYS.server } })).status).toBe(200);

    // ready for requests, the stream bound told apart; alive
    expect(await ready()).toEqual({ status: 200, body: { status: 'ok', streams: { open: MAX_OPEN, max: MAX_OPEN, full: true } } });
    expect((await fetch(`${base}/health/live`)).status).toBe(200);

    // the held streams go on: the write's event reaches them
    for (const s of held)
      await s.until((x) => x.events.some((e) => e.event === 'message.created' && JSON.parse(e.data).data.id === message.id), 5000);
    expect(held.every((s) => !s.ended)).toBe(true);

    // one closes: room for a stream again
    held[0].close();
    const closedAt = Date.now();
    let again = await sse();
    while (again.status !== 200 && Date.now() - closedAt < 2000) {
      await new Promise((r) => setTimeout(r, 50));
      again = await sse();
    }
    expect(again.status).toBe(200);
  }, 30_000);

  it('sheds requests on the live heap past its threshold (a threshold below any heap here)', async () => {
    const small = await startApp(engine, db, {
      config: { pressure: { maxOpenStreams: 10_000, maxHeapRatio: 0.0001, maxEventLoopDelayMs: 0, sampleMs: 50 } },
    });
    try {
      const origin = await small.listen();
      await new Promise((r) => setTimeout(r, 200));
      expect(small.app.isUnderPressure()).toBe(true);
      const res = await fetch(`${origin}/v400/en/acme/configs`, { headers: { 'x-api-key': KEYS.server } });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
      expect((await fetch(`${origin}/health/ready`)).status).toBe(503);
      expect((await fetch(`${origin}/health/live`)).status).toBe(200);
    } finally {
      await small.close();
    }
  });
});
