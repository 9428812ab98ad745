import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, TEST_CREDENTIALS_KEY, type TestDatabase } from '../support/db.js';
import { ensureEmitted } from '../support/dist.js';
import { baseFixture, KEYS } from '../support/fixtures.js';
import { pgbouncerFor, type PgBouncer } from '../support/pgbouncer.js';
import { startServe, stopServe, type ServeProcess } from '../support/serve-process.js';
import { startReceiver, until, verifySignature, type Receiver } from '../support/webhook-receiver.js';

/**
 * Webhooks across real `serve` processes on one database (CONTRACT §9.4): two processes deliver
 * each event once between them; a process killed with SIGKILL while deliveries are pending (some
 * mid-attempt) loses none of them once a process runs again; and a process that dies costs seconds,
 * not a lease (CONTRACT §10.1, §9.4), directly and through PgBouncer in transaction mode: its attempts
 * in flight are made again by another process within 3 s of its death, and never while it beats.
 */
const AGENTS = Array.from({ length: 30 }, (_, i) => ({
  id: i + 1,
  business_id: 1,
  name: `A${i}`,
  provider: 'whatsapp',
  provider_type: 'chat',
  provider_external_id: `bot-${i}`,
  enabled: true,
}));
const CALLERS = [KEYS.server, KEYS.admin, KEYS.customer];
const ENV = {
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: '1',
  WEBHOOK_POLL_MS: '50',
  WEBHOOK_RETRY_BASE_MS: '200',
  WEBHOOK_TIMEOUT_MS: '1000',
  CREDENTIALS_KEY: TEST_CREDENTIALS_KEY,
};

let db: TestDatabase;
const servers: ServeProcess[] = [];
const receivers: Receiver[] = [];
beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(baseFixture({ agents: AGENTS }));
  await db.load({ projects: [{ code: 'demo', name: 'Demo' }] });
  await ensureEmitted('webhooks-serve.test');
}, 300_000);
afterAll(async () => {
  await stopServe(servers);
  for (const r of receivers) r.dropHung();
  await Promise.all(receivers.map((r) => r.close()));
  await db.orm.close();
});

async function serve(env: Record<string, string> = {}, url = db.url): Promise<ServeProcess> {
  const s = await startServe(url, { DATABASE_DIRECT_URL: db.directUrl, ...ENV, ...env });
  servers.push(s);
  return s;
}

const api = (s: ServeProcess, path: string, key: string, init: RequestInit = {}) =>
  fetch(`${s.base}/v400/en/acme${path}`, { ...init, headers: { 'x-api-key': key, 'content-type': 'application/json', ...init.headers } });

