import { WHATSAPP_WINDOW_MS, type AiConversation, type ConversationUsage } from '../../entities/ai-conversation.js';
import type { AiMessage } from '../../entities/ai-message.js';
import { appError, validationError, type Problem } from '../../errors/codes.js';
import { MEDIA_KIND_LIMITS } from '../media/limits.js';
import { kindsOf, SEND_MIME_TYPES } from '../media/send-types.js';
import { isMediaKind, type MediaKind } from './message-payload.js';
import type { RequestContext } from '../../context/index.js';
import { appendEvents, writeWithEvents } from '../events/event-log.js';
import { assertAiAdmin, visibleBusinessIds } from '../identity/access.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  STATUS_REASONS,
  CURRENT_CONTENT_MAX,
  type MessageInput,
  type CheckedMessage,
  checkMessage,
  validContent,
  checkContent,
  checkConversationId,
  WHATSAPP_CONTENT_MAX,
} from './message-rules.js';
import { run, agentOf, conversationEvent, messageRecordSql } from './records.js';
import { activeConversation, currentAgent, mayNameAgent } from './conversation.service.js';
import { alone, WriteBatches, type BatchedWrite, type SharedStatement, type WriteResult } from './write-batches.js';
import { AppError } from '../../errors/app-error.js';

/** Every write here runs only records.ts `run` statements: a plain transaction (event-log.ts writeWithEvents). */
const STATEMENTS_ONLY = { statementsOnly: true };

/**
 * The conversation writes of CONTRACT §9.1: the caller's current conversation opened (also by its
 * GET), messages added, conversations closed; each with its events in the same transaction.
 */
export class ConversationWriteService {
  /**
   * `GET /ai/agents/{provider_external_id}/conversations/current`: the caller's active conversation
   * with the agent, created when there is none. The partial unique index
   * ai_conversations_active_uq decides races: the insert does nothing when another request won,
   * and the winner's row is read back.
   */
  async current(ctx: RequestContext, providerExternalId: string): Promise<AiConversation> {
    const agent = await currentAgent(ctx, providerExternalId);
    const userId = ctx.caller.kind === 'user' ? ctx.caller.user.id : null;
    for (let attempt = 0; attempt < 3; attempt++) {
      const existing = await activeConversation(ctx, agent.id, userId);
      if (existing) return existing;
      await writeWithEvents(
        ctx,
        async (tx) => {
          const opened = await run(
            tx,
            `insert into ai_conversations (project_id, agent_id, user_id, business_id, status, usage)
           values (?, ?, ?, ?, 'active', '{}')
           on conflict (agent_id, (coalesce(user_id, 0))) where status = 'active' and contact is null do nothing
           returning *`,
            [ctx.project.id, agent.id, userId, agent.business_id ?? null],
          );
          const events = opened.map((row) => conversationEvent('conversation.created', row, agent, 0));
          return { value: undefined, events };
        },
        STATEMENTS_ONLY,
      );
    }
    // Only reachable if the winner's conversation is closed between every insert and read.
    throw appError('ERROR_INTERNAL');
  }

  /** Message writes of a project coalesced into shared transactions (write-batches.ts), `writeBatchMax` at most each. */
  private readonly batches: WriteBatches;

  constructor(writeBatchMax = 1) {
    this.batches = new WriteBatches(writeBatchMax);
  }

  /** A message write of another service (an inbound WhatsApp message) coalesced with the project's writes of its kind. */
  inBatch<T>(kind: string, write: BatchedWrite<T>): Promise<T> {
    return this.batches.submit(kind, write);
  }

