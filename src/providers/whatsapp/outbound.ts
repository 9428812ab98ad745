import http from 'node:http';
import https from 'node:https';
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { pathSegment } from '../messaging.js';
import { parseAnswer, providerFailure } from './client.js';

/**
 * The Cloud API's message of each type a reply may be (CONTRACT §12.4), and the media upload a reply
 * with a file of ours needs first (`POST {base}/{phone_number_id}/media`, multipart).
 */

/** What the sender knows of a reply when it builds its Cloud API message. */
export interface OutboundReply {
  type: string;
  content: string;
  payload: Record<string, any> | null;
  /** `context.message_id`: the external id of the message `reply_to_id` names, when it has one. */
  contextId?: string | null;
  /** A reaction: the reacted message's external id. */
  reactionTo?: string | null;
  /** A file of ours: the id Meta gave its upload. */
  uploadedId?: string | null;
}

/**
 * The JSON body of `POST {base}/{phone_number_id}/messages` for a reply. `address` is `{to: PHONE}`,
 * or `{recipient: BSUID}` for a contact whose phone number is unknown (§12.1).
 */
export function cloudMessage(address: { to: string } | { recipient: string }, reply: OutboundReply): Record<string, unknown> {
  const p = reply.payload ?? {};
  const body: Record<string, unknown> = { messaging_product: 'whatsapp', recipient_type: 'individual', ...address, type: reply.type };
  switch (reply.type) {
    case 'location':
      body.location = pick(p, ['latitude', 'longitude', 'name', 'address']);
      break;
    case 'interactive':
      body.interactive = p;
      break;
    case 'reaction':
      body.reaction = { message_id: reply.reactionTo, emoji: p.emoji };
      break;
    case 'template': {
      // CONTRACT §15.5: an order notice outside the window, as §6.1's send writes a template
      const parameters = Array.isArray(p.body_parameters) ? (p.body_parameters as unknown[]) : [];
      body.template = {
        name: p.name,
        language: { code: p.language },
        components: parameters.length ? [{ type: 'body', parameters: parameters.map((text) => ({ type: 'text', text })) }] : [],
      };
      break;
    }
    case 'image':
    case 'video':
    case 'document':
    case 'audio':
    case 'sticker':
      body[reply.type] = {
        ...(reply.uploadedId ? { id: reply.uploadedId } : { link: p.link }),
        ...pick(p, ['caption', 'filename']),
      };
      break;
    default:
      body.type = 'text';
      body.text = { body: reply.content, preview_url: false };
  }
  // a reaction names its message itself; Meta takes no context on it
  if (reply.contextId && reply.type !== 'reaction') body.context = { message_id: reply.contextId };
  return body;
}

function pick(o: Record<string, any>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => o[k] !== undefined && o[k] !== null).map((k) => [k, o[k]]));
}

/** An upload's outcome, classified as a send's is (§10.1: what is retried, `"CODE: TEXT"`). */
export type UploadOutcome = { ok: true; id: string } | { ok: false; retry: boolean; error: string };

export interface UploadInput {
  phone_number_id: string;
  access_token: string;
  mimeType: string;
  filename: string;
  size: number;
  /** Opens the file's bytes (streamed, never held whole). */
  open: () => Promise<Readable>;
}

/**
 * `POST {base}/{phone_number_id}/media`: multipart/form-data with `messaging_product=whatsapp`, `type`
 * (the MIME type) and `file`, streamed from the store with a known Content-Length. Cut at `timeoutMs`
 * of silence from the provider once the file is sent (a large file takes its time going up). Never throws.
 */
export function createMediaUploader(options: { baseUrl: string; timeoutMs: number }) {
  const base = options.baseUrl.replace(/\/+$/, '');
  const secure = new URL(base).protocol === 'https:';
  const agent = secure ? new https.Agent({ keepAlive: true, maxSockets: 16 }) : new http.Agent({ keepAlive: true, maxSockets: 16 });
  const request = secure ? https.request : http.request;

  async function upload(input: UploadInput): Promise<UploadOutcome> {
    const boundary = `----ordergraph${randomBytes(12).toString('hex')}`;
    const field = (name: string, value: string) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
    const head = Buffer.from(
      field('messaging_product', 'whatsapp') +
        field('type', input.mimeType) +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${safeName(input.filename)}"\r\n` +
        `Content-Type: ${input.mimeType}\r\n\r\n`,
    );
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    let file: Readable;
    try {
      file = await input.open();
    } catch {
      return { ok: false, retry: true, error: 'the stored file cannot be read' };
    }
    return new Promise<UploadOutcome>((resolve) => {
      let settled = false;
      let timer: NodeJS.Timeout | undefined;
      const done = (o: UploadOutcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        file.destroy();
        resolve(o);
      };
      const arm = () => {
        clearTimeout(timer);
        timer = setTimeout(() => {
          done({ ok: false, retry: true, error: 'timeout' });
          req.destroy();
        }, options.timeoutMs);
      };
      const req = request(`${base}/${pathSegment(input.phone_number_id)}/media`, {
        method: 'POST',
        agent,
        headers: {
          authorization: `Bearer ${input.access_token}`,
          accept: 'application/json',
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': String(head.length + input.size + tail.length),
        },
      });
      arm();
      req.on('response', (res) => {
        arm();
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size <= 1 << 20) chunks.push(c);
        });
        res.on('end', () => done(classifyUpload(res.statusCode ?? 0, Buffer.concat(chunks).toString('utf8'), input.access_token)));
        res.on('error', () => done({ ok: false, retry: true, error: 'connection error' }));
      });
      req.on('error', (err: NodeJS.ErrnoException) =>
        done({ ok: false, retry: true, error: err.code ? `connection error (${err.code})` : 'connection error' }),
      );
      req.on('close', () => done({ ok: false, retry: true, error: 'connection error' }));
      file.on('error', () => {
        done({ ok: false, retry: true, error: 'the stored file cannot be read' });
        req.destroy();
      });
      // progress on the way up keeps the deadline off: it counts the provider's silence, not the file's length
      file.on('data', arm);
      req.write(head);
      file.pipe(req, { end: false });
      file.on('end', () => req.end(tail));
    });
  }

  return { upload, close: () => agent.destroy() };
}

export type MediaUploader = ReturnType<typeof createMediaUploader>;

/** A filename as a multipart header may carry it: no quotes, backslashes or line breaks, ASCII only. */
function safeName(name: string): string {
  return name.replace(/[^\x20-\x7e]|["\\]/g, '_').slice(0, 200) || 'file';
}

function classifyUpload(status: number, text: string, token: string): UploadOutcome {
  const body = parseAnswer(text);
  if (status >= 200 && status < 300) {
    return typeof body?.id === 'string' && body.id
      ? { ok: true, id: body.id }
      : { ok: false, retry: false, error: `HTTP ${status} without id` };
  }
  return { ok: false, ...providerFailure(status, body, token) };
}
