import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { WS_INIT_TIMEOUT_MS, WS_TRY_AGAIN } from '../../src/rest/graphql-ws.js';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';
import { agent, emit } from '../events/support.js';
import { until } from '../support/webhook-receiver.js';

/**
 * The graphql-ws WebSocket on /graphql (CONTRACT §11), under both engines, over real sockets with
 * the protocol spoken by hand: init timeout 4408, 4403 without an admitted credential (never
 * acknowledged), 4401 before the acknowledgement, documents bounded like POST /graphql, a
 * subscriber that stops reading disconnected, idle sockets bounded, /health/live answering
 * meanwhile.
 */
let db: TestDatabase;
let acmeId: number;
beforeAll(async () => {
  db = await createTestDatabase();
  const base = baseFixture().projects[0];
  await db.load(
    baseFixture({
      users: [...base.users!, { id: WS_ADMIN, name: 'Wanda', email: 'wanda@acme.test', level: 0 }],
      api_keys: [...base.api_keys!, { key: WS_ADMIN_KEY, user_id: WS_ADMIN }],
      agents: [agent(10, 'ws-bot', 1)],
    }),
  );
  acmeId = (await db.sql<{ id: number }>("select id from projects where code = 'acme'"))[0].id;
});
afterAll(() => db.orm.close());

// A bound of seconds, not a speed figure: the stalls this guards against held /health/live 4.8–5.3 s,
// and a loaded 2-core CI machine can delay any answer by a few hundred ms.
const LIVE_BOUND_MS = 2000;
/** A level-0 user this file disables and enables again. */
const WS_ADMIN = 50;
const WS_ADMIN_KEY = 'acme-wanda-key-0123456789';
const SUBSCRIPTION = 'subscription { aiEvents { id type data } }';
/** CONTRACT §11's bounds of sockets that have not completed connection_init (the defaults). */
const WS_MAX_PENDING = 1_000;
const WS_PENDING_PER_ADDRESS = 10;

/** A graphql-ws peer over `ws`: what it received, when and how it was closed. */
interface Peer {
  ws: WebSocket;
  openedAt: number;
  messages: any[];
  closed: Promise<{ code: number; at: number }>;
  send(message: unknown): void;
  /** Resolves with the first message (already received or coming) that `match` accepts. */
  receive(match: (m: any) => boolean, ms?: number): Promise<any>;
}

function connect(url: string, headers: Record<string, string> = {}, localAddress?: string): Promise<Peer> {
  const openedAt = Date.now(); // before the server's timer can start
  const ws = new WebSocket(url, 'graphql-transport-ws', { headers, localAddress });
  const messages: any[] = [];
  const listeners = new Set<() => void>();
  ws.on('message', (data) => {
    messages.push(JSON.parse((data as Buffer).toString()));
    listeners.forEach((l) => l());
  });
  const closed = new Promise<{ code: number; at: number }>((resolve) => ws.on('close', (code) => resolve({ code, at: Date.now() })));
  ws.on('error', () => undefined);
  return new Promise((resolve, reject) => {
    ws.once('unexpected-response', (_req, res) => reject(Object.assign(new Error(`upgrade answered ${res.statusCode}`), { res })));
    ws.once('open', () =>
      resolve({
        ws,
        openedAt,
        messages,
        closed,
        send: (m) => ws.send(typeof m === 'string' ? m : JSON.stringify(m)),
        receive: (match, ms = 5_000) =>
          new Promise((ok, fail) => {
            const found = () => messages.find(match);
            if (found()) return ok(found());
            const timer = setTimeout(
              () => (
                listeners.delete(check),
                fail(new Error(`no matching message in ${ms} ms: ${JSON.stringify(messages).slice(0, 300)}`))
              ),
              ms,
            );
            const check = () => {
              const m = found();
              if (m) {
                clearTimeout(timer);
                listeners.delete(check);
                ok(m);
              }
            };
            listeners.add(check);
          }),
      }),
    );
  });
}

/** The upgrade's plain HTTP answer when it is refused. */
function upgradeStatus(url: string, localAddress?: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url.replace(/^ws/, 'http'), {
      localAddress,
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
        'sec-websocket-protocol': 'graphql-transport-ws',
      },
    });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('upgrade', (res, socket) => (socket.destroy(), resolve({ status: res.statusCode ?? 0, headers: res.headers, body: '' })));
    req.on('error', reject);
  });
}

