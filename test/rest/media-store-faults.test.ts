import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { S3MediaStore } from '../../src/services/media/index.js';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';
import { startMessageOutboxes } from '../support/message-outboxes.js';
import { S3FaultProxy } from '../support/s3-faults.js';
import { startS3Server, type LocalS3 } from '../support/s3-server.js';
import { MetaWebhooks, startWhatsAppFake, type WhatsAppFake } from '../support/whatsapp-fake.js';

/**
 * Inbound files in an S3 bucket whose S3 fails (CONTRACT §12.7), over HTTP with the downloader
 * running as `serve` runs it, s3rver behind a fault proxy:
 * - a stored file whose object is missing answers 502 ERROR_AI_MEDIA_UNAVAILABLE naming the reason
 *   (it was a 500), an S3 that cannot be reached 503 with Retry-After, logged naming the S3 store and
 *   never as the database (under both engines);
 * - a large file delivered while S3 is down is stored once S3 is back (its attempts used to hang);
 * - an attempt whose store accepts nothing for MEDIA_STALL_MS is abandoned and retried, and the
 *   file is stored once S3 moves again; its lease is not renewed while nothing moves (it used to be
 *   renewed for as long as the attempt hung).
 */
const MB = 1024 * 1024;
const base = (e: number) => 600 + e;
const secret = (id: number) => `faults-secret-${id}`;
const phone = (id: number) => `pnf${id}`;
const creds = (id: number) => ({
  waba_id: `wabaf${id}`,
  phone_number_id: phone(id),
  access_token: `EAAG-faults-${id}`,
  app_secret: secret(id),
  verify_token: `verify-f-${id}`,
});
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

let db: TestDatabase;
let fake: WhatsAppFake;
let s3: LocalS3 | { skip: string };
let proxy: S3FaultProxy;
let seq = 0;

beforeAll(async () => {
  db = await createTestDatabase();
  fake = await startWhatsAppFake();
  const agents = [0, 1, 2].map((e) => {
    const id = base(e);
    fake.addAccount({ ...creds(id), templates: [] });
    return {
      id,
      business_id: 1,
      name: `F${id}`,
      provider: 'whatsapp',
      provider_type: 'chat',
      provider_external_id: `faults-${id}`,
      enabled: true,
      credentials: creds(id),
    };
  });
  await db.load(baseFixture({ agents }));
  s3 = await startS3Server();
  if ('skip' in s3) return console.log(`S3 fault tests skipped: ${s3.skip}`);
  proxy = await S3FaultProxy.start(s3.endpoint);
}, 60_000);
afterAll(async () => {
  await proxy?.close();
  if (s3 && !('skip' in s3)) await s3.close();
  await fake.close();
  await db.orm.close();
});

