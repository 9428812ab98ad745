/**
 * Files kept by the service (CONTRACT §12.3, §12.5; docs/media.md):
 * - `MediaStore` (store.ts): write (streamed, hashed, size-limited; nothing kept on failure), read
 *   (whole or a range, streamed), remove; `PgMediaStore` (pg-store.ts: chunked rows of
 *   ai_media_chunks, the default) and `S3MediaStore` (s3-store.ts: MEDIA_S3_BUCKET); `MediaStores`
 *   (stores.ts): which one writes, which one holds a file.
 * - limits.ts: Meta's size limit per kind and MEDIA_MAX_BYTES (`mediaLimit`), MEDIA ids, Meta's sha256 read as hex.
 * - `MediaService` (media.service.ts): the MEDIA a caller may fetch (a message's file).
 * - download.ts: the download job of an inbound file (claim, attempt, record), run by workers/media-downloader.ts.
 * Serving a MEDIA over HTTP (ETag, Range, 304, 409 while pending) is rest/media-response.ts.
 */
export { DEFAULT_MEDIA_MAX_BYTES, MEDIA_ID_PATTERN, MEDIA_KIND_LIMITS, mediaLimit, newMediaId, normalizeSha256 } from './limits.js';
export {
  ByteMeter,
  MediaHashMismatch,
  MediaObjectMissing,
  MediaStoreUnavailable,
  MediaTooLarge,
  MediaWriteStalled,
  MediaWriteSuperseded,
  storeName,
  type MediaObject,
  type MediaStore,
  type MediaWriteOptions,
} from './store.js';
export { CHUNK_BYTES, PgMediaStore } from './pg-store.js';
export { S3MediaStore } from './s3-store.js';
export { MediaStores } from './stores.js';
export { MediaUploadService, type IncomingFile, type UploadedFile } from './upload.service.js';
export { MediaService, mediaRecord, mediaRecordSql, type MediaRow } from './media.service.js';
