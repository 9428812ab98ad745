import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, TEST_CREDENTIALS_KEY, type TestDatabase } from '../support/db.js';
import { ensureEmitted } from '../support/dist.js';
import { baseFixture, KEYS } from '../support/fixtures.js';
import { startServe, stopServe, type ServeProcess } from '../support/serve-process.js';
import { startWhatsAppFake, type WhatsAppFake } from '../support/whatsapp-fake.js';

/**
 * Replies on WhatsApp across real `serve` processes on one database (CONTRACT §10.1): two processes
 * send 200 queued replies, each exactly once and in order within its conversation; a process killed
 * with SIGKILL in the middle of a send leaves the reply to another process, which sends it.
 */
const AGENT = 1;
const CONVERSATIONS = 20;
const PER_CONVERSATION = 10;
const creds = { waba_id: 'waba-x', phone_number_id: 'pn-cluster', access_token: 'EAAG-cluster-token' };
const contactOf = (i: number) => `3460070${String(i).padStart(4, '0')}`;
const ENV = { WHATSAPP_RETRY_BASE_MS: '100', WHATSAPP_SEND_POLL_MS: '200', CREDENTIALS_KEY: TEST_CREDENTIALS_KEY };

let db: TestDatabase;
let fake: WhatsAppFake;
const servers: ServeProcess[] = [];
beforeAll(async () => {
  db = await createTestDatabase();
  fake = await startWhatsAppFake();
  fake.addAccount({ ...creds, templates: [] });
  const recent = new Date(Date.now() - 60_000).toISOString();
  await db.load(
    baseFixture({
      agents: [
        {
          id: AGENT,
          business_id: 1,
          name: 'WA',
          provider: 'whatsapp',
          provider_type: 'chat',
          provider_external_id: 'wa-cluster',
          enabled: true,
          credentials: creds,
        },
      ],
      conversations: Array.from({ length: CONVERSATIONS + 1 }, (_, i) => ({
        id: i + 1,
        agent_id: AGENT,
        business_id: 1,
        contact: contactOf(i + 1),
        status: 'active',
        usage: {},
        last_inbound_at: recent,
      })),
    }),
  );
  await db.load({ projects: [{ code: 'demo', name: 'Demo' }] });
  await ensureEmitted('whatsapp-replies-serve.test');
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

async function reply(s: ServeProcess, conversationId: number, content: string): Promise<number> {
  const res = await fetch(`${s.base}/v400/en/acme/ai/conversations/${conversationId}/messages`, {
    method: 'POST',
    headers: { 'x-api-key': KEYS.server, 'content-type': 'application/json' },
    body: JSON.stringify({ role: 'assistant', content }),
  });
  const body = (await res.json()) as { result: { id: number; delivery_status: string } };
  expect(res.status).toBe(200);
  expect(body.result.delivery_status).toBe('pending');
  return body.result.id;
}

async function until(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('WhatsApp replies across serve processes', () => {
  it('two processes send 200 queued replies, each exactly once, in order within each conversation', async () => {
    // The default 10 s provider deadline: a shorter one can pass on this shared machine, and its retry would be a second send.
    const [a, b] = await Promise.all([serve(), serve()]);
    await Promise.all(
      Array.from({ length: CONVERSATIONS }, async (_, c) => {
        for (let m = 0; m < PER_CONVERSATION; m++) await reply([a, b][(c + m) % 2], c + 1, `c${c + 1} m${m}`);
      }),
    );
    const total = CONVERSATIONS * PER_CONVERSATION;
    await until(async () => {
      const [{ n }] = await db.sql<{ n: number }>("select count(*)::int as n from ai_messages where delivery_status = 'accepted'");
      return n === total;
    }, 60_000);
    const sent = fake.requestsTo('send').map((r) => r.body.text.body as string);
    expect(sent).toHaveLength(total);
    expect(new Set(sent).size).toBe(total);
    for (let c = 1; c <= CONVERSATIONS; c++) {
      const order = fake
        .requestsTo('send')
        .filter((r) => r.body.to === contactOf(c))
        .map((r) => r.body.text.body);
      expect(order).toEqual(Array.from({ length: PER_CONVERSATION }, (_, m) => `c${c} m${m}`));
    }
    const [{ n }] = await db.sql<{ n: number }>(
      "select count(distinct external_id)::int as n from ai_messages where delivery_status = 'accepted'",
    );
    expect(n).toBe(total);
    await stopServe([a, b]);
  }, 180_000);

  it('a process killed with SIGKILL mid-send leaves the reply to another, which sends it: accepted', async () => {
    fake.reset({ requests: true });
    fake.fail('send', { hang: true }, { times: 1 });
    const env = { PROVIDER_TIMEOUT_MS: '3000' };
    const a = await serve(env);
    const id = await reply(a, CONVERSATIONS + 1, 'survives a crash');
    await until(async () => fake.requestsTo('send').length === 1, 10_000);
    a.child.kill('SIGKILL');
    await new Promise((r) => a.child.once('exit', r));
    const [row] = await db.sql<{ delivery_status: string }>('select delivery_status from ai_messages where id = ?', [id]);
    expect(row.delivery_status).toBe('pending');
    const b = await serve(env);
    await until(async () => {
      const [m] = await db.sql<{ delivery_status: string }>('select delivery_status from ai_messages where id = ?', [id]);
      return m.delivery_status !== 'pending';
    }, 30_000);
    const [done] = await db.sql<{ delivery_status: string; external_id: string }>(
      'select delivery_status, external_id from ai_messages where id = ?',
      [id],
    );
    expect(done.delivery_status).toBe('accepted');
    expect(done.external_id).toMatch(/^wamid\.TEXT/);
    const sends = fake.requestsTo('send');
    expect(sends.map((r) => r.body.text.body)).toEqual(['survives a crash', 'survives a crash']);
    const [send] = await db.sql<{ attempts: number }>('select attempts from ai_message_sends where message_id = ?', [id]);
    expect(send.attempts).toBe(2);
    await stopServe([b]);
  }, 120_000);
});
