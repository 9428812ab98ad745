import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';
import { openSse, type SseClient } from '../support/sse.js';
import { emit } from '../events/support.js';

/**
 * CONTRACT §11's last rule (issue 29, finding 8), under both engines over real sockets: a process
 * that holds its most open streams (STREAMS_MAX_OPEN, 3 here; heap and event-loop thresholds off so
 * the test does not depend on the machine's load) refuses the next stream and new requests with
 * 503 ERROR_SERVICE_UNAVAILABLE and Retry-After, while the streams it holds go on receiving events;
 * /health/ready answers 503 and /health/live 200 meanwhile; it recovers once streams close.
 */
const MAX_OPEN = 3;

let db: TestDatabase;
let acmeId: number;
beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(baseFixture());
  acmeId = (await db.sql<{ id: number }>("select id from projects where code = 'acme'"))[0].id;
});
afterAll(() => db.orm.close());

describe.each(ENGINES)('load shedding (%s)', (engine) => {
  let t: TestApp;
  let base: string;
  const streams: SseClient[] = [];

  beforeAll(async () => {
    t = await startApp(engine, db, {
      config: { pressure: { maxOpenStreams: MAX_OPEN, maxHeapRatio: 0, maxEventLoopDelayMs: 0, sampleMs: 100 } },
    });
    base = await t.listen();
  });
  afterAll(async () => {
    for (const s of streams) s.close();
    await t.close();
  });

  const sse = async () => {
    const s = await openSse(`${base}/v400/en/acme/ai/events`, { 'x-api-key': KEYS.server });
    streams.push(s);
    return s;
  };
  const status = async (path: string) => (await fetch(`${base}${path}`, { headers: { 'x-api-key': KEYS.server } })).status;

  it('refuses the stream past the bound and new requests with 503, keeps the held streams, and recovers', async () => {
    expect(await status('/health/ready')).toBe(200);
    expect(t.app.isUnderPressure()).toBe(false);
    const held = [await sse(), await sse(), await sse()];
    expect(held.map((s) => s.status)).toEqual([200, 200, 200]);
    expect(t.app.isUnderPressure()).toBe(true);

    const excess = await sse();
    expect(excess.status).toBe(503);
    expect(Number(excess.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(excess.body())).toMatchObject({ error: true, code: 'ERROR_SERVICE_UNAVAILABLE' });
    const configs = await fetch(`${base}/v400/en/acme/configs`, { headers: { 'x-api-key': KEYS.server } });
    expect(configs.status).toBe(503);
    expect(configs.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await configs.json()).toMatchObject({ error: true, code: 'ERROR_SERVICE_UNAVAILABLE' });
    expect(await status('/health/ready')).toBe(503);
    expect(await status('/health/live')).toBe(200);

    // the held streams go on
    const id = await emit(db.orm, t.services, acmeId, [{ type: 'message.created', agent_id: null, business_id: null, data: { id: 1 } }]);
    for (const s of held) await s.until((x) => x.events.some((e) => e.id === String(id)), 5000);
    expect(held.every((s) => !s.ended)).toBe(true);

    // one closes: room again
    held[0].close();
    const closedAt = Date.now();
    while ((await status('/health/ready')) !== 200) {
      expect(Date.now() - closedAt).toBeLessThan(2000);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect((await fetch(`${base}/v400/en/acme/configs`, { headers: { 'x-api-key': KEYS.server } })).status).toBe(200);
    expect((await sse()).status).toBe(200);
    expect(await status('/health/ready')).toBe(503);
  }, 30_000);

  it('sheds load on heap used past its threshold (a threshold below any heap here) as well', async () => {
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
