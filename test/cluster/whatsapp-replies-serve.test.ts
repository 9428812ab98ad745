import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, TEST_CREDENTIALS_KEY, type TestDatabase } from '../support/db.js';
import { ensureEmitted } from '../support/dist.js';
import { baseFixture, KEYS } from '../support/fixtures.js';
import { startServe, stopServe, type ServeProcess } from '../support/serve-process.js';
import { startWhatsAppFake, type WhatsAppFake } from '../support/whatsapp-fake.js';

/**
 * Replies on WhatsApp across real `serve` processes on one database (CONTRACT §10.1, §12.4): two processes
 * send 200 queued replies (text, interactive buttons, locations and an image of ours by media_id), each
 * exactly once and in order within its conversation, the image uploaded to the Cloud API once for all;
 * a process killed with SIGKILL in the middle of a send (an image whose upload is done) leaves the reply
 * to another process, which sends it reusing the upload.
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

/** The reply `label` of kind m % 4: text, interactive buttons, a location, or the image `mediaId` of ours. */
function richBody(label: string, m: number, mediaId: string): Record<string, unknown> {
  switch (m % 4) {
    case 1:
      return {
        type: 'interactive',
        payload: { type: 'button', body: { text: label }, action: { buttons: [{ type: 'reply', reply: { id: 'ok', title: 'OK' } }] } },
      };
    case 2:
      return { type: 'location', payload: { latitude: 40.4, longitude: -3.7, name: label } };
    case 3:
      return { type: 'image', payload: { media_id: mediaId, caption: label } };
    default:
      return { content: label };
  }
}

/** What a Cloud API message says, whatever its type: the label richBody put in it. */
const labelOf = (body: Record<string, any>): string =>
  body.text?.body ?? body.interactive?.body.text ?? body.location?.name ?? body.image?.caption;

async function uploadFile(s: ServeProcess, bytes: Buffer, type: string): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([bytes], { type }), 'dish.png');
  const res = await fetch(`${s.base}/v400/en/acme/ai/media`, { method: 'POST', headers: { 'x-api-key': KEYS.server }, body: form });
  expect(res.status).toBe(200);
  return ((await res.json()) as { result: { id: string } }).result.id;
}

async function reply(s: ServeProcess, conversationId: number, content: string | Record<string, unknown>): Promise<number> {
  const res = await fetch(`${s.base}/v400/en/acme/ai/conversations/${conversationId}/messages`, {
    method: 'POST',
    headers: { 'x-api-key': KEYS.server, 'content-type': 'application/json' },
    body: JSON.stringify({ role: 'assistant', ...(typeof content === 'string' ? { content } : content) }),
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
  it('two processes send 200 queued replies of four types, each exactly once, in order within each conversation; one upload', async () => {
    // The default 10 s provider deadline: a shorter one can pass on this shared machine, and its retry would be a second send.
    const [a, b] = await Promise.all([serve(), serve()]);
    const image = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(300_000, 3)]);
    const mediaId = await uploadFile(b, image, 'image/png');
    await Promise.all(
      Array.from({ length: CONVERSATIONS }, async (_, c) => {
        for (let m = 0; m < PER_CONVERSATION; m++) await reply([a, b][(c + m) % 2], c + 1, richBody(`c${c + 1} m${m}`, m, mediaId));
      }),
    );
    const total = CONVERSATIONS * PER_CONVERSATION;
    await until(async () => {
      const [{ n }] = await db.sql<{ n: number }>("select count(*)::int as n from ai_messages where delivery_status = 'accepted'");
      return n === total;
    }, 60_000);
    const sent = fake.requestsTo('send').map((r) => labelOf(r.body));
    expect(sent).toHaveLength(total);
    expect(new Set(sent).size).toBe(total);
    for (let c = 1; c <= CONVERSATIONS; c++) {
      const order = fake
        .requestsTo('send')
        .filter((r) => r.body.to === contactOf(c))
        .map((r) => labelOf(r.body));
      expect(order).toEqual(Array.from({ length: PER_CONVERSATION }, (_, m) => `c${c} m${m}`));
    }
    // the image went up once, whichever process sent which of its 40 replies, and every one names Meta's id
    expect(fake.uploads).toHaveLength(1);
    expect(fake.uploads[0]).toMatchObject({ type: 'image/png', size: image.length });
    const images = fake.requestsTo('send').filter((r) => r.body.type === 'image');
    expect(images).toHaveLength(CONVERSATIONS * 2);
    expect(new Set(images.map((r) => r.body.image.id))).toEqual(new Set([fake.uploads[0].id]));
    const [{ n }] = await db.sql<{ n: number }>(
      "select count(distinct external_id)::int as n from ai_messages where delivery_status = 'accepted'",
    );
    expect(n).toBe(total);
    await stopServe([a, b]);
  }, 180_000);

  it('a process killed with SIGKILL mid-send (an image of ours, uploaded) leaves the reply to another, which sends it reusing the upload', async () => {
    fake.reset({ requests: true });
    fake.fail('send', { hang: true }, { times: 1 });
    const env = { PROVIDER_TIMEOUT_MS: '3000' };
    const a = await serve(env);
    const mediaId = await uploadFile(a, Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.from('crash')]), 'image/png');
    const uploadsBefore = fake.uploads.length;
    const id = await reply(a, CONVERSATIONS + 1, { type: 'image', payload: { media_id: mediaId, caption: 'survives a crash' } });
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
    expect(sends.map((r) => r.body.image.caption)).toEqual(['survives a crash', 'survives a crash']);
    expect(fake.uploads.length - uploadsBefore).toBe(1);
    expect(sends.map((r) => r.body.image.id)).toEqual([fake.uploads.at(-1)!.id, fake.uploads.at(-1)!.id]);
    const [send] = await db.sql<{ attempts: number }>('select attempts from ai_message_sends where message_id = ?', [id]);
    expect(send.attempts).toBe(2);
    await stopServe([b]);
  }, 120_000);
});
