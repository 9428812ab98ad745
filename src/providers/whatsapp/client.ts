import http from 'node:http';
import https from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import { TEMPLATE_STATUSES } from '../../entities/ai-template.js';
import { parseWithoutNul } from '../../errors/nul.js';
import {
  pathSegment,
  PROVIDER_ID,
  ProviderError,
  type CredentialCheck,
  redact,
  type MessagingProvider,
  type ProviderCredentials,
  type ProviderTemplate,
  type SendTemplateInput,
  type SendTemplateResult,
} from '../messaging.js';

/**
 * The WhatsApp Cloud API (CONTRACT §6.1), with the platform's `fetch`:
 * - list: `GET {base}/{waba_id}/message_templates`, then every `paging.next` as given;
 * - send: `POST {base}/{phone_number_id}/messages` with the template body;
 * - check: `GET {base}/{phone_number_id}?fields=display_phone_number,verified_name,quality_rating`;
 * - typing: `POST {base}/{phone_number_id}/messages` with a read receipt and `typing_indicator` (§12.4);
 * both with `Authorization: Bearer <access_token>`. Each HTTP call times out after `timeoutMs`.
 * Only the list retries, on a network error or a 5xx (not on a timeout: a request must not hang
 * for several timeouts). 4xx → rejected with the provider's `error.message`; the rest → unavailable.
 */
export interface WhatsAppOptions {
  baseUrl: string;
  timeoutMs?: number;
  /** Pauses before each retry of a list page; its length is the number of retries. */
  retryDelaysMs?: number[];
  /** Safety bound on `paging.next` chains. */
  maxPages?: number;
}

export interface WhatsAppCredentials {
  waba_id: string;
  phone_number_id: string;
  access_token: string;
}

interface CloudTemplate {
  id?: unknown;
  name?: unknown;
  language?: unknown;
  category?: unknown;
  status?: unknown;
  components?: unknown;
}

interface TemplatePage {
  data?: CloudTemplate[];
  paging?: { next?: unknown };
}

const DEFAULTS = { timeoutMs: 10_000, retryDelaysMs: [200, 600], maxPages: 200 };

/** Provider statuses outside the five documented ones, mapped onto them. */
const STATUS_ALIASES: Record<string, string> = {
  IN_APPEAL: 'PENDING',
  PENDING_DELETION: 'DISABLED',
  DELETED: 'DISABLED',
  ARCHIVED: 'DISABLED',
  LIMIT_EXCEEDED: 'PAUSED',
};

