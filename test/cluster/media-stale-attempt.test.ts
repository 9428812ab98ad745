import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, TEST_CREDENTIALS_KEY, type TestDatabase } from '../support/db.js';
import { ensureEmitted } from '../support/dist.js';
import { baseFixture, KEYS } from '../support/fixtures.js';
import { startS3Server, type LocalS3 } from '../support/s3-server.js';
import { startServe, stopServe, type ServeProcess } from '../support/serve-process.js';
import { MetaWebhooks, startWhatsAppFake, type FakeMedia, type WhatsAppFake } from '../support/whatsapp-fake.js';

/**
 * A stale download attempt changes nothing (CONTRACT §12.7), across two real `serve` processes on
 * one database, with each store: process A claims an image and asks Meta for its URL; A is frozen
 * (SIGSTOP) before the answer comes; B declares it dead, takes the file over and stores it (attempt
 * 2). A then thaws (SIGCONT) and reads its answer: a file over the image limit, a final failure of
 * an attempt that no longer owns the file. That failure used to delete the file B stored (the row
 * still `stored`, every GET a 500); now the row, its bytes and every GET on either process stay.
 */
const AGENT = 1;
const creds = {
  waba_id: 'waba-media-stale',
  phone_number_id: 'pn-media-stale',
  access_token: 'EAAG-media-stale',
  app_secret: 'media-stale-secret',
  verify_token: 'verify-media-stale',
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
let s3: LocalS3 | { skip: string };
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
          name: 'WA stale',
          provider: 'whatsapp',
          provider_type: 'chat',
          provider_external_id: 'wa-media-stale',
          enabled: true,
          credentials: creds,
        },
      ],
    }),
  );
  s3 = await startS3Server();
  if ('skip' in s3) console.log(`[media stale attempt] S3 case skipped: ${s3.skip}`);
  await ensureEmitted('media-stale-attempt.test');
}, 300_000);
afterAll(async () => {
  for (const s of servers) if (s.child.exitCode === null) s.child.kill('SIGCONT');
  await stopServe(servers);
  await fake.close();
  if (s3 && !('skip' in s3)) await s3.close();
  await db.orm.close();
});

async function until(check: () => Promise<boolean> | boolean, timeoutMs: number): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error('timed out');
    await sleep(50);
  }
}

interface MediaRow {
  id: string;
  status: string;
  sha256: string | null;
  attempts: number;
  generation: number;
  storage: string;
  message_id: number;
  conversation_id: number;
}
const rowOf = async (f: FakeMedia) =>
  (
    await db.sql<MediaRow>(
      'select id, status, sha256, attempts, generation, storage, message_id, conversation_id from ai_media where provider_media_id = ?',
      [f.id],
    )
  )[0];

async function served(s: ServeProcess, row: MediaRow): Promise<{ status: number; bytes: Buffer }> {
  const res = await fetch(`${s.base}/v400/en/acme/ai/conversations/${row.conversation_id}/messages/${row.message_id}/media`, {
    headers: { 'x-api-key': KEYS.server },
  });
  return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) };
}

describe.each(['pg', 's3'] as const)('a stale download attempt (%s store)', (store) => {
  it('A frozen mid-attempt, B stores the file, A thaws and fails finally: the stored file stays, on both processes', async (t) => {
    if (store === 's3' && 'skip' in s3) return t.skip();
    const env: Record<string, string> = { ...ENV, ...(store === 's3' ? (s3 as LocalS3).env : {}) };
    // A reads from a Cloud API that answers A's URL request late, with a size over the image limit
    const slow = await startWhatsAppFake();
    slow.addAccount({ ...creds, templates: [] });
    let a: ServeProcess | undefined;
    let b: ServeProcess | undefined;
    try {
      const bytes = randomBytes(2 * 1024 * 1024);
      const f: FakeMedia = { id: `stale-${store}.${++seq}`, phone_number_id: creds.phone_number_id, bytes, mime_type: 'image/jpeg' };
      fake.addMedia(f);
      slow.addMedia({ ...f, file_size: 6 * 1024 * 1024 });
      slow.fail('media', { delayMs: 3000 }, { times: 1 });
      a = await startServe(db.url, { DATABASE_DIRECT_URL: db.directUrl, ...env, WHATSAPP_API_URL: slow.url });
      servers.push(a);
      const res = await new MetaWebhooks(`${a.base}/v400/en/acme/ai/webhooks/whatsapp`).post(
        MetaWebhooks.notification(creds.phone_number_id, {
          messages: [
            {
              id: `wamid.stale.${process.pid}.${++seq}`,
              from: '34710000001',
              type: 'image',
              extra: { image: { id: f.id, sha256: sha(bytes) } },
            },
          ],
        }),
        creds.app_secret,
      );
      expect(res.status).toBe(200);
      await until(() => slow.requests.some((r) => r.method === 'GET' && r.path.endsWith(`/${encodeURIComponent(f.id)}`)), 15_000);
      a.child.kill('SIGSTOP');
      b = await startServe(db.url, { DATABASE_DIRECT_URL: db.directUrl, ...env, WHATSAPP_API_URL: fake.url });
      servers.push(b);
      await until(async () => (await rowOf(f)).status !== 'pending', 30_000);
      const stored = await rowOf(f);
      expect(stored).toMatchObject({ status: 'stored', sha256: sha(bytes), attempts: 2, generation: 2, storage: store });
      // the delayed answer waits in A's socket: A reads it as soon as it runs again
      await sleep(3500);
      a.child.kill('SIGCONT');
      // for 5 s after A's final failure, the file stays whole on both processes
      const started = Date.now();
      while (Date.now() - started < 5000) {
        for (const s of [b, a]) {
          const got = await served(s, stored);
          expect([got.status, got.bytes.equals(bytes)]).toEqual([200, true]);
        }
        await sleep(250);
      }
      expect(await rowOf(f)).toMatchObject({ status: 'stored', attempts: 2, generation: 2 });
      if (store === 'pg') {
        const kept = await db.sql<{ attempt: number }>('select distinct attempt from ai_media_chunks where media_id = ?', [stored.id]);
        expect(kept.map((r) => r.attempt)).toEqual([2]);
      } else {
        expect((await (s3 as LocalS3).objects()).filter((k) => k.includes(stored.id))).toEqual([`media/${stored.id}.2`]);
      }
    } finally {
      if (a?.child.exitCode === null) a.child.kill('SIGCONT');
      await stopServe([a, b].filter((s): s is ServeProcess => !!s));
      await slow.close();
    }
  }, 180_000);
});
