import { parseWithoutNul } from '../../errors/nul.js';
import { assertBodyDepth } from '../../errors/depth.js';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { appError, validationError } from '../../errors/codes.js';
import type { RequestContext } from '../../context/index.js';
import { sameSecret, type CredentialCipher } from '../../platform/secrets.js';
import { TtlCache } from '../../platform/ttl-cache.js';
import { ACCESS, assertAccess, assertAiModule } from '../identity/access.js';
import { isObject, receiveNotification, type WhatsAppDeliveryResult } from './inbound-notification.js';
import { accountWabaId } from './webhook-items.js';

/** A WhatsApp agent of the project with its webhook credentials (decrypted; never logged or returned). */
interface WhatsAppAgent {
  id: number;
  business_id: number | null;
  enabled: boolean;
  phone_number_id: string | null;
  waba_id: string | null;
  app_secret: string | null;
  verify_token: string | null;
}

const SIGNATURE = /^sha256=([0-9a-fA-F]{64})$/;
/**
 * How long a project's decrypted WhatsApp agents are reused (like the API-key cache): a changed
 * secret, a disabled agent or a new one takes effect within this long, in every process.
 */
export const WEBHOOK_AGENTS_CACHE_MS = 1000;

/**
 * Meta's WhatsApp webhooks (CONTRACT §9.3): the verification handshake, the signature over the raw
 * body (checked by the REST gateway before the operation runs) with the project's WhatsApp agents'
 * credentials, and the notifications, read and stored by inbound-notification.ts.
 */
export class WhatsAppInboundService {
  private readonly cache = new TtlCache<number, WhatsAppAgent[]>(WEBHOOK_AGENTS_CACHE_MS, 10_000);

  constructor(private readonly cipher: CredentialCipher) {}

  /** `GET /ai/webhooks/whatsapp`: the challenge when the token is a WhatsApp agent's verify_token, else 403. */
  async challenge(
    ctx: RequestContext,
    mode: string | null | undefined,
    token: string | null | undefined,
    challenge: string | null | undefined,
  ): Promise<string> {
    assertAccess(ctx, ACCESS.OPEN);
    assertAiModule(ctx);
    if (mode !== 'subscribe' || typeof token !== 'string' || !token || typeof challenge !== 'string') {
      throw appError('ERROR_WEBHOOK_VERIFICATION_FAILED');
    }
    const agents = await this.agents(ctx);
    // Every agent is compared (no early exit), each in constant time.
    let matched = false;
    for (const a of agents) if (a.verify_token != null && sameSecret(a.verify_token, token)) matched = true;
    if (!matched) throw appError('ERROR_WEBHOOK_VERIFICATION_FAILED');
    return challenge;
  }

  /**
   * The signature check of `POST /ai/webhooks/whatsapp`, over the bytes received. The signature must
   * match the app_secret of every enabled agent of the project the body names; a body that names
   * none (not JSON, another shape, only unknown or disabled agents) must match the app_secret of at
   * least one WhatsApp agent of the project. Anything else: 401, before anything is read from the body.
   * Then a body that is not a JSON object: 400. Sets `ctx.webhook` and returns the parsed body.
   */
  async authenticate(ctx: RequestContext, raw: Buffer, signatureHeader: string | string[] | undefined): Promise<Record<string, unknown>> {
    const match = typeof signatureHeader === 'string' ? SIGNATURE.exec(signatureHeader.trim()) : null;
    if (!match) throw appError('ERROR_WEBHOOK_SIGNATURE');
    const given = Buffer.from(match[1], 'hex');

    let body: unknown;
    try {
      body = parseWithoutNul(raw.toString('utf8')); // CONTRACT §11: a NUL is dropped from the stored text
    } catch {
      body = undefined;
    }
    const named = namedPhoneIds(body);
    const agents = await this.agents(ctx);
    const targets = agents.filter(
      (a) =>
        a.enabled &&
        ((a.phone_number_id != null && named.phones.has(a.phone_number_id)) || (a.waba_id != null && named.wabas.has(a.waba_id))),
    );
    const signs = (a: WhatsAppAgent) => a.app_secret != null && sameDigest(createHmac('sha256', a.app_secret).update(raw).digest(), given);
    const verified = targets.length > 0 ? targets.map(signs).every(Boolean) : agents.map(signs).some(Boolean);
    if (!verified) throw appError('ERROR_WEBHOOK_SIGNATURE');

    if (!isObject(body)) throw validationError([{ field: 'body', rule: 'object' }]);
    // CONTRACT §11: deeper than JSON bodies may be is refused whole (never a 5xx, never a job that then fails)
    assertBodyDepth(body);
    ctx.webhook = {
      agents: targets.map((a) => ({ id: a.id, business_id: a.business_id, phone_number_id: a.phone_number_id, waba_id: a.waba_id })),
    };
    return body;
  }

  /** The notification itself (the operation the gateway runs once `authenticate` passed): inbound-notification.ts. */
  receive(ctx: RequestContext, payload: unknown): Promise<WhatsAppDeliveryResult> {
    return receiveNotification(ctx, payload);
  }

  /** Drops this process's cached agents of the project (an agent was changed through the API). */
  forget(projectId: number): void {
    this.cache.delete(projectId);
  }

  /** The project's WhatsApp agents with their decrypted webhook credentials (undecryptable ones have none). */
  private agents(ctx: RequestContext): Promise<WhatsAppAgent[]> {
    return this.cache.getOrLoad(ctx.project.id, () => this.loadAgents(ctx));
  }

  private async loadAgents(ctx: RequestContext): Promise<WhatsAppAgent[]> {
    const rows = await ctx.em
      .getConnection()
      .execute<{ id: number; business_id: number | null; enabled: boolean; credentials: string | null }[]>(
        `select id, business_id, enabled, credentials from ai_agents where project_id = ? and provider = 'whatsapp' order by id`,
        [ctx.project.id],
      );
    return rows.map((r) => {
      const c = this.credentials(r.credentials);
      return {
        id: r.id,
        business_id: r.business_id,
        enabled: r.enabled,
        phone_number_id: str(c.phone_number_id),
        waba_id: str(c.waba_id),
        app_secret: str(c.app_secret),
        verify_token: str(c.verify_token),
      };
    });
  }

  private credentials(stored: string | null): Record<string, unknown> {
    if (!stored) return {};
    try {
      const value = this.cipher.decrypt<unknown>(stored);
      return isObject(value) ? value : {};
    } catch {
      return {};
    }
  }
}

/**
 * The phone_number_ids a notification names, and the WABA ids of its account updates that name no
 * phone number (`value.waba_info.waba_id`, else `entry[].id`: CONTRACT §13.5); empty for anything that
 * is not Meta's shape.
 */
function namedPhoneIds(body: unknown): { phones: Set<string>; wabas: Set<string> } {
  const phones = new Set<string>();
  const wabas = new Set<string>();
  if (!isObject(body) || !Array.isArray(body.entry)) return { phones, wabas };
  for (const entry of body.entry) {
    if (!isObject(entry) || !Array.isArray(entry.changes)) continue;
    for (const change of entry.changes) {
      const id =
        isObject(change) && isObject(change.value) && isObject(change.value.metadata) ? change.value.metadata.phone_number_id : undefined;
      if (typeof id === 'string' && id) phones.add(id);
      else if (isObject(change) && change.field === 'account_update') {
        const waba = accountWabaId(entry, change.value);
        if (waba) wabas.add(waba);
      }
    }
  }
  return { phones, wabas };
}

/** Constant time on equal-length digests; a wrong length is simply no match. */
function sameDigest(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);
