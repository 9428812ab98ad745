import { readOnReplica } from '../../db/replicas.js';
import { selectOnReplica } from '../../db/direct-read.js';
import { countRows, readOne, readRows } from '../../db/tenant-read.js';
import { AiAgent } from '../../entities/ai-agent.js';
import { AiConversation, WHATSAPP_WINDOW_MS, windowExpiresAt, type ConversationUsage } from '../../entities/ai-conversation.js';
import { AiMessage } from '../../entities/ai-message.js';
import type { TenantEntity } from '../../entities/tenant.js';
import { appError, notFound404, validationError, type Problem } from '../../errors/codes.js';
import { loaderFor } from '../../context/batch.js';
import type { RequestContext } from '../../context/index.js';
import { translate } from '../../i18n/messages.js';
import type { Pagination } from '../shared/list-query.js';
import { appendEvents, writeWithEvents, type AiEventType, type NewAiEvent } from '../events/event-log.js';
import { ACCESS, assertAccess, assertAiAdmin, assertAiModule, visibleBusinessIds } from '../identity/access.js';
import type { EntityName, FilterQuery } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { raw } from '@mikro-orm/postgresql';
import { pagination, parseListQuery, toFilter, toOrderBy, type Attributes, type ListInput, type ListQuery, type RelationFilters, type Relations } from '../shared/list-query.js';

/** What `where` and `orderBy` accept (CONTRACT §6.2); nothing else reaches SQL. */
export const CONVERSATION_ATTRIBUTES: Attributes = {
  id: 'int',
  agent_id: 'int',
  user_id: 'int',
  business_id: 'int',
  status: 'string',
  status_reason: 'string',
  created_at: 'timestamp',
  closed_at: 'timestamp',
};

/** Relation groups of the conversation list: `{"attribute": "agent", "conditions": [...]}`. */
export const CONVERSATION_RELATIONS: Relations = {
  agent: { id: 'int', name: 'string', provider: 'string', provider_type: 'string', provider_external_id: 'string', enabled: 'boolean', business_id: 'int' },
};

export const MESSAGE_ATTRIBUTES: Attributes = {
  id: 'int',
  role: 'string',
  public: 'boolean',
  created_at: 'timestamp',
  delivery_status: 'string',
};

export interface Page<T> {
  items: T[];
  pagination: Pagination;
}

const INT_MAX = 2_147_483_647;
/** Every agent column but the encrypted credentials. */
const AGENT_FIELDS = ['id', 'business_id', 'name', 'provider', 'provider_type', 'provider_external_id', 'enabled', 'created_at', 'updated_at', 'credential_keys'] as const;

/** The five conversation operations of spec §4.3 (CONTRACT §6.2). */
export class ConversationService {
  /** `GET /ai/conversations`: levels 0 and 2 and server keys; a level-2 user sees their businesses' only. */
  async list(ctx: RequestContext, input: ListInput): Promise<Page<AiConversation>> {
    assertAiAdmin(ctx);
    const q = parseListQuery(input, CONVERSATION_ATTRIBUTES, CONVERSATION_RELATIONS);
    const scope = await visibleBusinessIds(ctx);
    if (scope !== null && scope.length === 0) return { items: [], pagination: pagination(q.page, q.page_size, 0, 0) };
    return readPage(ctx, AiConversation, q, () => {
      const filters = [toFilter(q.where, conversationRelations(ctx)), ...(scope ? [{ business_id: { $in: scope } }] : [])].filter((f) => Object.keys(f).length);
      return (filters.length ? { $and: filters } : {}) as never;
    });
  }

  /** `GET /ai/conversations/{id}`: one visible conversation, else 400 ERROR_AI_CONVERSATION_NOT_FOUND. */
  async get(ctx: RequestContext, id: number): Promise<AiConversation> {
    assertAiAdmin(ctx);
    return this.visible(ctx, id);
  }

