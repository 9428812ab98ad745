import type { MediaKind } from '../conversations/message-payload.js';

/**
 * The MIME types WhatsApp accepts for each kind of file a reply sends (CONTRACT §12.4–12.5, after Meta's
 * supported media types); the sizes are MEDIA_KIND_LIMITS (limits.ts). A MIME type is compared
 * without its parameters (`audio/ogg; codecs=opus` is `audio/ogg`).
 */
export const SEND_MIME_TYPES: Readonly<Record<MediaKind, readonly string[]>> = {
  image: ['image/jpeg', 'image/png'],
  video: ['video/mp4', 'video/3gpp'],
  audio: ['audio/aac', 'audio/amr', 'audio/mpeg', 'audio/mp4', 'audio/ogg'],
  sticker: ['image/webp'],
  document: [
    'application/pdf',
    'text/plain',
    'application/msword',
    'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    'application/vnd.ms-excel',
    'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    'application/vnd.ms-powerpoint',
    'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  ],
};

/** Every MIME type a project may upload (POST /ai/media). */
export const UPLOAD_MIME_TYPES: readonly string[] = [...new Set(Object.values(SEND_MIME_TYPES).flat())];

/** `Type/Sub; param=…` → `type/sub`. */
export function baseMimeType(value: string | null | undefined): string {
  return (value ?? '').split(';')[0].trim().toLowerCase();
}

/** The kinds a file of this MIME type may be sent as (image/webp: a sticker; image/png: an image). */
export function kindsOf(mimeType: string | null | undefined): MediaKind[] {
  const base = baseMimeType(mimeType);
  return (Object.keys(SEND_MIME_TYPES) as MediaKind[]).filter((k) => SEND_MIME_TYPES[k].includes(base));
}
