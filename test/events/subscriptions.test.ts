import { createClient, type Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';
import { agent, emit, listen } from './support.js';

/**
 * The subscription `aiEvents` over the graphql-ws protocol on /graphql, under both engines
 * (one graphql-ws server on the HTTP server, rest/graphql-ws.ts): the credential in
 * connection_init or the upgrade headers, the same access as /graphql, the same events.
 * The WebSocket's bounds and refusals: test/security/websocket.test.ts.
 */
let db: TestDatabase;
let acmeId: number;
beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(baseFixture({ agents: [agent(10, 'sub-bot', 1)] }));
  acmeId = (await db.sql<{ id: number }>("select id from projects where code = 'acme'"))[0].id;
});
afterAll(() => db.orm.close());

const QUERY = 'subscription Live($types: [String!]) { aiEvents(types: $types) { id type created_at data } }';

describe.each(ENGINES)('aiEvents subscription (%s)', (engine) => {
  let t: TestApp;
  let wsUrl: string;
  const clients: Client[] = [];
  beforeAll(async () => {
    t = await startApp(engine, db);
    wsUrl = (await listen(t.app)).replace(/^http/, 'ws') + '/graphql';
  });
  afterAll(async () => {
    for (const c of clients) await c.dispose();
    await t.close();
  });

  function client(connectionParams?: Record<string, string>, headers?: Record<string, string>): Client {
    const WS = class extends WebSocket {
      constructor(address: string, protocols?: string | string[]) {
        super(address, protocols, { headers });
      }
    };
    const c = createClient({ url: wsUrl, webSocketImpl: WS, connectionParams, retryAttempts: 0, lazy: true });
    clients.push(c);
    return c;
  }

  /** Subscribes and collects; resolves `ready` after the server answered the subscription (first event or error). */
  function collect(c: Client, variables: Record<string, unknown> = {}, query = QUERY) {
    const got: any[] = [];
    const errors: unknown[] = [];
    let done = false;
    const stop = c.subscribe(
      { query, variables },
      {
        next: (v) => got.push(v),
        error: (e) => errors.push(e),
        complete: () => (done = true),
      },
    );
    return { got, errors, stop, isDone: () => done };
  }

  const waitFor = async (cond: () => boolean, ms = 10_000) => {
    const end = Date.now() + ms;
    while (!cond()) {
      if (Date.now() > end) throw new Error('timed out');
      await new Promise((r) => setTimeout(r, 25));
    }
  };

  it('delivers committed events to a subscriber authenticated in connection_init, filtered by types', async () => {
    const all = collect(client({ 'X-Api-Key': KEYS.server }));
    const onlyClosed = collect(client({ Authorization: `Bearer-less`, 'x-api-key': KEYS.admin }), { types: ['conversation.closed'] });
    await new Promise((r) => setTimeout(r, 500)); // the subscriptions are open
    const data = { id: 1, status: 'active' };
    const id1 = await emit(db.orm, t.services, acmeId, [
      { type: 'conversation.created', agent_id: 10, business_id: 1, conversation_id: 1, data },
    ]);
    const id2 = await emit(db.orm, t.services, acmeId, [
      { type: 'conversation.closed', agent_id: 10, business_id: 1, conversation_id: 1, data: { id: 1, status: 'closed' } },
    ]);
    await waitFor(() => all.got.length >= 2 && onlyClosed.got.length >= 1);
    expect(all.errors).toEqual([]);
    expect(all.got.map((r) => r.data.aiEvents.id)).toEqual([id1, id2]);
    expect(all.got[0].data.aiEvents).toMatchObject({ type: 'conversation.created', data });
    expect(onlyClosed.got.map((r) => r.data.aiEvents.id)).toEqual([id2]);
  });

  it('each subscriber gets the event in the shape of its own document and variables, those with the same request the same result', async () => {
    const key = { 'X-Api-Key': KEYS.server };
    const [first, second] = [collect(client(key)), collect(client(key))];
    const aliased = collect(client(key), {}, 'subscription { aiEvents { eventId: id kind: type } }');
    const typed = collect(client(key), { types: ['message.created'] });
    await new Promise((r) => setTimeout(r, 500)); // the subscriptions are open
    const opened = await emit(db.orm, t.services, acmeId, [
      { type: 'conversation.created', agent_id: 10, business_id: 1, conversation_id: 2, data: { id: 2, status: 'active' } },
    ]);
    const message = await emit(db.orm, t.services, acmeId, [
      { type: 'message.created', agent_id: 10, business_id: 1, conversation_id: 2, data: { id: 20, content: 'hi' } },
    ]);
    await waitFor(() => [first, second, aliased].every((s) => s.got.length >= 2) && typed.got.length >= 1);
    expect(first.got.map((r) => r.data.aiEvents.id)).toEqual([opened, message]);
    expect(second.got).toEqual(first.got);
    expect(first.got[1].data.aiEvents).toMatchObject({ type: 'message.created', data: { id: 20, content: 'hi' } });
    expect(aliased.got.map((r) => r.data.aiEvents)).toEqual([
      { eventId: opened, kind: 'conversation.created' },
      { eventId: message, kind: 'message.created' },
    ]);
    expect(typed.got.map((r) => r.data.aiEvents.id)).toEqual([message]);
  });

  it('accepts the credential as a header of the upgrade request', async () => {
    const sub = collect(client(undefined, { 'x-api-key': KEYS.server }));
    await new Promise((r) => setTimeout(r, 500));
    const id = await emit(db.orm, t.services, acmeId, [
      { type: 'message.created', agent_id: 10, business_id: 1, conversation_id: 1, data: { id: 9 } },
    ]);
    await waitFor(() => sub.got.length >= 1);
    expect(sub.got[0].data.aiEvents.id).toBe(id);
  });

  it('refuses a wrong key, a level-2 user (as /graphql) and no credential at all', async () => {
    for (const params of [{ 'X-Api-Key': 'wrong-key-0123456789' }, { 'X-Api-Key': KEYS.owner }]) {
      const sub = collect(client(params));
      await waitFor(() => sub.errors.length > 0 || sub.isDone());
      expect(sub.got).toEqual([]);
    }
    const none = collect(client());
    await waitFor(() => none.errors.length > 0 || none.isDone() || none.got.length > 0);
    // refused at connection, before any operation: 4403
    expect(none.got).toEqual([]);
    expect((none.errors[0] as { code?: number }).code).toBe(4403);
  });
});
