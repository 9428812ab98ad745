import type { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error.js';
import { appError, validationError } from '../errors/codes.js';
import type { IncomingFile } from '../services/media/upload.service.js';
import { boundaryOf, MultipartGuard, type BodyLimit } from './multipart-guard.js';

/** CONTRACT §11, third review: an upload's body is at most MEDIA_MAX_BYTES + 1 MiB, in at most 10 parts of at most 8 KiB of headers each. */
export const UPLOAD_BODY_SLACK = 1024 * 1024;
export const UPLOAD_MAX_PARTS = 10;
export const PART_HEADERS_MAX_BYTES = 8 * 1024;

/** The parser's own limits (@fastify/multipart's errors), met when the guard has not already stopped the body. */
const PARSER_LIMITS = new Set(['FST_PARTS_LIMIT', 'FST_FIELDS_LIMIT', 'FST_FILES_LIMIT']);

/**
 * Runs `consume` on the body's first file part (undefined when there is none), the whole body counted
 * by a MultipartGuard as it arrives: a declared length over the limit is refused before a byte is read;
 * a body that breaks a limit while arriving stops being read there (the file being stored fails with
 * the limit's error, a wait for a first part ends), as does one whose file was refused. The part's `rest` settles once the body has ended
 * within the limits, so the consumer keeps nothing from a body refused after its file.
 */
export async function guardedUpload<T>(
  req: FastifyRequest,
  maxFileBytes: number,
  consume: (part: IncomingFile | undefined) => Promise<T>,
): Promise<T> {
  const maxBytes = maxFileBytes + UPLOAD_BODY_SLACK;
  if (Number(req.headers['content-length']) > maxBytes) throw limitError('body');
  const boundary = boundaryOf(req.headers['content-type']);
  // a multipart type without a boundary (of RFC 2046's 1–70 characters) is no form
  if (!boundary) throw appError('ERROR_UNSUPPORTED_MEDIA_TYPE');
  const guard = new MultipartGuard(boundary, { maxBytes, maxParts: UPLOAD_MAX_PARTS, maxHeaderBytes: PART_HEADERS_MAX_BYTES });
  let problem: AppError | null = null;
  let current: Readable | null = null;
  let stop!: (err: AppError) => void;
  const stopped = new Promise<never>((_resolve, reject) => (stop = reject));
  stopped.catch(() => undefined);
  const raw = req.raw;
  const first = req.file(); // pipes the request into the parser now
  first.catch(() => undefined);
  let reading = true;
  // a refused body is read no further: paused, the socket fills and the client waits for the answer
  // (no close under it: an unread byte at close is a TCP reset, which can take the answer with it)
  const stopReading = () => {
    reading = false;
    raw.unpipe();
    raw.pause();
  };
  const onData = (chunk: Buffer) => {
    const broken = reading ? guard.push(chunk) : null;
    if (!broken) return;
    problem = limitError(broken);
    stopReading();
    current?.destroy(problem);
    stop(problem);
  };
  raw.on('data', onData);
  const ended = new Promise<void>((resolve, reject) => {
    if (raw.readableEnded) return resolve();
    raw.once('end', resolve);
    raw.once('close', () => (raw.readableEnded ? resolve() : reject(problem ?? clientAbort())));
  });
  const rest = Promise.race([ended, stopped]);
  rest.catch(() => undefined);
  try {
    const part = await Promise.race([first, stopped]);
    current = part?.file ?? null;
    // a file its consumer gave up on (refused type, over its limit) ends the reading at once
    part?.file.once('close', () => {
      if (!part.file.readableEnded) stopReading();
    });
    return await consume(part && { fieldname: part.fieldname, filename: part.filename, mimetype: part.mimetype, file: part.file, rest });
  } catch (err) {
    stopReading();
    // the consumer's own refusal (the file's type, its size) stands, even when the guard tripped during its clean-up
    throw err instanceof AppError ? err : (problem ?? parserError(err));
  } finally {
    current = null;
  }
}

/** What Node raises for a request its client abandoned (rest/errors.ts answers it as such, without an alarm). */
function clientAbort(): Error {
  return Object.assign(new Error('aborted'), { code: 'ECONNRESET' });
}

function limitError(limit: BodyLimit): AppError {
  switch (limit) {
    case 'body':
      return appError('ERROR_PAYLOAD_TOO_LARGE');
    case 'parts':
      return validationError([{ field: 'file', rule: 'form_parts', params: { max: UPLOAD_MAX_PARTS } }]);
    case 'headers':
      return validationError([{ field: 'file', rule: 'part_headers', params: { max: PART_HEADERS_MAX_BYTES } }]);
  }
}

function parserError(err: unknown): unknown {
  return PARSER_LIMITS.has((err as { code?: string })?.code ?? '') ? limitError('parts') : err;
}