export function createWhatsAppClient(options: WhatsAppOptions): MessagingProvider {
  const base = options.baseUrl.replace(/\/+$/, '');
  const origin = new URL(base).origin;
  const timeoutMs = options.timeoutMs ?? DEFAULTS.timeoutMs;
  const retryDelays = options.retryDelaysMs ?? DEFAULTS.retryDelaysMs;
  const maxPages = options.maxPages ?? DEFAULTS.maxPages;

  async function call(url: string, init: { method: 'GET' | 'POST'; token: string; body?: unknown }, retries: number[]): Promise<unknown> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await once(url, init);
      } catch (err) {
        const retryable = err instanceof ProviderError && err.kind === 'unavailable' && !err.reason.startsWith('timeout');
        if (!retryable || attempt >= retries.length) throw err;
        await sleep(retries[attempt]);
      }
    }
  }

  async function once(url: string, init: { method: 'GET' | 'POST'; token: string; body?: unknown }): Promise<unknown> {
    let res: Response;
    let text: string;
    try {
      res = await fetch(url, {
        method: init.method,
        headers: {
          authorization: `Bearer ${init.token}`,
          accept: 'application/json',
          ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
        redirect: 'error',
        signal: AbortSignal.timeout(timeoutMs),
      });
      text = await res.text();
    } catch (err) {
      const name = (err as Error)?.name;
      if (name === 'TimeoutError' || name === 'AbortError') throw new ProviderError('unavailable', `timeout after ${timeoutMs} ms`);
      const code = ((err as { cause?: { code?: string } }).cause?.code ?? name) || 'error';
      throw new ProviderError('unavailable', `network: ${code}`);
    }
    const body: unknown = parseAnswer(text);
    if (res.status >= 500) throw new ProviderError('unavailable', `HTTP ${res.status}`);
    if (res.status >= 400) {
      const message = (body as { error?: { message?: unknown } } | undefined)?.error?.message;
      const detail = redact(typeof message === 'string' && message ? message : `HTTP ${res.status}`, [init.token]).slice(0, 500);
      throw new ProviderError('rejected', `HTTP ${res.status}`, detail);
    }
    if (res.status < 200 || res.status >= 300 || body === undefined || typeof body !== 'object' || body === null) {
      throw new ProviderError('unavailable', `unexpected answer (HTTP ${res.status})`);
    }
    return body;
  }

  return {
    async listTemplates(credentials) {
      const { waba_id, access_token } = credentialsOf(credentials);
      const out: ProviderTemplate[] = [];
      let url: string | undefined = `${base}/${pathSegment(waba_id)}/message_templates`;
      for (let page = 0; url; page++) {
        if (page >= maxPages) throw new ProviderError('unavailable', `more than ${maxPages} pages`);
        const body = (await call(url, { method: 'GET', token: access_token }, retryDelays)) as TemplatePage;
        if (!Array.isArray(body.data)) throw new ProviderError('unavailable', 'template list without data');
        for (const t of body.data) out.push(toTemplate(t));
        url = nextPage(body.paging?.next, origin);
      }
      return out;
    },

    async sendTemplate(credentials, input: SendTemplateInput): Promise<SendTemplateResult> {
      const { phone_number_id, access_token } = credentialsOf(credentials);
      const payload = {
        messaging_product: 'whatsapp',
        to: input.to,
        type: 'template',
        template: {
          name: input.name,
          language: { code: input.language },
          components: input.bodyParameters.length
            ? [{ type: 'body', parameters: input.bodyParameters.map((text) => ({ type: 'text', text })) }]
            : [],
        },
      };
      const body = (await call(
        `${base}/${pathSegment(phone_number_id)}/messages`,
        { method: 'POST', token: access_token, body: payload },
        [],
      )) as {
        messages?: { id?: unknown }[];
      };
      const id = Array.isArray(body.messages) ? body.messages[0]?.id : undefined;
      if (typeof id !== 'string' || !id) throw new ProviderError('unavailable', 'send answer without messages[0].id');
      return { message_id: id };
    },

    async checkCredentials(credentials): Promise<CredentialCheck> {
      const phone = credentials.phone_number_id;
      const token = credentials.access_token;
      if (typeof phone !== 'string' || !phone || typeof token !== 'string' || !token) {
        throw new ProviderError('not_configured', 'incomplete WhatsApp credentials');
      }
      const url = `${base}/${pathSegment(phone)}?fields=display_phone_number,verified_name,quality_rating`;
      const body = (await call(url, { method: 'GET', token }, [])) as Record<string, unknown>;
      const text = (v: unknown) => (typeof v === 'string' ? v : null);
      return {
        display_phone_number: text(body.display_phone_number),
        verified_name: text(body.verified_name),
        quality_rating: text(body.quality_rating),
      };
    },

    async markReadTyping(credentials, messageId): Promise<void> {
      const phone = credentials.phone_number_id;
      const token = credentials.access_token;
      if (typeof phone !== 'string' || !phone || typeof token !== 'string' || !token) {
        throw new ProviderError('not_configured', 'incomplete WhatsApp credentials');
      }
      const body = { messaging_product: 'whatsapp', status: 'read', message_id: messageId, typing_indicator: { type: 'text' } };
      await call(`${base}/${pathSegment(phone)}/messages`, { method: 'POST', token, body }, []);
    },
  };
}

