import { createHash, createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local WhatsApp Cloud API (the parts CONTRACT §6.1 uses), on 127.0.0.1:0:
 * - `GET /v21.0/{waba_id}/message_templates[?limit&after]` → `{data, paging: {cursors, next?}}`, paged;
 * - `POST /v21.0/{phone_number_id}/messages` → `{messaging_product, contacts, messages: [{id}]}`, for a template, a text
 *   and every type a reply may be (CONTRACT §12.4: location, interactive, image…sticker by `id` or `link`, reaction,
 *   with `context`), each checked as the Cloud API checks it; a read receipt with `typing_indicator` → `{success: true}`;
 * - `POST /v21.0/{phone_number_id}/media` (multipart: `messaging_product`, `type`, `file`) → `{id}`; the uploads are
 *   kept (`uploads`: MIME type, size, SHA-256) and a message may name their ids;
 * - `GET /v21.0/{phone_number_id}?fields=…` → the phone number's `{id, display_phone_number, verified_name, quality_rating}`;
 * - `POST /v21.0/{dataset_id}/events` (the Conversions API, CONTRACT §15.6) → `{events_received, messages, fbtrace_id}`,
 *   the body checked exactly (`data` of events with exactly §15.6's members and types, `event_time` at most 7 days old,
 *   the account's WABA id); `conversionEvents()` lists the accepted ones;
 * - a wrong bearer token → 401 `{error: {message, type, code}}` like Graph API's OAuthException.
 * - `GET /v21.0/{media_id}` → `{url, mime_type, sha256, file_size, id}` for a file added with `addMedia`, and
 *   `GET {url}` with the same bearer token → its bytes (CONTRACT §12.3), optionally trickled (`bytesPerSecond`);
 * Scripted failures (`fail`) answer a status/body, or never answer (`hang`), optionally on one page
 * and a number of times. Every request is recorded (method, path, query, headers, body).
 */
export interface FakeTemplate {
  id: string;
  name: string;
  language: string;
  category?: string;
  status: string;
  components: unknown[];
}

export interface FakeAccount {
  waba_id: string;
  phone_number_id: string;
  access_token: string;
  /** The Conversions API dataset of the account (CONTRACT §15.6). */
  dataset_id?: string;
  templates: FakeTemplate[];
  /** The phone number as the read answers it (defaults from the phone_number_id). */
  display_phone_number?: string;
  verified_name?: string;
  quality_rating?: string;
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: http.IncomingHttpHeaders;
  body: any;
  /** When it arrived (Date.now()). */
  at: number;
  /** The status the fake answered (set when it answers; undefined while hanging). */
  status?: number;
}

/** A scripted answer: a status/body, never answering, or the normal answer after a delay. */
export type FailureAnswer = { status: number; body?: unknown } | { hang: true } | { delayMs: number };

/** The Cloud API's answers the outbound tests script (CONTRACT §10.1). */
export const CLOUD_ANSWERS = {
  serverError: { status: 500, body: graphError('An unknown error has occurred.', 'OAuthException', 1) },
  tooManyRequests: { status: 429, body: graphError('(#4) Application request limit reached', 'OAuthException', 4) },
  reEngagement: { status: 400, body: graphError('Re-engagement message', 'OAuthException', 131047) },
  throttled: { status: 400, body: graphError('Rate limit hit', 'OAuthException', 130429) },
  unauthorized: { status: 401, body: graphError('Invalid OAuth access token - Cannot parse access token', 'OAuthException', 190) },
} satisfies Record<string, FailureAnswer>;

type FakeCall = 'list' | 'send' | 'phone' | 'media' | 'bytes' | 'upload' | 'events';

/** A file the fake serves as Meta serves inbound media. */
export interface FakeMedia {
  id: string;
  /** The account (by phone_number_id) whose token may read it. */
  phone_number_id: string;
  bytes: Buffer;
  mime_type: string;
  /** What the metadata answers as `sha256` (default: the hex SHA-256 of `bytes`). */
  sha256?: string;
  /** What the metadata answers as `file_size` (default: the length of `bytes`). */
  file_size?: number;
  /** Trickles the bytes at this rate (a download that takes a while). */
  bytesPerSecond?: number;
}

/** A file uploaded to the fake (`POST {phone_number_id}/media`). */
export interface FakeUpload {
  id: string;
  phone_number_id: string;
  messaging_product: string | null;
  type: string | null;
  filename: string | null;
  content_type: string | null;
  size: number;
  sha256: string;
}

interface Failure {
  on: FakeCall;
  /** List only: the 1-based page it applies to (all pages when absent). */
  page?: number;
  times: number;
  answer: FailureAnswer;
}

export const API_VERSION = 'v21.0';

export class WhatsAppFake {
  readonly requests: RecordedRequest[] = [];
  pageSize = 2;
  private readonly accounts: FakeAccount[] = [];
  private failures: Failure[] = [];
  private server?: http.Server;
  private readonly hung: http.ServerResponse[] = [];
  /** Answers the next normal text send after this many ms (the bench's provider latency). */
  latencyMs = 0;
  private sent = 0;
  private origin = '';
  /** Files uploaded, in order. */
  readonly uploads: FakeUpload[] = [];
  private readonly media = new Map<string, FakeMedia>();
  /** Downloads of each file's bytes that started (`GET {url}` answered 200). */
  readonly downloads = new Map<string, number>();

  /** The base URL to configure (`WHATSAPP_API_URL`). */
  get url(): string {
    return `${this.origin}/${API_VERSION}`;
  }

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    if (!this.server) return;
    this.dropHung();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }

  addAccount(account: FakeAccount): FakeAccount {
    this.accounts.push(account);
    return account;
  }

  account(wabaOrPhone: string): FakeAccount | undefined {
    return this.accounts.find((a) => a.waba_id === wabaOrPhone || a.phone_number_id === wabaOrPhone || a.dataset_id === wabaOrPhone);
  }

  /** A file Meta keeps for the account: its metadata and bytes are served (CONTRACT §12.3). */
  addMedia(media: FakeMedia): FakeMedia {
    this.media.set(media.id, media);
    return media;
  }

  /** Answers the next `times` matching requests with `answer` instead of the normal one. */
  fail(on: FakeCall, answer: FailureAnswer, opts: { page?: number; times?: number } = {}): void {
    this.failures.push({ on, answer, page: opts.page, times: opts.times ?? Infinity });
  }

  /** The wamid the next accepted text message will get. */
  nextTextId(): string {
    return textId(this.sent + 1);
  }

  /** Cuts the connections of requests left hanging. */
  dropHung(): void {
    for (const res of this.hung.splice(0)) res.socket?.destroy();
  }

  /** Forgets scripted failures (recorded requests stay unless `requests` too). */
  reset({ requests = false } = {}): void {
    this.failures = [];
    if (requests) this.requests.length = 0;
  }

  /** The Conversions API requests the fake accepted (200), in order. */
  conversionEvents(): RecordedRequest[] {
    return this.requests.filter((r) => r.path.endsWith('/events') && r.status === 200);
  }

  requestsTo(kind: 'list' | 'send' | 'upload' | 'typing'): RecordedRequest[] {
    if (kind === 'typing') return this.requests.filter((r) => r.path.endsWith('/messages') && r.body?.status === 'read');
    if (kind === 'send') return this.requests.filter((r) => r.path.endsWith('/messages') && r.body?.status !== 'read');
    return this.requests.filter((r) => r.path.endsWith(kind === 'list' ? '/message_templates' : '/media'));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const bytes = Buffer.concat(chunks);
    const raw = bytes.toString('utf8');
    const url = new URL(req.url ?? '/', this.origin);
    let body: unknown = raw;
    const multipart = /^multipart\/form-data;\s*boundary=(.+)$/i.exec(req.headers['content-type'] ?? '');
    if (multipart) body = parseMultipart(bytes, multipart[1].replace(/^"|"$/g, ''));
    else
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        /* kept as text */
      }
    const recorded: RecordedRequest = {
      method: req.method ?? '',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: req.headers,
      body,
      at: Date.now(),
    };
    this.requests.push(recorded);

    const parts = url.pathname.split('/').filter(Boolean); // [v21.0, id, edge?]
    const kind: FakeCall | null =
      parts[0] === 'media-bytes' && parts.length === 2 && req.method === 'GET'
        ? 'bytes'
        : parts.length === 2 && req.method === 'GET' && this.media.has(decodeURIComponent(parts[1]))
          ? 'media'
          : parts.length === 2 && req.method === 'GET'
            ? 'phone'
            : parts.length === 3 && parts[2] === 'message_templates' && req.method === 'GET'
              ? 'list'
              : parts.length === 3 && parts[2] === 'messages' && req.method === 'POST'
                ? 'send'
                : parts.length === 3 && parts[2] === 'media' && req.method === 'POST'
                  ? 'upload'
                  : parts.length === 3 && parts[2] === 'events' && req.method === 'POST'
                    ? 'events'
                    : null;
    if ((parts[0] !== API_VERSION && kind !== 'bytes') || !kind) {
      return json(res, 400, graphError('Unsupported request', 'GraphMethodException', 100));
    }
    const offset = kind === 'list' ? Number(decodeCursor(url.searchParams.get('after'))) : 0;
    const limit = Number(url.searchParams.get('limit') ?? this.pageSize);
    const page = kind === 'list' ? Math.floor(offset / limit) + 1 : undefined;

    const failure = this.failures.find((f) => f.on === kind && f.times > 0 && (f.page === undefined || f.page === page));
    if (failure) {
      failure.times--;
      if ('hang' in failure.answer) {
        this.hung.push(res); // never answers; close() or dropHung() ends it
        return;
      }
      if ('delayMs' in failure.answer) await new Promise((r) => setTimeout(r, (failure.answer as { delayMs: number }).delayMs));
      else
        return json(
          res,
          failure.answer.status,
          failure.answer.body ?? graphError('An unexpected error has occurred.', 'OAuthException', 2),
        );
    }

    if (kind === 'media' || kind === 'bytes') return this.serveMedia(kind, decodeURIComponent(parts[1]), req, res);

    const account = this.account(parts[1]);
    const auth = req.headers.authorization ?? '';
    if (!account || auth !== `Bearer ${account.access_token}`) {
      return json(res, 401, graphError('Invalid OAuth access token - Cannot parse access token', 'OAuthException', 190));
    }

    if (kind === 'phone') {
      if (parts[1] !== account.phone_number_id) return json(res, 400, graphError('Unsupported get request.', 'GraphMethodException', 100));
      const phone: Record<string, string> = {
        display_phone_number: account.display_phone_number ?? `+1 555 ${account.phone_number_id.slice(-4).padStart(4, '0')}`,
        verified_name: account.verified_name ?? `Account ${account.phone_number_id}`,
        quality_rating: account.quality_rating ?? 'GREEN',
      };
      const fields = (url.searchParams.get('fields') ?? '').split(',').filter((f) => f in phone);
      return json(res, 200, { ...Object.fromEntries(fields.map((f) => [f, phone[f]])), id: account.phone_number_id });
    }

    if (kind === 'list') {
      if (parts[1] !== account.waba_id) return json(res, 400, graphError('Unsupported get request.', 'GraphMethodException', 100));
      const slice = account.templates.slice(offset, offset + limit);
      const nextOffset = offset + limit;
      const paging: Record<string, unknown> = { cursors: { before: encodeCursor(offset), after: encodeCursor(nextOffset) } };
      if (nextOffset < account.templates.length) {
        paging.next = `${this.origin}/${API_VERSION}/${account.waba_id}/message_templates?limit=${limit}&after=${encodeCursor(nextOffset)}`;
      }
      return json(res, 200, { data: slice, paging });
    }

    if (kind === 'events') {
      if (parts[1] !== account.dataset_id) return json(res, 400, graphError('Unsupported post request.', 'GraphMethodException', 100));
      const problem = conversionProblem(body, account);
      if (problem) return json(res, 400, graphError(`(#100) Invalid parameter: ${problem}`, 'OAuthException', 100));
      recorded.status = 200;
      return json(res, 200, { events_received: (body as { data: unknown[] }).data.length, messages: [], fbtrace_id: 'AbCdEfGh' });
    }
    if (parts[1] !== account.phone_number_id) return json(res, 400, graphError('Unsupported post request.', 'GraphMethodException', 100));
    if (kind === 'upload') return this.upload(res, account, body as MultipartBody);
    if ((body as { status?: string })?.status === 'read') return this.typing(res, body);
    if ((body as { type?: string })?.type === 'text') return this.text(res, body);
    if (RICH_TYPES.includes((body as { type?: string })?.type as string)) return this.rich(res, account, body);
    const msg = body as {
      messaging_product?: string;
      to?: string;
      type?: string;
      template?: { name?: string; language?: { code?: string } };
    };
    if (msg?.messaging_product !== 'whatsapp' || msg.type !== 'template' || typeof msg.to !== 'string') {
      return json(res, 400, graphError('(#100) Invalid parameter', 'OAuthException', 100));
    }
    const known = account.templates.some((t) => t.name === msg.template?.name && t.language === msg.template?.language?.code);
    if (!known) return json(res, 404, graphError('(#132001) Template name does not exist in the translation', 'OAuthException', 132001));
    this.sent++;
    return json(res, 200, {
      messaging_product: 'whatsapp',
      contacts: [{ input: msg.to, wa_id: msg.to }],
      messages: [{ id: `wamid.FAKE${String(this.sent).padStart(6, '0')}` }],
    });
  }

  /** A file's metadata (with a URL to its bytes) or its bytes, for its account's token only. */
  private async serveMedia(kind: 'media' | 'bytes', id: string, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const media = this.media.get(id);
    const account = media && this.account(media.phone_number_id);
    if (!media || !account || req.headers.authorization !== `Bearer ${account.access_token}`) {
      return json(
        res,
        kind === 'bytes' ? 404 : 401,
        graphError('Invalid OAuth access token - Cannot parse access token', 'OAuthException', 190),
      );
    }
    if (kind === 'media') {
      return json(res, 200, {
        messaging_product: 'whatsapp',
        url: `${this.origin}/media-bytes/${encodeURIComponent(id)}?ext=${Date.now()}`,
        mime_type: media.mime_type,
        sha256: media.sha256 ?? createHash('sha256').update(media.bytes).digest('hex'),
        file_size: media.file_size ?? media.bytes.length,
        id,
      });
    }
    this.downloads.set(id, (this.downloads.get(id) ?? 0) + 1);
    res.writeHead(200, { 'content-type': media.mime_type, 'content-length': media.bytes.length });
    if (!media.bytesPerSecond) return void res.end(media.bytes);
    const piece = Math.max(1, Math.floor(media.bytesPerSecond / 20));
    for (let i = 0; i < media.bytes.length && !res.destroyed; i += piece) {
      if (!res.write(media.bytes.subarray(i, i + piece))) await new Promise((r) => res.once('drain', r));
      await new Promise((r) => setTimeout(r, 50));
    }
    res.end();
  }

  /** A text message (CONTRACT §10.1): checked as the Cloud API checks it, answered with a new wamid. */
  private async text(res: http.ServerResponse, body: unknown): Promise<void> {
    const msg = body as {
      messaging_product?: string;
      recipient_type?: string;
      to?: string;
      recipient?: string;
      text?: { body?: unknown; preview_url?: unknown };
    };
    // a phone number as `to`, or a BSUID as `recipient` (CONTRACT §12.1), never both
    const addressed =
      typeof msg.to === 'string'
        ? /^[0-9]+$/.test(msg.to) && msg.recipient === undefined
        : typeof msg.recipient === 'string' && /^[A-Z]{2}\./.test(msg.recipient);
    const ok =
      msg.messaging_product === 'whatsapp' &&
      msg.recipient_type === 'individual' &&
      addressed &&
      typeof msg.text?.body === 'string' &&
      msg.text.body.length > 0 &&
      [...msg.text.body].length <= 4096;
    if (!ok) return json(res, 400, graphError('(#100) Invalid parameter', 'OAuthException', 100));
    if (this.latencyMs > 0) await new Promise((r) => setTimeout(r, this.latencyMs));
    this.sent++;
    return json(res, 200, {
      messaging_product: 'whatsapp',
      contacts: [{ input: msg.to ?? msg.recipient, wa_id: msg.to }],
      messages: [{ id: textId(this.sent) }],
    });
  }

  /** `POST {phone_number_id}/media`: a multipart upload, checked as the Cloud API checks it. */
  private upload(res: http.ServerResponse, account: FakeAccount, body: MultipartBody): void {
    const file = body?.files?.file;
    if (!body || body.fields.messaging_product !== 'whatsapp' || !file || !body.fields.type) {
      return json(res, 400, graphError('(#100) Param file must be a file with one of the following types', 'OAuthException', 100));
    }
    const upload: FakeUpload = {
      id: `${900000 + this.uploads.length + 1}${process.pid}`,
      phone_number_id: account.phone_number_id,
      messaging_product: body.fields.messaging_product,
      type: body.fields.type,
      filename: file.filename,
      content_type: file.contentType,
      size: file.data.length,
      sha256: createHash('sha256').update(file.data).digest('hex'),
    };
    this.uploads.push(upload);
    return json(res, 200, { id: upload.id });
  }

  /** A read receipt with the typing indicator (CONTRACT §12.4). */
  private typing(res: http.ServerResponse, body: unknown): void {
    const msg = body as { messaging_product?: string; message_id?: unknown; typing_indicator?: { type?: unknown } };
    const ok = msg.messaging_product === 'whatsapp' && typeof msg.message_id === 'string' && msg.typing_indicator?.type === 'text';
    if (!ok) return json(res, 400, graphError('(#100) Invalid parameter', 'OAuthException', 100));
    return json(res, 200, { success: true });
  }

  /** A reply of another type than text (CONTRACT §12.4), checked as the Cloud API checks it. */
  private async rich(res: http.ServerResponse, account: FakeAccount, body: unknown): Promise<void> {
    const msg = body as Record<string, any>;
    const problem = richProblem(msg, (id) => this.uploads.some((u) => u.id === id && u.phone_number_id === account.phone_number_id));
    if (problem) return json(res, 400, graphError(`(#100) Invalid parameter: ${problem}`, 'OAuthException', 100));
    if (this.latencyMs > 0) await new Promise((r) => setTimeout(r, this.latencyMs));
    this.sent++;
    const who = msg.to ?? msg.recipient;
    return json(res, 200, { messaging_product: 'whatsapp', contacts: [{ input: who, wa_id: who }], messages: [{ id: textId(this.sent) }] });
  }
}

