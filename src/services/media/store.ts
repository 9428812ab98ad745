import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { MediaStorage } from '../../entities/ai-media.js';

/**
 * Where the bytes of stored files live (CONTRACT §12.3): PostgreSQL (pg-store.ts, the default) or an
 * S3-compatible bucket (s3-store.ts, when MEDIA_S3_BUCKET is set). Files are streamed in and out,
 * never held whole in memory.
 */
export interface MediaStore {
  readonly kind: MediaStorage;
  /**
   * Stores `body` under `mediaId`, hashing and counting it as it streams. Over `maxBytes`
   * (MediaTooLarge) or a hash other than `expectedSha256` (MediaHashMismatch): nothing is kept.
   * `attempt` fences a download job (PostgreSQL): writes stop once ai_media.attempts moved past it.
   */
  write(mediaId: string, body: Readable, opts: MediaWriteOptions): Promise<{ size: number; sha256: string }>;
  /** The bytes, or the inclusive range `start`–`end` of them. */
  read(mediaId: string, range?: { start: number; end: number }): Promise<Readable>;
  /** Forgets the bytes (nothing when there are none). */
  remove(mediaId: string): Promise<void>;
  close?(): void;
}

export interface MediaWriteOptions {
  maxBytes: number;
  /** What the size limit is called in the error (`image limit of 5 MB`, `MEDIA_MAX_BYTES`). */
  limitName?: string;
  /** Lowercase hex. */
  expectedSha256?: string | null;
  mimeType?: string | null;
  attempt?: number;
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

/** A download whose job moved to another attempt (its lease ran out): the bytes it wrote belong to the next one. */
export class MediaWriteSuperseded extends Error {
  constructor() {
    super('superseded by a later attempt');
  }
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
  }

  /** The hex digest; MediaHashMismatch when an expected one differs. */
  finish(): { size: number; sha256: string } {
    const sha256 = this.hash.digest('hex');
    if (this.opts.expectedSha256 && this.opts.expectedSha256 !== sha256) throw new MediaHashMismatch();
    return { size: this.size, sha256 };
  }
}