function credentialsOf(c: ProviderCredentials): WhatsAppCredentials {
  const ok = (v: unknown): v is string => typeof v === 'string' && v.length > 0;
  if (!ok(c.waba_id) || !ok(c.phone_number_id) || !ok(c.access_token)) {
    throw new ProviderError('not_configured', 'incomplete WhatsApp credentials');
  }
  return { waba_id: c.waba_id, phone_number_id: c.phone_number_id, access_token: c.access_token };
}

/** `paging.next` is followed only on the configured API's origin: the token never goes elsewhere. */
function nextPage(next: unknown, origin: string): string | undefined {
  if (typeof next !== 'string' || !next) return undefined;
  let url: URL;
  try {
    url = new URL(next);
  } catch {
    throw new ProviderError('unavailable', 'malformed paging.next');
  }
  if (url.origin !== origin) throw new ProviderError('unavailable', 'paging.next on another origin');
  return url.toString();
}

function toTemplate(t: CloudTemplate): ProviderTemplate {
  const str = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : '');
  const external_id = str(t.id);
  const name = str(t.name);
  const language = str(t.language);
  if (!external_id || !name || !language) throw new ProviderError('unavailable', 'template without id, name or language');
  const raw = str(t.status).toUpperCase();
  const status = (TEMPLATE_STATUSES as readonly string[]).includes(raw) ? raw : (STATUS_ALIASES[raw] ?? 'DISABLED');
  return {
    external_id,
    name,
    language,
    category: str(t.category) || null,
    status,
    components: Array.isArray(t.components) ? t.components : [],
  };
}

/** Meta's throttling codes (CONTRACT §10.1): retried like a 429. */
export const THROTTLING_CODES: ReadonlySet<number> = new Set([4, 80007, 130429, 131056]);

/**
 * A Cloud API answer's JSON body; undefined when it is empty or not JSON. Mended as notifications are (CONTRACT §11): no
 * NUL, unpaired surrogates as U+FFFD, so a template's text Meta sends is stored, never refused by PostgreSQL.
 */
