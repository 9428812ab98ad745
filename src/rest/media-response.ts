import type { FastifyReply, FastifyRequest } from 'fastify';
import { appError } from '../errors/codes.js';
import type { MediaStores } from '../services/media/index.js';

/** What serving a MEDIA needs of its row. */
export interface ServedMedia {
  id: string;
  status: string;
  mime_type?: string | null;
  size?: number | null;
  sha256?: string | null;
  error?: string | null;
  filename?: string | null;
  storage: 'pg' | 's3';
}

/** Seconds a client is told to wait for a pending file. */
const PENDING_RETRY_AFTER_S = 2;
/**
 * Types a browser may show inline (CONTRACT §11, third review), compared by type/subtype without
 * parameters; anything else (a document, SVG, HTML, `video/html`) is an attachment.
 */
const INLINE_TYPES: ReadonlySet<string> = new Set([
  'image/jpeg',
  'image/png',
  'image/webp',
  'audio/aac',
  'audio/amr',
  'audio/mpeg',
  'audio/mp4',
  'audio/ogg',
  'video/mp4',
  'video/3gpp',
]);
/** A file answer is never a page: no script, no style, no frame of its own, whatever a browser makes of it. */
export const FILE_CSP = "default-src 'none'; sandbox";
/** `type/subtype` and parameters (`; name=token` or `; name="quoted"`), as RFC 9110 spells a media type. */
const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const MEDIA_TYPE = new RegExp(`^(${TOKEN})/(${TOKEN})((?:\\s*;\\s*${TOKEN}=(?:${TOKEN}|"[^"\\\\\\p{Cc}]*"))*)$`, 'u');

/**
 * Answers a stored file as CONTRACT §12.3 says (the message media route, and `GET /ai/media/{id}`):
 * 200 with the bytes streamed from its store, `Content-Type`, `Content-Length`, `ETag` (its sha256),
 * `Cache-Control: private, max-age=86400`, `Content-Disposition` (inline for the pictures, sound and
 * video of INLINE_TYPES; attachment with a safe filename for a document or anything else), `nosniff`,
 * `Content-Security-Policy: default-src 'none'; sandbox` (fileHeaders); one `Range`
 * → 206 (several ranges: the whole file), an unsatisfiable one → 416; `If-None-Match` → 304.
 * Pending: 409 ERROR_AI_MEDIA_PENDING with Retry-After; failed: 409 ERROR_AI_MEDIA_FAILED naming why.
 * `document`: the message's type says the file is a document (attachment whatever its type).
 */
export async function sendMedia(
  req: FastifyRequest,
  reply: FastifyReply,
  media: ServedMedia,
  stores: MediaStores,
  opts: { document?: boolean } = {},
): Promise<FastifyReply> {
  if (media.status === 'pending')
    throw appError('ERROR_AI_MEDIA_PENDING', undefined, { headers: { 'retry-after': String(PENDING_RETRY_AFTER_S) } });
  if (media.status !== 'stored' || media.size == null || !media.sha256)
    throw appError('ERROR_AI_MEDIA_FAILED', [{ key: 'ERROR_AI_MEDIA_FAILED', params: { reason: media.error ?? 'unknown' } }]);
  const store = stores.of(media.storage);
  if (!store) throw appError('ERROR_SERVICE_UNAVAILABLE');

  const size = Number(media.size);
  const etag = `"${media.sha256}"`;
  const type = servedType(media.mime_type);
  reply.headers(fileHeaders(media, type, opts));

  if (matchesEtag(req.headers['if-none-match'], etag)) return reply.code(304).send();

  const ifRange = req.headers['if-range'];
  const range = ifRange === undefined || ifRange === etag ? parseRange(req.headers.range, size) : null;
  if (range === 'unsatisfiable') {
    reply.header('content-range', `bytes */${size}`);
    return reply.code(416).type(type).send();
  }
  const part = range ?? (size > 0 ? { start: 0, end: size - 1 } : null);
  const body = part ? await store.read(media, range ? part : undefined) : null;
  reply.type(type);
  reply.header('content-length', String(part ? part.end - part.start + 1 : 0));
  if (range) reply.code(206).header('content-range', `bytes ${range.start}-${range.end}/${size}`);
  return reply.send(body ?? '');
}

/**
 * The headers of every file answer, both routes (CONTRACT §12.3, §11 third review): ETag, caching,
 * nosniff, the sandboxing CSP, and `inline` only for the types of INLINE_TYPES (not for a document).
 */
export function fileHeaders(
  media: Pick<ServedMedia, 'sha256' | 'filename'>,
  type: string,
  opts: { document?: boolean } = {},
): Record<string, string> {
  const inline = !opts.document && INLINE_TYPES.has(baseOf(type));
  return {
    etag: `"${media.sha256}"`,
    'cache-control': 'private, max-age=86400',
    'x-content-type-options': 'nosniff',
    'content-security-policy': FILE_CSP,
    'accept-ranges': 'bytes',
    'content-disposition': inline ? 'inline' : attachment(media.filename),
  };
}

/** The stored type as stored, parameters included (`audio/ogg; codecs=opus`), when it is a well-formed media type; else `application/octet-stream`. */
export function servedType(mimeType: string | null | undefined): string {
  const m = mimeType ? MEDIA_TYPE.exec(mimeType.trim()) : null;
  return m ? mimeType!.trim() : 'application/octet-stream';
}

const baseOf = (type: string) => type.split(';')[0].trim().toLowerCase();

/** `If-None-Match`: a list of entity tags (weak ones compared weakly), or `*`. */
function matchesEtag(header: string | string[] | undefined, etag: string): boolean {
  if (!header) return false;
  const tags = (Array.isArray(header) ? header.join(',') : header).split(',').map((t) => t.trim().replace(/^W\//, ''));
  return tags.includes('*') || tags.includes(etag);
}

/** One byte range of RFC 9110 (`a-b`, `a-`, `-n`); null: ignored (absent, malformed, or several); `unsatisfiable`: 416. */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | null | 'unsatisfiable' {
  if (!header) return null;
  const m = /^bytes=\s*(\d*)\s*-\s*(\d*)\s*$/.exec(header);
  if (!m || (m[1] === '' && m[2] === '')) return null;
  if (m[1] === '') {
    const n = Number(m[2]);
    if (n === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (m[2] !== '' && Number(m[2]) < start) return null;
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}

/** `attachment` with the filename stripped to a safe form: no path, quotes, controls; ASCII fallback plus RFC 5987 UTF-8. */
export function attachment(filename: string | null | undefined): string {
  const base = (filename ?? '').split(/[\\/]/).pop() ?? '';
  const clean = [
    ...base
      .normalize('NFC')
      .replace(/[\p{Cc}\p{Cf}"<>|:*?]/gu, '')
      .trim(),
  ]
    .slice(0, 200)
    .join('')
    .replace(/^\.+/, '');
  const name = clean || 'file';
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/[%;\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name).replace(/['()]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;
}
