import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type WebhookConfig } from '../../src/config.js';
import { MikroORM } from '@mikro-orm/postgresql';
import { ormConfig } from '../../src/db/orm.js';
import { appendEvents, sequenceEvents } from '../../src/services/events/event-log.js';
import { MAX_ATTEMPTS, WebhookDispatcher } from '../../src/workers/webhook-dispatcher.js';
import { startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, testCipher, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';
import { freePort } from '../support/net.js';
import { startReceiver, until, verifySignature, type Receiver } from '../support/webhook-receiver.js';

/**
 * The dispatcher (CONTRACT §9.4 delivery) in this process against real local receivers and a real
 * database: retries with the same delivery id, the signature a receiver computes, 3xx not followed,
 * a hung receiver cut at the deadline without holding up others, the attempt cap, the address
 * re-check at delivery, and a database that is not there. Events come from GET .../current.
 */
const AGENTS = Array.from({ length: 12 }, (_, i) => ({
  id: i + 1,
  business_id: 1,
  name: `A${i}`,
  provider: 'whatsapp',
  provider_type: 'chat',
  provider_external_id: `bot-${i}`,
  enabled: true,
}));

let db: TestDatabase;
let t: TestApp;
let projectId: number;
beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(baseFixture({ agents: AGENTS }));
  t = await startApp('mercurius', db, { config: { webhooks: { ...loadConfig({}).webhooks, allowPrivateNetworks: true } } });
  [{ id: projectId }] = await db.sql<{ id: number }>("select id from projects where code = 'acme'");
});
afterAll(async () => {
  await t.close();
  await db.orm.close();
});

const logLines: { level: string; obj: object; msg?: string }[] = [];
const log = {
  info: (obj: object, msg?: string) => logLines.push({ level: 'info', obj, msg }),
  warn: (obj: object, msg?: string) => logLines.push({ level: 'warn', obj, msg }),
  error: (obj: object, msg?: string) => logLines.push({ level: 'error', obj, msg }),
};
const config = (over: Partial<WebhookConfig> = {}): WebhookConfig => ({
  allowPrivateNetworks: true,
  retryBaseMs: 50,
  timeoutMs: 2000,
  pollMs: 30,
  concurrency: 8,
  concurrencyPerWebhook: 4,
  ...over,
});

const running: WebhookDispatcher[] = [];
const receivers: Receiver[] = [];
function dispatcher(over: Partial<WebhookConfig> = {}, orm = db.orm): WebhookDispatcher {
  const d = new WebhookDispatcher({ orm, cipher: testCipher, config: config(over), log }).start();
  running.push(d);
  return d;
}
async function receiver(...args: Parameters<typeof startReceiver>): Promise<Receiver> {
  const r = await startReceiver(...args);
  receivers.push(r);
  return r;
}
afterEach(async () => {
  for (const r of receivers.splice(0)) r.dropHung();
  await Promise.all(running.splice(0).map((d) => d.stop()));
  await Promise.all(receivers.splice(0).map((r) => r.close()));
  await db.sql('delete from ai_webhooks');
  await db.sql("update ai_conversations set status = 'closed', status_reason = 'completed', closed_at = now() where status = 'active'");
});

async function register(url: string, events: string[] = ['*']): Promise<{ id: number; secret: string }> {
  const res = await t.api({ method: 'POST', path: '/ai/webhooks', key: KEYS.server, body: { url, events } });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().result;
}

/** Opens the current conversation of agent `i` for the server key: one conversation.created event. */
async function openConversation(i: number): Promise<number> {
  const res = await t.api({ path: `/ai/agents/bot-${i}/conversations/current`, key: KEYS.server });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().result.id;
}

const deliveries = (webhookId: number) =>
  db.sql<{
    delivery_id: string;
    status: string;
    attempts: number;
    last_status_code: number | null;
    last_error: string | null;
    event_id: string;
  }>(
    'select delivery_id, status, attempts, last_status_code, last_error, event_id from ai_webhook_deliveries where webhook_id = ? order by id',
    [webhookId],
  );