  /** `GET /ai/conversations/{id}/messages`: every message, public or not, paginated. */
  async messages(ctx: RequestContext, conversationId: number, input: ListInput): Promise<Page<AiMessage>> {
    assertAiAdmin(ctx);
    const q = parseListQuery(input, MESSAGE_ATTRIBUTES);
    const conversation = await this.visible(ctx, conversationId);
    return readPage(ctx, AiMessage, q, () => {
      const where = toFilter(q.where);
      return (Object.keys(where).length ? { $and: [{ conversation_id: conversation.id }, where] } : { conversation_id: conversation.id }) as never;
    });
  }

  /**
   * `GET /ai/agents/{provider_external_id}/conversations/current`: the caller's active conversation
   * with the agent, created when there is none. The partial unique index
   * ai_conversations_active_uq decides races: the insert does nothing when another request won,
   * and the winner's row is read back.
   */
  async current(ctx: RequestContext, providerExternalId: string): Promise<AiConversation> {
    const agent = await this.currentAgent(ctx, providerExternalId);
    const userId = ctx.caller.kind === 'user' ? ctx.caller.user.id : null;
    for (let attempt = 0; attempt < 3; attempt++) {
      const existing = await this.active(ctx, agent.id, userId);
      if (existing) return existing;
      await writeWithEvents(ctx, async (tx) => {
        const opened = await tx.getConnection().execute<Record<string, unknown>[]>(
          `insert into ai_conversations (project_id, agent_id, user_id, business_id, status, usage)
           values (?, ?, ?, ?, 'active', '{}')
           on conflict (agent_id, (coalesce(user_id, 0))) where status = 'active' and contact is null do nothing
           returning *`,
          [ctx.project.id, agent.id, userId, agent.business_id ?? null],
          'all',
          tx.getTransactionContext(),
        );
        const events = opened.map((row) => conversationEvent('conversation.created', row, agent, 0));
        return { value: undefined, events };
      });
    }
    // Only reachable if the winner's conversation is closed between every insert and read.
    throw appError('ERROR_INTERNAL');
  }

  /** `GET .../conversations/current/messages`: public messages, oldest first; creates nothing. */
  async currentMessages(ctx: RequestContext, providerExternalId: string): Promise<AiMessage[]> {
    const conversation = await this.currentActive(ctx, providerExternalId);
    return readRows(ctx.em, AiMessage, { conversation_id: conversation.id, public: true }, { orderBy: [{ created_at: 'asc' }, { id: 'asc' }] });
  }

  /** The caller's active conversation with the agent, creating nothing: 404 when the agent or the conversation does not exist. */
  async currentActive(ctx: RequestContext, providerExternalId: string): Promise<AiConversation> {
    const agent = await this.currentAgent(ctx, providerExternalId);
    const conversation = await this.active(ctx, agent.id, ctx.caller.kind === 'user' ? ctx.caller.user.id : null);
    if (!conversation) throw notFound404('ERROR_AI_CONVERSATION_NOT_FOUND');
    return conversation;
  }

  /**
   * `POST .../conversations/current/messages` (CONTRACT §9.1): a public `user` message in the caller's
   * current conversation, opened when none is active under the same rule as `current` (the partial
   * unique index decides races). The conversation row is locked, so a concurrent close either
   * happens before (the next attempt opens a new conversation) or waits for this message.
   */
  async addCurrentMessage(ctx: RequestContext, providerExternalId: string, content: unknown): Promise<AiMessage> {
    const agent = await this.currentAgent(ctx, providerExternalId);
    const text = checkContent(content, CURRENT_CONTENT_MAX);
    const userKey = ctx.caller.kind === 'user' ? ctx.caller.user.id : 0;
    for (let attempt = 0; attempt < 3; attempt++) {
      const message = await writeWithEvents(ctx, async (tx) => {
        const events: NewAiEvent[] = [];
        const lockActive = () =>
          run(tx, `select * from ai_conversations
                    where project_id = ? and agent_id = ? and coalesce(user_id, 0) = ? and contact is null and status = 'active'
                    for no key update`, [ctx.project.id, agent.id, userKey]);
        let [conversation] = await lockActive();
        if (!conversation) {
          const opened = await run(
            tx,
            `insert into ai_conversations (project_id, agent_id, user_id, business_id, status, usage)
             values (?, ?, ?, ?, 'active', '{}')
             on conflict (agent_id, (coalesce(user_id, 0))) where status = 'active' and contact is null do nothing
             returning *`,
            [ctx.project.id, agent.id, userKey || null, agent.business_id ?? null],
          );
          if (opened.length) events.push(conversationEvent('conversation.created', opened[0], agent, 0));
          [conversation] = opened.length ? opened : await lockActive();
        }
        // closed between the insert and the read: nothing was written, try again
        if (!conversation) return { value: null, events: [] };
        const row = await insertMessage(tx, ctx.project.id, conversation.id, { role: 'user', content: text, public: true, usage: null });
        await run(tx, 'update ai_conversations set updated_at = now() where id = ? and project_id = ?', [conversation.id, ctx.project.id]);
        events.push(messageEvent(row, agent));
        return { value: row, events };
      });
      if (message) return message;
    }
    throw appError('ERROR_INTERNAL');
  }

