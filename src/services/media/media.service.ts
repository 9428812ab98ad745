import type { RequestContext } from '../../context/index.js';
import { appError } from '../../errors/codes.js';
import type { MediaStorage } from '../../entities/ai-media.js';

/** A file's row as serving it needs (rest/media-response.ts): MEDIA plus its name and store. */
export interface MediaRow {
  id: string;
  status: string;
  mime_type: string | null;
  size: number | null;
  sha256: string | null;
  error: string | null;
  filename: string | null;
  storage: MediaStorage;
  /** The attempt whose bytes the file holds (store.ts's MediaObject). */
  generation: number;
  origin: 'inbound' | 'upload';
  created_at: Date;
  /** The type of the message it came with (inbound files): a `document` is served as an attachment. */
  message_type: string | null;
}

/** The MEDIA record of CONTRACT §12.3. */
export function mediaRecord(m: Pick<MediaRow, 'id' | 'status' | 'mime_type' | 'size' | 'sha256' | 'error'>): Record<string, unknown> {
  return {
    id: m.id,
    status: m.status,
    mime_type: m.mime_type ?? null,
    size: m.size == null ? null : Number(m.size),
    sha256: m.sha256 ?? null,
    error: m.error ?? null,
  };
}

/** SQL building mediaRecord from the row `a` of ai_media, as jsonb (for statements that write a payload with it). */
export function mediaRecordSql(a: string): string {
  return `jsonb_build_object('id', ${a}.id, 'status', ${a}.status, 'mime_type', ${a}.mime_type, 'size', ${a}.size,
    'sha256', ${a}.sha256, 'error', ${a}.error)`;
}

export class MediaService {
  /** A file of the caller's project by id (access to it is the caller's operation's to check); ERROR_AI_MEDIA_NOT_FOUND else. */
  async row(ctx: RequestContext, mediaId: string): Promise<MediaRow> {
    const [row] = await ctx.em.getConnection().execute<MediaRow[]>(
      `select a.id, a.status, a.mime_type, a.size, a.sha256, a.error, a.filename, a.storage, a.generation, a.origin, a.created_at,
                (select m.type from ai_messages m where m.id = a.message_id) as message_type
           from ai_media a where a.project_id = ? and a.id = ?`,
      [ctx.project.id, mediaId],
      'all',
    );
    if (!row) throw appError('ERROR_AI_MEDIA_NOT_FOUND');
    return { ...row, size: row.size == null ? null : Number(row.size) };
  }
}
