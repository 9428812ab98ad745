import { PassThrough, Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import { ByteMeter, type MediaStore, type MediaWriteOptions } from './store.js';

export interface S3StoreOptions {
  bucket: string;
  /** MEDIA_S3_ENDPOINT: an S3-compatible server (MinIO, R2, a test's s3rver); absent: AWS. */
  endpoint?: string;
  region: string;
}

/**
 * Files in an S3-compatible bucket (MEDIA_S3_BUCKET), one object per file (`media/{id}`), with the
 * standard AWS credential chain (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, profiles, roles).
 * Path-style addressing, so any endpoint works. Writes are multipart uploads (lib-storage's
 * `Upload`: parts of 5 MB, a few in flight) fed as the bytes arrive; a write over its limit aborts
 * the upload, and bytes whose hash does not match are deleted.
 */
export class S3MediaStore implements MediaStore {
  readonly kind = 's3' as const;
  private readonly sdk: Promise<Sdk>;

  constructor(private readonly opts: S3StoreOptions) {
    this.sdk = loadSdk(opts);
    this.sdk.catch(() => undefined); // a failed load fails each call that needs it
  }

  async write(mediaId: string, body: Readable, opts: MediaWriteOptions): Promise<{ size: number; sha256: string }> {
    const { Upload, client } = await this.sdk;
    const meter = new ByteMeter(opts);
    const counted = new PassThrough();
    const upload = new Upload({
      client,
      params: { Bucket: this.opts.bucket, Key: key(mediaId), Body: counted, ContentType: opts.mimeType ?? 'application/octet-stream' },
      queueSize: 2,
    });
    const uploaded = upload.done();
    uploaded.catch(() => undefined);
    try {
      for await (const chunk of body) {
        const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
        meter.add(buf);
        if (!counted.write(buf))
          await new Promise<void>((resolve, reject) => {
            counted.once('drain', resolve);
            counted.once('error', reject);
          });
      }
      counted.end();
      await uploaded;
      return meter.finish();
    } catch (err) {
      body.destroy();
      counted.destroy();
      await upload.abort().catch(() => undefined);
      await uploaded.catch(() => undefined);
      await this.remove(mediaId).catch(() => undefined);
      throw err;
    }
  }

  async read(mediaId: string, range?: { start: number; end: number }): Promise<Readable> {
    const { s3, client } = await this.sdk;
    const out = await client.send(
      new s3.GetObjectCommand({
        Bucket: this.opts.bucket,
        Key: key(mediaId),
        Range: range ? `bytes=${range.start}-${range.end}` : undefined,
      }),
    );
    const body = out.Body as Readable;
    // at most the range's length, whatever the server answers (s3rver reads `bytes=0-0` as the whole object)
    return range ? Readable.from(take(body, range.end - range.start + 1), { objectMode: false }) : body;
  }

  async remove(mediaId: string): Promise<void> {
    const { s3, client } = await this.sdk;
    try {
      await client.send(new s3.DeleteObjectCommand({ Bucket: this.opts.bucket, Key: key(mediaId) }));
    } catch (err) {
      if (!(err instanceof s3.NoSuchKey)) throw err;
    }
  }

  close(): void {
    void this.sdk.then(
      ({ client }) => client.destroy(),
      () => undefined,
    );
  }
}

interface Sdk {
  s3: typeof import('@aws-sdk/client-s3');
  Upload: typeof import('@aws-sdk/lib-storage').Upload;
  client: S3Client;
}

/** The AWS SDK, loaded when a store is made: a process without MEDIA_S3_BUCKET never loads it (about 3 MB of heap kept for its life). */
async function loadSdk(opts: S3StoreOptions): Promise<Sdk> {
  const [s3, { Upload }] = await Promise.all([import('@aws-sdk/client-s3'), import('@aws-sdk/lib-storage')]);
  return { s3, Upload, client: new s3.S3Client({ region: opts.region, endpoint: opts.endpoint, forcePathStyle: true }) };
}

const key = (mediaId: string) => `media/${mediaId}`;

async function* take(body: Readable, n: number): AsyncGenerator<Buffer> {
  let left = n;
  try {
    for await (const chunk of body) {
      const buf = chunk as Buffer;
      if (buf.length >= left) {
        yield buf.subarray(0, left);
        return;
      }
      left -= buf.length;
      yield buf;
    }
  } finally {
    body.destroy();
  }
}
