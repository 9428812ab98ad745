import { pipeline, type Readable } from 'node:stream';
import type { RequestContext } from '../../context/index.js';
import { appError, validationError } from '../../errors/codes.js';
import { assertAiAdmin } from '../identity/access.js';
import { MEDIA_KIND_LIMITS, newMediaId } from './limits.js';
import { checkedContent, FileContentMismatch } from './file-signature.js';
import { baseMimeType, kindsOf, UPLOAD_MIME_TYPES } from './send-types.js';
import { MediaTooLarge } from './store.js';
import type { MediaStores } from './stores.js';

/** The record `POST /ai/media` answers (CONTRACT §12.5). */
export interface UploadedFile {
  id: string;
  mime_type: string;
  size: number;
  sha256: string;
  filename: string | null;
  created_at: Date;
}

/** One part of a multipart body, as @fastify/multipart hands it over: its bytes are still arriving. */
export interface IncomingFile {
  fieldname: string;
  filename: string;
  mimetype: string;
  file: Readable;
  /** Settles once the rest of the body has arrived within its limits (rejects with the broken limit's error). */
  rest: Promise<void>;
}

const FILENAME_MAX = 255;

/**
 * Files a project sends (CONTRACT §12.5): `POST /ai/media` streams one part `file` into the media
 * store (hashed and counted as it passes, never whole in memory) and refuses it with 413 as soon as
 * it passes the limit of its kind (Meta's for sending, and MEDIA_MAX_BYTES); `GET /ai/media/{id}`
 * reads the record of an uploaded file (inbound files are served only through their conversation).
 */
export class MediaUploadService {
  constructor(private readonly stores: MediaStores) {}

  /**
   * Stores the part; the new file's id. Anything but a file of a type WhatsApp sends, whose first bytes
   * are of that type (file-signature.ts; not empty): 400 naming `file`. The file is kept only once the
   * rest of the body arrived within its limits.
   */
  async upload(ctx: RequestContext, part: IncomingFile | undefined): Promise<string> {
    assertAiAdmin(ctx);
    if (!part || part.fieldname !== 'file') {
      part?.file.resume();
      throw validationError([{ field: 'file', rule: 'required' }]);
    }
    const mimeType = baseMimeType(part.mimetype);
    const kinds = kindsOf(mimeType);
    if (!kinds.length) {
      part.file.resume();
      throw validationError([{ field: 'file', rule: 'file_type', params: { values: [...UPLOAD_MIME_TYPES] } }]);
    }
    const meta = Math.max(...kinds.map((k) => MEDIA_KIND_LIMITS[k]));
    const maxBytes = Math.min(meta, this.stores.config.maxBytes);
    const store = this.stores.forWrite;
    const id = newMediaId();
    const filename = part.filename ? [...part.filename].slice(0, FILENAME_MAX).join('') : null;
    await sql(
      ctx,
      `insert into ai_media (id, project_id, origin, status, mime_type, filename, storage, next_attempt_at)
       values (?, ?, 'upload', 'pending', ?, ?, ?, null)`,
      [id, ctx.project.id, mimeType, filename, store.kind],
    );
    let written = false;
    try {
      const checked = pipeline(part.file, checkedContent(mimeType), () => undefined);
      const { size, sha256 } = await store.write({ id }, checked, { maxBytes, limitName: `limit of ${maxBytes} bytes`, mimeType });
      written = true;
      await part.rest;
      await sql(ctx, `update ai_media set status = 'stored', size = ?, sha256 = ?, updated_at = now() where id = ? and project_id = ?`, [
        size,
        sha256,
        id,
        ctx.project.id,
      ]);
      return id;
    } catch (err) {
      if (written) await store.remove({ id }).catch(() => undefined);
      await sql(ctx, 'delete from ai_media where id = ? and project_id = ?', [id, ctx.project.id]).catch(() => undefined);
      if (err instanceof FileContentMismatch)
        throw validationError([
          { field: 'file', rule: err.reason === 'empty' ? 'file_empty' : 'file_content', params: { type: mimeType } },
        ]);
      if (err instanceof MediaTooLarge || (err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE')
        throw appError('ERROR_PAYLOAD_TOO_LARGE');
      throw err;
    }
  }

  /** An uploaded file of the project; a customer's file, another project's or an unknown id: ERROR_AI_MEDIA_NOT_FOUND. */
  async get(ctx: RequestContext, mediaId: string): Promise<UploadedFile> {
    assertAiAdmin(ctx);
    const [row] = await sql(
      ctx,
      `select id, mime_type, size, sha256, filename, created_at from ai_media
        where project_id = ? and id = ? and origin = 'upload' and status = 'stored'`,
      [ctx.project.id, String(mediaId).slice(0, 100)],
    );
    if (!row) throw appError('ERROR_AI_MEDIA_NOT_FOUND');
    return { ...(row as UploadedFile), size: Number(row.size), created_at: new Date(row.created_at) };
  }
}

function sql(ctx: RequestContext, query: string, params: unknown[]): Promise<Record<string, any>[]> {
  return ctx.em.getConnection().execute<Record<string, any>[]>(query, params, 'all');
}