/** CONTRACT §15.6: what the Conversions API would refuse in a business-messaging request, or null; members exactly §15.6's. */
function conversionProblem(body: unknown, account: FakeAccount): string | null {
  const exactly = (o: unknown, keys: string[]) =>
    typeof o === 'object' && o !== null && !Array.isArray(o) && Object.keys(o).sort().join() === [...keys].sort().join();
  if (!exactly(body, ['data'])) return 'body';
  const data = (body as { data: unknown }).data;
  if (!Array.isArray(data) || data.length === 0 || data.length > 1000) return 'data';
  for (const e of data as Record<string, any>[]) {
    const members = ['event_name', 'event_time', 'event_id', 'action_source', 'messaging_channel', 'user_data', 'custom_data'];
    if (!exactly(e, members)) return 'data[].members';
    if (!['Purchase', 'LeadSubmitted', 'AddToCart', 'InitiateCheckout', 'ViewContent'].includes(e.event_name)) return 'event_name';
    const now = Date.now() / 1000;
    if (!Number.isInteger(e.event_time) || e.event_time > now + 60) return 'event_time';
    // Meta: an event_time more than 7 days in the past fails the whole request
    if (e.event_time < now - 7 * 24 * 3600) return 'event_time: more than 7 days in the past';
    if (typeof e.event_id !== 'string' || !e.event_id) return 'event_id';
    if (e.action_source !== 'business_messaging') return 'action_source';
    if (e.messaging_channel !== 'whatsapp') return 'messaging_channel';
    if (!exactly(e.user_data, ['whatsapp_business_account_id', 'ctwa_clid'])) return 'user_data';
    if (e.user_data.whatsapp_business_account_id !== account.waba_id) return 'user_data.whatsapp_business_account_id';
    if (typeof e.user_data.ctwa_clid !== 'string' || !e.user_data.ctwa_clid) return 'user_data.ctwa_clid';
    if (!exactly(e.custom_data, ['currency', 'value'])) return 'custom_data';
    if (typeof e.custom_data.currency !== 'string' || !/^[A-Z]{3}$/.test(e.custom_data.currency)) return 'custom_data.currency';
    if (typeof e.custom_data.value !== 'number' || !Number.isFinite(e.custom_data.value)) return 'custom_data.value';
  }
  return null;
}