async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, timeoutMs: number): Promise<T> {
  const started = Date.now();
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out; last: ${JSON.stringify(v)}`);
    await sleep(50);
  }
}

interface Harness {
  t: TestApp;
  logs: string[];
  deliver(type: 'image' | 'document', bytes: Buffer, mime: string, bytesPerSecond?: number): Promise<Record<string, any>>;
  media(m: Record<string, any>, lang?: string): ReturnType<TestApp['api']>;
  stop(): Promise<void>;
}

/** An app on a socket with the downloader running against the bucket through the proxy. */
async function harness(engine: (typeof ENGINES)[number], agent: number, stallMs = 1500): Promise<Harness> {
  const logs: string[] = [];
  const local = s3 as LocalS3;
  const t = await startApp(engine, db, {
    config: {
      whatsappApiUrl: fake.url,
      providerTimeoutMs: 2000,
      logLevel: 'info',
      media: {
        ...loadConfig({}).media,
        retryBaseMs: 50,
        pollMs: 100,
        stallMs,
        s3: { bucket: local.bucket, endpoint: proxy.url, region: 'us-east-1' },
      },
    },
    logStream: { write: (line: string) => void logs.push(line) },
  });
  const origin = await t.listen();
  const stopOutboxes = startMessageOutboxes(t, db, fake.url);
  const meta = new MetaWebhooks(`${origin}/v400/en/acme/ai/webhooks/whatsapp`);
  return {
    t,
    logs,
    deliver: async (type, bytes, mime, bytesPerSecond) => {
      const file = fake.addMedia({
        id: `mf${process.pid}.${++seq}`,
        phone_number_id: phone(agent),
        bytes,
        mime_type: mime,
        bytesPerSecond,
      });
      const id = `wamid.faults.${process.pid}.${++seq}`;
      const res = await meta.post(
        MetaWebhooks.notification(phone(agent), {
          messages: [{ id, from: `3479${String(++seq).padStart(7, '0')}`, type, extra: { [type]: { id: file.id, sha256: sha(bytes) } } }],
        }),
        secret(agent),
      );
      expect(res.status).toBe(200);
      const [m] = await db.sql<Record<string, any>>('select * from ai_messages where external_id = ?', [id]);
      return m;
    },
    media: (m, lang) => t.api({ path: `/ai/conversations/${m.conversation_id}/messages/${m.id}/media`, key: KEYS.server, lang }),
    stop: async () => {
      await stopOutboxes();
      await t.close();
    },
  };
}

const rowOf = async (m: Record<string, any>) =>
  (await db.sql<Record<string, any>>('select * from ai_media where id = ?', [m.payload.media.id]))[0];

describe.each(ENGINES.map((engine, e) => [engine, e] as const))('a file the S3 store cannot give (%s)', (engine, e) => {
  it('missing object: 502 ERROR_AI_MEDIA_UNAVAILABLE naming the reason; S3 unreachable: 503 with Retry-After, logged naming the S3 store', async (t) => {
    if ('skip' in s3) return t.skip();
    const local = s3;
    const h = await harness(engine, base(e));
    try {
      const bytes = randomBytes(150_000);
      const m = await h.deliver('image', bytes, 'image/jpeg');
      const ok = await until(
        () => h.media(m),
        (r) => r.statusCode !== 409,
        15_000,
      );
      expect(ok.statusCode).toBe(200);
      expect(ok.rawPayload.equals(bytes)).toBe(true);

      await proxy.down();
      try {
        const down = await h.media(m);
        expect([down.statusCode, down.json().code]).toEqual([503, 'ERROR_SERVICE_UNAVAILABLE']);
        expect(Number(down.headers['retry-after'])).toBeGreaterThan(0);
      } finally {
        await proxy.up();
      }
      expect(h.logs.some((l) => l.includes('S3 media store unavailable'))).toBe(true);
      expect(h.logs.filter((l) => /database unavailable/i.test(l))).toEqual([]);

      const row = await rowOf(m);
      const direct = new S3MediaStore({ bucket: local.bucket, endpoint: local.endpoint, region: 'us-east-1' });
      await direct.remove({ id: row.id, generation: row.generation });
      direct.close();
      const missing = await h.media(m);
      expect([missing.statusCode, missing.json().code]).toEqual([502, 'ERROR_AI_MEDIA_UNAVAILABLE']);
      expect(missing.json().result.join(' ')).toContain('the file is missing from the S3 media store');
      const es = await h.media(m, 'es');
      expect(es.json().result.join(' ')).toContain('No se puede servir el archivo guardado');
    } finally {
      await h.stop();
    }
  }, 60_000);
});

describe('downloads into an S3 store that fails', () => {
  it('a 20 MB document delivered while S3 is down is stored once S3 is back, one object and no incomplete upload', async (t) => {
    if ('skip' in s3) return t.skip();
    const local = s3;
    const h = await harness('mercurius', base(2));
    try {
      await proxy.down();
      const bytes = randomBytes(20 * MB);
      let m: Record<string, any>;
      try {
        // the bytes come from Meta at about 8 MB/s, as a real download does
        m = await h.deliver('document', bytes, 'application/pdf', 8 * MB);
        await until(
          () => rowOf(m),
          (r) => r.attempts >= 2 && /S3 media store is unavailable/.test(r.last_error ?? ''),
          20_000,
        );
      } finally {
        await proxy.up();
      }
      const backAt = Date.now();
      const row = await until(
        () => rowOf(m),
        (r) => r.status !== 'pending',
        30_000,
      );
      console.log(`[media store faults] stored ${Date.now() - backAt} ms after S3 came back, attempt ${row.attempts}`);
      expect(row).toMatchObject({ status: 'stored', sha256: sha(bytes), size: bytes.length, generation: row.attempts });
      expect((await h.media(m)).rawPayload.equals(bytes)).toBe(true);
      await until(
        () => local.incompleteUploads(),
        (u) => u.length === 0,
        15_000,
      );
      expect((await local.objects()).filter((k) => k.includes(row.id))).toEqual([`media/${row.id}.${row.attempts}`]);
    } finally {
      await h.stop();
    }
  }, 120_000);

  it('S3 frozen: an attempt without progress for MEDIA_STALL_MS is abandoned and retried; stored once S3 moves again', async (t) => {
    if ('skip' in s3) return t.skip();
    const local = s3;
    const h = await harness('mercurius', base(2));
    try {
      proxy.hold();
      const bytes = randomBytes(12 * MB);
      let m: Record<string, any>;
      try {
        m = await h.deliver('document', bytes, 'application/pdf');
        const stalled = await until(
          () => rowOf(m),
          (r) => r.attempts >= 2 && /no progress for 1.5 s/.test(r.last_error ?? ''),
          20_000,
        );
        expect(stalled.status).toBe('pending');
      } finally {
        proxy.release();
      }
      const row = await until(
        () => rowOf(m),
        (r) => r.status !== 'pending',
        30_000,
      );
      expect(row).toMatchObject({ status: 'stored', sha256: sha(bytes), generation: row.attempts });
      expect((await h.media(m)).rawPayload.equals(bytes)).toBe(true);
      await until(
        () => local.incompleteUploads(),
        (u) => u.length === 0,
        20_000,
      );
      expect((await local.objects()).filter((k) => k.includes(row.id))).toEqual([`media/${row.id}.${row.attempts}`]);
    } finally {
      await h.stop();
    }
  }, 120_000);

  it('S3 frozen: the lease of an attempt whose bytes do not move is not renewed; another claim takes the file before MEDIA_STALL_MS', async (t) => {
    if ('skip' in s3) return t.skip();
    // a lease of 4 s (the provider deadline of 2 s + 2 s), renewed every 1.3 s while bytes move; a stall bound of 20 s
    const h = await harness('mercurius', base(2), 20_000);
    try {
      proxy.hold();
      const bytes = randomBytes(12 * MB);
      let m: Record<string, any>;
      try {
        m = await h.deliver('document', bytes, 'application/pdf');
        const started = Date.now();
        const taken = await until(
          () => rowOf(m),
          (r) => r.attempts >= 2,
          15_000,
        );
        console.log(`[media store faults] a second claim took the frozen attempt's file ${Date.now() - started} ms after the delivery`);
        expect(taken.status).toBe('pending');
      } finally {
        proxy.release();
      }
      const row = await until(
        () => rowOf(m),
        (r) => r.status !== 'pending',
        30_000,
      );
      expect(row).toMatchObject({ status: 'stored', sha256: sha(bytes), generation: row.attempts });
      expect((await h.media(m)).rawPayload.equals(bytes)).toBe(true);
    } finally {
      await h.stop();
    }
  }, 120_000);
});
