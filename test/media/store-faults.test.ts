import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MediaObjectMissing,
  MediaStoreUnavailable,
  MediaWriteStalled,
  S3MediaStore,
  type MediaObject,
} from '../../src/services/media/index.js';
import { startS3Server, type LocalS3 } from '../support/s3-server.js';
import { S3FaultProxy } from '../support/s3-faults.js';

/**
 * The S3 media store under S3's faults (CONTRACT §12.7), against s3rver behind a fault proxy: a
 * write whose upload fails rejects at once (it used to wait forever for a 'drain' nobody would
 * give) and aborts its multipart upload, again once S3 is back; a write abandoned by its caller
 * (a stalled download) rejects with the reason; a connection cut mid-upload is retried; a missing
 * object and an unreachable S3 are told apart.
 */
const MB = 1024 * 1024;
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

let s3: LocalS3 | { skip: string };
let proxy: S3FaultProxy;
let seq = 0;

beforeAll(async () => {
  s3 = await startS3Server();
  if ('skip' in s3) return console.log(`S3 fault tests skipped: ${s3.skip}`);
  proxy = await S3FaultProxy.start(s3.endpoint);
});
afterAll(async () => {
  await proxy?.close();
  if (s3 && !('skip' in s3)) await s3.close();
});

const store = () => new S3MediaStore({ bucket: (s3 as LocalS3).bucket, endpoint: proxy.url, region: 'us-east-1', idleTimeoutMs: 3000 });
const file = (generation = 1): MediaObject => ({ id: `med_faults${process.pid}x${++seq}`, generation });

/** `bytes` in pieces of 256 KB; `at(offset)` runs before the piece at that offset is given. */
function pieces(bytes: Buffer, at?: (offset: number) => Promise<void>): Readable {
  return Readable.from(
    (async function* () {
      for (let i = 0; i < bytes.length; i += 256 * 1024) {
        await at?.(i);
        yield bytes.subarray(i, i + 256 * 1024);
      }
    })(),
  );
}

async function collect(r: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of r) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

/** The write's outcome within `ms`, or 'hung'. */
function within(ms: number, p: Promise<unknown>): Promise<unknown> {
  return Promise.race([
    p.then(
      () => 'stored',
      (err: unknown) => err,
    ),
    sleep(ms).then(() => 'hung'),
  ]);
}

async function until(check: () => Promise<boolean>, ms: number): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > ms) throw new Error(`not within ${ms} ms`);
    await sleep(100);
  }
}

