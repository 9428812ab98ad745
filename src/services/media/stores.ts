import type { MikroORM } from '@mikro-orm/postgresql';
import type { MediaConfig } from '../../config.js';
import type { MediaStorage } from '../../entities/ai-media.js';
import { PgMediaStore } from './pg-store.js';
import { S3MediaStore } from './s3-store.js';
import type { MediaStore } from './store.js';

/**
 * The stores of this process: PostgreSQL always (files written there stay readable), S3 when
 * MEDIA_S3_BUCKET is set; new files go to S3 then. A file's row names its store (`ai_media.storage`).
 */
export class MediaStores {
  readonly pg: PgMediaStore;
  readonly s3: S3MediaStore | null;

  constructor(
    orm: MikroORM,
    readonly config: MediaConfig,
  ) {
    this.pg = new PgMediaStore(orm);
    this.s3 = config.s3 ? new S3MediaStore({ ...config.s3, idleTimeoutMs: config.stallMs }) : null;
  }

  /** Where new files go. */
  get forWrite(): MediaStore {
    return this.s3 ?? this.pg;
  }

  /** The store that holds a file; null when it is S3's and no bucket is configured. */
  of(storage: MediaStorage): MediaStore | null {
    return storage === 's3' ? this.s3 : this.pg;
  }

  close(): void {
    this.s3?.close();
  }
}
