import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, TEST_CREDENTIALS_KEY, type TestDatabase } from '../support/db.js';
import { ensureEmitted } from '../support/dist.js';
import { baseFixture, KEYS } from '../support/fixtures.js';
import { pgbouncerFor, type PgBouncer } from '../support/pgbouncer.js';
import { startServe, stopServe, type ServeProcess } from '../support/serve-process.js';
import { MetaWebhooks, startWhatsAppFake, type FakeMedia, type WhatsAppFake } from '../support/whatsapp-fake.js';

/**
 * Media downloads across real `serve` processes on one database (CONTRACT §12.3, §10.1), directly and
 * through PgBouncer in transaction mode: inbound media posted through the signed webhook to either
 * process are each downloaded exactly once (the fake Cloud API counts the byte downloads per file)
 * and stored with Meta's SHA-256; a process SIGKILLed in the middle of a download (some rows of the
 * file already written) leaves it to the other process, which resumes it within 3 s of the death (a
 * provider deadline of 60 s, hence a 62 s lease, notwithstanding) and stores the right bytes.
 */
const AGENT = 1;
const creds = {
  waba_id: 'waba-media-cluster',
  phone_number_id: 'pn-media-cluster',
  access_token: 'EAAG-media-cluster',
  app_secret: 'media-cluster-secret',
  verify_token: 'verify-media-cluster',
};
const ENV = {
  CREDENTIALS_KEY: TEST_CREDENTIALS_KEY,
  MEDIA_RETRY_BASE_MS: '100',
  MEDIA_DOWNLOAD_POLL_MS: '200',
  PROVIDER_TIMEOUT_MS: '60000',
};
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let db: TestDatabase;
let fake: WhatsAppFake;
const servers: ServeProcess[] = [];
let seq = 0;

beforeAll(async () => {
  db = await createTestDatabase();
  fake = await startWhatsAppFake();
  fake.addAccount({ ...creds, templates: [] });
  await db.load(
    baseFixture({
      agents: [
        {
          id: AGENT,
          business_id: 1,
          name: 'WA media',
          provider: 'whatsapp',
          provider_type: 'chat',
          provider_external_id: 'wa-media-cluster',
          enabled: true,
          credentials: creds,
        },
      ],
    }),
  );
  await ensureEmitted('media-downloads-serve.test');
}, 300_000);
afterAll(async () => {
  await stopServe(servers);
  await fake.close();
  await db.orm.close();
});

async function serve(url: string, env: Record<string, string>): Promise<ServeProcess> {
  const s = await startServe(url, { DATABASE_DIRECT_URL: db.directUrl, WHATSAPP_API_URL: fake.url, ...ENV, ...env });
  servers.push(s);
  return s;
}

/** A file Meta keeps for the agent's number, served by each fake given. */
function file(tag: string, size: number, ...on: WhatsAppFake[]): FakeMedia {
  const media: FakeMedia = {
    id: `${tag}.${++seq}`,
    phone_number_id: creds.phone_number_id,
    bytes: randomBytes(size),
    mime_type: 'image/jpeg',
  };
  for (const f of on) f.addMedia(media);
  return media;
}

/** An image message for each file, posted through `s`'s signed webhook; the wamids. */
async function deliver(s: ServeProcess, files: FakeMedia[]): Promise<string[]> {
  const ids = files.map((f) => `wamid.media-cluster.${process.pid}.${f.id}`);
  const messages = files.map((f, i) => ({
    id: ids[i],
    from: `3471${String(++seq).padStart(7, '0')}`,
    type: 'image',
    extra: { image: { id: f.id, mime_type: f.mime_type, sha256: sha(f.bytes) } },
  }));
  const res = await new MetaWebhooks(`${s.base}/v400/en/acme/ai/webhooks/whatsapp`).post(
    MetaWebhooks.notification(creds.phone_number_id, { messages }),
    creds.app_secret,
  );
  expect(res.status).toBe(200);
  return ids;
}

interface MediaRow {
  id: string;
  provider_media_id: string;
  status: string;
  size: number | null;
  sha256: string | null;
  attempts: number;
  claimed_by: string | null;
  message_id: number;
  conversation_id: number;
}
const rowsOf = (files: FakeMedia[]) =>
  db.sql<MediaRow>(
    `select a.id, a.provider_media_id, a.status, a.size, a.sha256, a.attempts, a.claimed_by, a.message_id, a.conversation_id
       from ai_media a where a.provider_media_id = any(?::text[])`,
    [`{${files.map((f) => f.id).join(',')}}`],
  );

async function until(check: () => Promise<boolean> | boolean, timeoutMs: number): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error('timed out');
    await sleep(50);
  }
}

