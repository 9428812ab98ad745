import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, TEST_CREDENTIALS_KEY, type TestDatabase } from '../support/db.js';
import { ensureEmitted } from '../support/dist.js';
import { baseFixture, KEYS } from '../support/fixtures.js';
import { pgbouncerFor, type PgBouncer } from '../support/pgbouncer.js';
import { startServe, stopServe, type ServeProcess } from '../support/serve-process.js';
import { startWhatsAppFake, type WhatsAppFake } from '../support/whatsapp-fake.js';

/**
 * Replies on WhatsApp across real `serve` processes on one database (CONTRACT §10.1, §12.4): two processes
 * send 200 queued replies (text, interactive buttons, locations and an image of ours by media_id), each
 * exactly once and in order within its conversation, the image uploaded to the Cloud API once for all;
 * a process killed with SIGKILL in the middle of a send (an image whose upload is done) leaves the reply
 * to another process, which sends it reusing the upload. A process that dies costs seconds, not a lease,
 * directly and through PgBouncer in transaction mode: the conversations it held resume on another process
 * within 3 s of its death (a provider deadline of 60 s notwithstanding), while it lives its slow sends are
 * never taken from it, and a restarted process takes its own former claims over at once.
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

async function serve(env: Record<string, string> = {}, url = db.url): Promise<ServeProcess> {
  const s = await startServe(url, { DATABASE_DIRECT_URL: db.directUrl, WHATSAPP_API_URL: fake.url, ...ENV, ...env });
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
    // a lease (deadline + 2 s) longer than this test's wait: the other process resumes the send because the dead one stopped beating
    const env = { PROVIDER_TIMEOUT_MS: '60000' };
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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A second Cloud API for the process that is going to die: it never answers a send, so that process holds its conversations. */
async function hangingFake(): Promise<WhatsAppFake> {
  const f = await startWhatsAppFake();
  f.addAccount({ ...creds, templates: [] });
  f.fail('send', { hang: true });
  return f;
}

async function kill(s: ServeProcess): Promise<number> {
  const killedAt = Date.now();
  s.child.kill('SIGKILL');
  await new Promise((r) => s.child.once('exit', r));
  return killedAt;
}

const sendsOf = (f: WhatsAppFake, tag: string) => f.requestsTo('send').filter((r) => String(r.body.text.body).startsWith(`${tag} `));

async function acceptedOf(tag: string): Promise<number> {
  const [{ n }] = await db.sql<{ n: number }>(
    "select count(*)::int as n from ai_messages where delivery_status = 'accepted' and content like ? || ' %'",
    [tag],
  );
  return n;
}

for (const via of ['directly', 'through PgBouncer'] as const) {
  describe(`a process that dies costs seconds, not a lease (${via})`, () => {
    let url: string | null = null;
    let bouncer: PgBouncer | undefined;
    beforeAll(async () => {
      if (via === 'directly') {
        url = db.url;
        return;
      }
      const pooled = await pgbouncerFor(db.directUrl);
      if (typeof pooled === 'string') return console.log(`[whatsapp replies serve] PgBouncer cases skipped: ${pooled}`);
      ({ url, bouncer } = pooled);
    }, 30_000);
    afterAll(async () => {
      await stopServe(servers);
      await bouncer?.stop();
    });
    const env = (more: Record<string, string> = {}) => ({
      PROVIDER_TIMEOUT_MS: '60000',
      ...(via === 'directly' ? {} : { DATABASE_PREPARED_STATEMENTS: 'false' }),
      ...more,
    });

    it('SIGKILL: the conversations it held resume on the other process within 3 s; none lost, none out of order, none sent twice', async (ctx) => {
      if (!url) return ctx.skip();
      const tag = `hold ${via}`;
      const held = [1, 2, 3, 4, 5, 6];
      fake.reset({ requests: true });
      const dying = await hangingFake();
      try {
        const a = await serve(env({ WHATSAPP_API_URL: dying.url }), url);
        for (const c of held) await reply(a, c, `${tag} c${c} m0`);
        await until(async () => dying.requestsTo('send').length === held.length, 15_000);
        const b = await serve(env(), url);
        for (let m = 1; m < 5; m++) for (const c of held) await reply([a, b][m % 2], c, `${tag} c${c} m${m}`);
        // A beats: its sends hang for longer than a dead process's claims last, and are not taken from it
        await sleep(3000);
        expect(sendsOf(fake, tag)).toEqual([]);

        const killedAt = await kill(a);
        await until(async () => (await acceptedOf(tag)) === held.length * 5, 30_000);
        for (const c of held) {
          const resumed = sendsOf(fake, tag).find((r) => r.body.text.body === `${tag} c${c} m0`)!;
          expect(resumed.at - killedAt).toBeLessThan(3000);
          const order = sendsOf(fake, tag)
            .filter((r) => r.body.to === contactOf(c))
            .map((r) => r.body.text.body);
          expect(order).toEqual(Array.from({ length: 5 }, (_, m) => `${tag} c${c} m${m}`));
        }
        // the dead process sent each held head once (never answered), nothing after
        expect(
          sendsOf(dying, tag)
            .map((r) => r.body.text.body)
            .sort(),
        ).toEqual(held.map((c) => `${tag} c${c} m0`).sort());
        await stopServe([b]);
      } finally {
        await dying.close();
      }
    }, 180_000);

    it('a restarted process takes over its own former claims at once, before anyone could call its predecessor dead', async (ctx) => {
      if (!url) return ctx.skip();
      const tag = `restart ${via}`;
      const node = `node-restart-${via === 'directly' ? 'direct' : 'pgbouncer'}`;
      const held = [7, 8, 9];
      fake.reset({ requests: true });
      const dying = await hangingFake();
      try {
        const a = await serve(env({ WHATSAPP_API_URL: dying.url, NODE_NAME: node }), url);
        for (const c of held) await reply(a, c, `${tag} c${c} m0`);
        await until(async () => dying.requestsTo('send').length === held.length, 15_000);
        await kill(a);
        // as if it had died this instant: its heartbeat stays fresh for an hour, so the 2 s rule cannot free its claims, nor its 62 s leases
        await db.sql("update process_heartbeats set beat_at = now() + interval '1 hour' where node = ?", [node]);
        const restarted = await serve(env({ NODE_NAME: node }), url);
        const readyAt = Date.now();
        await until(async () => (await acceptedOf(tag)) === held.length, 15_000);
        for (const c of held) {
          const resent = sendsOf(fake, tag).filter((r) => r.body.text.body === `${tag} c${c} m0`);
          expect(resent).toHaveLength(1);
          expect(resent[0].at - readyAt).toBeLessThan(2000);
        }
        const rows = await db.sql<{ pid: number }>('select pid from process_heartbeats where node = ?', [node]);
        expect(rows.map((r) => r.pid)).toEqual([restarted.child.pid]);
        await stopServe([restarted]);
        // a clean stop deletes its row
        expect(await db.sql('select 1 from process_heartbeats where node = ?', [node])).toEqual([]);
      } finally {
        await dying.close();
      }
    }, 180_000);
  });
}

