import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { MediaStorage } from '../../entities/ai-media.js';

/**
 * Where the bytes of stored files live (CONTRACT §12.3): PostgreSQL (pg-store.ts, the default) or an
 * S3-compatible bucket (s3-store.ts, when MEDIA_S3_BUCKET is set). Files are streamed in and out,
 * never held whole in memory.
 *
 * Bytes are named by the file and the download attempt that wrote them (`MediaObject`, CONTRACT
 * §12.7), in both stores: an attempt writes and deletes only its own bytes, and the row says whose
 * bytes it holds (`ai_media.generation`, set with `stored` in the update that is conditional on the
 * attempt). A stale attempt (its file taken over by another process) therefore changes nothing
 * another attempt stored, whatever the store.
 */
export interface MediaStore {
  readonly kind: MediaStorage;
  /**
   * Stores `body` as `file`, hashing and counting it as it streams. Over `maxBytes` (MediaTooLarge),
   * a hash other than `expectedSha256` (MediaHashMismatch), the store failing (MediaStoreUnavailable)
   * or `signal` aborted (its reason): nothing of this attempt is kept.
   */
  write(file: MediaObject, body: Readable, opts: MediaWriteOptions): Promise<{ size: number; sha256: string }>;
  /** The bytes, or the inclusive range `start`–`end` of them. MediaObjectMissing / MediaStoreUnavailable when the store cannot give them. */
  read(file: MediaObject, range?: { start: number; end: number }): Promise<Readable>;
  /** Forgets these bytes (nothing when there are none). */
  remove(file: MediaObject): Promise<void>;
  /** Forgets the bytes of every other attempt of the file (what attempts that died or lost left behind). */
  removeOthers(file: MediaObject): Promise<void>;
  close?(): void;
}

/** A file's bytes: its id and the attempt that wrote them (`generation`; 0 or absent: an upload, or bytes stored before attempts named them). */
export interface MediaObject {
  id: string;
  generation?: number | null;
}

export interface MediaWriteOptions {
  maxBytes: number;
  /** What the size limit is called in the error (`image limit of 5 MB`, `MEDIA_MAX_BYTES`). */
  limitName?: string;
  /** Lowercase hex. */
  expectedSha256?: string | null;
  mimeType?: string | null;
  /** Abandons the write: it rejects with the signal's reason and keeps nothing. */
  signal?: AbortSignal;
  /** Told of every piece of bytes the store accepted (the download's progress). */
  onBytes?: (n: number) => void;
}

/** A file over its limit: `reason` names the limit. */
export class MediaTooLarge extends Error {
  constructor(readonly limit: string) {
    super(`the file is larger than the ${limit}`);
  }
}

/** Bytes whose SHA-256 is not the expected one. */
export class MediaHashMismatch extends Error {
  constructor() {
    super('the SHA-256 of the bytes does not match the provider’s');
  }
}

/** A download whose job moved to another attempt (its lease ran out): its result belongs to the next one. */
export class MediaWriteSuperseded extends Error {
  constructor() {
    super('superseded by a later attempt');
  }
}

/** A download that made no progress for MEDIA_STALL_MS: abandoned, retried like a timeout. */
export class MediaWriteStalled extends Error {
  constructor(readonly ms: number) {
    super(`no progress for ${ms / 1000} s`);
  }
}

/**
 * A store that cannot be reached or fails (S3 down, refusing, too slow): 503 with Retry-After where a
 * request meets it, a retry for a download. `dependency` names the store, so the failure is never
 * taken for the database's (db/unavailable.ts) and its log line says which store failed.
 */
export class MediaStoreUnavailable extends Error {
  readonly dependency: string;

  constructor(
    readonly store: MediaStorage,
    readonly cause: unknown,
  ) {
    super(`the ${storeName(store)} is unavailable (${causeText(cause)})`);
    this.dependency = storeName(store);
  }
}

/** Bytes a row says are stored and the store does not have: 502 ERROR_AI_MEDIA_UNAVAILABLE naming this reason. */
export class MediaObjectMissing extends Error {
  readonly dependency: string;

  constructor(readonly store: MediaStorage) {
    super(`the file is missing from the ${storeName(store)}`);
    this.dependency = storeName(store);
  }
}

export function storeName(store: MediaStorage): string {
  return store === 's3' ? 'S3 media store' : 'PostgreSQL media store';
}

function causeText(cause: unknown): string {
  const e = cause as { name?: string; code?: unknown; message?: unknown };
  const code = typeof e?.code === 'string' ? e.code : undefined;
  return [
    e?.name && e.name !== 'Error' ? e.name : undefined,
    code,
    String(e?.message ?? cause)
      .split('\n')[0]
      .slice(0, 200),
  ]
    .filter(Boolean)
    .join(': ');
}

/** Counts and hashes bytes as they pass; throws MediaTooLarge past the limit. */
export class ByteMeter {
  private readonly hash = createHash('sha256');
  size = 0;

  constructor(private readonly opts: MediaWriteOptions) {}

  add(chunk: Buffer): void {
    this.size += chunk.length;
    if (this.size > this.opts.maxBytes) throw new MediaTooLarge(this.opts.limitName ?? `limit of ${this.opts.maxBytes} bytes`);
    this.hash.update(chunk);
    this.opts.onBytes?.(chunk.length);
  }

  /** The hex digest; MediaHashMismatch when an expected one differs. */
  finish(): { size: number; sha256: string } {
    const sha256 = this.hash.digest('hex');
    if (this.opts.expectedSha256 && this.opts.expectedSha256 !== sha256) throw new MediaHashMismatch();
    return { size: this.size, sha256 };
  }
}

/**
 * A promise that rejects with the signal's reason once it is aborted (never, without a signal), the
 * body being read destroyed then (a read waiting for bytes ends with the reason); `off` forgets it.
 */
export function aborted(signal: AbortSignal | undefined, body: Readable): { promise: Promise<never>; off: () => void } {
  if (!signal) return { promise: new Promise<never>(() => undefined), off: () => undefined };
  let off = () => undefined as void;
  const promise = new Promise<never>((_, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const onAbort = () => {
      body.destroy(signal.reason as Error);
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    off = () => signal.removeEventListener('abort', onAbort);
  });
  promise.catch(() => undefined);
  return { promise, off };
}