  /**
   * `POST .../conversations/current/messages` (CONTRACT §9.1): a public `user` message in the caller's
   * current conversation, opened when none is active under the same rule as `current` (the partial
   * unique index decides races). The conversation row is locked, so a concurrent close either
   * happens before (the next attempt opens a new conversation) or waits for this message.
   */
  async addCurrentMessage(ctx: RequestContext, providerExternalId: string, content: unknown): Promise<AiMessage> {
    const userKey = ctx.caller.kind === 'user' ? ctx.caller.user.id : 0;
    const order = `${providerExternalId}\u0000${userKey}`;
    if (mayNameAgent(ctx, providerExternalId) && validContent(content, CURRENT_CONTENT_MAX)) {
      const part: CurrentPart = { ctx, providerExternalId, userKey, text: content };
      const added = await this.batches.submit('current', {
        ctx,
        order,
        oneStatement: true,
        shared: { statement: addToActive, part },
        work: (tx) => alone<AiMessage | null>(addToActive, tx, part),
      });
      if (added) return added;
    }
    // no active conversation, or a refusal to explain: the agent's checks, then the content's, then a conversation opened
    const agent = await currentAgent(ctx, providerExternalId);
    const text = checkContent(content, CURRENT_CONTENT_MAX);
    for (let attempt = 0; attempt < 3; attempt++) {
      const message = await this.batches.submit('current', {
        ctx,
        order,
        oneStatement: false,
        work: (tx) => openAndAdd(tx, ctx, agent, userKey, text),
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
    if (namesOthers(message)) {
      return this.batches.submit('message', {
        ctx,
        order: conversationId,
        oneStatement: false,
        work: (tx) => addReferring(tx, ctx, conversationId, scope, message),
      });
    }
    const part: MessagePart = { ctx, conversationId, scope, m: message };
    return this.batches.submit('message', {
      ctx,
      order: conversationId,
      oneStatement: true,
      shared: { statement: addMessages, part },
      work: (tx) => alone<AiMessage>(addMessages, tx, part),
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
    return writeWithEvents(
      ctx,
      async (tx) => {
        const conversation = await lockVisible(tx, ctx, conversationId, scope);
        const [row] = await run(
          tx,
          `update ai_conversations c set status = 'closed', status_reason = ?, closed_at = now(), updated_at = now()
          where id = ? and project_id = ?
          returning c.*, (select count(*)::int from ai_messages m where m.conversation_id = c.id and m.project_id = c.project_id) as messages_count`,
          [statusReason, conversation.id, ctx.project.id],
        );
        return { value: row, events: [conversationEvent('conversation.closed', row, agentOf(conversation), row.messages_count)] };
      },
      STATEMENTS_ONLY,
    );
  }
}

/**
 * addCurrentMessage when the caller has no active conversation in the one statement's snapshot: the
 * conversation locked, or opened (its conversation.created in the inbox before the message's), then the
 * message; null when the conversation was closed between the insert and the read (nothing written).
 */
async function openAndAdd(
  tx: EntityManager,
  ctx: RequestContext,
  agent: { id: number; business_id?: number | null },
  userKey: number,
  text: string,
): Promise<WriteResult<AiMessage | null>> {
  const lockActive = () =>
    run(
      tx,
      `select * from ai_conversations
            where project_id = ? and agent_id = ? and coalesce(user_id, 0) = ? and contact is null and status = 'active'
            for no key update`,
      [ctx.project.id, agent.id, userKey],
    );
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
    if (opened.length) await appendEvents(tx, ctx.project.id, [conversationEvent('conversation.created', opened[0], agent, 0)]);
    [conversation] = opened.length ? opened : await lockActive();
  }
  if (!conversation) return { value: null, wrote: false };
  const message = { role: 'user', content: text, public: true, usage: null, type: 'text', payload: null, reply_to_id: null } as const;
  const row = await insertMessage(tx, ctx.project.id, conversation.id, agent, message, authorOf(ctx), false, TOUCH);
  return { value: row, wrote: true };
}

/** addMessage of a message that names another message or a file (namesOthers): looked up under the conversation's lock. */
async function addReferring(
  tx: EntityManager,
  ctx: RequestContext,
  conversationId: number,
  scope: number[] | null,
  message: CheckedMessage,
): Promise<WriteResult<AiMessage>> {
  const conversation = await lockVisible(tx, ctx, conversationId, scope);
  assertNotHandedOff(ctx, conversation, message.role);
  const outbound = sentOnWhatsApp(conversation, message);
  await checkReferences(tx, ctx.project.id, conversation.id, message, scope);
  const row = await insertMessage(
    tx,
    ctx.project.id,
    conversation.id,
    agentOf(conversation),
    message,
    authorOf(ctx),
    outbound,
    usageAdded(message.usage),
  );
  return { value: row, wrote: true, queued: outbound ? ['sends'] : [] };
}

/**
 * The conversation, locked for this transaction, with its agent's business (event visibility):
 * another project's, or (level 2) another business's, is not found; a closed one is refused.
 */
export async function lockVisible(
  tx: EntityManager,
  ctx: RequestContext,
  id: number,
  scope: number[] | null,
): Promise<Record<string, any>> {
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
  return assertWritable(conversation, scope);
}

/** A conversation a write may change: found, visible to the caller (`scope`, level 2), active. */
function assertWritable(conversation: Record<string, any> | null | undefined, scope: number[] | null): Record<string, any> {
  if (!conversation || (scope !== null && !scope.includes(conversation.business_id ?? -1)))
    throw appError('ERROR_AI_CONVERSATION_NOT_FOUND');
  if (conversation.status !== 'active') throw appError('ERROR_AI_CONVERSATION_CLOSED');
  return conversation;
}

/** CONTRACT §10.2: `author_id`, the user who adds a message through the API; null for server keys. */
const authorOf = (ctx: RequestContext): number | null => (ctx.caller.kind === 'user' ? ctx.caller.user.id : null);

/** CONTRACT §10.2: while a person handles the conversation, the agent runtime (a server key) may not answer. */
function assertNotHandedOff(ctx: RequestContext, conversation: Record<string, any>, role: string): void {
  if (conversation.handler === 'human' && role === 'assistant' && ctx.caller.kind === 'server')
    throw appError('ERROR_AI_CONVERSATION_HANDED_OFF');
}

/** What a message changes on its conversation: a SET list of ai_conversations and its parameters. */
interface ConversationChange {
  set: string;
  params: unknown[];
}

/**
 * Every message's change: `last_message_at` moved to the message's `created_at` (now()) here, so the
 * trigger that keeps it for other writers (Migration20261126000200) finds nothing to do and updates
 * the row no second time (Migration20261126000700).
 */
const MESSAGE_ADDED = 'updated_at = now(), last_message_at = greatest(last_message_at, now())';

const TOUCH: ConversationChange = { set: MESSAGE_ADDED, params: [] };

/**
 * The usage members the message carries, and only those: cost and tokens add (numeric, exact),
 * the response time is the mean over the conversation's messages that carry one, half up, from the
 * count and sum the conversation row keeps (Migration20261126000700): the row is read at its newest
 * version under the lock, where a scan of the messages would see only the statement's snapshot.
 */
function usageAdded(usage: CheckedMessage['usage']): ConversationChange {
  const u = usage ?? {};
  const has = (k: keyof ConversationUsage) => (u[k] === undefined ? null : u[k]);
  const rt = has('response_time_ms');
  return {
    set: `${MESSAGE_ADDED}, usage = usage
      || case when ?::numeric is null then '{}'::jsonb else jsonb_build_object('cost', coalesce((usage->>'cost')::numeric, 0) + ?::numeric) end
      || case when ?::numeric is null then '{}'::jsonb else jsonb_build_object('input_tokens', coalesce((usage->>'input_tokens')::numeric, 0) + ?::numeric) end
      || case when ?::numeric is null then '{}'::jsonb else jsonb_build_object('output_tokens', coalesce((usage->>'output_tokens')::numeric, 0) + ?::numeric) end
      || case when ?::numeric is null then '{}'::jsonb
              else jsonb_build_object('response_time_ms', round((response_time_sum + ?::numeric) / (response_time_count + 1))) end,
      response_time_sum = response_time_sum + coalesce(?::numeric, 0),
      response_time_count = response_time_count + case when ?::numeric is null then 0 else 1 end`,
    params: [
      has('cost'),
      has('cost'),
      has('input_tokens'),
      has('input_tokens'),
      has('output_tokens'),
      has('output_tokens'),
      rt,
      rt,
      rt,
      rt,
    ],
  };
}

/**
 * A message in one statement, under the conversation's row lock the caller holds: the row, its
 * WhatsApp send when it goes out (CONTRACT §10.1), the conversation's change, and its
 * message.created in the events inbox (visible by the agent's business; the record built by
 * PostgreSQL). The caller's writeWithEvents sequences it (`inboxed`). A message sent on WhatsApp
 * (`outbound`) is written `pending` with its row in the send outbox (workers/whatsapp-sender.ts) in
 * the same statement, so the same transaction: a rolled-back write sends nothing, a committed one is
 * never forgotten.
 */
async function insertMessage(
  tx: EntityManager,
  projectId: number,
  conversationId: number,
  agent: { id: number; business_id?: number | null },
  m: CheckedMessage,
  authorId: number | null,
  outbound: boolean,
  change: ConversationChange,
): Promise<any> {
  const [row] = await run(
    tx,
    `with m as (
       insert into ai_messages (project_id, conversation_id, role, content, public, usage, author_id, created_at, delivery_status,
                                type, payload, reply_to_id)
       values (?, ?, ?, ?, ?, ?::jsonb, ?, now(), ?, ?, ?::jsonb, ?) returning *),
     queued as (
       insert into ai_message_sends (message_id, project_id, conversation_id)
       select id, project_id, conversation_id from m where m.delivery_status = 'pending'),
     changed as (update ai_conversations set ${change.set} where id = ? and project_id = ?),
     ${inboxed('?::bigint', '?::bigint')}
     select * from m`,
    [
      projectId,
      conversationId,
      m.role,
      m.content,
      m.public,
      m.usage ? JSON.stringify(m.usage) : null,
      authorId,
      outbound ? 'pending' : null,
      m.type,
      m.payload ? JSON.stringify(m.payload) : null,
      m.reply_to_id,
      ...change.params,
      conversationId,
      projectId,
      agent.id,
      agent.business_id ?? null,
    ],
  );
  return row;
}

/**
 * The message.created of each message `m` in the events inbox, seen by its agent (two SQL expressions), its record built
 * by PostgreSQL; `from`: where `m` and those expressions come from (a batch's messages joined to their `go` rows, in id order).
 */
const inboxed = (agentId: string, businessId: string, from = 'm') => `inboxed as (
       insert into ai_event_inbox (project_id, type, agent_id, business_id, conversation_id, public, data, created_at)
       select m.project_id, 'message.created', ${agentId}, ${businessId}, m.conversation_id, m.public, ${messageRecordSql('m')}, clock_timestamp()
         from ${from})`;

/** A batch's messages with the `go` rows that made them, in id order (inboxed's `from`). */
const BATCH_MESSAGES = 'm join go on go.message_id = m.id order by m.id';

/** A message addMessages writes: its caller, conversation, the caller's businesses (level 2) and the checked message. */
interface MessagePart {
  ctx: RequestContext;
  conversationId: number;
  scope: number[] | null;
  m: CheckedMessage;
}

/** The usage members that add up on the conversation (usageAdded for one message). */
const ADDED_MEMBERS = ['cost', 'input_tokens', 'output_tokens'] as const;

/**
 * Messages that name no other message nor file (`namesOthers`), of one project, in one statement of their
 * batch's transaction (write-batches.ts): their conversations locked with their agents, in id order; the
 * checks of addReferring (lockVisible, assertNotHandedOff, sentOnWhatsApp) as conditions per message; then
 * what insertMessage writes, each table once for all of them (the statement triggers run once), each
 * conversation changed once by all of its messages (usage summed; the response time's mean over the sum
 * and count the row keeps, as usageAdded, so the same as one message after the other). The locks are
 * taken before anything is written, and the rows they return are the newest versions. A message that was
 * not stored gets its refusal from the same checks run on its locked row (it wrote nothing).
 */
const addMessages: SharedStatement = async (tx, parts) => {
  const all = parts as MessagePart[];
  const rows = all.map(({ ctx, conversationId, scope, m }, n) => ({
    n,
    conversation_id: conversationId,
    public_assistant: m.role === 'assistant' && m.public,
    scope,
    server_assistant: m.role === 'assistant' && ctx.caller.kind === 'server',
    role: m.role,
    content: m.content,
    public: m.public,
    usage: m.usage ?? null,
    author_id: authorOf(ctx),
    type: m.type,
    payload: m.payload ?? null,
    fits: m.type !== 'text' || validContent(m.content, WHATSAPP_CONTENT_MAX),
  }));
  const projectId = all[0].ctx.project.id;
  const added = ADDED_MEMBERS.map(
    (k) =>
      `|| case when s.${k} is null then '{}'::jsonb else jsonb_build_object('${k}', coalesce((u.usage->>'${k}')::numeric, 0) + s.${k}) end`,
  ).join('\n');
  const answered = await run(
    tx,
    `with w as (
       select * from jsonb_to_recordset(?::jsonb) as w(n int, conversation_id bigint, public_assistant boolean, scope bigint[],
              server_assistant boolean, role text, content text, public boolean, usage jsonb, author_id bigint, type text,
              payload jsonb, fits boolean)),
     c as materialized (
       select c.id, c.project_id, c.agent_id, c.business_id, c.status, c.handler, c.contact,
              a.business_id as agent_business_id, a.provider as agent_provider,
              coalesce(c.last_inbound_at > now() - make_interval(secs => ?), false) as window_open
         from ai_conversations c
         join ai_agents a on a.id = c.agent_id and a.project_id = c.project_id
        where c.project_id = ? and c.id = any(?::bigint[])
        order by c.id
        for no key update of c),
     checked as (
       select w.*, c.project_id, c.agent_id, c.agent_business_id, c.window_open,
              w.public_assistant and coalesce(c.contact, '') <> '' and c.agent_provider = 'whatsapp' as outbound
         from w join c on c.id = w.conversation_id
        where c.status = 'active' and (w.scope is null or coalesce(c.business_id, -1) = any(w.scope))
          and not (c.handler = 'human' and w.server_assistant)),
     go as materialized (
       select k.*, nextval(pg_get_serial_sequence('ai_messages', 'id')) as message_id
         from (select * from checked where not outbound or (window_open and fits) order by n) k),
     m as (
       insert into ai_messages (id, project_id, conversation_id, role, content, public, usage, author_id, created_at, delivery_status,
                                type, payload, reply_to_id)
       select message_id, project_id, conversation_id, role, content, public, usage, author_id, now(),
              case when outbound then 'pending' end, type, payload, null
         from go order by message_id
       returning *),
     queued as (
       insert into ai_message_sends (message_id, project_id, conversation_id)
       select id, project_id, conversation_id from m where m.delivery_status = 'pending' order by id),
     s as (
       select conversation_id, ${ADDED_MEMBERS.map((k) => `sum((usage->>'${k}')::numeric) as ${k}`).join(', ')},
              coalesce(sum((usage->>'response_time_ms')::numeric), 0) as rt_sum, count(usage->>'response_time_ms') as rt_count
         from go group by conversation_id),
     changed as (
       update ai_conversations u set ${MESSAGE_ADDED}, usage = u.usage
              ${added}
              || case when s.rt_count = 0 then '{}'::jsonb
                      else jsonb_build_object('response_time_ms', round((u.response_time_sum + s.rt_sum) / (u.response_time_count + s.rt_count))) end,
              response_time_sum = u.response_time_sum + s.rt_sum, response_time_count = u.response_time_count + s.rt_count
         from s where u.id = s.conversation_id and u.project_id = ?),
     ${inboxed('go.agent_id', 'go.agent_business_id', BATCH_MESSAGES)}
     select (select to_jsonb(c) from c where c.id = w.conversation_id) as conversation, m.*
       from w left join go on go.n = w.n left join m on m.id = go.message_id
      order by w.n`,
    // the conversations as an array too: by their primary key (the generic plan takes w for 100 rows and scanned the agent's)
    [JSON.stringify(rows), WHATSAPP_WINDOW_MS / 1000, projectId, [...new Set(all.map((p) => p.conversationId))], projectId],
  );
  return answered.map(({ conversation, ...message }, n) =>
    message.id !== null
      ? { value: message, wrote: true, queued: message.delivery_status === 'pending' ? (['sends'] as const) : [] }
      : refusalOf(all[n], conversation),
  );
};

/** Why addMessages did not store a part's message: the checks of addReferring on its locked conversation. */
function refusalOf({ ctx, scope, m }: MessagePart, conversation: Record<string, any> | null): AppError {
  try {
    const found = assertWritable(conversation, scope);
    assertNotHandedOff(ctx, found, m.role);
    sentOnWhatsApp(found, m);
    return appError('ERROR_INTERNAL');
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
}

/** Whether the message names another message or a file (CONTRACT §12.4), which checkReferences looks up under the lock. */
function namesOthers(m: CheckedMessage): boolean {
  return m.reply_to_id !== null || m.type === 'reaction' || (isMediaKind(m.type) && typeof m.payload?.media_id === 'string');
}

/** A message addToActive writes: its caller, the agent it names, the caller's key (0 for none) and the content. */
interface CurrentPart {
  ctx: RequestContext;
  providerExternalId: string;
  userKey: number;
  text: string;
}

/**
 * `addCurrentMessage`s of one project into their callers' active conversations with the agents, in one
 * statement of their batch's transaction (write-batches.ts): the agents, enabled; the conversations locked
 * in id order; the messages, their conversations' change, their events, each table once for all of them.
 * A part gets null when nothing was written for it: no such agent or not enabled, or no active
 * conversation (in the statement's snapshot, or closed before the lock was had).
 */
const addToActive: SharedStatement = async (tx, parts) => {
  const all = parts as CurrentPart[];
  const rows = all.map(({ ctx, providerExternalId, userKey, text }, n) => ({
    n,
    agent: providerExternalId,
    user_key: userKey,
    content: text,
    author_id: authorOf(ctx),
  }));
  const projectId = all[0].ctx.project.id;
  const answered = await run(
    tx,
    `with w as (
       select * from jsonb_to_recordset(?::jsonb) as w(n int, agent text, user_key bigint, content text, author_id bigint)),
     a as materialized (
       select id, business_id, provider_external_id from ai_agents
        where project_id = ? and provider_external_id in (select agent from w) and enabled),
     wa as (select w.*, a.id as agent_id, a.business_id as agent_business_id from w join a on a.provider_external_id = w.agent),
     c as materialized (
       select c.id, c.project_id, c.agent_id, coalesce(c.user_id, 0) as user_key from ai_conversations c
        where c.project_id = ? and (c.agent_id, coalesce(c.user_id, 0)) in (select agent_id, user_key from wa) and c.contact is null
          and c.status = 'active'
        order by c.id
        for no key update),
     go as materialized (
       select k.*, nextval(pg_get_serial_sequence('ai_messages', 'id')) as message_id
         from (select wa.*, c.id as conversation_id, c.project_id
                 from wa join c on c.agent_id = wa.agent_id and c.user_key = wa.user_key order by wa.n) k),
     m as (
       insert into ai_messages (id, project_id, conversation_id, role, content, public, usage, author_id, created_at, delivery_status,
                                type, payload, reply_to_id)
       select message_id, project_id, conversation_id, 'user', content, true, null, author_id, now(), null, 'text', null, null
         from go order by message_id
       returning *),
     changed as (update ai_conversations set ${TOUCH.set} where id in (select conversation_id from m) and project_id = ?),
     ${inboxed('go.agent_id', 'go.agent_business_id', BATCH_MESSAGES)}
     select m.* from w left join go on go.n = w.n left join m on m.id = go.message_id order by w.n`,
    [JSON.stringify(rows), projectId, projectId, projectId],
  );
  return answered.map((row) => (row.id !== null ? { value: row, wrote: true } : { value: null, wrote: false }));
};

/**
 * CONTRACT §10.1: a public `assistant` message to a WhatsApp conversation (a contact, a `whatsapp`
 * agent) is sent to the contact. It must fit the Cloud API's limit and the customer service window
 * must be open, else 400 and nothing is stored. Other messages are sent nowhere.
 */
function sentOnWhatsApp(conversation: Record<string, any>, m: CheckedMessage): boolean {
  if (m.role !== 'assistant' || !m.public || !conversation.contact || conversation.agent_provider !== 'whatsapp') return false;
  // only a text's content is sent; other types send their payload (§12.4)
  if (m.type === 'text' && !validContent(m.content, WHATSAPP_CONTENT_MAX)) throw validationError([{ field: 'content' }]);
  if (conversation.window_open !== true) throw appError('ERROR_WHATSAPP_WINDOW_CLOSED');
  return true;
}

/**
 * What a typed message names must exist (CONTRACT §12.4), checked under the conversation's lock before
 * anything is stored: `reply_to_id` a message of the conversation; a reaction's `message_id` a message
 * of the conversation with an `external_id` (kept in the payload as `external_id`, as an inbound
 * reaction has it); a `media_id` a stored file of the project that WhatsApp accepts for the kind (and,
 * for a level-2 caller, `scope`, an upload or a file received in one of its businesses: §11 third review).
 */
async function checkReferences(
  tx: EntityManager,
  projectId: number,
  conversationId: number,
  m: CheckedMessage,
  scope: number[] | null,
): Promise<void> {
  const problems: Problem[] = [];
  const messageOf = async (id: number) =>
    (
      await run(tx, 'select id, external_id from ai_messages where id = ? and conversation_id = ? and project_id = ?', [
        id,
        conversationId,
        projectId,
      ])
    )[0];
  if (m.reply_to_id !== null && !(await messageOf(m.reply_to_id))) problems.push({ field: 'reply_to_id', rule: 'conversation_message' });
  if (m.type === 'reaction' && m.payload) {
    const reacted = await messageOf(m.payload.message_id);
    if (!reacted?.external_id) problems.push({ field: 'payload.message_id', rule: 'sent_message' });
    else m.payload = { ...m.payload, external_id: reacted.external_id };
  }
  if (isMediaKind(m.type) && typeof m.payload?.media_id === 'string') {
    const problem = await checkMediaFile(tx, projectId, m.type, m.payload.media_id, scope);
    if (problem) problems.push(problem);
  }
  if (problems.length) throw validationError(problems);
}

/**
 * A file a reply sends by `media_id`: stored, of the project, of a type and size WhatsApp takes for `kind`;
 * for a level-2 caller (`scope` not null) an upload or a file received in a conversation of its businesses.
 */
async function checkMediaFile(
  tx: EntityManager,
  projectId: number,
  kind: MediaKind,
  mediaId: string,
  scope: number[] | null,
): Promise<Problem | null> {
  const [file] = await run(
    tx,
    `select a.status, a.mime_type, a.size from ai_media a
      where a.id = ? and a.project_id = ?
        and (?::bigint[] is null or a.origin = 'upload'
             or exists (select 1 from ai_conversations c
                         where c.id = a.conversation_id and c.project_id = a.project_id and c.business_id = any(?::bigint[])))`,
    [mediaId, projectId, scope, scope],
  );
  const max = MEDIA_KIND_LIMITS[kind];
  const fits = file?.status === 'stored' && kindsOf(file.mime_type).includes(kind) && Number(file.size) <= max;
  return fits ? null : { field: 'payload.media_id', rule: 'media_file', params: { kind, values: [...SEND_MIME_TYPES[kind]], max } };
}
