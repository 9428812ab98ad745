import { createHmac, timingSafeEqual } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { appError, validationError } from '../../errors/codes.js';
import type { RequestContext, VerifiedWebhook } from '../../context/index.js';
import { sameSecret, type CredentialCipher } from '../../platform/secrets.js';
import { TtlCache } from '../../platform/ttl-cache.js';
import { ACCESS, assertAccess, assertAiModule } from '../identity/access.js';
import { conversationEvent, messageRecord, messageRecordSql } from '../conversations/records.js';
import { eventsCommitted, writeWithEvents, type NewAiEvent } from '../events/event-log.js';
import { MOVES_FROM, moveTemplateSend, templateSendEvent } from './template-send.service.js';
import { keepEarlyStatus, knownExternalId, lockExternalId, messageStatusEvent, moveMessageStatus, type StatusMove } from './delivery.js';

/** A WhatsApp agent of the project with its webhook credentials (decrypted; never logged or returned). */
interface WhatsAppAgent {
  id: number;
  business_id: number | null;
  enabled: boolean;
  phone_number_id: string | null;
  app_secret: string | null;
  verify_token: string | null;
}

export interface WhatsAppDeliveryResult {
  messages: number;
  statuses: number;
}

const SIGNATURE = /^sha256=([0-9a-fA-F]{64})$/;
/** Meta's statuses that say nothing about delivery (CONTRACT §10.1). */
const IGNORED_STATUSES: ReadonlySet<string> = new Set(['played', 'deleted', 'warning']);
/** `ai_conversations.contact` and `ai_inbound_message_ids.external_id` widths. */
const MAX_CONTACT = 64;
const MAX_EXTERNAL_ID = 128;
/**
 * How long a project's decrypted WhatsApp agents are reused (like the API-key cache): a changed
 * secret, a disabled agent or a new one takes effect within this long, in every process.
 */
export const WEBHOOK_AGENTS_CACHE_MS = 1000;
/** What the log line about an unusable part keeps of it. */
const MAX_LOGGED_PROBLEMS = 20;

/** The user whose country code and cellphone digits, joined, are the contact (same expression as users_phone_digits_idx). */
const USER_BY_PHONE = `(select id from users
   where project_id = ?
     and regexp_replace(coalesce(country_phone_code, ''), '[^0-9]', '', 'g') || regexp_replace(coalesce(cellphone, ''), '[^0-9]', '', 'g') = ?
   order by id limit 1)`;

/**
 * Meta's WhatsApp webhooks (CONTRACT §9.3): the verification handshake, the signature over the raw
 * body (checked by the REST gateway before the operation runs), and the notifications: inbound
 * messages into the (agent, contact) conversation, delivery statuses into the send log.
 */
export class WhatsAppInboundService {
  private readonly cache = new TtlCache<number, WhatsAppAgent[]>(WEBHOOK_AGENTS_CACHE_MS, 10_000);

  constructor(private readonly cipher: CredentialCipher) {}

  /** `GET /ai/webhooks/whatsapp`: the challenge when the token is a WhatsApp agent's verify_token, else 403. */
  async challenge(ctx: RequestContext, mode: string | null | undefined, token: string | null | undefined, challenge: string | null | undefined): Promise<string> {
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
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      body = undefined;
    }
    const named = namedPhoneIds(body);
    const agents = await this.agents(ctx);
    const targets = agents.filter((a) => a.enabled && a.phone_number_id != null && named.has(a.phone_number_id));
    const signs = (a: WhatsAppAgent) => a.app_secret != null && sameDigest(createHmac('sha256', a.app_secret).update(raw).digest(), given);
    const verified = targets.length > 0 ? targets.map(signs).every(Boolean) : agents.map(signs).some(Boolean);
    if (!verified) throw appError('ERROR_WEBHOOK_SIGNATURE');

