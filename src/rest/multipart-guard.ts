/**
 * Counts a multipart/form-data body as it arrives, before any parser trusts it (CONTRACT §11, third
 * review): its whole size, its parts and each part's header block. busboy, behind it, silently drops
 * header bytes past its own limit and reads preambles, text fields and epilogues to their end; this
 * scanner sees every byte once and says which limit the body broke, so the upload stops there.
 */
export type BodyLimit = 'body' | 'parts' | 'headers';

export interface MultipartLimits {
  /** The whole body, every part, preamble and epilogue included. */
  maxBytes: number;
  maxParts: number;
  /** One part's header block, its line breaks included. */
  maxHeaderBytes: number;
}

const CRLF = Buffer.from('\r\n');
const BLANK_LINE = Buffer.from('\r\n\r\n');
const DASHES = 0x2d;

export class MultipartGuard {
  private readonly delimiter: Buffer;
  private state: 'body' | 'headers' | 'epilogue' = 'body';
  /** Bytes of the previous chunk a delimiter or blank line may continue from (the first delimiter has no CRLF before it: one is assumed). */
  private carry: Buffer = CRLF;
  private headerBytes = 0;
  parts = 0;
  bytes = 0;

  constructor(
    boundary: string,
    private readonly limits: MultipartLimits,
  ) {
    this.delimiter = Buffer.from(`\r\n--${boundary}`, 'latin1');
  }

  /** The next bytes of the body: null while it keeps within the limits, else the limit it broke. */
  push(chunk: Buffer): BodyLimit | null {
    this.bytes += chunk.length;
    if (this.bytes > this.limits.maxBytes) return 'body';
    if (this.state === 'epilogue') return null;
    const buf = this.carry.length ? Buffer.concat([this.carry, chunk]) : chunk;
    let at = 0;
    for (;;) {
      if (this.state === 'body') {
        const i = buf.indexOf(this.delimiter, at);
        if (i < 0) {
          this.carry = Buffer.from(buf.subarray(Math.max(at, buf.length - this.delimiter.length + 1)));
          return null;
        }
        const after = i + this.delimiter.length;
        if (buf.length - after < 2) {
          this.carry = Buffer.from(buf.subarray(i)); // found again, whole, with the next chunk
          return null;
        }
        if (buf[after] === DASHES && buf[after + 1] === DASHES) {
          this.state = 'epilogue';
          this.carry = Buffer.alloc(0);
          return null;
        }
        if (++this.parts > this.limits.maxParts) return 'parts';
        this.state = 'headers';
        this.headerBytes = 0;
        at = after;
      } else if (this.state === 'headers') {
        const j = buf.indexOf(BLANK_LINE, at);
        if (j < 0) {
          const kept = Math.min(BLANK_LINE.length - 1, buf.length - at);
          this.headerBytes += buf.length - kept - at;
          this.carry = Buffer.from(buf.subarray(buf.length - kept));
          return this.headerBytes > this.limits.maxHeaderBytes ? 'headers' : null;
        }
        // the delimiter line's own CRLF is not a header's
        this.headerBytes += j + BLANK_LINE.length - at - CRLF.length;
        if (this.headerBytes > this.limits.maxHeaderBytes) return 'headers';
        this.state = 'body';
        at = j + BLANK_LINE.length;
      } else {
        return null;
      }
    }
  }
}

/** The `boundary` parameter of a multipart Content-Type (quoted or not, 1–70 characters as RFC 2046 allows), or null. */
export function boundaryOf(contentType: string | undefined): string | null {
  const m = /;\s*boundary\s*=\s*(?:"([^"]{1,70})"|([^\s;"]{1,70}))\s*(?:;|$)/i.exec(contentType ?? '');
  return m ? (m[1] ?? m[2]) : null;
}
