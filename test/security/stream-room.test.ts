import { randomUUID } from 'node:crypto';
import { createClient, type Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';
import { openSse, type SseClient } from '../support/sse.js';
import { agent } from '../events/support.js';

/**
 * CONTRACT §11, "room kept for the people who run the project" (issue 39, finding 2), under both
 * engines over real sockets: anonymous guests (sessions of POST /auth with a fresh guest_token) fill
 * their share of the project's stream budget (3/4 of STREAMS_PER_PROJECT, 6 of 8 here) and the next
 * guest stream is a 429 ERROR_RATE_LIMIT with Retry-After, while an administrator's SSE stream and a
 * server key's subscription still open; the whole budget still bounds everyone. The guests' streams
 * are spread over two apps on one database (two stream registries, as two processes), so the share
 * is counted across processes like the budget.
 */
const BUDGET = 8;
const SHARE = 6;

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(baseFixture({ agents: ENGINES.map((e, i) => agent(10 + i, `room-${e}`, 1)) }));
});
afterAll(() => db.orm.close());

describe.each(ENGINES)('room kept for the project (%s)', (engine) => {
  let t: TestApp;
  let other: TestApp;
  let base: string;
  let otherBase: string;
  const streams: SseClient[] = [];
  const clients: Client[] = [];

  beforeAll(async () => {
    const config = { streams: { perCredential: 20, perProject: BUDGET, revalidateMs: 30_000 } };
    t = await startApp(engine, db, { config });
    other = await startApp(engine, db, { config });
    base = await t.listen();
    otherBase = await other.listen();
  });
  afterAll(async () => {
    for (const s of streams) s.close();
    for (const c of clients) await c.dispose();
    await t.close();
    await other.close();
  });

  const sse = async (path: string, headers: Record<string, string>, origin = base) => {
    const s = await openSse(`${origin}/v400/en/acme${path}`, headers);
    streams.push(s);
    return s;
  };

  /** A guest session, anonymously, with its current conversation opened. */
  async function guest(): Promise<Record<string, string>> {
    const res = await fetch(`${base}/v400/en/acme/auth`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ guest_token: randomUUID() }),
    });
    expect(res.status).toBe(200);
    const headers = { authorization: `Bearer ${((await res.json()) as any).result.session.access_token}` };
    const current = await fetch(`${base}/v400/en/acme/ai/agents/room-${engine}/conversations/current`, { headers });
    expect(current.status).toBe(200);
    return headers;
  }

  /** A subscription with the server key: resolves with its errors (none once it is open a moment). */
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

  const expectRefused = (s: SseClient, scope: string) => {
    expect(s.status).toBe(429);
    expect(Number(s.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(s.headers['x-ratelimit-scope']).toBe(scope);
    expect(JSON.parse(s.body())).toMatchObject({ error: true, code: 'ERROR_RATE_LIMIT' });
  };

  it(`guests hold ${SHARE} of ${BUDGET} streams; past that they get 429 while an administrator and a server key still open theirs`, async () => {
    const path = `/ai/agents/room-${engine}/conversations/current/events`;
    const guests = [await guest(), await guest(), await guest()];
    const held: SseClient[] = [];
    for (let i = 0; i < SHARE; i++) held.push(await sse(path, guests[i % 2], i % 2 ? otherBase : base));
    expect(held.map((s) => s.status)).toEqual(Array(SHARE).fill(200));

    // another guest, with streams of its own to spare, finds the share full (on either process)
    expectRefused(await sse(path, guests[2], otherBase), 'stream-project-share');
    const refused = await sse(path, guests[2]);
    expectRefused(refused, 'stream-project-share');
    expect(Number(refused.headers['x-ratelimit-limit'])).toBe(SHARE);

    // the people who run the project find room: an administrator's SSE stream, a server key's subscription
    expect((await sse('/ai/events', { 'x-api-key': KEYS.admin })).status).toBe(200);
    expect(await subscribe()).toEqual([]);

    // the budget is whole now: it bounds them too
    expectRefused(await sse('/ai/events', { 'x-api-key': KEYS.owner }), 'stream-project');
    const again = await subscribe();
    expect(again.map((e) => e.extensions?.code)).toContain('ERROR_RATE_LIMIT');

    // a guest stream that closes frees a slot of the share for another guest
    held.pop()!.close();
    const closedAt = Date.now();
    let next = await sse(path, guests[2]);
    while (next.status !== 200 && Date.now() - closedAt < 2000) {
      await new Promise((r) => setTimeout(r, 100));
      next = await sse(path, guests[2]);
    }
    expect(next.status).toBe(200);
  }, 30_000);
});