  /**
   * `POST /ai/conversations/{id}/messages` (CONTRACT §9.1): levels 0/2 and server keys. The
   * conversation row is locked (`for no key update`) for the transaction, so messages of one
   * conversation serialise their usage updates while other conversations never wait on it.
   */
  async addMessage(ctx: RequestContext, conversationId: number, input: MessageInput): Promise<AiMessage> {
    assertAiAdmin(ctx);
    const message = checkMessage(input);
    checkConversationId(conversationId);
    const scope = await visibleBusinessIds(ctx);
    return writeWithEvents(ctx, async (tx) => {
      const conversation = await lockVisible(tx, ctx, conversationId, scope);
      const outbound = sentOnWhatsApp(conversation, message);
      const row = await insertMessage(tx, ctx.project.id, conversation.id, message, outbound);
      const u = message.usage ?? {};
      const has = (k: keyof ConversationUsage) => (u[k] === undefined ? null : u[k]);
      // Members the message carries, and only those: cost and tokens add (numeric, exact), the
      // response time is the mean over the conversation's messages that carry one, half up.
      await run(
        tx,
        `update ai_conversations set updated_at = now(), usage = usage
           || case when ?::numeric is null then '{}'::jsonb else jsonb_build_object('cost', coalesce((usage->>'cost')::numeric, 0) + ?::numeric) end
           || case when ?::numeric is null then '{}'::jsonb else jsonb_build_object('input_tokens', coalesce((usage->>'input_tokens')::numeric, 0) + ?::numeric) end
           || case when ?::numeric is null then '{}'::jsonb else jsonb_build_object('output_tokens', coalesce((usage->>'output_tokens')::numeric, 0) + ?::numeric) end
           || case when ?::numeric is null then '{}'::jsonb else jsonb_build_object('response_time_ms',
                (select round(avg((m.usage->>'response_time_ms')::numeric)) from ai_messages m
                  where m.conversation_id = ai_conversations.id and m.project_id = ai_conversations.project_id
                    and m.usage->>'response_time_ms' is not null)) end
         where id = ? and project_id = ?`,
        [has('cost'), has('cost'), has('input_tokens'), has('input_tokens'), has('output_tokens'), has('output_tokens'), has('response_time_ms'), conversation.id, ctx.project.id],
      );
      return { value: row, events: [messageEvent(row, agentOf(conversation))] };
    });
  }

  /** `POST /ai/conversations/{id}/close` (CONTRACT §9.1): closed with a reason, `closed_at` now; once. */
  async close(ctx: RequestContext, conversationId: number, statusReason: unknown): Promise<AiConversation & { messages_count: number }> {
    assertAiAdmin(ctx);
    if (typeof statusReason !== 'string' || !(STATUS_REASONS as readonly string[]).includes(statusReason)) {
      throw validationError([{ field: 'status_reason', rule: 'enum', params: { values: STATUS_REASONS } }]);
    }
    checkConversationId(conversationId);
    const scope = await visibleBusinessIds(ctx);
    return writeWithEvents(ctx, async (tx) => {
      const conversation = await lockVisible(tx, ctx, conversationId, scope);
      const [row] = await run(
        tx,
        `update ai_conversations c set status = 'closed', status_reason = ?, closed_at = now(), updated_at = now()
          where id = ? and project_id = ?
          returning c.*, (select count(*)::int from ai_messages m where m.conversation_id = c.id and m.project_id = c.project_id) as messages_count`,
        [statusReason, conversation.id, ctx.project.id],
      );
      return { value: row, events: [conversationEvent('conversation.closed', row, agentOf(conversation), row.messages_count)] };
    });
  }

