import { Transform, type TransformCallback } from 'node:stream';

/**
 * A file's first bytes against its declared type (CONTRACT §11, third review): a declared type is a
 * claim, and a file served `inline` as `image/jpeg` must be one. One table, one matcher: each type lists
 * the signatures it may start with (any one matches), a signature being bytes at offsets, with a mask
 * where only some bits are fixed (an MPEG or ADTS frame header). `text/plain` has no signature: it is
 * text when no byte of it is NUL, which the stream check reads to the end.
 */
interface Bytes {
  at: number;
  hex: string;
  /** Bits that must match (hex, as long as `hex`); all of them when absent. */
  mask?: string;
}
type Signature = Bytes[];

const ISO_BMFF: Signature = [{ at: 4, hex: '66747970' }]; // "ftyp": MP4, 3GPP, M4A
const ZIP: Signature = [{ at: 0, hex: '504b0304' }]; // Office Open XML files are ZIP containers
const OLE: Signature = [{ at: 0, hex: 'd0cf11e0a1b11ae1' }]; // Word, Excel, PowerPoint 97–2003
const ID3: Signature = [{ at: 0, hex: '494433' }];
const MPEG_FRAME: Signature = [{ at: 0, hex: 'ffe0', mask: 'ffe0' }];
const ADTS: Signature = [{ at: 0, hex: 'fff0', mask: 'fff6' }];

const SIGNATURES: Readonly<Record<string, readonly Signature[]>> = {
  'image/jpeg': [[{ at: 0, hex: 'ffd8ff' }]],
  'image/png': [[{ at: 0, hex: '89504e470d0a1a0a' }]],
  'image/webp': [
    [
      { at: 0, hex: '52494646' },
      { at: 8, hex: '57454250' },
    ],
  ],
  'video/mp4': [ISO_BMFF],
  'video/3gpp': [ISO_BMFF],
  'audio/mp4': [ISO_BMFF],
  'audio/aac': [ADTS, [{ at: 0, hex: '41444946' }], ID3],
  'audio/amr': [[{ at: 0, hex: '2321414d52' }]],
  'audio/mpeg': [ID3, MPEG_FRAME],
  'audio/ogg': [[{ at: 0, hex: '4f676753' }]],
  'application/pdf': [[{ at: 0, hex: '255044462d' }]],
  'application/msword': [OLE],
  'application/vnd.ms-excel': [OLE],
  'application/vnd.ms-powerpoint': [OLE],
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': [ZIP],
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': [ZIP],
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': [ZIP],
};

/** Types whose every byte is checked (no NUL) instead of a signature. */
const TEXT_TYPES = new Set(['text/plain']);

/** The bytes a signature check needs: the furthest byte any signature reads. */
export const SIGNATURE_BYTES = Math.max(
  ...Object.values(SIGNATURES).flatMap((alts) => alts.flatMap((sig) => sig.map((b) => b.at + b.hex.length / 2))),
);

/** Whether `head` (the file's first bytes, SIGNATURE_BYTES of them or the whole file) can start a file of `mimeType` (without parameters). */
export function signatureMatches(mimeType: string, head: Buffer): boolean {
  if (TEXT_TYPES.has(mimeType)) return !head.includes(0);
  const alternatives = SIGNATURES[mimeType];
  if (!alternatives) return false;
  return alternatives.some((sig) => sig.every((b) => bytesMatch(head, b)));
}

function bytesMatch(head: Buffer, b: Bytes): boolean {
  const want = Buffer.from(b.hex, 'hex');
  const mask = b.mask ? Buffer.from(b.mask, 'hex') : null;
  if (head.length < b.at + want.length) return false;
  return want.every((byte, i) => (head[b.at + i] & (mask ? mask[i] : 0xff)) === byte);
}

/** The bytes of a stream do not fit the declared type: `empty` (0 bytes) or `content` (another kind of file). */
export class FileContentMismatch extends Error {
  constructor(readonly reason: 'empty' | 'content') {
    super(reason === 'empty' ? 'the file is empty' : 'the file’s bytes are not of its declared type');
  }
}

/**
 * A pass-through that fails with FileContentMismatch as soon as the bytes are known not to be a file of
 * `mimeType`: the first SIGNATURE_BYTES against the table, and for text every chunk for a NUL. Holds
 * back at most SIGNATURE_BYTES.
 */
export function checkedContent(mimeType: string): Transform {
  let head: Buffer | null = Buffer.alloc(0);
  let size = 0;
  const text = TEXT_TYPES.has(mimeType);
  return new Transform({
    transform(chunk: Buffer, _enc, done: TransformCallback) {
      size += chunk.length;
      if (text && chunk.includes(0)) return done(new FileContentMismatch('content'));
      if (head === null) return done(null, chunk);
      head = Buffer.concat([head, chunk]);
      if (head.length < SIGNATURE_BYTES) return done();
      const whole = head;
      head = null;
      done(signatureMatches(mimeType, whole) ? null : new FileContentMismatch('content'), whole);
    },
    flush(done: TransformCallback) {
      if (size === 0) return done(new FileContentMismatch('empty'));
      if (head === null) return done();
      done(signatureMatches(mimeType, head) ? null : new FileContentMismatch('content'), head);
    },
  });
}
