import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, TEST_CREDENTIALS_KEY, type TestDatabase } from '../support/db.js';
import { ensureEmitted } from '../support/dist.js';
import { baseFixture, KEYS } from '../support/fixtures.js';
import { startServe, stopServe, type ServeProcess } from '../support/serve-process.js';
import { startWhatsAppFake, type WhatsAppFake } from '../support/whatsapp-fake.js';

/**
 * CONTRACT §15.5–15.6 across real `serve` processes on one database: an order placed through a process that is then
 * killed with SIGKILL after the commit and before its sends reached the Cloud API (its own Cloud API never answers:
 * it holds the notice and the Purchase event) is told to the customer and credited to the ad by the other process,
 * each exactly once, within 3 s of the death (a provider deadline of 60 s notwithstanding).
 */
const AGENT = 1;
const PRODUCT = 1;
const CONVERSATION = 1;
const CONTACT = '34600990001';
const creds = { waba_id: 'waba-orders', phone_number_id: 'pn-orders', access_token: 'EAAG-orders-token', dataset_id: 'ds-orders' };
const ENV = {
  WHATSAPP_RETRY_BASE_MS: '100',
  WHATSAPP_SEND_POLL_MS: '200',
  PROVIDER_TIMEOUT_MS: '60000',
  CREDENTIALS_KEY: TEST_CREDENTIALS_KEY,
};

let db: TestDatabase;
let fake: WhatsAppFake;
const servers: ServeProcess[] = [];
beforeAll(async () => {
  db = await createTestDatabase();
  fake = await startWhatsAppFake();
  fake.addAccount({ ...creds, templates: [] });
  const fixture = baseFixture({
    agents: [
      {
        id: AGENT,
        business_id: 1,
        name: 'WA',
        provider: 'whatsapp',
        provider_type: 'chat',
        provider_external_id: 'wa-orders-cluster',
        enabled: true,
        credentials: creds,
      },
    ],
    products: [{ id: PRODUCT, business_id: 1, name: 'Margarita', price: 9.5 }],
    conversations: [
      {
        id: CONVERSATION,
        agent_id: AGENT,
        business_id: 1,
        contact: CONTACT,
        status: 'active',
        usage: {},
        last_inbound_at: new Date(Date.now() - 60_000).toISOString(),
      },
    ],
  });
  fixture.projects[0].businesses = [
    { id: 1, name: 'Acme Centro', franchise_id: 1, currency: 'EUR' },
    { id: 2, name: 'Acme Norte', franchise_id: 1 },
    { id: 3, name: 'Acme Sur' },
  ];
  await db.load(fixture);
  await db.sql(
    `update ai_agents set order_messages = '{"0": {"text": "Order {{order}} received: {{total}}", "template_id": null, "locale": null}}' where id = ?`,
    [AGENT],
  );
  await db.sql(
    `update ai_conversations set referral = '{"source_id": "ad-9", "source_type": "ad", "ctwa_clid": "clid-cluster"}' where id = ?`,
    [CONVERSATION],
  );
  await ensureEmitted('order-notices-serve.test');
}, 300_000);
afterAll(async () => {
  await stopServe(servers);
  await fake.close();
  await db.orm.close();
});

async function serve(env: Record<string, string> = {}): Promise<ServeProcess> {
  const s = await startServe(db.url, { DATABASE_DIRECT_URL: db.directUrl, WHATSAPP_API_URL: fake.url, ...ENV, ...env });
  servers.push(s);
  return s;
}

async function api(s: ServeProcess, method: string, path: string, body: unknown): Promise<any> {
  const res = await fetch(`${s.base}/v400/en/acme${path}`, {
    method,
    headers: { 'x-api-key': KEYS.server, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as { result: any };
  expect(res.status, JSON.stringify(json)).toBe(200);
  return json.result;
}

async function until(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('order notices and Conversions API events across serve processes', () => {
  it('a process SIGKILLed between the commit and the send: the other sends the notice and the event exactly once within 3 s', async () => {
    // the process that is going to die reaches only a Cloud API that never answers: it holds both sends
    const dying = await startWhatsAppFake();
    dying.addAccount({ ...creds, templates: [] });
    dying.fail('send', { hang: true });
    dying.fail('events', { hang: true });
    try {
      const a = await serve({ WHATSAPP_API_URL: dying.url });
      const cart = await api(a, 'PUT', `/ai/conversations/${CONVERSATION}/cart`, {
        business_id: 1,
        delivery_type: 2,
        lines: [{ product_id: PRODUCT, quantity: 2 }],
      });
      const order = await api(a, 'POST', `/ai/conversations/${CONVERSATION}/orders`, { cart_version: cart.version, paymethod: 'cash' });
      expect(order.conversion).toEqual({ status: 'pending', error: null, sent_at: null });
      // committed, claimed by A, never answered
      await until(async () => dying.requestsTo('send').length === 1 && dying.requests.some((r) => r.path.endsWith('/events')), 15_000);
      const b = await serve();
      expect(fake.requests).toEqual([]);

      const killedAt = Date.now();
      a.child.kill('SIGKILL');
      await new Promise((r) => a.child.once('exit', r));
      const notice = () => fake.requestsTo('send').filter((r) => r.body?.to === CONTACT);
      const events = () => fake.requests.filter((r) => r.path === `/v21.0/${creds.dataset_id}/events`);
      await until(async () => notice().length >= 1 && events().length >= 1, 15_000);
      expect(notice()[0].at - killedAt).toBeLessThan(3000);
      expect(events()[0].at - killedAt).toBeLessThan(3000);
      expect(notice()[0].body.text.body).toBe(`Order ${order.id} received: 19.00 EUR`);
      expect(events()[0].body.data[0]).toMatchObject({
        event_name: 'Purchase',
        event_id: order.uuid,
        user_data: { ctwa_clid: 'clid-cluster' },
      });

      await until(async () => {
        const [o] = await db.sql<{ conversion: any }>('select conversion from orders where id = ?', [order.id]);
        const [m] = await db.sql<{ delivery_status: string }>('select delivery_status from ai_messages where order_id = ?', [order.id]);
        return o.conversion?.status === 'sent' && m?.delivery_status === 'accepted';
      }, 10_000);
      // exactly once each on the provider that answers, whatever the wake-ups and polls that follow
      await new Promise((r) => setTimeout(r, 1000));
      expect(notice()).toHaveLength(1);
      expect(events()).toHaveLength(1);
      const [{ n }] = await db.sql<{ n: number }>(
        "select count(*)::int as n from ai_events where type = 'order.updated' and (data->>'id')::int = ?",
        [order.id],
      );
      expect(n).toBe(1);
      await stopServe([b]);
    } finally {
      await dying.close();
    }
  }, 180_000);
});