const RICH_TYPES = ['location', 'interactive', 'image', 'video', 'document', 'audio', 'sticker', 'reaction'];

/** What the Cloud API would refuse in a reply of a rich type, or null. */
function richProblem(msg: Record<string, any>, uploaded: (id: string) => boolean): string | null {
  if (msg.messaging_product !== 'whatsapp' || msg.recipient_type !== 'individual') return 'messaging_product';
  const to = typeof msg.to === 'string' && /^[0-9]+$/.test(msg.to);
  const recipient = typeof msg.recipient === 'string' && /^[A-Z]{2}\.[A-Za-z0-9.]+$/.test(msg.recipient);
  if (to === recipient) return 'to';
  if (msg.context !== undefined && typeof msg.context?.message_id !== 'string') return 'context.message_id';
  const o = msg[msg.type];
  if (typeof o !== 'object' || o === null) return msg.type;
  switch (msg.type) {
    case 'location':
      return typeof o.latitude === 'number' && typeof o.longitude === 'number' ? null : 'location';
    case 'interactive':
      return ['button', 'list', 'cta_url', 'location_request_message'].includes(o.type) && typeof o.body?.text === 'string' && o.action
        ? null
        : 'interactive';
    case 'reaction':
      return typeof o.message_id === 'string' && typeof o.emoji === 'string' && msg.context === undefined ? null : 'reaction';
    default:
      if ((o.id === undefined) === (o.link === undefined)) return `${msg.type}: id or link`;
      if (o.id !== undefined && !uploaded(o.id)) return `${msg.type}.id: unknown media`;
      if (o.link !== undefined && !/^https:\/\//.test(o.link)) return `${msg.type}.link`;
      if (o.caption !== undefined && (msg.type === 'audio' || msg.type === 'sticker')) return `${msg.type}.caption`;
      return null;
  }
}

interface MultipartBody {
  fields: Record<string, string>;
  files: Record<string, { filename: string | null; contentType: string | null; data: Buffer }>;
}

/** A multipart/form-data body, parsed (the fake reads small test files whole). */
function parseMultipart(bytes: Buffer, boundary: string): MultipartBody | null {
  const out: MultipartBody = { fields: {}, files: {} };
  const delimiter = Buffer.from(`--${boundary}`);
  let at = bytes.indexOf(delimiter);
  if (at < 0) return null;
  for (;;) {
    at += delimiter.length;
    if (bytes.subarray(at, at + 2).toString() === '--') return out;
    const headEnd = bytes.indexOf('\r\n\r\n', at);
    const next = bytes.indexOf(delimiter, headEnd);
    if (headEnd < 0 || next < 0) return null;
    const head = bytes.subarray(at + 2, headEnd).toString('utf8');
    const data = bytes.subarray(headEnd + 4, next - 2);
    const name = /name="([^"]*)"/.exec(head)?.[1];
    const filename = /filename="([^"]*)"/.exec(head)?.[1] ?? null;
    const contentType = /content-type:\s*([^\r\n]+)/i.exec(head)?.[1] ?? null;
    if (name && filename !== null) out.files[name] = { filename, contentType, data };
    else if (name) out.fields[name] = data.toString('utf8');
    at = next;
  }
}