  /** messages_count for a page of conversations: one grouped count, never the messages themselves. */
  messagesCount(ctx: RequestContext, conversationId: number, known?: number): Promise<number | undefined> {
    if (known !== undefined) return Promise.resolve(known);
    return loaderFor<number, number>(ctx.em, 'conversation.messages_count', async (ids) => {
      const rows = await selectOnReplica<{ conversation_id: number; n: number }>(
        ctx.em,
        `select conversation_id, count(*)::int as n from ai_messages
          where project_id = ? and conversation_id in (${ids.map(() => '?').join(', ')})
          group by conversation_id`,
        [ctx.project.id, ...ids],
      );
      const counts = new Map<number, number>(ids.map((id) => [id, 0]));
      for (const r of rows) counts.set(Number(r.conversation_id), Number(r.n));
      return counts;
    }).load(conversationId);
  }

  /** The `agent` relation for a page of conversations: one query. */
  agent(ctx: RequestContext, agentId: number): Promise<AiAgent | undefined> {
    return loaderFor<number, AiAgent>(ctx.em, 'conversation.agent', async (ids) => {
      const agents = await readRows(ctx.em, AiAgent, { id: { $in: [...ids] } }, { fields: AGENT_FIELDS });
      return new Map(agents.map((a) => [a.id, a]));
    }).load(agentId);
  }

  private async visible(ctx: RequestContext, id: number): Promise<AiConversation> {
    if (!Number.isInteger(id) || id < 1 || id > INT_MAX) throw appError('ERROR_AI_CONVERSATION_NOT_FOUND');
    const conversation = await readOne(ctx.em, AiConversation, { id });
    const scope = conversation ? await visibleBusinessIds(ctx) : null;
    if (!conversation || (scope !== null && !scope.includes(conversation.business_id ?? -1))) {
      throw appError('ERROR_AI_CONVERSATION_NOT_FOUND');
    }
    return conversation;
  }

  /** The agent of the current-conversation pair: any authenticated caller; 404 unknown, 409 disabled. */
  private async currentAgent(ctx: RequestContext, providerExternalId: string): Promise<AiAgent> {
    assertAccess(ctx, ACCESS.AUTHENTICATED);
    assertAiModule(ctx);
    const wellFormed = typeof providerExternalId === 'string' && /^[a-zA-Z0-9_-]{1,128}$/.test(providerExternalId);
    const agent = wellFormed ? await readOne(ctx.em, AiAgent, { provider_external_id: providerExternalId }, { fields: AGENT_FIELDS }) : null;
    if (!agent) throw notFound404('ERROR_AI_AGENT_NOT_FOUND');
    if (!agent.enabled) {
      const message = { key: 'ERROR_AI_AGENT_DISABLED' };
      throw appError('ERROR_AI_CONVERSATION_CONFLICT', [message], {
        result: { message: translate(ctx.lang, message), agent_id: agent.id, reason: 'AGENT_DISABLED' },
      });
    }
    return agent;
  }

  private active(ctx: RequestContext, agentId: number, userId: number | null): Promise<AiConversation | null> {
    return readOne(ctx.em, AiConversation, { agent_id: agentId, user_id: userId, contact: null, status: 'active' });
  }
}

export const MESSAGE_ROLES = ['user', 'assistant', 'system', 'tool'] as const;
export const STATUS_REASONS = ['completed', 'abandoned', 'failed'] as const;
export const CURRENT_CONTENT_MAX = 4_000;
export const CONTENT_MAX = 32_000;
/** Usage members (CONTRACT §9.1): all ≥ 0; all but cost integers. Bounded so sums stay exact. */
export const USAGE_MAX = Number.MAX_SAFE_INTEGER;
const USAGE_INTEGERS = ['response_time_ms', 'input_tokens', 'output_tokens'] as const;

