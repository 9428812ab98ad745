import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';
import { openSse, type SseClient } from '../support/sse.js';
import { agent, emit, listen } from './support.js';

/**
 * The flush throttle (EVENTS_FLUSH_MS) over real sockets, under both engines, on an SSE stream
 * (rest/sse.ts) and a subscription's WebSocket (rest/graphql-ws.ts): the first event on an idle
 * stream goes out at once; events that follow it within the window wait and go out together when the
 * window ends: complete, in order, with their ids, in fewer writes than events; an SSE client that
 * resumes from the middle of such a batch gets the rest.
 */
const WINDOW_MS = 3_000;
const AGENTS = ENGINES.map((e, i) => agent(40 + i, `flush-${e}`, 1));

let db: TestDatabase;
let acmeId: number;
beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(baseFixture({ agents: AGENTS }));
  acmeId = (await db.sql<{ id: number }>("select id from projects where code = 'acme'"))[0].id;
});
afterAll(() => db.orm.close());

describe.each(ENGINES)('SSE flush throttle (%s)', (engine) => {
  let t: TestApp;
  let base: string;
  const streams: SseClient[] = [];
  const sockets: WebSocket[] = [];
  const agentId = AGENTS[ENGINES.indexOf(engine)].id;
  const message = (n: number) => ({
    type: 'message.created' as const,
    agent_id: agentId,
    business_id: 1,
    conversation_id: 900_000 + n,
    data: { id: n, content: `m${n}` },
  });
  const sse = async (headers: Record<string, string> = {}) => {
    const c = await openSse(`${base}/v400/en/acme/ai/events`, { 'x-api-key': KEYS.server, ...headers });
    streams.push(c);
    expect(c.status).toBe(200);
    return c;
  };

  beforeAll(async () => {
    t = await startApp(engine, db, { config: { eventsFlushMs: WINDOW_MS } });
    base = await listen(t.app);
  });
  afterAll(async () => {
    for (const s of streams) s.close();
    for (const s of sockets) s.terminate();
    await t.close();
  });

  it('a lone event goes out at once; a burst inside the window arrives complete, in order, with its ids, in fewer writes', async () => {
    const c = await sse();
    const lone = await emit(db.orm, t.services, acmeId, [message(0)]);
    // well inside the window: a lone event on an idle stream does not wait for it
    await c.until((s) => s.events.length === 1, WINDOW_MS - 1_000);
    expect(c.events.map((e) => Number(e.id))).toEqual([lone]);

    const readsBefore = c.reads;
    const burst: number[] = [];
    for (let n = 1; n <= 6; n++) burst.push(await emit(db.orm, t.services, acmeId, [message(n)]));
    await c.until((s) => s.events.length === 7, WINDOW_MS + 10_000);
    expect(c.events.map((e) => Number(e.id))).toEqual([lone, ...burst]);
    expect(c.events.map((e) => JSON.parse(e.data).data.id)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    for (const e of c.events) expect(JSON.parse(e.data).id).toBe(Number(e.id));
    // six commits, each its own dispatch: merged into fewer writes than events
    expect(c.reads - readsBefore).toBeLessThan(burst.length);

    // a client that saw only part of the batch resumes with the rest, once each
    const resumed = await sse({ 'last-event-id': String(burst[2]) });
    await resumed.until((s) => s.events.length === 3, WINDOW_MS + 10_000);
    expect(resumed.events.map((e) => Number(e.id))).toEqual(burst.slice(3));
  });

  it('a subscription socket: a lone event at once after an idle window; a burst inside the window complete, in order, in fewer TCP reads', async () => {
    const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
    sockets.push(ws);
    const got: { id: number; n: number }[] = [];
    let reads = 0;
    let acked = false;
    ws.on('message', (raw) => {
      const m = JSON.parse((raw as Buffer).toString());
      if (m.type === 'connection_ack') acked = true;
      else if (m.type === 'next') got.push({ id: m.payload.data.aiEvents.id, n: m.payload.data.aiEvents.data.id });
    });
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    // what arrives on the TCP socket: a write of the server arrives as one read or more
    (ws as unknown as { _socket: Socket })._socket.on('data', () => reads++);
    ws.send(JSON.stringify({ type: 'connection_init', payload: { 'X-Api-Key': KEYS.server } }));
    await waitFor(() => acked);
    ws.send(JSON.stringify({ id: 's', type: 'subscribe', payload: { query: 'subscription { aiEvents { id data } }' } }));
    await new Promise((r) => setTimeout(r, 500)); // the subscription is open
    const first = await emit(db.orm, t.services, acmeId, [message(10)]);
    await waitFor(() => got.length === 1, WINDOW_MS + 10_000);
    // idle past the window: the next lone event does not wait for one
    await new Promise((r) => setTimeout(r, WINDOW_MS + 200));
    const lone = await emit(db.orm, t.services, acmeId, [message(11)]);
    await waitFor(() => got.length === 2, WINDOW_MS - 1_000);

    const readsBefore = reads;
    const burst: number[] = [];
    for (let n = 12; n <= 17; n++) burst.push(await emit(db.orm, t.services, acmeId, [message(n)]));
    await waitFor(() => got.length === 8, WINDOW_MS + 10_000);
    expect(got.map((e) => e.id)).toEqual([first, lone, ...burst]);
    expect(got.map((e) => e.n)).toEqual([10, 11, 12, 13, 14, 15, 16, 17]);
    expect(reads - readsBefore).toBeLessThan(burst.length);
  });
});

async function waitFor(cond: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}
