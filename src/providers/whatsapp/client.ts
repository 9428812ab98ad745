import { setTimeout as sleep } from 'node:timers/promises';
import { TEMPLATE_STATUSES } from '../../entities/ai-template.js';
import {
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
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
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
      let url: string | undefined = `${base}/${encodeURIComponent(waba_id)}/message_templates`;
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
      const body = (await call(`${base}/${encodeURIComponent(phone_number_id)}/messages`, { method: 'POST', token: access_token, body: payload }, [])) as {
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
      const url = `${base}/${encodeURIComponent(phone)}?fields=display_phone_number,verified_name,quality_rating`;
      const body = (await call(url, { method: 'GET', token }, [])) as Record<string, unknown>;
      const text = (v: unknown) => (typeof v === 'string' ? v : null);
      return { display_phone_number: text(body.display_phone_number), verified_name: text(body.verified_name), quality_rating: text(body.quality_rating) };
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
 * The outcome of one text send: `accepted` with the provider's message id, or not, with whether a
 * later attempt may succeed (`retry`) and the reason as CONTRACT §10.1 words it: `"CODE: TEXT"`
 * for the provider's own error, else `"timeout"`, `"connection error"` or `"HTTP 503"`.
 */
export type TextSendOutcome = { accepted: true; id: string } | { accepted: false; retry: boolean; error: string };

export interface TextMessage {
  phone_number_id: string;
  access_token: string;
  to: string;
  body: string;
}

/**
 * `POST {base}/{phone_number_id}/messages` with a text message (CONTRACT §10.1), one attempt, cut at
 * `timeoutMs`. Never throws: every answer is classified. Retried: no answer in time, a connection
 * error, 5xx, 429, and Meta's throttling codes; any other 4xx is final.
 */
export function createWhatsAppTextSender(options: { baseUrl: string; timeoutMs: number }): (message: TextMessage) => Promise<TextSendOutcome> {
  const base = options.baseUrl.replace(/\/+$/, '');
  return async (message) => {
    let res: Response;
    let text: string;
    try {
      res = await fetch(`${base}/${encodeURIComponent(message.phone_number_id)}/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${message.access_token}`, accept: 'application/json', 'content-type': 'application/json' },
        body: JSON.stringify({
          messaging_product: 'whatsapp',
          recipient_type: 'individual',
          to: message.to,
          type: 'text',
          text: { body: message.body, preview_url: false },
        }),
        redirect: 'error',
        signal: AbortSignal.timeout(options.timeoutMs),
      });
      text = await res.text();
    } catch (err) {
      const name = (err as Error)?.name;
      if (name === 'TimeoutError' || name === 'AbortError') return { accepted: false, retry: true, error: 'timeout' };
      const code = (err as { cause?: { code?: string } }).cause?.code;
      return { accepted: false, retry: true, error: code ? `connection error (${code})` : 'connection error' };
    }
    let body: any;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    if (res.status >= 200 && res.status < 300) {
      const id = Array.isArray(body?.messages) ? body.messages[0]?.id : undefined;
      if (typeof id === 'string' && id) return { accepted: true, id };
      return { accepted: false, retry: false, error: `HTTP ${res.status} without messages[0].id` };
    }
    const code = body?.error?.code;
    const detail = typeof body?.error?.message === 'string' && body.error.message ? body.error.message : null;
    const reason = typeof code === 'number' && detail ? redact(`${code}: ${detail}`, [message.access_token]).slice(0, 1000) : `HTTP ${res.status}`;
    const retry = res.status >= 500 || res.status === 429 || (typeof code === 'number' && THROTTLING_CODES.has(code));
    return { accepted: false, retry, error: reason };
  };
}