describe('webhook delivery', () => {
  it('a receiver that fails twice then accepts gets the event on the 3rd attempt, same delivery id, verifiable signature', async () => {
    const r = await receiver((_req, n) => (n < 2 ? 500 : 204));
    const hook = await register(r.url);
    const conversationId = await openConversation(0);
    dispatcher();
    await until(async () => (await deliveries(hook.id))[0]?.status === 'delivered', 20_000, 'delivered');

    expect(r.received).toHaveLength(3);
    const [event] = await db.sql<{ id: string; created_at: Date; data: Record<string, unknown> }>(
      "select id, created_at, data from ai_events where type = 'conversation.created' and conversation_id = ?",
      [conversationId],
    );
    const ids = new Set(r.received.map((q) => q.headers['x-ordergraph-delivery']));
    expect(ids.size).toBe(1);
    for (const q of r.received) {
      expect(q.headers['content-type']).toBe('application/json');
      expect(q.headers['x-ordergraph-event']).toBe('conversation.created');
      expect(q.headers['x-ordergraph-timestamp']).toMatch(/^\d{10}$/);
      expect(Math.abs(Number(q.headers['x-ordergraph-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
      expect(verifySignature(hook.secret, q.headers, q.body)).toBe(true);
      expect(verifySignature('whsec_wrong', q.headers, q.body)).toBe(false);
      expect(verifySignature(hook.secret, q.headers, q.body.replace('conversation', 'Conversation'))).toBe(false);
      expect(JSON.parse(q.body)).toEqual({
        id: Number(event.id),
        type: 'conversation.created',
        created_at: new Date(event.created_at).toISOString(),
        data: event.data,
      });
    }
    expect(JSON.parse(r.received[0].body).data).toMatchObject({ id: conversationId, status: 'active' });

    const page = await t.api({ path: `/ai/webhooks/${hook.id}/deliveries`, key: KEYS.server });
    const [record] = page.json().result;
    expect(record).toMatchObject({
      id: [...ids][0],
      event_id: Number(event.id),
      status: 'delivered',
      attempts: 3,
      last_status_code: 204,
      last_error: null,
      next_attempt_at: null,
    });
    expect(typeof record.delivered_at).toBe('string');
  });

  it('a 3xx is a failed attempt and its Location is never followed', async () => {
    const target = await receiver(() => 200);
    const r = await receiver(() => ({ status: 302, headers: { location: target.url } }));
    const hook = await register(r.url);
    await openConversation(1);
    dispatcher({ retryBaseMs: 60_000 });
    await until(async () => (await deliveries(hook.id))[0]?.last_status_code === 302, 10_000, 'the 302 attempt');
    const [row] = await deliveries(hook.id);
    expect(row).toMatchObject({ status: 'pending', attempts: 1, last_status_code: 302 });
    expect(row.last_error).toMatch(/redirect/);
    expect(r.received).toHaveLength(1);
    expect(target.received).toHaveLength(0);
  });

  it('a receiver that never answers is cut at the timeout and does not hold up another webhook', async () => {
    const slow = await receiver(() => 'hang');
    const fast = await receiver(() => 200);
    const slowHook = await register(slow.url);
    const started = Date.now();
    for (let i = 2; i < 8; i++) await openConversation(i);
    const fastHook = await register(fast.url);
    for (let i = 8; i < 10; i++) await openConversation(i);
    // 6 events for the slow webhook first in line, 2 per-webhook slots: the fast one still gets through
    dispatcher({ timeoutMs: 1500, retryBaseMs: 60_000, concurrency: 4, concurrencyPerWebhook: 2 });
    await until(async () => (await deliveries(fastHook.id)).every((d) => d.status === 'delivered'), 10_000, 'the fast webhook');
    expect(fast.received).toHaveLength(2);
    await until(async () => (await deliveries(slowHook.id)).filter((d) => d.last_error !== null).length >= 2, 10_000, 'the timeouts');
    expect(Date.now() - started).toBeLessThan(15_000);
    const cut = (await deliveries(slowHook.id)).filter((d) => d.last_error !== null);
    for (const d of cut)
      expect(d).toMatchObject({ status: 'pending', attempts: 1, last_status_code: null, last_error: 'timed out after 1500 ms' });
  });

  it(`gives up after ${MAX_ATTEMPTS} attempts: failed, with the last status`, async () => {
    const r = await receiver(() => 503);
    const hook = await register(r.url);
    await openConversation(10);
    dispatcher({ retryBaseMs: 5 });
    await until(async () => (await deliveries(hook.id))[0]?.status === 'failed', 20_000, 'failed');
    expect(await deliveries(hook.id)).toMatchObject([
      { status: 'failed', attempts: MAX_ATTEMPTS, last_status_code: 503, last_error: 'HTTP 503' },
    ]);
    expect(r.received).toHaveLength(MAX_ATTEMPTS);
    expect(new Set(r.received.map((q) => q.headers['x-ordergraph-delivery'])).size).toBe(1);
  });

  it('re-checks the address at delivery: a webhook resolving to loopback is refused when private networks are not allowed', async () => {
    const r = await receiver(() => 200);
    const byName = await register(r.url.replace('127.0.0.1', 'localhost'));
    const byAddress = await register(r.url);
    await openConversation(11);
    dispatcher({ allowPrivateNetworks: false, retryBaseMs: 60_000 });
    await until(
      async () => [...(await deliveries(byName.id)), ...(await deliveries(byAddress.id))].every((d) => d.attempts === 1 && d.last_error),
      10_000,
      'refusals',
    );
    for (const d of [...(await deliveries(byName.id)), ...(await deliveries(byAddress.id))])
      expect(d.last_error).toBe('address is not public');
    expect(r.received).toHaveLength(0);
  });

  it('no event is committed without its deliveries (they come with its id), and a rolled-back event leaves none', async () => {
    const hook = await register('http://127.0.0.1:9/never', ['message.created']);
    const em = db.orm.em.fork();
    await expect(
      em.transactional(async (tx) => {
        await appendEvents(tx, projectId, [{ type: 'message.created', data: { id: 1 }, agent_id: 1, business_id: 1 }]);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await deliveries(hook.id)).toEqual([]);
    const events = Array.from({ length: 5 }, (_, i) => ({
      type: 'message.created' as const,
      data: { id: i },
      agent_id: 1,
      business_id: 1,
    }));
    await em.transactional((tx) => appendEvents(tx, projectId, events));
    expect(await deliveries(hook.id)).toEqual([]); // committed to the inbox: no id, no delivery yet
    const last = await sequenceEvents(db.orm.em.getConnection(), projectId);
    const rows = await deliveries(hook.id);
    expect(Number(rows.at(-1)!.event_id)).toBe(last);
    const committed = await db.sql<{ id: string }>(
      "select id from ai_events where project_id = ? and type = 'message.created' order by id desc limit 5",
      [projectId],
    );
    expect(rows.map((d) => d.event_id).sort()).toEqual(committed.map((e) => e.id).sort());
    expect(new Set(rows.map((d) => d.delivery_id)).size).toBe(5);
  });

  it('survives a database that is not there: one log line per cause, and stops promptly', async () => {
    const port = await freePort();
    const orm = await MikroORM.init({
      ...ormConfig({
        clientUrl: `postgres://postgres@127.0.0.1:${port}/nowhere`,
        bounds: { statementTimeoutMs: 1000, acquireTimeoutMs: 500 },
      }),
      connect: false,
    });
    try {
      logLines.length = 0;
      const d = new WebhookDispatcher({ orm, cipher: testCipher, config: config({ pollMs: 20 }), log }).start();
      await new Promise((r) => setTimeout(r, 2500));
      const stopping = Date.now();
      await d.stop();
      expect(Date.now() - stopping).toBeLessThan(5000);
      expect(logLines.filter((l) => l.level === 'warn')).toHaveLength(1);
    } finally {
      await orm.close();
    }
  });
});
