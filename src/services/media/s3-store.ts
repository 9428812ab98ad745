import { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import {
  aborted,
  ByteMeter,
  MediaObjectMissing,
  MediaStoreUnavailable,
  type MediaObject,
  type MediaStore,
  type MediaWriteOptions,
} from './store.js';

export interface S3StoreOptions {
  bucket: string;
  /** MEDIA_S3_ENDPOINT: an S3-compatible server (MinIO, R2, a test's s3rver); absent: AWS. */
  endpoint?: string;
  region: string;
  /** A request whose socket stays silent this long fails (MEDIA_STALL_MS; default 60 s). */
  idleTimeoutMs?: number;
}

/** The size of every part of a multipart upload but the last (S3's smallest), and the parts of one file in flight at once. */
const PART_BYTES = 5 * 1024 * 1024;
const PARTS_IN_FLIGHT = 2;
/** A multipart upload whose abort failed (S3 down) is aborted again this often, for at most this long (then the bucket's lifecycle rule). */
const ABORT_RETRY_MS = 5000;
const ABORT_RETRY_FOR_MS = 3600_000;

/**
 * Files in an S3-compatible bucket (MEDIA_S3_BUCKET), one object per file and attempt
 * (`media/{id}.{attempt}`; `media/{id}` for uploads and files stored before attempts named their
 * bytes), with the standard AWS credential chain (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY,
 * profiles, roles). Path-style addressing, so any endpoint works.
 *
 * A write is a multipart upload fed as the bytes arrive (parts of 5 MB, two in flight: at most about
 * 15 MB of a file in memory), or one PutObject for a file under 5 MB; the hash is checked before
 * the upload is completed, so an object never holds bytes that are not the expected ones. Any
 * failure (S3 unreachable or failing, the limit, the hash, the caller's signal) rejects the write at
 * once, cancels the requests in flight and aborts the multipart upload (tried again every 5 s while
 * S3 is down; the bucket's AbortIncompleteMultipartUpload rule covers a process that dies).
 * S3's failures are MediaStoreUnavailable, a missing object MediaObjectMissing.
 */
export class S3MediaStore implements MediaStore {
  readonly kind = 's3' as const;
  private readonly sdk: Promise<Sdk>;
  private readonly retries = new Set<NodeJS.Timeout>();
  private closed = false;

  constructor(private readonly opts: S3StoreOptions) {
    this.sdk = loadSdk(opts);
    this.sdk.catch(() => undefined); // a failed load fails each call that needs it
  }

  async write(file: MediaObject, body: Readable, opts: MediaWriteOptions): Promise<{ size: number; sha256: string }> {
    const sdk = await this.loaded();
    const { s3 } = sdk;
    const Key = key(file);
    const Bucket = this.opts.bucket;
    const meter = new ByteMeter(opts);
    const stop = aborted(opts.signal, body);
    // cancels this write's requests in flight, whoever ends it (the caller's signal, or a failure here)
    const local = new AbortController();
    const signal = opts.signal ? AbortSignal.any([opts.signal, local.signal]) : local.signal;
    const send = <T>(command: unknown) => Promise.race([this.send<T>(sdk, command, signal), stop.promise]);
    let uploadId: string | undefined;
    let creating = false;
    let finishing = false;
    let failure: Error | undefined;
    const parts: { PartNumber: number; ETag?: string }[] = [];
    const inFlight = new Set<Promise<void>>();
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const take = (n: number): Buffer => {
      const all = pending.length === 1 ? pending[0] : Buffer.concat(pending);
      const rest = all.subarray(n);
      pending = rest.length ? [rest] : [];
      pendingBytes = rest.length;
      return all.subarray(0, n);
    };
    const putPart = async (data: Buffer) => {
      creating = true;
      uploadId ??= (await send<{ UploadId?: string }>(new s3.CreateMultipartUploadCommand({ Bucket, Key, ContentType: contentType(opts) })))
        .UploadId;
      const part: { PartNumber: number; ETag?: string } = { PartNumber: parts.length + 1 };
      parts.push(part);
      const sent = send<{ ETag?: string }>(
        new s3.UploadPartCommand({ Bucket, Key, UploadId: uploadId, PartNumber: part.PartNumber, Body: data, ContentLength: data.length }),
      ).then(
        (out) => void (part.ETag = out.ETag),
        (err: Error) => void (failure ??= err),
      );
      inFlight.add(sent);
      void sent.finally(() => inFlight.delete(sent));
      while (inFlight.size >= PARTS_IN_FLIGHT && !failure) await Promise.race(inFlight);
      if (failure) throw failure;
    };
    try {
      for await (const chunk of body) {
        if (failure) throw failure;
        const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
        meter.add(buf);
        pending.push(buf);
        pendingBytes += buf.length;
        while (pendingBytes >= PART_BYTES) await putPart(take(PART_BYTES));
      }
      if (opts.signal?.aborted) throw opts.signal.reason;
      const result = meter.finish();
      if (!uploadId) {
        const data = take(pendingBytes);
        finishing = true;
        await send(new s3.PutObjectCommand({ Bucket, Key, Body: data, ContentLength: data.length, ContentType: contentType(opts) }));
        return result;
      }
      if (pendingBytes > 0) await putPart(take(pendingBytes));
      await Promise.race([Promise.all(inFlight), stop.promise]);
      if (failure) throw failure;
      finishing = true;
      await send(new s3.CompleteMultipartUploadCommand({ Bucket, Key, UploadId: uploadId, MultipartUpload: { Parts: parts } }));
      return result;
    } catch (err) {
      local.abort(err);
      body.destroy();
      if (creating) this.abortUploads(sdk, Key, uploadId, Date.now());
      // the last request may have stored the object though its answer was lost: this attempt's own key, never another's
      if (finishing) void this.send(sdk, new s3.DeleteObjectCommand({ Bucket, Key })).catch(() => undefined);
      throw err;
    } finally {
      stop.off();
    }
  }

  async read(file: MediaObject, range?: { start: number; end: number }): Promise<Readable> {
    const sdk = await this.loaded();
    let out: { Body?: unknown };
    try {
      out = await sdk.client.send(
        new sdk.s3.GetObjectCommand({
          Bucket: this.opts.bucket,
          Key: key(file),
          Range: range ? `bytes=${range.start}-${range.end}` : undefined,
        }),
      );
    } catch (err) {
      if (isMissing(err)) throw new MediaObjectMissing('s3');
      throw new MediaStoreUnavailable('s3', err);
    }
    const body = out.Body as Readable;
    // at most the range's length, whatever the server answers (s3rver reads `bytes=0-0` as the whole object)
    return range ? Readable.from(take(body, range.end - range.start + 1), { objectMode: false }) : body;
  }

  async remove(file: MediaObject): Promise<void> {
    const sdk = await this.loaded();
    await this.send(sdk, new sdk.s3.DeleteObjectCommand({ Bucket: this.opts.bucket, Key: key(file) }));
  }

  async removeOthers(file: MediaObject): Promise<void> {
    const sdk = await this.loaded();
    const keep = key(file);
    const listed = await this.send<{ Contents?: { Key?: string }[] }>(
      sdk,
      new sdk.s3.ListObjectsV2Command({ Bucket: this.opts.bucket, Prefix: `${key({ id: file.id })}.` }),
    );
    const others = (listed.Contents ?? []).map((o) => o.Key).filter((k): k is string => !!k && k !== keep);
    if (file.generation) others.push(key({ id: file.id }));
    for (const Key of others) await this.send(sdk, new sdk.s3.DeleteObjectCommand({ Bucket: this.opts.bucket, Key }));
  }

  close(): void {
    this.closed = true;
    for (const t of this.retries) clearTimeout(t);
    this.retries.clear();
    void this.sdk.then(
      ({ client }) => client.destroy(),
      () => undefined,
    );
  }

  private async loaded(): Promise<Sdk> {
    try {
      return await this.sdk;
    } catch (err) {
      throw new MediaStoreUnavailable('s3', err);
    }
  }

  /** One request; S3's failure as MediaStoreUnavailable, an abort as the signal's reason. */
  private async send<T>(sdk: Sdk, command: unknown, signal?: AbortSignal): Promise<T> {
    try {
      return (await sdk.client.send(command as never, { abortSignal: signal })) as T;
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      throw new MediaStoreUnavailable('s3', err);
    }
  }

  /**
   * Aborts the multipart upload of `Key` that will not be completed (`known`, or the ones S3 lists
   * under the key when the answer to CreateMultipartUpload was lost: the key is this attempt's
   * own); while S3 cannot be reached, again every ABORT_RETRY_MS.
   */
  private abortUploads(sdk: Sdk, Key: string, known: string | undefined, since: number): void {
    if (this.closed) return;
    this.abortOnce(sdk, Key, known).catch(() => {
      if (this.closed || Date.now() - since > ABORT_RETRY_FOR_MS) return;
      const retry = setTimeout(() => {
        this.retries.delete(retry);
        this.abortUploads(sdk, Key, known, since);
      }, ABORT_RETRY_MS);
      retry.unref();
      this.retries.add(retry);
    });
  }

  private async abortOnce(sdk: Sdk, Key: string, known: string | undefined): Promise<void> {
    const Bucket = this.opts.bucket;
    const ids = known
      ? [known]
      : (
          (
            await this.send<{ Uploads?: { Key?: string; UploadId?: string }[] }>(
              sdk,
              new sdk.s3.ListMultipartUploadsCommand({ Bucket, Prefix: Key }),
            )
          ).Uploads ?? []
        )
          .filter((u) => u.Key === Key && u.UploadId)
          .map((u) => u.UploadId!);
    for (const UploadId of ids)
      await this.send(sdk, new sdk.s3.AbortMultipartUploadCommand({ Bucket, Key, UploadId })).catch((err: MediaStoreUnavailable) => {
        if ((err.cause as { name?: string })?.name !== 'NoSuchUpload') throw err;
      });
  }
}

interface Sdk {
  s3: typeof import('@aws-sdk/client-s3');
  client: S3Client;
}

/** The AWS SDK, loaded when a store is made: a process without MEDIA_S3_BUCKET never loads it (about 3 MB of heap kept for its life). */
async function loadSdk(opts: S3StoreOptions): Promise<Sdk> {
  const s3 = await import('@aws-sdk/client-s3');
  const idle = opts.idleTimeoutMs ?? 60_000;
  return {
    s3,
    client: new s3.S3Client({
      region: opts.region,
      endpoint: opts.endpoint,
      forcePathStyle: true,
      // a request silent for the stall bound fails (no byte moves either way), and a connection that does not open within 5 s
      requestHandler: { socketTimeout: idle, connectionTimeout: Math.min(idle, 5000) },
    }),
  };
}

/** The object of a file's bytes: `media/{id}.{attempt}`, or `media/{id}` (generation 0: uploads, files stored before). */
const key = (file: MediaObject) => (file.generation ? `media/${file.id}.${file.generation}` : `media/${file.id}`);

const contentType = (opts: MediaWriteOptions) => opts.mimeType ?? 'application/octet-stream';

/** S3's answer for a key it does not have (not a missing bucket: that is the store's configuration). */
function isMissing(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NoSuchKey' || (e?.$metadata?.httpStatusCode === 404 && e.name !== 'NoSuchBucket');
}

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