export interface MessageInput {
  role?: unknown;
  content?: unknown;
  public?: unknown;
  usage?: unknown;
}

interface CheckedMessage {
  role: (typeof MESSAGE_ROLES)[number];
  content: string;
  public: boolean;
  usage: ConversationUsage | null;
}

/** The stored config that makes a project's idle conversations close (CONTRACT §9.1). */
export const IDLE_CLOSE_CONFIG = 'ai_idle_close_minutes';

/**
 * One batch of idle closing for one project, in its own transaction: active conversations whose
 * newest message (or creation, when none) is older than `minutes` are closed as `abandoned`, each
 * with its `conversation.closed` event. `for update skip locked` hands every conversation to one
 * sweeper only (other processes skip the rows this one holds, and find them closed afterwards), and
 * a conversation a message writer holds is left for the next pass. Returns the closed count and
 * the last event id (for the process's event bus).
 */
export async function closeIdleConversations(em: EntityManager, projectId: number, minutes: number, limit: number): Promise<{ closed: number; lastId: number | null }> {
  return em.transactional(async (tx) => {
    const rows = await run(
      tx,
      `with idle as (
         select c.id from ai_conversations c
          where c.project_id = ? and c.status = 'active'
            and coalesce((select max(m.created_at) from ai_messages m where m.conversation_id = c.id), c.created_at) < now() - make_interval(mins => ?)
          order by c.id
          limit ?
          for update of c skip locked)
       update ai_conversations c set status = 'closed', status_reason = 'abandoned', closed_at = now(), updated_at = now()
         from idle
        where c.id = idle.id and c.status = 'active'
       returning c.*,
         (select a.business_id from ai_agents a where a.id = c.agent_id) as agent_business_id,
         (select count(*)::int from ai_messages m where m.conversation_id = c.id) as messages_count`,
      [projectId, minutes, limit],
    );
    const events = rows.map((row) => conversationEvent('conversation.closed', row, agentOf(row), row.messages_count));
    return { closed: rows.length, lastId: await appendEvents(tx, projectId, events) };
  });
}

/** The same rules as the REST schema, for /graphql callers: one message per invalid field. */
function checkMessage(input: MessageInput): CheckedMessage {
  const problems: Problem[] = [];
  if (input.role === undefined || input.role === null) problems.push({ field: 'role', rule: 'required' });
  else if (!(MESSAGE_ROLES as readonly unknown[]).includes(input.role)) problems.push({ field: 'role', rule: 'enum', params: { values: MESSAGE_ROLES } });
  if (input.content === undefined || input.content === null) problems.push({ field: 'content', rule: 'required' });
  else if (!validContent(input.content, CONTENT_MAX)) problems.push(contentProblem(input.content, CONTENT_MAX));
  if (input.public !== undefined && input.public !== null && typeof input.public !== 'boolean') problems.push({ field: 'public', rule: 'boolean' });
  let usage: ConversationUsage | null = null;
  if (input.usage !== undefined && input.usage !== null) {
    const u = input.usage as Record<string, unknown>;
    if (typeof u !== 'object' || Array.isArray(u)) problems.push({ field: 'usage', rule: 'object' });
    else {
      usage = {};
      for (const [k, v] of Object.entries(u)) {
        const integer = (USAGE_INTEGERS as readonly string[]).includes(k);
        if (k !== 'cost' && !integer) continue; // unknown members are dropped, as the REST schema drops them
        if (typeof v !== 'number' || !Number.isFinite(v)) problems.push({ field: `usage.${k}`, rule: integer ? 'integer' : 'number' });
        else if (integer && !Number.isInteger(v)) problems.push({ field: `usage.${k}`, rule: 'integer' });
        else if (v < 0 || v > USAGE_MAX) problems.push({ field: `usage.${k}`, rule: 'range', params: { min: 0, max: USAGE_MAX } });
        else usage[k as keyof ConversationUsage] = v;
      }
    }
  }
  if (problems.length) throw validationError(problems);
  return { role: input.role as CheckedMessage['role'], content: input.content as string, public: input.public !== false, usage };
}