const textId = (n: number) => `wamid.TEXT${process.pid}.${String(n).padStart(6, '0')}`;

function graphError(message: string, type: string, code: number) {
  return { error: { message, type, code, fbtrace_id: 'AbCdEfGh' } };
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function encodeCursor(n: number): string {
  return Buffer.from(`offset:${n}`).toString('base64url');
}

function decodeCursor(c: string | null): number {
  if (!c) return 0;
  const m = /^offset:(\d+)$/.exec(Buffer.from(c, 'base64url').toString('utf8'));
  return m ? Number(m[1]) : 0;
}

/** One inbound message of a notification (Meta's shape). */
export interface MetaMessage {
  from: string;
  /** The BSUID (CONTRACT §12.1); with `from: ''` the item carries no phone number at all. */
  from_user_id?: string;
  id: string;
  timestamp?: string | number;
  type?: string;
  text?: string;
  /** Extra members, e.g. `{image: {caption, id}}`. */
  extra?: Record<string, unknown>;
}

/** One status of a notification (Meta's shape). */
export interface MetaStatus {
  id: string;
  status: string;
  recipient_id?: string;
  timestamp?: string;
  errors?: { code: number; title: string; message?: string }[];
}

export interface MetaDelivery {
  status: number;
  body: any;
}

/**
 * Meta's side of the webhooks: builds notification bodies as the Cloud API sends them, signs
 * them as Meta does (`X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body keyed with the
 * app secret>`) and posts them to the service, including a retried delivery (the very same bytes
 * again) and a body signed with another secret.
 */
export class MetaWebhooks {
  constructor(private readonly url: string) {}

  static signature(raw: string | Buffer, appSecret: string): string {
    return `sha256=${createHmac('sha256', appSecret).update(raw).digest('hex')}`;
  }

  /** A `whatsapp_business_account` notification with one change for the phone number. */
  static notification(
    phoneNumberId: string,
    parts: {
      messages?: MetaMessage[];
      statuses?: MetaStatus[];
      contacts?: { wa_id?: string; user_id?: string; name?: string; username?: string }[];
    },
  ): Record<string, unknown> {
    const value: Record<string, unknown> = {
      messaging_product: 'whatsapp',
      metadata: { display_phone_number: '15550001111', phone_number_id: phoneNumberId },
    };
    const contacts: { wa_id?: string; user_id?: string; name?: string; username?: string }[] =
      parts.contacts ?? [...new Set((parts.messages ?? []).map((m) => m.from))].map((wa_id) => ({ wa_id }));
    if (parts.messages) {
      value.contacts = contacts.map((c) => ({
        ...(c.wa_id ? { wa_id: c.wa_id } : {}),
        ...(c.user_id ? { user_id: c.user_id } : {}),
        profile: { name: c.name ?? `Contact ${c.wa_id ?? c.user_id}`, ...(c.username ? { username: c.username } : {}) },
      }));
      value.messages = parts.messages.map((m) => ({
        ...(m.from ? { from: m.from } : {}),
        ...(m.from_user_id ? { from_user_id: m.from_user_id } : {}),
        id: m.id,
        timestamp: m.timestamp ?? String(Math.floor(Date.now() / 1000)),
        type: m.type ?? 'text',
        ...(m.text !== undefined ? { text: { body: m.text } } : {}),
        ...m.extra,
      }));
    }
    if (parts.statuses) {
      value.statuses = parts.statuses.map((st) => ({
        recipient_id: '5215512345678',
        timestamp: String(Math.floor(Date.now() / 1000)),
        ...st,
      }));
    }
    return { object: 'whatsapp_business_account', entry: [{ id: 'WABA-ID', changes: [{ field: 'messages', value }] }] };
  }

  /** Posts the body (an object is serialised once; those exact bytes are signed and sent). */
  async post(
    body: unknown,
    appSecret: string | null,
    opts: { signWith?: string; signature?: string; contentType?: string } = {},
  ): Promise<MetaDelivery & { raw: string }> {
    const raw = typeof body === 'string' ? body : JSON.stringify(body);
    const headers: Record<string, string> = { 'content-type': opts.contentType ?? 'application/json', 'user-agent': 'facebookexternalua' };
    const signature = opts.signature ?? (appSecret !== null ? MetaWebhooks.signature(raw, opts.signWith ?? appSecret) : undefined);
    if (signature !== undefined) headers['x-hub-signature-256'] = signature;
    const res = await fetch(this.url, { method: 'POST', headers, body: raw });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* kept as text */
    }
    return { status: res.status, body: parsed, raw };
  }

  /** As Meta retries a delivery it got no 2xx for: the very same bytes again. */
  async retry(raw: string, appSecret: string): Promise<MetaDelivery> {
    return this.post(raw, appSecret);
  }

  /** A body signed with another secret (an attacker, or a misconfigured app). */
  async forged(body: unknown, otherSecret: string): Promise<MetaDelivery> {
    return this.post(body, otherSecret);
  }

  /** Meta's verification handshake. */
  async verify(
    verifyToken: string,
    challenge: string,
    mode = 'subscribe',
  ): Promise<{ status: number; contentType: string | null; body: string }> {
    const q = new URLSearchParams({ 'hub.mode': mode, 'hub.verify_token': verifyToken, 'hub.challenge': challenge });
    const res = await fetch(`${this.url}?${q}`);
    return { status: res.status, contentType: res.headers.get('content-type'), body: await res.text() };
  }
}

export async function startWhatsAppFake(): Promise<WhatsAppFake> {
  return new WhatsAppFake().start();
}