    if (!isObject(body)) throw validationError([{ field: 'body', rule: 'object' }]);
    ctx.webhook = { agents: targets.map((a) => ({ id: a.id, business_id: a.business_id, phone_number_id: a.phone_number_id! })) };
    return body;
  }

  /**
   * The notification itself (the operation the gateway runs once `authenticate` passed). Each
   * message and each status is written in its own transaction, so what was stored before a crash
   * stays and Meta's retry stores only the rest. Unusable parts are skipped and logged once.
   */
  async receive(ctx: RequestContext, payload: unknown): Promise<WhatsAppDeliveryResult> {
    const webhook = ctx.webhook;
    if (!webhook) throw appError('ERROR_WEBHOOK_SIGNATURE');
    assertAiModule(ctx);
    const byPhone = new Map(webhook.agents.map((a) => [a.phone_number_id, a]));
    const problems: string[] = [];
    const result: WhatsAppDeliveryResult = { messages: 0, statuses: 0 };
    if (!isObject(payload)) throw validationError([{ field: 'body', rule: 'object' }]);
    if (payload.object !== undefined && payload.object !== 'whatsapp_business_account') problems.push('object is not whatsapp_business_account');

    for (const [e, entry] of list(payload.entry, 'entry', problems).entries()) {
      for (const [c, change] of list(isObject(entry) ? entry.changes : undefined, `entry[${e}].changes`, problems).entries()) {
        const where = `entry[${e}].changes[${c}]`;
        if (!isObject(change) || !isObject(change.value)) {
          problems.push(`${where}: not a change`);
          continue;
        }
        if (change.field !== 'messages') {
          problems.push(`${where}: field ${clip(change.field)} ignored`);
          continue;
        }
        const phone = isObject(change.value.metadata) ? change.value.metadata.phone_number_id : undefined;
        const agent = typeof phone === 'string' ? byPhone.get(phone) : undefined;
        if (!agent) continue; // naming no enabled agent of the project: ignored (CONTRACT §9.3)
        const { messages, statuses } = change.value;
        for (const [m, message] of optionalList(messages, `${where}.value.messages`, problems).entries()) {
          result.messages += await this.storeMessage(ctx, agent, message, `${where}.value.messages[${m}]`, problems);
        }
        for (const [s, status] of optionalList(statuses, `${where}.value.statuses`, problems).entries()) {
          result.statuses += await this.moveStatus(ctx, agent, status, `${where}.value.statuses[${s}]`, problems);
        }
      }
    }
    if (problems.length) {
      ctx.log.warn({ unusable: problems.slice(0, MAX_LOGGED_PROBLEMS), count: problems.length, stored: result }, 'whatsapp notification partly unusable');
    }
    return result;
  }

  /** One inbound message, in its own transaction: 1 when stored, 0 when skipped (a retry, or unusable). */
  private async storeMessage(ctx: RequestContext, agent: WebhookAgent, m: unknown, where: string, problems: string[]): Promise<number> {
    if (!isObject(m)) return skip(problems, `${where}: not a message`);
    const { from, id, type } = m;
    if (typeof id !== 'string' || !id || id.length > MAX_EXTERNAL_ID) return skip(problems, `${where}: no usable id`);
    if (typeof from !== 'string' || !/^[0-9]{1,64}$/.test(from) || from.length > MAX_CONTACT) return skip(problems, `${where}: no usable from`);
    const createdAt = unixSeconds(m.timestamp);
    // Without its time a message cannot be dated (nor open the customer service window): skipped (CONTRACT §9.3).
    if (!createdAt) return skip(problems, `${where}: timestamp ${clip(m.timestamp)} is not Unix seconds`);
    const content = contentOf(type, m);

    const intoActive = await storeInActive(ctx, agent, from, id, content, createdAt);
    if (intoActive !== null) return intoActive;
    return writeWithEvents(ctx, async (tx) => {
      // No active conversation a moment ago. The message's key first (a concurrent delivery of the
      // same id waits on it, then finds it taken), then, when the key was new and a conversation has
      // become active meanwhile, the message in it (and the conversation's updated_at).
      const [first] = await run(
        tx,
        `with k as (insert into ai_inbound_message_ids (agent_id, external_id, project_id) values (?, ?, ?) on conflict do nothing returning 1),
         c as (select id from ai_conversations
                where project_id = ? and agent_id = ? and contact = ? and status = 'active' and exists (select 1 from k)
                for no key update),
         m as (insert into ai_messages (project_id, conversation_id, role, content, public, created_at, external_id)
               select ?, c.id, 'user', ?, true, ?::timestamptz, ? from c
               returning *),
         touched as (update ai_conversations set updated_at = now(), last_inbound_at = greatest(last_inbound_at, (select created_at from m))
                      where project_id = ? and id in (select conversation_id from m))
         select exists (select 1 from k) as fresh, m.* from (select 1) one left join m on true`,
        [agent.id, id, ctx.project.id, ctx.project.id, agent.id, from, ctx.project.id, content, createdAt, id, ctx.project.id],
      );
      if (!first.fresh) return { value: 0, events: [] }; // already stored: Meta retried
      const events: NewAiEvent[] = [];
      const { fresh: _fresh, ...stored } = first;
      let message = stored;
      if (stored.id == null) {
        // The contact's first message (or its conversation was closed): open one, then store it there.
        const conversation = await openConversation(tx, ctx.project.id, agent, from, events);
        [message] = await run(
          tx,
          `with m as (
             insert into ai_messages (project_id, conversation_id, role, content, public, created_at, external_id)
             values (?, ?, 'user', ?, true, ?::timestamptz, ?)
             returning *),
           touched as (update ai_conversations set updated_at = now(), last_inbound_at = greatest(last_inbound_at, (select created_at from m))
                        where id = ? and project_id = ?)
           select * from m`,
          [ctx.project.id, conversation.id, content, createdAt, id, conversation.id, ctx.project.id],
        );
      }
      events.push({ type: 'message.created', data: messageRecord(message), agent_id: agent.id, business_id: agent.business_id, conversation_id: message.conversation_id, public: true });
      return { value: 1, events };
    });
  }

  /**
   * One status, in its own transaction: 1 when it moved a template send or a reply forward, else 0.
   * A status whose id matches nothing yet is kept for the reply whose send answer is still on its
   * way (CONTRACT §10.1); `played`, `deleted` and `warning` say nothing about delivery: ignored.
   */
  private async moveStatus(ctx: RequestContext, agent: WebhookAgent, s: unknown, where: string, problems: string[]): Promise<number> {
    if (!isObject(s)) return skip(problems, `${where}: not a status`);
    const { id, status } = s;
    if (typeof id !== 'string' || !id || id.length > MAX_EXTERNAL_ID) return skip(problems, `${where}: no usable id`);
    if (typeof status === 'string' && IGNORED_STATUSES.has(status)) return 0;
    if (typeof status !== 'string' || !Object.hasOwn(MOVES_FROM, status)) return skip(problems, `${where}: status ${clip(status)} unknown`);
    const next = status as StatusMove;
    return writeWithEvents(ctx, async (tx) => {
      const send = await moveTemplateSend(tx, ctx.project.id, agent.id, id, next, next === 'failed' ? firstErrorTitle(s.errors) : null);
      if (send) return { value: 1, events: [templateSendEvent('template.status', send, agent)] };
      await lockExternalId(tx, agent.id, id);
      const message = await moveMessageStatus(tx, ctx.project.id, agent.id, id, next, next === 'failed' ? firstErrorCode(s.errors) : null);
      if (message) return { value: 1, events: [messageStatusEvent(message, agent)] };
      if (!(await knownExternalId(tx, ctx.project.id, agent.id, id))) await keepEarlyStatus(tx, agent.id, id, next, next === 'failed' ? firstErrorCode(s.errors) : null);
      return { value: 0, events: [] };
    });
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
    const rows = await ctx.em.getConnection().execute<{ id: number; business_id: number | null; enabled: boolean; credentials: string | null }[]>(
      `select id, business_id, enabled, credentials from ai_agents where project_id = ? and provider = 'whatsapp' order by id`,
      [ctx.project.id],
    );
    return rows.map((r) => {
      const c = this.credentials(r.credentials);
      return { id: r.id, business_id: r.business_id, enabled: r.enabled, phone_number_id: str(c.phone_number_id), app_secret: str(c.app_secret), verify_token: str(c.verify_token) };
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

type WebhookAgent = VerifiedWebhook['agents'][number];

/**
 * The common case in one statement, atomic without a transaction (one round trip instead of four):
 * when the contact has an active conversation, its row is locked, the message's key taken, the
 * message stored, the conversation touched and its message.created put in the events inbox.
 * 1 when stored, 0 when the key was taken (Meta retried; a concurrent delivery of the same id
 * waits on the conversation's row, then finds it taken); null when the contact has no active
 * conversation: nothing was written, and storeMessage's transaction opens one.
 */
async function storeInActive(ctx: RequestContext, agent: WebhookAgent, from: string, id: string, content: string, createdAt: Date): Promise<number | null> {
  const p = ctx.project.id;
  const [row] = await ctx.em.getConnection().execute<{ active: boolean; fresh: boolean }[]>(
    `with c as (select id from ai_conversations
                 where project_id = ? and agent_id = ? and contact = ? and status = 'active'
                 for no key update),
     k as (insert into ai_inbound_message_ids (agent_id, external_id, project_id)
           select ?, ?, ? where exists (select 1 from c)
           on conflict do nothing returning 1),
     m as (insert into ai_messages (project_id, conversation_id, role, content, public, created_at, external_id)
           select ?, c.id, 'user', ?, true, ?::timestamptz, ? from c where exists (select 1 from k)
           returning *),
     touched as (update ai_conversations set updated_at = now(), last_inbound_at = greatest(last_inbound_at, (select created_at from m))
                  where project_id = ? and id in (select conversation_id from m)),
     ev as (insert into ai_event_inbox (project_id, type, agent_id, business_id, conversation_id, public, data, created_at)
            select ?, 'message.created', ?, ?, m.conversation_id, true, ${messageRecordSql('m')}, clock_timestamp() from m)
     select exists (select 1 from c) as active, exists (select 1 from k) as fresh`,
    [p, agent.id, from, agent.id, id, p, p, content, createdAt, id, p, p, agent.id, agent.business_id],
    'all',
  );
  if (!row.active) return null;
  if (!row.fresh) return 0;
  await eventsCommitted(ctx);
  return 1;
}

/**
 * The active conversation of (agent, contact), opened when none is active. The partial unique index
 * ai_conversations_active_contact_uq decides races: a concurrent opener's insert waits for the
 * winner's commit, then does nothing and reads the winner's row.
 */
async function openConversation(tx: EntityManager, projectId: number, agent: WebhookAgent, contact: string, events: NewAiEvent[]): Promise<Record<string, any>> {
  // Locked like the write routes lock it, so the idle sweeper cannot close it under this message.
  const find = () => run(tx, `select * from ai_conversations where project_id = ? and agent_id = ? and contact = ? and status = 'active' for no key update`, [projectId, agent.id, contact]);
  for (let attempt = 0; attempt < 3; attempt++) {
    const [existing] = await find();
    if (existing) return existing;
    const [opened] = await run(
      tx,
      `insert into ai_conversations (project_id, agent_id, user_id, business_id, contact, status, usage)
       values (?, ?, ${USER_BY_PHONE}, ?, ?, 'active', '{}')
       on conflict (agent_id, contact) where status = 'active' and contact is not null do nothing
       returning *`,
      [projectId, agent.id, projectId, contact, agent.business_id, contact],
    );
    if (opened) {
      events.push(conversationEvent('conversation.created', opened, agent, 0));
      return opened;
    }
  }
  // Only reachable if the winner's conversation is closed between every insert and read.
  throw appError('ERROR_INTERNAL');
}

function run(tx: EntityManager, sql: string, params: unknown[]): Promise<Record<string, any>[]> {
  return tx.getConnection().execute<Record<string, any>[]>(sql, params, 'all', tx.getTransactionContext());
}

/** The phone_number_ids a notification names (empty for anything that is not Meta's shape). */
function namedPhoneIds(body: unknown): Set<string> {
  const ids = new Set<string>();
  if (!isObject(body) || !Array.isArray(body.entry)) return ids;
  for (const entry of body.entry) {
    if (!isObject(entry) || !Array.isArray(entry.changes)) continue;
    for (const change of entry.changes) {
      const id = isObject(change) && isObject(change.value) && isObject(change.value.metadata) ? change.value.metadata.phone_number_id : undefined;
      if (typeof id === 'string' && id) ids.add(id);
    }
  }
  return ids;
}

/** text → its body; other types → their caption when there is one, else `[TYPE]`. */
function contentOf(type: unknown, m: Record<string, unknown>): string {
  const kind = typeof type === 'string' && type ? type : 'unknown';
  const part = Object.hasOwn(m, kind) ? m[kind] : undefined;
  if (kind === 'text' && isObject(part) && typeof part.body === 'string' && part.body) return part.body;
  if (isObject(part) && typeof part.caption === 'string' && part.caption) return part.caption;
  return `[${kind.toUpperCase().slice(0, 32)}]`;
}

/** Unix seconds (a number or its decimal text, Meta sends text) as a Date; null when it is not one. */
function unixSeconds(v: unknown): Date | null {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^[0-9]{1,12}$/.test(v) ? Number(v) : NaN;
  if (!Number.isFinite(n) || n < 0 || n > 253_402_300_799) return null;
  return new Date(n * 1000);
}

/** A reply's `delivery_error` from a failed status: `"CODE: TITLE"` of its first error (CONTRACT §10.1). */
function firstErrorCode(errors: unknown): string | null {
  const first = Array.isArray(errors) ? errors[0] : undefined;
  const title = firstErrorTitle(errors);
  const code = isObject(first) && (typeof first.code === 'number' || typeof first.code === 'string') ? String(first.code) : null;
  if (code && title) return `${code}: ${title}`.slice(0, 1000);
  return title ?? code;
}

function firstErrorTitle(errors: unknown): string | null {
  const first = Array.isArray(errors) ? errors[0] : undefined;
  const title = isObject(first) ? (first.title ?? first.message) : undefined;
  return typeof title === 'string' && title ? title.slice(0, 1000) : null;
}

/** An array where one is required; anything else is logged and read as empty. */
function list(v: unknown, where: string, problems: string[]): unknown[] {
  if (Array.isArray(v)) return v;
  problems.push(`${where}: not an array`);
  return [];
}

/** An array that may be absent. */
function optionalList(v: unknown, where: string, problems: string[]): unknown[] {
  return v === undefined ? [] : list(v, where, problems);
}

function skip(problems: string[], problem: string): 0 {
  problems.push(problem);
  return 0;
}

/** Constant time on equal-length digests; a wrong length is simply no match. */
function sameDigest(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);
const clip = (v: unknown) => JSON.stringify(v ?? null).slice(0, 40);

function isObject(v: unknown): v is Record<string, any> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