/** Length in characters (code points), as the REST schema counts it. */
function validContent(content: unknown, max: number): content is string {
  if (typeof content !== 'string' || content.length === 0 || content.length > 2 * max) return false;
  let n = 0;
  for (const _ of content) if (++n > max) return false;
  return true;
}

/** What is wrong with a content that is not valid: its type, emptiness or length. */
function contentProblem(content: unknown, max: number): Problem {
  if (typeof content !== 'string') return { field: 'content', rule: 'string' };
  return content.length === 0 ? { field: 'content', rule: 'not_empty' } : { field: 'content', rule: 'max_length', params: { max } };
}

function checkContent(content: unknown, max: number): string {
  if (content === undefined || content === null) throw validationError([{ field: 'content', rule: 'required' }]);
  if (!validContent(content, max)) throw validationError([contentProblem(content, max)]);
  return content;
}

function checkConversationId(id: number): void {
  if (!Number.isInteger(id) || id < 1 || id > INT_MAX) throw appError('ERROR_AI_CONVERSATION_NOT_FOUND');
}

/** Raw SQL in the caller's transaction (rows as the graph reads them); parameterised, every statement names its project. */
async function run(tx: EntityManager, sql: string, params: unknown[]): Promise<any[]> {
  const rows = await tx.getConnection().execute<any[]>(sql, params, 'all', tx.getTransactionContext());
  for (const row of rows) for (const k of TIMESTAMPS) if (typeof row[k] === 'string') row[k] = new Date(row[k]);
  return rows;
}
/** The driver hands timestamps over as text; the graph's DateTime wants dates. */
const TIMESTAMPS = ['created_at', 'closed_at', 'updated_at', 'last_inbound_at'] as const;

/**
 * The conversation, locked for this transaction, with its agent's business (event visibility):
 * another project's, or (level 2) another business's, is not found; a closed one is refused.
 */
async function lockVisible(tx: EntityManager, ctx: RequestContext, id: number, scope: number[] | null): Promise<Record<string, any>> {
  const [conversation] = await run(
    tx,
    `select c.*, a.business_id as agent_business_id, a.provider as agent_provider,
            coalesce(c.last_inbound_at > now() - make_interval(secs => ?), false) as window_open
       from ai_conversations c
       join ai_agents a on a.id = c.agent_id and a.project_id = c.project_id
      where c.project_id = ? and c.id = ?
      for no key update of c`,
    [WHATSAPP_WINDOW_MS / 1000, ctx.project.id, id],
  );
  if (!conversation || (scope !== null && !scope.includes(conversation.business_id ?? -1))) throw appError('ERROR_AI_CONVERSATION_NOT_FOUND');
  if (conversation.status !== 'active') throw appError('ERROR_AI_CONVERSATION_CLOSED');
  return conversation;
}

const agentOf = (conversation: Record<string, any>) => ({ id: conversation.agent_id as number, business_id: (conversation.agent_business_id ?? null) as number | null });

/**
 * Inserts a message; one to be sent on WhatsApp (`outbound`) is written `pending` with its row in
 * the send outbox (workers/whatsapp-sender.ts), in the same statement and so the same transaction:
 * a rolled-back write sends nothing, a committed one is never forgotten.
 */
async function insertMessage(tx: EntityManager, projectId: number, conversationId: number, m: CheckedMessage, outbound = false): Promise<any> {
  const [row] = await run(
    tx,
    `with m as (
       insert into ai_messages (project_id, conversation_id, role, content, public, usage, created_at, delivery_status)
       values (?, ?, ?, ?, ?, ?::jsonb, now(), ?) returning *),
     queued as (
       insert into ai_message_sends (message_id, project_id, conversation_id)
       select id, project_id, conversation_id from m where m.delivery_status = 'pending')
     select * from m`,
    [projectId, conversationId, m.role, m.content, m.public, m.usage ? JSON.stringify(m.usage) : null, outbound ? 'pending' : null],
  );
  return row;
}

/** The Cloud API's limit on a text message, in code points (CONTRACT §10.1). */
export const WHATSAPP_CONTENT_MAX = 4_096;