export function parseAnswer(text: string): any {
  try {
    return text ? parseWithoutNul(text) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Why a Cloud API call failed, as CONTRACT §10.1 words it ("CODE: TEXT" from Meta's error, the token
 * redacted, else "HTTP n"), and whether it is retried (5xx, 429, Meta's throttling codes).
 */
export function providerFailure(status: number, body: any, token: string): { retry: boolean; error: string } {
  const code = body?.error?.code;
  const detail = typeof body?.error?.message === 'string' && body.error.message ? body.error.message : null;
  const error = typeof code === 'number' && detail ? redact(`${code}: ${detail}`, [token]).slice(0, 1000) : `HTTP ${status}`;
  const retry = status >= 500 || status === 429 || (typeof code === 'number' && THROTTLING_CODES.has(code));
  return { retry, error };
}

/**
 * The outcome of one text send: `accepted` with the provider's message id, or not, with whether a
 * later attempt may succeed (`retry`) and the reason as CONTRACT §10.1 words it: `"CODE: TEXT"`
 * for the provider's own error, else `"timeout"`, `"connection error"` or `"HTTP 503"`.
 */
export type TextSendOutcome = { accepted: true; id: string } | { accepted: false; retry: boolean; error: string };

export interface TextMessage {
  phone_number_id: string;
  access_token: string;
  /** The phone number, or the BSUID of a contact whose number is unknown. */
  to: string;
  body: string;
  /** A reply of another type (CONTRACT §12.4): its whole Cloud API body (providers/whatsapp/outbound.ts), sent instead of the text. */
  message?: Record<string, unknown>;
}

/** CONTRACT §12.1: `{to: PHONE}`, or `{recipient: BSUID}` for a contact whose phone number is unknown. */
export function addressOf(contact: string): { to: string } | { recipient: string } {
  return /^[0-9]+$/.test(contact) ? { to: contact } : { recipient: contact };
}

/** The largest answer body the text sender reads (Meta's answers are a few hundred bytes). */
const MAX_ANSWER_BYTES = 1 << 20;

export interface WhatsAppTextSender {
  send(message: TextMessage): Promise<TextSendOutcome>;
  /** Closes the idle kept-alive connections. */
  close(): void;
}

/**
 * `POST {base}/{phone_number_id}/messages` with a text message (CONTRACT §10.1), one attempt, cut at
 * `timeoutMs`. Never throws: every answer is classified. Retried: no answer in time, a connection
 * error, 5xx, 429, and Meta's throttling codes; any other answer (a redirect too: never followed) is final.
 * node:http(s) with a keep-alive agent (at most `maxSockets` connections): a send reuses an open
 * connection instead of paying a connection (and TLS) setup, and costs less CPU than `fetch`.
 */
export function createWhatsAppTextSender(options: { baseUrl: string; timeoutMs: number; maxSockets?: number }): WhatsAppTextSender {
  const base = options.baseUrl.replace(/\/+$/, '');
  const secure = new URL(base).protocol === 'https:';
  // `timeout`: idle kept-alive sockets are closed after it (sooner when the server's Keep-Alive hint says so)
  const agentOptions = { keepAlive: true, maxSockets: options.maxSockets ?? 64, timeout: 30_000, scheduling: 'lifo' as const };
  const agent = secure ? new https.Agent(agentOptions) : new http.Agent(agentOptions);
  const request = secure ? https.request : http.request;
  return {
    close: () => agent.destroy(),
    send: (message) =>
      // an id that is not one never becomes a URL (pathSegment would throw inside the promise)
      !PROVIDER_ID.test(message.phone_number_id)
        ? Promise.resolve<TextSendOutcome>({ accepted: false, retry: false, error: 'phone_number_id is not an id' })
        : new Promise<TextSendOutcome>((resolve) => {
            let settled = false;
            const done = (outcome: TextSendOutcome) => {
              if (settled) return;
              settled = true;
              clearTimeout(deadline);
              resolve(outcome);
            };
            const body = Buffer.from(
              JSON.stringify(
                message.message ?? {
                  messaging_product: 'whatsapp',
                  recipient_type: 'individual',
                  // CONTRACT §12.1: a contact known only by its BSUID is addressed as `recipient`
                  ...addressOf(message.to),
                  type: 'text',
                  text: { body: message.body, preview_url: false },
                },
              ),
            );
            const req = request(`${base}/${pathSegment(message.phone_number_id)}/messages`, {
              method: 'POST',
              agent,
              headers: {
                authorization: `Bearer ${message.access_token}`,
                accept: 'application/json',
                'content-type': 'application/json',
                'content-length': String(body.length),
              },
            });
            const deadline = setTimeout(() => {
              done({ accepted: false, retry: true, error: 'timeout' });
              req.destroy();
            }, options.timeoutMs);
            req.on('response', (res) => {
              const chunks: Buffer[] = [];
              let size = 0;
              res.on('data', (chunk: Buffer) => {
                size += chunk.length;
                if (size <= MAX_ANSWER_BYTES) chunks.push(chunk);
              });
              res.on('end', () =>
                done(classifyTextAnswer(res.statusCode ?? 0, Buffer.concat(chunks).toString('utf8'), message.access_token)),
              );
              res.on('error', () => done({ accepted: false, retry: true, error: 'connection error' }));
            });
            req.on('error', (err: NodeJS.ErrnoException) =>
              done({ accepted: false, retry: true, error: err.code ? `connection error (${err.code})` : 'connection error' }),
            );
            req.on('close', () => done({ accepted: false, retry: true, error: 'connection error' }));
            req.end(body);
          }),
  };
}

function classifyTextAnswer(status: number, text: string, token: string): TextSendOutcome {
  const body = parseAnswer(text);
  if (status >= 200 && status < 300) {
    const id = Array.isArray(body?.messages) ? body.messages[0]?.id : undefined;
    if (typeof id === 'string' && id) return { accepted: true, id };
    return { accepted: false, retry: false, error: `HTTP ${status} without messages[0].id` };
  }
  return { accepted: false, ...providerFailure(status, body, token) };
}