/** `unshare` that gives a process a pid namespace of its own (pid 1 in it, as in a container); null when this host refuses it. */
const OWN_PID_NAMESPACE = ['unshare', '--pid', '--fork', '--mount-proc', '--kill-child'];
const ownNamespaces = (): boolean => spawnSync(OWN_PID_NAMESPACE[0], [...OWN_PID_NAMESPACE.slice(1), 'true']).status === 0;

describe('two processes of one node name, each pid 1 of its own pid namespace (two containers of one hostname)', () => {
  it('the second, started while the first is alive, takes nothing from it; once the first dies its claims go on (§11 third review)', async (ctx) => {
    if (!ownNamespaces()) return ctx.skip();
    const node = 'node-twins';
    const tag = 'twins';
    const held = [10, 11, 12];
    fake.reset({ requests: true });
    const dying = await hangingFake();
    const env = (more: Record<string, string>) => ({
      DATABASE_DIRECT_URL: db.directUrl,
      ...ENV,
      PROVIDER_TIMEOUT_MS: '60000',
      NODE_NAME: node,
      ...more,
    });
    const twin = async (more: Record<string, string>) => {
      const s = await startServe(db.url, env({ WHATSAPP_API_URL: fake.url, ...more }), { wrap: OWN_PID_NAMESPACE });
      servers.push(s);
      return s;
    };
    try {
      const a = await twin({ WHATSAPP_API_URL: dying.url });
      for (const c of held) await reply(a, c, `${tag} c${c} m0`);
      await until(async () => dying.requestsTo('send').length === held.length, 15_000);
      const [first] = await db.sql<{ id: string; pid: number }>('select id::text, pid from process_heartbeats where node = ?', [node]);
      expect(first.pid).toBe(1);
      const claims = () =>
        db.sql<{ n: number }>('select count(*)::int as n from ai_message_sends where claimed_by = ?::uuid', [first.id]).then((r) => r[0].n);
      expect(await claims()).toBe(held.length);

      const b = await twin({});
      await sleep(3000);
      const rows = await db.sql<{ id: string; pid: number }>(
        'select id::text, pid from process_heartbeats where node = ? order by started_at',
        [node],
      );
      expect(rows.map((r) => r.pid)).toEqual([1, 1]);
      expect(rows[0].id).toBe(first.id);
      expect(await claims()).toBe(held.length);
      expect(sendsOf(fake, tag)).toEqual([]);
      expect(a.output()).not.toMatch(/declared dead/);

      // A dies: its heartbeat ages, and B sends what A held, once each
      await kill(a);
      await until(async () => (await acceptedOf(tag)) === held.length, 15_000);
      for (const c of held) expect(sendsOf(fake, tag).filter((r) => r.body.text.body === `${tag} c${c} m0`)).toHaveLength(1);
      await stopServe([b]);
    } finally {
      await dying.close();
    }
  }, 120_000);
});