async function register(s: ServeProcess, url: string): Promise<{ id: number; secret: string }> {
  const res = await api(s, '/ai/webhooks', KEYS.server, {
    method: 'POST',
    body: JSON.stringify({ url, events: ['conversation.created'] }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { result: { id: number; secret: string } }).result;
}

/** Opens one conversation per (agent, caller), alternating between the servers: one event each. */
async function openConversations(via: ServeProcess[], agents = AGENTS.length): Promise<number> {
  await db.sql("update ai_conversations set status = 'closed', status_reason = 'completed', closed_at = now() where status = 'active'");
  let n = 0;
  await Promise.all(
    CALLERS.map(async (key, c) => {
      for (let i = 0; i < agents; i++) {
        const res = await api(via[(i + c) % via.length], `/ai/agents/bot-${i}/conversations/current`, key);
        expect(res.status).toBe(200);
        n++;
      }
    }),
  );
  return n;
}

const rowsOf = (webhookId: number) =>
  db.sql<{ delivery_id: string; status: string; attempts: number }>(
    'select delivery_id, status, attempts from ai_webhook_deliveries where webhook_id = ?',
    [webhookId],
  );

describe('webhooks across serve processes', () => {
  it('two processes on one database deliver each event once', async () => {
    const r = await startReceiver(() => 200);
    receivers.push(r);
    // the default 10 s deadline: a 1 s one can pass on this shared machine, and its retry would be a second delivery
    const [a, b] = await Promise.all([serve({ WEBHOOK_TIMEOUT_MS: '10000' }), serve({ WEBHOOK_TIMEOUT_MS: '10000' })]);
    const hook = await register(a, r.url);
    const events = await openConversations([a, b]);
    expect(events).toBe(AGENTS.length * CALLERS.length);

    await until(async () => (await rowsOf(hook.id)).filter((d) => d.status === 'delivered').length === events, 30_000, 'every delivery');
    await new Promise((resolve) => setTimeout(resolve, 500)); // a duplicate would arrive now
    const rows = await rowsOf(hook.id);
    expect(rows).toHaveLength(events);
    expect(rows.filter((d) => d.attempts !== 1)).toEqual([]);
    expect(r.received).toHaveLength(events);
    const ids = r.received.map((q) => q.headers['x-ordergraph-delivery']);
    expect(new Set(ids).size).toBe(events);
    expect(new Set(ids)).toEqual(new Set(rows.map((d) => d.delivery_id)));
    expect(new Set(r.received.map((q) => JSON.parse(q.body).id)).size).toBe(events);
    expect(r.received.every((q) => verifySignature(hook.secret, q.headers, q.body))).toBe(true);
    await stopServe([a, b]);
  }, 120_000);

  it('SIGKILL with deliveries pending and in flight: after a restart every event is delivered', async () => {
    let accepting = false;
    const r = await startReceiver(() => (accepting ? 200 : 'hang'));
    receivers.push(r);
    const first = await serve();
    const hook = await register(first, r.url);
    const events = await openConversations([first], 10);
    // some attempts are in flight (the receiver holds them), the rest wait for a slot
    await until(() => r.received.length >= 1, 15_000, 'an attempt in flight');
    first.child.kill('SIGKILL');
    await new Promise((resolve) => first.child.once('exit', resolve));
    const before = await rowsOf(hook.id);
    expect(before.some((d) => d.status === 'pending')).toBe(true);
    expect(before.some((d) => d.attempts >= 1)).toBe(true);

    accepting = true;
    r.dropHung();
    const second = await serve();
    // the killed process stopped beating: the new one releases its claims (else their leases, timeout 1 s + 5 s, would run out)
    await until(async () => (await rowsOf(hook.id)).every((d) => d.status === 'delivered'), 45_000, 'every delivery after the restart');
    const rows = await rowsOf(hook.id);
    expect(rows).toHaveLength(events);
    const answered = new Set(r.received.filter((q) => q.status === 200).map((q) => q.headers['x-ordergraph-delivery']));
    expect(answered).toEqual(new Set(rows.map((d) => d.delivery_id)));
    expect(r.received.every((q) => verifySignature(hook.secret, q.headers, q.body))).toBe(true);
    await stopServe([second]);
  }, 120_000);
});

for (const via of ['directly', 'through PgBouncer'] as const) {
  describe(`webhooks: a process that dies costs seconds, not a lease (${via})`, () => {
    let url: string | null = null;
    let bouncer: PgBouncer | undefined;
    beforeAll(async () => {
      if (via === 'directly') return void (url = db.url);
      const pooled = await pgbouncerFor(db.directUrl);
      if (typeof pooled === 'string') return console.log(`[webhooks serve] PgBouncer case skipped: ${pooled}`);
      ({ url, bouncer } = pooled);
    }, 30_000);
    afterAll(async () => {
      await stopServe(servers);
      await bouncer?.stop();
    });

    it('SIGKILL with attempts in flight at a 30 s deadline: another process makes them again within 3 s of the death, none while it beats', async (ctx) => {
      if (!url) return ctx.skip();
      const env = {
        WEBHOOK_TIMEOUT_MS: '30000',
        ...(via === 'directly' ? {} : { DATABASE_PREPARED_STATEMENTS: 'false' }),
      };
      let accepting = false;
      const arrivals: { id: string; at: number }[] = [];
      const r = await startReceiver((req) => {
        arrivals.push({ id: String(req.headers['x-ordergraph-delivery']), at: Date.now() });
        return accepting ? 200 : 'hang';
      });
      receivers.push(r);
      const a = await serve(env, url);
      const hook = await register(a, r.url);
      const events = await openConversations([a], 2);
      await until(async () => arrivals.length === events, 15_000, 'every attempt in flight at the first process');
      const b = await serve(env, url);
      // A beats: its attempts hang for longer than a dead process's claims last, and are not taken from it
      await new Promise((resolve) => setTimeout(resolve, 3000));
      expect(arrivals).toHaveLength(events);

      accepting = true;
      const killedAt = Date.now();
      a.child.kill('SIGKILL');
      await new Promise((resolve) => a.child.once('exit', resolve));
      await until(async () => (await rowsOf(hook.id)).every((d) => d.status === 'delivered'), 30_000, 'every delivery after the kill');
      const rows = await rowsOf(hook.id);
      expect(rows).toHaveLength(events);
      for (const d of rows) {
        const tries = arrivals.filter((x) => x.id === d.delivery_id);
        expect(tries).toHaveLength(2);
        expect(tries[1].at - killedAt).toBeLessThan(3000);
        expect(d.attempts).toBe(2);
      }
      await stopServe([b]);
    }, 120_000);
  });
}