/** The file as a client reads it through `s`. */
async function served(s: ServeProcess, row: MediaRow): Promise<Buffer> {
  const res = await fetch(`${s.base}/v400/en/acme/ai/conversations/${row.conversation_id}/messages/${row.message_id}/media`, {
    headers: { 'x-api-key': KEYS.server },
  });
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

for (const via of ['directly', 'through PgBouncer'] as const) {
  describe(`media downloads across serve processes (${via})`, () => {
    let url: string | null = null;
    let bouncer: PgBouncer | undefined;
    beforeAll(async () => {
      if (via === 'directly') {
        url = db.url;
        return;
      }
      const pooled = await pgbouncerFor(db.directUrl);
      if (typeof pooled === 'string') return console.log(`[media downloads serve] PgBouncer cases skipped: ${pooled}`);
      ({ url, bouncer } = pooled);
    }, 30_000);
    afterAll(async () => {
      await stopServe(servers);
      await bouncer?.stop();
    });
    const env: Record<string, string> = via === 'directly' ? {} : { DATABASE_PREPARED_STATEMENTS: 'false' };

    it('two processes: every file posted to either is downloaded exactly once and stored with its SHA-256', async (ctx) => {
      if (!url) return ctx.skip();
      const [a, b] = await Promise.all([serve(url, env), serve(url, env)]);
      const files = Array.from({ length: 16 }, (_, i) => file(`many-${via === 'directly' ? 'd' : 'p'}`, 40_000 + i * 37_000, fake));
      // four deliveries of four, alternating the processes, at once
      await Promise.all([0, 1, 2, 3].map((k) => deliver([a, b][k % 2], files.slice(k * 4, k * 4 + 4))));
      await until(async () => (await rowsOf(files)).every((r) => r.status !== 'pending'), 60_000);
      const rows = await rowsOf(files);
      expect(rows).toHaveLength(files.length);
      for (const f of files) {
        const row = rows.find((r) => r.provider_media_id === f.id)!;
        expect(row).toMatchObject({ status: 'stored', size: f.bytes.length, sha256: sha(f.bytes), attempts: 1, claimed_by: null });
        expect(fake.downloads.get(f.id)).toBe(1);
      }
      for (const [i, row] of rows.entries()) {
        const f = files.find((x) => x.id === row.provider_media_id)!;
        expect((await served([a, b][i % 2], row)).equals(f.bytes)).toBe(true);
      }
      await stopServe([a, b]);
    }, 180_000);

    it('SIGKILL mid-download: the other process resumes the file within 3 s of the death and stores the right bytes', async (ctx) => {
      if (!url) return ctx.skip();
      // the process that is going to die reads from a Cloud API that trickles this file (about 10 s for its 2 MB)
      const slow = await startWhatsAppFake();
      slow.addAccount({ ...creds, templates: [] });
      try {
        const f = file(`killed-${via === 'directly' ? 'd' : 'p'}`, 2 * 1024 * 1024, fake);
        slow.addMedia({ ...f, bytesPerSecond: 200_000 });
        const a = await serve(url, { ...env, WHATSAPP_API_URL: slow.url });
        await deliver(a, [f]);
        await until(() => slow.downloads.get(f.id) === 1, 15_000);
        const b = await serve(url, env);
        const [row] = await rowsOf([f]);
        // the kill lands mid-download: some of the file's rows are written, the rest still coming
        await until(async () => (await db.sql('select 1 from ai_media_chunks where media_id = ?', [row.id])).length >= 2, 20_000);
        expect((await rowsOf([f]))[0]).toMatchObject({ status: 'pending', attempts: 1, claimed_by: expect.any(String) });
        const killedAt = Date.now();
        a.child.kill('SIGKILL');
        await new Promise((r) => a.child.once('exit', r));
        await until(async () => (await rowsOf([f]))[0].status !== 'pending', 30_000);
        const resumed = fake.requests.find((r) => r.path.endsWith(`/${encodeURIComponent(f.id)}`) && r.method === 'GET')!;
        console.log(`[media downloads serve] ${via}: resumed ${resumed.at - killedAt} ms after the SIGKILL`);
        expect(resumed.at - killedAt).toBeLessThan(3000);
        const [done] = await rowsOf([f]);
        expect(done).toMatchObject({ status: 'stored', size: f.bytes.length, sha256: sha(f.bytes), attempts: 2, claimed_by: null });
        // one download each: the dead process's (cut short) and the survivor's
        expect([slow.downloads.get(f.id), fake.downloads.get(f.id)]).toEqual([1, 1]);
        expect((await served(b, done)).equals(f.bytes)).toBe(true);
        await stopServe([b]);
      } finally {
        await slow.close();
      }
    }, 180_000);
  });
}