/** /health/live's answer time, sampled every 50 ms until `stop`: the largest seen. */
function sampleLive(origin: string) {
  let worst = 0;
  let samples = 0;
  let running = true;
  const statuses = new Set<number>();
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      const res = await fetch(`${origin}/health/live`).catch(() => null);
      await res?.arrayBuffer();
      statuses.add(res?.status ?? 0);
      worst = Math.max(worst, performance.now() - started);
      samples++;
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return { worst, samples, statuses: [...statuses] };
    },
  };
}

/** test/support/ws-abuser.mjs in a child process: `first` its first output line, `last` its last. */
function abuser(opts: Record<string, unknown>): { first: Promise<any>; last: Promise<any> } {
  const child = spawn(process.execPath, [path.join(__dirname, '..', 'support', 'ws-abuser.mjs'), JSON.stringify(opts)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines: string[] = [];
  let gotFirst!: (v: unknown) => void;
  const first = new Promise((r) => (gotFirst = r));
  let buffer = '';
  child.stdout.on('data', (chunk) => {
    buffer += chunk;
    for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
      lines.push(buffer.slice(0, i));
      buffer = buffer.slice(i + 1);
      if (lines.length === 1) gotFirst(JSON.parse(lines[0]));
    }
  });
  const last = new Promise((resolve, reject) =>
    child.on('exit', (code) =>
      code === 0 && lines.length ? resolve(JSON.parse(lines[lines.length - 1])) : reject(new Error(`ws-abuser exited ${code}`)),
    ),
  );
  return { first, last };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(ENGINES)('graphql-ws WebSocket on /graphql (%s)', (engine) => {
  let t: TestApp;
  let origin: string;
  let url: string;
  const peers: Peer[] = [];
  beforeAll(async () => {
    t = await startApp(engine, db);
    origin = await t.listen();
    url = origin.replace(/^http/, 'ws') + '/graphql';
  });
  afterAll(async () => {
    for (const p of peers) p.ws.terminate();
    await t.close();
  });

  async function open(headers?: Record<string, string>): Promise<Peer> {
    const p = await connect(url, headers);
    peers.push(p);
    return p;
  }

  async function acknowledged(params: Record<string, string> = { 'X-Api-Key': KEYS.server }): Promise<Peer> {
    const p = await open();
    p.send({ type: 'connection_init', payload: params });
    await p.receive((m) => m.type === 'connection_ack');
    return p;
  }

  it(`closes sockets that never send connection_init with 4408 after ${WS_INIT_TIMEOUT_MS / 1000} s, not before; idle sockets past the process's cap get 503`, async () => {
    const live = sampleLive(origin);
    // from 100 addresses, each at its own bound: the process's bound is what refuses the next
    const idle = abuser({ mode: 'idle', url, sockets: WS_MAX_PENDING, batch: 25, pauseMs: 25, perAddress: WS_PENDING_PER_ADDRESS });
    await idle.first;
    const refused = await upgradeStatus(url);
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBeDefined();
    expect(JSON.parse(refused.body)).toMatchObject({ error: true, code: 'ERROR_SERVICE_UNAVAILABLE' });
    const { codes, minLifetime, maxLifetime, messages } = await idle.last;
    expect(codes).toEqual({ 4408: WS_MAX_PENDING });
    expect(minLifetime).toBeGreaterThanOrEqual(WS_INIT_TIMEOUT_MS); // measured from before each upgrade request
    expect(maxLifetime).toBeLessThan(WS_INIT_TIMEOUT_MS + 5_000);
    expect(messages).toBe(0); // not even a keep-alive ping: those start after the acknowledgement
    // the cap frees up as they close
    const later = await acknowledged();
    expect(later.ws.readyState).toBe(WebSocket.OPEN);
    const { worst, samples, statuses } = await live.stop();
    console.log(
      `[websocket.test] ${engine}: ${WS_MAX_PENDING} sockets without connection_init: slowest /health/live ${Math.round(worst)} ms`,
    );
    expect(statuses).toEqual([200]);
    expect(samples).toBeGreaterThan(10);
    expect(worst).toBeLessThan(LIVE_BOUND_MS);
  }, 40_000);

  it(`holds at most ${WS_PENDING_PER_ADDRESS} sockets before connection_init per client address: the next upgrade from it gets 503 with Retry-After, another address still upgrades and is acknowledged`, async () => {
    const idle: Peer[] = [];
    for (let i = 0; i < WS_PENDING_PER_ADDRESS; i++) idle.push(await open());
    const refused = await upgradeStatus(url);
    expect(refused.status).toBe(503);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(refused.body)).toMatchObject({ error: true, code: 'ERROR_SERVICE_UNAVAILABLE' });

    // another address is not affected: it upgrades, and its connection_init is acknowledged
    const elsewhere = await connect(url, {}, '127.0.0.2');
    peers.push(elsewhere);
    elsewhere.send({ type: 'connection_init', payload: { 'X-Api-Key': KEYS.server } });
    await elsewhere.receive((m) => m.type === 'connection_ack');

    // what counts is not having completed connection_init: one that completes it frees a place
    idle[0].send({ type: 'connection_init', payload: { 'X-Api-Key': KEYS.server } });
    await idle[0].receive((m) => m.type === 'connection_ack');
    idle.push(await open());
    expect((await upgradeStatus(url)).status).toBe(503);
    // and so does one that closes
    idle[1].ws.terminate();
    await idle[1].closed;
    await sleep(100);
    idle.push(await open());
    for (const p of idle) p.ws.terminate();
  });

  it('closes with 4403 and never acknowledges a missing, invalid or not admitted credential', async () => {
    const cases: [Record<string, string> | undefined, Record<string, string>?][] = [
      [undefined],
      [{}],
      [{ 'X-Api-Key': 'wrong-key-0123456789' }],
      [{ Authorization: 'Bearer not-a-session-token' }],
      [{ 'x-api-key': KEYS.customer }], // level 3
      [{ 'X-API-KEY': KEYS.owner }], // level 2
      [{}, { 'x-api-key': KEYS.customer }], // in the upgrade request's headers
      [{}, { 'x-api-key': 'wrong-key-0123456789' }],
    ];
    for (const [payload, headers] of cases) {
      const p = await open(headers);
      const started = Date.now();
      p.send(payload === undefined ? { type: 'connection_init' } : { type: 'connection_init', payload });
      const { code, at } = await p.closed;
      expect(code, JSON.stringify({ payload, headers })).toBe(4403);
      expect(at - started).toBeLessThan(5_000);
      expect(p.messages).toEqual([]);
    }
    // the same key in a header of the upgrade admits a server key
    const ok = await open({ 'x-api-key': KEYS.server });
    ok.send({ type: 'connection_init' });
    await ok.receive((m) => m.type === 'connection_ack');
  });

  it('closes with 4403 while the application or the project is in maintenance (the gates of §1), and admits again after', async () => {
    const conn = t.orm.em.fork().getConnection();
    const [{ code: project }] = await conn.execute(
      "select p.code from projects p join api_keys k on k.project_id = p.id where k.key_hash = encode(sha256(?::bytea), 'hex')",
      [KEYS.server],
    );
    const switches: [string, (on: boolean) => Promise<unknown>][] = [
      ['application', (on) => t.services.settings.setMaintenance(on)],
      [
        'project',
        async (on) => {
          await conn.execute('update projects set maintenance = ? where code = ?', [on, project]);
          t.services.tenancy.forgetProject(project);
        },
      ],
    ];
    for (const [which, set] of switches) {
      await set(true);
      try {
        const p = await open();
        p.send({ type: 'connection_init', payload: { 'X-Api-Key': KEYS.server } });
        expect((await p.closed).code, which).toBe(4403);
        expect(p.messages, which).toEqual([]);
      } finally {
        await set(false);
      }
      await acknowledged();
    }
  });

  it('holds at most STREAMS_PER_CREDENTIAL acknowledged sockets per credential: one more is closed with 1013 and never acknowledged; a slot frees when one closes', async () => {
    const held: Peer[] = [];
    for (let i = 0; i < 20; i++) held.push(await acknowledged({ 'X-Api-Key': KEYS.admin }));
    const extra = await open();
    extra.send({ type: 'connection_init', payload: { 'X-Api-Key': KEYS.admin } });
    expect((await extra.closed).code).toBe(WS_TRY_AGAIN);
    expect(extra.messages).toEqual([]);
    // another credential of the same project is not held back
    const other = await acknowledged({ 'X-Api-Key': KEYS.server });
    expect(other.ws.readyState).toBe(WebSocket.OPEN);
    held[0].ws.close();
    await held[0].closed;
    const again = await acknowledged({ 'X-Api-Key': KEYS.admin });
    expect(again.ws.readyState).toBe(WebSocket.OPEN);
    for (const p of [...held, again]) p.ws.close();
  });

  it('closes a subscribe sent before the acknowledgement with 4401', async () => {
    const before = await open();
    before.send({ id: '1', type: 'subscribe', payload: { query: SUBSCRIPTION } });
    expect((await before.closed).code).toBe(4401);
    expect(before.messages).toEqual([]);
  });

  it('refuses documents over the bounds of POST /graphql with an error message, runs nothing, and /health/live keeps answering', async () => {
    const p = await acknowledged();
    const live = sampleLive(origin);
    await sleep(100);
    const big = await abuser({ mode: 'big', url, key: KEYS.server, messages: 20, bytes: 889 * 1024 }).last;
    const { worst, statuses } = await live.stop();
    console.log(`[websocket.test] ${engine}: 20 documents of 889 KB: slowest /health/live ${Math.round(worst)} ms`);
    expect(big.bytes).toBeGreaterThan(889 * 1024);
    expect(big.answers).toHaveLength(20);
    for (const answer of big.answers) expect(answer).toMatchObject({ type: 'error', message: expect.stringMatching(/token/i) });
    expect(big.open).toBe(true);
    expect(statuses).toEqual([200]);
    expect(worst).toBeLessThan(LIVE_BOUND_MS);
    expect(t.services.events.openStreams).toBe(0);

    const aliases = `subscription { aiEvents { ${Array.from({ length: 60_000 }, (_, i) => `a${i}:id`).join(' ')} } }`;
    const sixteen = `subscription { aiEvents { ${Array.from({ length: 16 }, (_, i) => `a${i}:id`).join(' ')} } }`;
    const documents = {
      aliases,
      sixteen,
      unknown: 'subscription { aiEvents { id secret } }',
      syntax: 'subscription { aiEvents { id ',
      mutation: 'mutation { setProjectMaintenance(enabled: true) { id } }',
    };
    for (const [id, query] of Object.entries(documents)) {
      p.send({ id, type: 'subscribe', payload: { query } });
      const err = await p.receive((m) => m.id === id);
      expect(err.type, id).toBe('error');
      expect(err.payload.length, id).toBeGreaterThan(0);
      expect(JSON.stringify(err.payload), id).not.toMatch(/ERROR_INTERNAL|stack/);
    }
    expect(t.services.events.openStreams).toBe(0);
    // the socket stays usable: a valid subscription still runs on it
    p.send({ id: 'fine', type: 'subscribe', payload: { query: SUBSCRIPTION } });
    await sleep(300);
    expect(t.services.events.openStreams).toBe(1);
    expect(p.ws.readyState).toBe(WebSocket.OPEN);
  }, 60_000);

  it("sends the subscribe resolver's errors as an error message with extensions.code, the socket staying open", async () => {
    const p = await acknowledged();
    p.send({ id: 'types', type: 'subscribe', payload: { query: 'subscription { aiEvents(types: ["no.such"]) { id } }' } });
    const invalid = await p.receive((m) => m.id === 'types');
    expect(invalid).toMatchObject({ type: 'error', payload: [{ extensions: { code: 'ERROR_VALIDATION' } }] });
    p.send({
      id: 'current',
      type: 'subscribe',
      payload: { query: 'subscription { aiCurrentConversationEvents(provider_external_id: "nobody") { id } }' },
    });
    const missing = await p.receive((m) => m.id === 'current');
    expect(missing.type).toBe('error');
    expect(missing.payload[0].extensions.code).toMatch(/^ERROR_.*NOT_FOUND$/);
    p.send({ id: 'ok', type: 'subscribe', payload: { query: SUBSCRIPTION } });
    await sleep(300);
    const id = await emit(db.orm, t.services, acmeId, [
      { type: 'conversation.created', agent_id: 10, business_id: 1, conversation_id: 1, data: { id: 1 } },
    ]);
    const next = await p.receive((m) => m.id === 'ok' && m.type === 'next');
    expect(next.payload.data.aiEvents.id).toBe(id);
  });

  it('checks the credential again for each subscribe: once it stops being valid, nothing more opens on the socket', async () => {
    await db.sql('update users set enabled = true where id = ?', [WS_ADMIN]);
    const p = await acknowledged({ 'X-Api-Key': WS_ADMIN_KEY });
    p.send({ id: 'before', type: 'subscribe', payload: { query: SUBSCRIPTION } });
    await sleep(300);
    expect(p.messages.filter((m) => m.id === 'before')).toEqual([]); // open, waiting for events
    await db.sql('update users set enabled = false where id = ?', [WS_ADMIN]);
    await sleep(1_200); // the per-process caller cache (CALLER_CACHE_MS)
    p.send({ id: 'after', type: 'subscribe', payload: { query: SUBSCRIPTION } });
    expect(await p.receive((m) => m.id === 'after')).toMatchObject({
      type: 'error',
      payload: [{ extensions: { code: 'ERROR_UNAUTHORIZED' } }],
    });
  });

  it('resumes after last_event_id as SSE does', async () => {
    const first = await emit(db.orm, t.services, acmeId, [
      { type: 'conversation.created', agent_id: 10, business_id: 1, conversation_id: 7, data: { id: 7 } },
    ]);
    const second = await emit(db.orm, t.services, acmeId, [
      { type: 'conversation.closed', agent_id: 10, business_id: 1, conversation_id: 7, data: { id: 7 } },
    ]);
    const p = await acknowledged();
    p.send({
      id: 'resume',
      type: 'subscribe',
      payload: {
        query: 'subscription R($after: String) { aiEvents(last_event_id: $after) { id type } }',
        variables: { after: String(first) },
      },
    });
    const next = await p.receive((m) => m.id === 'resume');
    expect(next).toMatchObject({ type: 'next', payload: { data: { aiEvents: { id: second, type: 'conversation.closed' } } } });
  });

  it('disconnects a subscriber that stops reading instead of buffering for it', async () => {
    const reader = await acknowledged();
    const stalled = await acknowledged();
    const before = t.services.events.openStreams;
    reader.send({ id: 's', type: 'subscribe', payload: { query: SUBSCRIPTION } });
    stalled.send({
      id: 's',
      type: 'subscribe',
      payload: { query: `subscription { aiEvents { ${Array.from({ length: 8 }, (_, i) => `a${i}: data`).join(' ')} } }` },
    });
    await until(() => t.services.events.openStreams === before + 2, 5_000, 'both subscriptions open');
    (stalled.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    const text = 'x'.repeat(128 * 1024);
    let sent = 0;
    // each event is ~1 MiB for the stalled subscriber (8 aliases): the kernel's buffers fill, then the server's cap
    while (t.services.events.openStreams > before + 1 && sent < 200) {
      await emit(db.orm, t.services, acmeId, [
        { type: 'message.created', agent_id: 10, business_id: 1, conversation_id: 1, data: { id: sent, text } },
      ]);
      sent++;
      await sleep(20);
    }
    expect(t.services.events.openStreams).toBe(before + 1); // the stalled subscriber's stream ended
    expect(sent).toBeLessThan(200);
    (stalled.ws as unknown as { _socket: { resume(): void } })._socket.resume();
    expect((await stalled.closed).code).toBe(1006); // cut, not closed politely through a full buffer
    // the reading subscriber got everything
    await reader.receive((m) => m.type === 'next' && m.payload.data.aiEvents.data.id === sent - 1, 10_000);
    expect(reader.ws.readyState).toBe(WebSocket.OPEN);
  }, 60_000);

  it('completes the subscription when its event stream ends, and refuses upgrades with 503 while under pressure', async () => {
    const p = await acknowledged();
    p.send({ id: 'ends', type: 'subscribe', payload: { query: SUBSCRIPTION } });
    await sleep(300);
    // the events service ends a project's streams (as it does when their access ends)
    (t.services.events as unknown as { feeds: Map<number, { endAll(err: Error | null): void }> }).feeds.get(acmeId)!.endAll(null);
    expect(await p.receive((m) => m.id === 'ends' && m.type !== 'next')).toEqual({ id: 'ends', type: 'complete' });
    expect(p.ws.readyState).toBe(WebSocket.OPEN);

    const app = t.app as unknown as { isUnderPressure?: () => boolean };
    app.isUnderPressure = () => true; // what @fastify/under-pressure decorates
    try {
      const refused = await upgradeStatus(url);
      expect(refused.status).toBe(503);
      expect(refused.headers['retry-after']).toBeDefined();
    } finally {
      delete app.isUnderPressure;
    }
    expect((await upgradeStatus(url)).status).toBe(101);
  });
});