/**
 * CONTRACT §10.1: a public `assistant` message to a WhatsApp conversation (a contact, a `whatsapp`
 * agent) is sent to the contact. It must fit the Cloud API's limit and the customer service window
 * must be open, else 400 and nothing is stored. Other messages are sent nowhere.
 */
function sentOnWhatsApp(conversation: Record<string, any>, m: CheckedMessage): boolean {
  if (m.role !== 'assistant' || !m.public || !conversation.contact || conversation.agent_provider !== 'whatsapp') return false;
  if (!validContent(m.content, WHATSAPP_CONTENT_MAX)) throw validationError([{ field: 'content' }]);
  if (conversation.window_open !== true) throw appError('ERROR_WHATSAPP_WINDOW_CLOSED');
  return true;
}

/** A message.created event: visible by the agent's business; `public` from the message. */
export function messageEvent(row: Record<string, any>, agent: { id: number; business_id?: number | null }): NewAiEvent {
  return { type: 'message.created', data: messageRecord(row), agent_id: agent.id, business_id: agent.business_id ?? null, conversation_id: row.conversation_id, public: row.public };
}

/**
 * One page of a list and its total, on a healthy replica when there is one. `where` builds the filter
 * afresh for each query: raw fragments (ilike on integers, relation groups) are spent by the query that uses them.
 */
export async function readPage<T extends TenantEntity>(ctx: RequestContext, entity: EntityName<T>, q: ListQuery, where: () => FilterQuery<T>): Promise<Page<T>> {
  const [items, total] = await readOnReplica(ctx.em, (connectionType) => Promise.all([
    readRows(ctx.em, entity, where(), { orderBy: toOrderBy(q.orderBy) as never, limit: q.page_size, offset: (q.page - 1) * q.page_size, connectionType }),
    countRows(ctx.em, entity, where(), connectionType),
  ]));
  return { items, pagination: pagination(q.page, q.page_size, total, items.length) };
}

/** A relation group on `agent`: `agent_id in (select id from ai_agents where project_id = ? and …)`, all bound. */
function conversationRelations(ctx: RequestContext): RelationFilters {
  return {
    agent: (filter) => {
      const agents = ctx.em.createQueryBuilder(AiAgent, 'ag').select('ag.id').where({ $and: [{ project: ctx.project.id }, filter] });
      return { agent_id: { $in: raw(agents) } };
    },
  };
}

const iso = (v: unknown) => (v == null ? null : new Date(v as string | Date).toISOString());

/** The conversation record as the REST API shows it (CONTRACT §6.2, §9.1), from an entity or a raw row. */
export function conversationRecord(c: Record<string, any>, messagesCount: number): Record<string, unknown> {
  return {
    id: c.id,
    agent_id: c.agent_id,
    user_id: c.user_id ?? null,
    business_id: c.business_id ?? null,
    status: c.status,
    status_reason: c.status_reason ?? null,
    usage: c.usage ?? {},
    created_at: iso(c.created_at),
    closed_at: iso(c.closed_at),
    updated_at: iso(c.updated_at),
    contact: c.contact ?? null,
    window_expires_at: iso(windowExpiresAt(c.last_inbound_at)),
    messages_count: messagesCount,
  };
}

/** The message record as the REST API shows it (CONTRACT §6.2, §9.1). */
export function messageRecord(m: Record<string, any>): Record<string, unknown> {
  return {
    id: m.id,
    conversation_id: m.conversation_id,
    role: m.role,
    content: m.content,
    public: m.public,
    created_at: iso(m.created_at),
    usage: m.usage ?? null,
    external_id: m.external_id ?? null,
    delivery_status: m.delivery_status ?? null,
    delivery_error: m.delivery_error ?? null,
  };
}

/** A conversation.created / conversation.closed event, visible by the agent's business. */
export function conversationEvent(type: AiEventType, row: Record<string, any>, agent: { id: number; business_id?: number | null }, messagesCount: number): NewAiEvent {
  return { type, data: conversationRecord(row, messagesCount), agent_id: agent.id, business_id: agent.business_id ?? null, conversation_id: row.id };
}
