import { randomBytes } from 'node:crypto';
import type { MediaMessageType } from '../../entities/ai-message.js';

const MB = 1024 * 1024;

/**
 * Meta's size limit per kind of file (CONTRACT §12.3): what the Cloud API accepts and sends. The
 * process-wide MEDIA_MAX_BYTES (config.media.maxBytes, default 100 MB) caps every kind further.
 */
export const MEDIA_KIND_LIMITS: Readonly<Record<MediaMessageType, number>> = {
  image: 5 * MB,
  audio: 16 * MB,
  video: 16 * MB,
  sticker: 500 * 1024,
  document: 100 * MB,
};

export const DEFAULT_MEDIA_MAX_BYTES = 100 * MB;

/** The limit that applies to a file of this kind: Meta's, and MEDIA_MAX_BYTES. */
export function mediaLimit(kind: MediaMessageType, maxBytes: number): { bytes: number; name: string } {
  const meta = MEDIA_KIND_LIMITS[kind];
  return meta <= maxBytes
    ? { bytes: meta, name: `${kind} limit of ${describeBytes(meta)}` }
    : { bytes: maxBytes, name: `MEDIA_MAX_BYTES (${maxBytes} bytes)` };
}

function describeBytes(n: number): string {
  return n % MB === 0 ? `${n / MB} MB` : `${n / 1024} KB`;
}

/** A new MEDIA id: `med_` + 18 random bytes in base64url (144 bits: not guessable). */
export function newMediaId(): string {
  return `med_${randomBytes(18).toString('base64url')}`;
}

export const MEDIA_ID_PATTERN = /^med_[A-Za-z0-9_-]{24}$/;

/** Meta's `sha256` (hex, or base64 of the 32 bytes) as lowercase hex; null when it is neither. */
export function normalizeSha256(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  if (/^[0-9a-fA-F]{64}$/.test(v)) return v.toLowerCase();
  if (!/^[A-Za-z0-9+/_-]{43}=?$/.test(v)) return null;
  const bytes = Buffer.from(v.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  return bytes.length === 32 ? bytes.toString('hex') : null;
}