describe('the S3 media store under faults', () => {
  it('S3 stopped mid-upload: the write rejects within seconds naming the S3 store, and its multipart upload is aborted once S3 is back', async (t) => {
    if ('skip' in s3) return t.skip();
    const local = s3;
    const s = store();
    const f = file();
    const bytes = randomBytes(20 * MB);
    let stoppedAt = 0;
    try {
      const write = s.write(
        f,
        pieces(bytes, async (offset) => {
          if (offset !== 8 * MB) return;
          // the first part is uploaded: the multipart upload exists
          await until(async () => (await local.incompleteUploads()).length > 0, 10_000);
          await proxy.down();
          stoppedAt = Date.now();
        }),
        { maxBytes: bytes.length, expectedSha256: sha(bytes) },
      );
      const outcome = await within(15_000, write);
      expect(outcome).not.toBe('hung');
      expect(outcome).toBeInstanceOf(MediaStoreUnavailable);
      expect((outcome as Error).message).toMatch(/^the S3 media store is unavailable/);
      console.log(`[store faults] the write rejected ${Date.now() - stoppedAt} ms after S3 stopped`);
      expect(await local.incompleteUploads()).toEqual([`media/${f.id}.1`]);
      await proxy.up();
      // the abort failed while S3 was down: it is tried again
      await until(async () => (await local.incompleteUploads()).length === 0, 15_000);
      expect((await local.objects()).filter((k) => k.includes(f.id))).toEqual([]);
    } finally {
      await proxy.up();
      s.close();
    }
  }, 60_000);

  it('S3 stopped before the write: a small file and a large one both reject at once, nothing kept', async (t) => {
    if ('skip' in s3) return t.skip();
    const s = store();
    await proxy.down();
    try {
      for (const size of [12 * MB, MB]) {
        const bytes = randomBytes(size);
        // the bytes arrive as from Meta, a little at a time: the store waits for them when its upload fails
        const outcome = await within(
          10_000,
          s.write(
            file(),
            pieces(bytes, () => sleep(20)),
            { maxBytes: size, expectedSha256: sha(bytes) },
          ),
        );
        expect(outcome).not.toBe('hung');
        expect(outcome).toBeInstanceOf(MediaStoreUnavailable);
      }
    } finally {
      await proxy.up();
      s.close();
    }
  }, 60_000);

  it('S3 frozen: a write its caller abandons (no progress) rejects at once with the reason, and its upload is aborted', async (t) => {
    if ('skip' in s3) return t.skip();
    const local = s3;
    const s = store();
    const f = file();
    const bytes = randomBytes(16 * MB);
    const abandon = new AbortController();
    try {
      const write = s.write(
        f,
        pieces(bytes, async (offset) => {
          if (offset !== 6 * MB) return;
          await until(async () => (await local.incompleteUploads()).length > 0, 10_000);
          proxy.hold();
          setTimeout(() => abandon.abort(new MediaWriteStalled(1000)), 1000);
        }),
        { maxBytes: bytes.length, expectedSha256: sha(bytes), signal: abandon.signal },
      );
      const outcome = await within(5000, write);
      expect(outcome).toBeInstanceOf(MediaWriteStalled);
      proxy.release();
      await until(async () => (await local.incompleteUploads()).length === 0, 15_000);
      expect((await local.objects()).filter((k) => k.includes(f.id))).toEqual([]);
    } finally {
      proxy.release();
      s.close();
    }
  }, 60_000);

  it('the answer to CreateMultipartUpload lost: the upload S3 made is found by its key and aborted', async (t) => {
    if ('skip' in s3) return t.skip();
    const local = s3;
    const s = store();
    const f = file();
    const bytes = randomBytes(8 * MB);
    const abandon = new AbortController();
    try {
      const write = s.write(
        f,
        pieces(bytes, async (offset) => {
          if (offset !== 0) return;
          proxy.hold('answers');
          setTimeout(() => abandon.abort(new MediaWriteStalled(1000)), 1500);
        }),
        { maxBytes: bytes.length, expectedSha256: sha(bytes), signal: abandon.signal },
      );
      expect(await within(5000, write)).toBeInstanceOf(MediaWriteStalled);
      // S3 made the upload; the store never learnt its id
      expect(await local.incompleteUploads()).toEqual([`media/${f.id}.1`]);
      proxy.release();
      await until(async () => (await local.incompleteUploads()).length === 0, 15_000);
    } finally {
      proxy.release();
      s.close();
    }
  }, 60_000);

  it('a connection cut mid-upload: its part is sent again and the file is stored whole', async (t) => {
    if ('skip' in s3) return t.skip();
    const local = s3;
    const s = store();
    const f = file();
    const bytes = randomBytes(12 * MB);
    const cuts = proxy.cuts;
    proxy.cutAfter(3 * MB);
    try {
      expect(await s.write(f, pieces(bytes), { maxBytes: bytes.length, expectedSha256: sha(bytes) })).toEqual({
        size: bytes.length,
        sha256: sha(bytes),
      });
      expect(proxy.cuts).toBe(cuts + 1);
      expect((await collect(await s.read(f))).equals(bytes)).toBe(true);
      expect(await local.incompleteUploads()).toEqual([]);
    } finally {
      proxy.cutAfter(null);
      s.close();
    }
  }, 60_000);

  it('tells a missing object (MediaObjectMissing) from an unreachable S3 (MediaStoreUnavailable)', async (t) => {
    if ('skip' in s3) return t.skip();
    const s = store();
    try {
      await expect(s.read(file())).rejects.toBeInstanceOf(MediaObjectMissing);
      await proxy.down();
      const err = await s.read(file()).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(MediaStoreUnavailable);
      expect(err).toMatchObject({ dependency: 'S3 media store', message: expect.stringContaining('ECONNREFUSED') });
    } finally {
      await proxy.up();
      s.close();
    }
  }, 30_000);
});
