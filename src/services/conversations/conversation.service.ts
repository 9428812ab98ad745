import { readOnReplica } from '../../db/replicas.js';
import { selectOnReplica, selectRows, type ConnectionType } from '../../db/direct-read.js';
import { countRows, readOne, readRows } from '../../db/tenant-read.js';
import { AiAgent } from '../../entities/ai-agent.js';
import { AiConversation } from '../../entities/ai-conversation.js';
import { type AiMedia } from '../../entities/ai-media.js';
import { AiMessage } from '../../entities/ai-message.js';
import type { TenantEntity } from '../../entities/tenant.js';
import { appError, notFound404, validationError } from '../../errors/codes.js';
import { run, TIMESTAMPS } from './records.js';
import { loaderFor } from '../../context/batch.js';
import type { RequestContext } from '../../context/index.js';
import { translate } from '../../i18n/messages.js';
import type { Pagination } from '../shared/list-query.js';
import { ACCESS, assertAccess, assertAiAdmin, assertAiModule, visibleBusinessIds } from '../identity/access.js';
import type { EntityName, FilterQuery } from '@mikro-orm/core';
import { raw } from '@mikro-orm/postgresql';
import {
  pagination,
  parseListQuery,
  toFilter,
  toOrderBy,
  type Attributes,
  type Computed,
  type Group,
  type ListInput,
  type ListQuery,
  type RelationFilters,
  type Relations,
} from '../shared/list-query.js';
import { ID_MAX, storedId } from './message-rules.js';

/** What `where` and `orderBy` accept (CONTRACT §6.2); nothing else reaches SQL. */
export const CONVERSATION_ATTRIBUTES: Attributes = {
  id: 'id',
  agent_id: 'id',
  user_id: 'id',
  business_id: 'id',
  status: 'string',
  status_reason: 'string',
  created_at: 'timestamp',
  closed_at: 'timestamp',
  handler: 'string',
  assignee_id: 'id',
  last_message_at: 'timestamp',
  unread: 'boolean',
  unread_count: 'int',
  messages_count: 'int',
  referral_source_id: 'string',
  contact: 'string',
  contact_user_id: 'string',
  contact_username: 'string',
  source: 'string',
};

/**
 * `q` (CONTRACT §10.5): THE ONE PLACE listing the conversation columns searched beside the messages'
 * content, each with a trigram index of its own: `contact` (digits or a BSUID) as it is
 * (ai_conversations_contact_trgm_idx), the names folded like the messages, case and accents off
 * (ai_conversations_contact_name_fold_idx, _contact_username_fold_idx on `og_fold(column)`).
 */
const Q_CONVERSATION_COLUMNS = ['contact', 'contact_name', 'contact_username'] as const;
const Q_FOLDED = new Set<string>(['contact_name', 'contact_username']);
/** One searched column of the conversation `alias` against a bound contains-pattern. */
const columnMatch = (alias: string, column: string) =>
  Q_FOLDED.has(column) ? `og_fold(${alias}.${column}) like og_fold(?)` : `${alias}.${column} ilike ?`;
export const Q_MAX = 100;

/** Who a seen mark belongs to: the user (a key acting as its user included), or the server key; null for anyone else. */
export function viewerOf(ctx: RequestContext): string | null {
  const { caller } = ctx;
  if (caller.kind === 'user') return `user:${caller.user.id}`;
  if (caller.kind === 'server') return `key:${caller.apiKeyId}`;
  return null;
}

/**
 * The caller's unread `user` messages of conversation `alias`: after its seen mark, all of them without one
 * (imported history is never unread: not counted). Both counts are stored (Migration20261128059000_unread_counts): no message is read.
 */
function unreadSql(alias: string): string {
  return `${alias}.user_messages - coalesce((select s.user_messages from ai_conversation_seen s where s.conversation_id = ${alias}.id and s.viewer = ?), 0)`;
}

/**
 * unreadSql for every conversation of a list (the filter and the sort): the caller's marks are read once,
 * as a hashed set (ai_conversation_seen_viewer_idx), and only a conversation in it looks its mark up.
 * Parameters: project, viewer, viewer.
 */
function unreadListSql(alias: string): string {
  return `${alias}.user_messages - case when ${alias}.id in (select v.conversation_id from ai_conversation_seen v where v.project_id = ? and v.viewer = ?)
     then (select s.user_messages from ai_conversation_seen s where s.conversation_id = ${alias}.id and s.viewer = ?) else 0 end`;
}

/** Past this page end, a sort by unread_count reads every conversation of the project (the generic query). */
const UNREAD_WALK_MAX = 1000;

/**
 * Whether the page can be found from ai_conversations_unread_idx (Migration20261129000100_unread_sort_index), read
 * forward or backward: the order starts with unread_count then last_message_at in one direction, the list keeps
 * history out (the index's condition) and the page ends early enough.
 */
function walksUnreadIndex(q: ListQuery): boolean {
  const [first, second] = q.orderBy;
  return (
    first.attribute === 'unread_count' &&
    second?.attribute === 'last_message_at' &&
    first.direction === second.direction &&
    !namesAttribute(q.where, 'source') &&
    q.page * q.page_size <= UNREAD_WALK_MAX
  );
}

/**
 * The conversations that can be on a page whose order starts with unread_count (walksUnreadIndex), as `id = any(…)`:
 * the first ones up to the page's end among the caller's unmarked conversations, and the same among its marked ones,
 * each in the page's order and through the list's filter. Without a mark, unread_count is user_messages, so the
 * unmarked are the first entries of the index that pass the filter, not a read of the whole project; finding the
 * marked ones reads as many rows as the caller has marks. The list's own query over them gives exactly its page: each
 * row of it is one of the first up to the page's end on its side.
 */
function unreadCandidates(ctx: RequestContext, q: ListQuery, filter: () => Record<string, unknown>, computed: Computed, viewer: string) {
  const project = ctx.project.id;
  const marks = () =>
    raw('select v.conversation_id from ai_conversation_seen v where v.project_id = ? and v.viewer = ?', [project, viewer]);
  const first = (side: Record<string, unknown>, order: Computed) =>
    ctx.em
      .createQueryBuilder(AiConversation, 'u')
      .select('u.id')
      .where({ $and: [{ project }, filter(), side] })
      .orderBy(toOrderBy(q.orderBy, order))
      .limit(q.page * q.page_size)
      .getKnexQuery()
      .toSQL();
  const unmarked = first(
    { id: { $nin: marks() } },
    { ...computed, unread_count: (alias) => ({ sql: `${alias}.user_messages`, params: [] }) },
  );
  const marked = first({ id: { $in: marks() } }, computed);
  return { id: raw(`any(array(${unmarked.sql}) || array(${marked.sql}))`, [...unmarked.bindings, ...marked.bindings]) };
}

/** Whether a condition of `where` (at any depth, outside relation groups) is on `attribute`. */
function namesAttribute(where: Group, attribute: string): boolean {
  return where.items.some((n) => ('items' in n ? namesAttribute(n, attribute) : 'attribute' in n && n.attribute === attribute));
}

/** `q` as an ilike pattern: contains the text, `%`, `_` and `\\` taken literally. */
export function containsPattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** CONTRACT §13.6: the conversations list's `where` on the source id of the ad that brought the customer. */
const REFERRAL_SOURCE_ID = (alias: string) => ({ sql: `${alias}.referral->>'source_id'`, params: [] });

/** Relation groups of the conversation list: `{"attribute": "agent", "conditions": [...]}`. */
export const CONVERSATION_RELATIONS: Relations = {
  agent: {
    id: 'id',
    name: 'string',
    provider: 'string',
    provider_type: 'string',
    provider_external_id: 'string',
    enabled: 'boolean',
    business_id: 'id',
  },
};

export const MESSAGE_ATTRIBUTES: Attributes = {
  id: 'id',
  role: 'string',
  public: 'boolean',
  created_at: 'timestamp',
  delivery_status: 'string',
  type: 'string',
  reply_to_id: 'id',
  source: 'string',
};

/** An order placed in a conversation, as `GET /ai/conversations/{id}/orders` shows it. */
export interface ConversationOrder {
  id: number;
  status: number;
  /** `summary.total` when it is a number or a string holding one (platform data), else null (CONTRACT §11). */
  total: number | null;
  business_id: number | null;
  created_at: Date;
}

export interface Page<T> {
  items: T[];
  pagination: Pagination;
}

/** Every agent column but the encrypted credentials. */
const AGENT_FIELDS = [
  'id',
  'business_id',
  'name',
  'provider',
  'provider_type',
  'provider_external_id',
  'enabled',
  'disabled_reason',
  'history',
  'created_at',
  'updated_at',
  'credential_keys',
] as const;

/**
 * The conversation reads (CONTRACT §6.2): the list, one conversation and its messages, the caller's
 * current conversation and its public messages. The writes are ConversationWriteService's.
 */
export class ConversationService {
  /**
   * `GET /ai/conversations`: levels 0 and 2 and server keys; a level-2 user sees their businesses' only.
   * §10.5: `unread`/`unread_count` are the caller's, `assignee_id: "me"` is the calling user (nobody for a
   * server key), `search` keeps the conversations whose searched columns or any message contain it.
   */
  async list(ctx: RequestContext, input: ListInput, search?: string | null): Promise<Page<AiConversation>> {
    assertAiAdmin(ctx);
    const me = ctx.caller.kind === 'user' ? ctx.caller.user.id : 0;
    const q = parseListQuery(input, CONVERSATION_ATTRIBUTES, CONVERSATION_RELATIONS, { assignee_id: { me } });
    const pattern = search === undefined || search === null ? null : containsPattern(checkQ(search));
    const scope = await visibleBusinessIds(ctx);
    if (scope !== null && scope.length === 0) return { items: [], pagination: pagination(q.page, q.page_size, 0, 0) };
    // q: the matches are counted once (the total when nothing else filters); a few are then read by id. A business
    // owner's search never looks past its businesses (CONTRACT §11, fourth review): no count over the project, no early
    // answer from one; its own conversations are searched, each through its own messages (scopedSearchFilter).
    const matches = pattern === null || scope !== null ? null : await searchMatches(ctx, pattern);
    if (matches && matches.n === 0) return { items: [], pagination: pagination(q.page, q.page_size, 0, 0) };
    const viewer = viewerOf(ctx) ?? '';
    const computed: Computed = {
      unread_count: (alias) => ({ sql: unreadListSql(alias), params: [ctx.project.id, viewer, viewer] }),
      unread: (alias) => ({ sql: `(${unreadListSql(alias)}) > 0`, params: [ctx.project.id, viewer, viewer] }),
      referral_source_id: REFERRAL_SOURCE_ID,
      // CONTRACT §11: every message of the conversation, as the record's messages_count counts them
      messages_count: (alias) => ({ sql: `select count(*)::int from ai_messages mc where mc.conversation_id = ${alias}.id`, params: [] }),
    };
    const filter = () => {
      const filters = [
        toFilter(q.where, conversationRelations(ctx, scope), computed),
        // CONTRACT §13.3: imported history only when `where` has a condition on `source`
        ...(namesAttribute(q.where, 'source') ? [] : [{ source: 'live' }]),
        ...(scope ? [{ business_id: { $in: scope } }] : []),
        ...(pattern && matches ? [searchFilter(ctx, pattern, matches, q.page * q.page_size)] : []),
        ...(pattern && scope ? [scopedSearchFilter(ctx, pattern, scope)] : []),
      ].filter((f) => Object.keys(f).length);
      return filters.length ? { $and: filters } : {};
    };
    return readPage(ctx, AiConversation, q, filter, {
      computed,
      total: q.where.items.length || (pattern !== null && !matches) ? undefined : unfilteredTotal(ctx, scope, matches),
      // the unread index is the project's: a business owner's page is found among its own conversations (CONTRACT §11)
      narrow:
        pattern === null && scope === null && walksUnreadIndex(q) ? () => unreadCandidates(ctx, q, filter, computed, viewer) : undefined,
    });
  }

  /**
   * `POST /ai/conversations/{id}/seen`: the caller's mark moves forward to `messageId` (a message of the
   * conversation; absent: its newest), never back; emits nothing. Result: the caller's unread_count after it.
   */
  async markSeen(ctx: RequestContext, conversationId: number, messageId?: number | null): Promise<{ unread_count: number }> {
    assertAiAdmin(ctx);
    const conversation = await this.visible(ctx, conversationId);
    const viewer = viewerOf(ctx)!;
    const project = ctx.project.id;
    const [target] =
      messageId === undefined || messageId === null
        ? await run(ctx.em, 'select coalesce(max(id), 0) as id from ai_messages where project_id = ? and conversation_id = ?', [
            project,
            conversation.id,
          ])
        : await run(ctx.em, 'select id from ai_messages where project_id = ? and conversation_id = ? and id = ?', [
            project,
            conversation.id,
            storedId(messageId),
          ]);
    if (!target) throw validationError([{ field: 'message_id', key: 'invalid_field' }]);
    // the mark and the user messages up to it (the conversation's unread_count subtracts them)
    await run(
      ctx.em,
      `insert into ai_conversation_seen (project_id, conversation_id, viewer, message_id, user_messages)
       select ?, ?, ?, ?, count(*) from ai_messages where conversation_id = ? and role = 'user' and source <> 'history' and id <= ?
       on conflict (conversation_id, viewer) do update set message_id = excluded.message_id, user_messages = excluded.user_messages,
         updated_at = now() where ai_conversation_seen.message_id < excluded.message_id`,
      [project, conversation.id, viewer, Number(target.id), conversation.id, Number(target.id)],
    );
    const [row] = await run(ctx.em, `select (${unreadSql('c')})::int as n from ai_conversations c where c.project_id = ? and c.id = ?`, [
      viewer,
      project,
      conversation.id,
    ]);
    return { unread_count: Number(row.n) };
  }

  /** The newest message of each conversation of a page (the inbox's preview): one query, by (conversation_id, id). */
  lastMessage(ctx: RequestContext, conversationId: number): Promise<AiMessage | undefined> {
    return loaderFor<number, AiMessage>(ctx.em, 'conversation.last_message', async (ids) => {
      const rows = await selectOnReplica<Record<string, any>>(
        ctx.em,
        `select distinct on (m.conversation_id) m.* from ai_messages m
          where m.project_id = ? and m.conversation_id in (${ids.map(() => '?').join(', ')})
          order by m.conversation_id, m.id desc`,
        [ctx.project.id, ...ids],
      );
      // every timestamp of the row (edited_at, revoked_at too: CONTRACT §11), as the graph's DateTime wants them
      for (const row of rows) for (const k of TIMESTAMPS) if (typeof row[k] === 'string') row[k] = new Date(row[k]);
      return new Map(rows.map((r) => [Number(r.conversation_id), Object.assign(Object.create(AiMessage.prototype), r) as AiMessage]));
    }).load(conversationId);
  }

  /** unread_count of the caller for a page of conversations: one query of the stored counts. */
  unreadCount(ctx: RequestContext, conversationId: number): Promise<number | undefined> {
    const viewer = viewerOf(ctx) ?? '';
    return loaderFor<number, number>(ctx.em, 'conversation.unread_count', async (ids) => {
      const rows = await selectOnReplica<{ id: number; n: number }>(
        ctx.em,
        `select c.id, (${unreadSql('c')})::int as n from ai_conversations c
          where c.project_id = ? and c.id in (${ids.map(() => '?').join(', ')})`,
        [viewer, ctx.project.id, ...ids],
      );
      const counts = new Map<number, number>(ids.map((id) => [id, 0]));
      for (const r of rows) counts.set(Number(r.id), Number(r.n));
      return counts;
    }).load(conversationId);
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
      return Object.keys(where).length ? { $and: [{ conversation_id: conversation.id }, where] } : { conversation_id: conversation.id };
    });
  }

  /**
   * `GET /ai/conversations/{id}/messages/{message_id}/media` (CONTRACT §12.3): the MEDIA of a message
   * of a visible conversation; a message not in it, or without a file: 400 ERROR_AI_MESSAGE_NOT_FOUND.
   */
  async messageMedia(ctx: RequestContext, conversationId: number, messageId: number): Promise<AiMedia> {
    assertAiAdmin(ctx);
    const conversation = await this.visible(ctx, conversationId);
    const [media] = await ctx.em.getConnection().execute<AiMedia[]>(
      `select a.id, a.status, a.mime_type, a.size, a.sha256, a.error
         from ai_messages m join ai_media a on a.project_id = m.project_id and a.id = m.payload->'media'->>'id'
        where m.project_id = ? and m.conversation_id = ? and m.id = ?`,
      [ctx.project.id, conversation.id, messageId],
      'all',
    );
    if (!media) throw appError('ERROR_AI_MESSAGE_NOT_FOUND');
    return media;
  }

  /**
   * `GET /ai/conversations/{id}/orders` (CONTRACT §10.6): the platform's orders placed in a visible conversation,
   * newest first, paginated.
   */
  async orders(ctx: RequestContext, conversationId: number, input: ListInput): Promise<Page<ConversationOrder>> {
    assertAiAdmin(ctx);
    const q = parseListQuery({ page: input.page, page_size: input.page_size }, {});
    const conversation = await this.visible(ctx, conversationId);
    const rows = await selectOnReplica<ConversationOrder & { n: number }>(
      ctx.em,
      `select o.id, o.status, metrics_num(o.summary->'total')::float8 as total, o.business_id, o.created_at, count(*) over ()::int as n
         from orders o where o.project_id = ? and o.conversation_id = ?
        order by o.created_at desc, o.id desc limit ? offset ?`,
      [ctx.project.id, conversation.id, q.page_size, (q.page - 1) * q.page_size],
    );
    const total = rows.length
      ? Number(rows[0].n)
      : Number(
          (
            await selectOnReplica<{ n: number }>(
              ctx.em,
              'select count(*)::int as n from orders where project_id = ? and conversation_id = ?',
              [ctx.project.id, conversation.id],
            )
          )[0].n,
        );
    const items = rows.map(({ n: _n, ...o }) => ({
      ...o,
      total: o.total === null ? null : Number(o.total),
      created_at: new Date(o.created_at),
    }));
    return { items, pagination: pagination(q.page, q.page_size, total, items.length) };
  }

  /** `GET .../conversations/current/messages`: public messages, oldest first; creates nothing. */
  async currentMessages(ctx: RequestContext, providerExternalId: string): Promise<AiMessage[]> {
    const conversation = await this.currentActive(ctx, providerExternalId);
    return readRows(
      ctx.em,
      AiMessage,
      { conversation_id: conversation.id, public: true },
      { orderBy: [{ created_at: 'asc' }, { id: 'asc' }] },
    );
  }

  /** The caller's active conversation with the agent, creating nothing: 404 when the agent or the conversation does not exist. */
  async currentActive(ctx: RequestContext, providerExternalId: string): Promise<AiConversation> {
    const agent = await currentAgent(ctx, providerExternalId);
    const conversation = await activeConversation(ctx, agent.id, ctx.caller.kind === 'user' ? ctx.caller.user.id : null);
    if (!conversation) throw notFound404('ERROR_AI_CONVERSATION_NOT_FOUND');
    return conversation;
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
    if (!Number.isInteger(id) || id < 1 || id > ID_MAX) throw appError('ERROR_AI_CONVERSATION_NOT_FOUND');
    const conversation = await readOne(ctx.em, AiConversation, { id });
    const scope = conversation ? await visibleBusinessIds(ctx) : null;
    if (!conversation || (scope !== null && !scope.includes(conversation.business_id ?? -1))) {
      throw appError('ERROR_AI_CONVERSATION_NOT_FOUND');
    }
    return conversation;
  }
}

/** The agent of the current-conversation pair: any authenticated caller; 404 unknown, 409 disabled. */
export async function currentAgent(ctx: RequestContext, providerExternalId: string): Promise<AiAgent> {
  const agent = mayNameAgent(ctx, providerExternalId)
    ? await readOne(ctx.em, AiAgent, { provider_external_id: providerExternalId }, { fields: AGENT_FIELDS })
    : null;
  if (!agent) throw notFound404('ERROR_AI_AGENT_NOT_FOUND');
  if (!agent.enabled) {
    const message = { key: 'ERROR_AI_AGENT_DISABLED' };
    throw appError('ERROR_AI_CONVERSATION_CONFLICT', [message], {
      result: { message: translate(ctx.lang, message), agent_id: agent.id, reason: 'AGENT_DISABLED' },
    });
  }
  return agent;
}

/**
 * currentAgent's checks before its lookup: an authenticated caller (else 401), the AI module (else 403);
 * then whether `providerExternalId` can name an agent at all.
 */
export function mayNameAgent(ctx: RequestContext, providerExternalId: string): boolean {
  assertAccess(ctx, ACCESS.AUTHENTICATED);
  assertAiModule(ctx);
  return typeof providerExternalId === 'string' && /^[a-zA-Z0-9_-]{1,128}$/.test(providerExternalId);
}

/** The caller's active conversation with the agent, or null (a WhatsApp contact's has a contact and is never the caller's). */
export function activeConversation(ctx: RequestContext, agentId: number, userId: number | null): Promise<AiConversation | null> {
  return readOne(ctx.em, AiConversation, { agent_id: agentId, user_id: userId, contact: null, status: 'active' });
}

interface PageOptions {
  computed?: Computed;
  /** The total when the caller has it without counting the filter's rows. */
  total?: (connectionType: ConnectionType) => number | Promise<number>;
  /** A condition for the page's read only, never the total's: it must keep every row of the page. */
  narrow?: () => Record<string, unknown>;
}

/**
 * One page of a list and its total (counted, unless the caller knows it), on a healthy replica when there is one.
 * `where` builds the filter afresh for each query: raw fragments (ilike on integers, relation groups) are spent by the
 * query that uses them.
 */
export async function readPage<T extends TenantEntity>(
  ctx: RequestContext,
  entity: EntityName<T>,
  q: ListQuery,
  where: () => FilterQuery<NoInfer<T>>,
  { computed = {}, total, narrow }: PageOptions = {},
): Promise<Page<T>> {
  const [items, n] = await readOnReplica(ctx.em, (connectionType) =>
    Promise.all([
      readRows(ctx.em, entity, narrow ? ({ $and: [where(), narrow()] } as FilterQuery<NoInfer<T>>) : where(), {
        orderBy: toOrderBy(q.orderBy, computed) as never,
        limit: q.page_size,
        offset: (q.page - 1) * q.page_size,
        connectionType,
      }),
      total ? total(connectionType) : countRows(ctx.em, entity, where(), connectionType),
    ]),
  );
  return { items, pagination: pagination(q.page, q.page_size, n, items.length) };
}

/** The UTC-month grain of the metrics rollups (services/metrics/cover.ts): the fewest rows of a project. */
const MONTH_GRAIN = 2;

/**
 * The list's total when `where` is empty, without counting the page's filter: with `q` and no business scope, the
 * search's own count (no second pass over the matches); without `q`, the project's live conversations (in the scope's
 * businesses) from the conversation metrics, which count exactly those, per business, in each writer's transaction
 * (metrics_conversation_rollup at its month grain and the deltas not folded into it yet, read in one statement: one
 * snapshot, as the metrics read them). A few rows per agent and month, where count(*) reads every conversation.
 */
function unfilteredTotal(ctx: RequestContext, scope: number[] | null, matches: SearchMatches | null): PageOptions['total'] {
  // the list shows live conversations only when `where` is empty (CONTRACT §13.3): the history ones matched are not counted
  if (matches) return scope === null ? () => matches.n - matches.history : undefined;
  const businesses = scope === null ? '' : ` and business_id = any(?::bigint[])`;
  const params = scope === null ? [ctx.project.id] : [ctx.project.id, scope];
  return async (connectionType) => {
    const [row] = await selectRows<{ n: string }>(
      ctx.em,
      `select (select coalesce(sum(conversations), 0) from metrics_conversation_rollup where project_id = ? and grain = ${MONTH_GRAIN}${businesses})
            + (select coalesce(sum(conversations), 0) from metrics_conversation_delta where project_id = ?${businesses}) as n`,
      [...params, ...params],
      connectionType,
    );
    return Number(row.n);
  };
}

/** `q`: 1–100 characters (code points), no NUL; else 400 naming q. */
export function checkQ(search: string): string {
  const length = [...search].length;
  if (typeof search !== 'string' || length < 1 || length > Q_MAX)
    throw validationError([{ field: 'q', rule: 'length', params: { min: 1, max: Q_MAX } }]);
  if (search.includes('\u0000')) throw validationError([{ field: 'q', key: 'invalid_field' }]);
  return search;
}

/** Up to this many matching conversations, the page reads them by id; past it, the search is part of the page's read. */
const SEARCH_IDS_MAX = 2000;
/**
 * A broad word's page is found by walking the conversations in the page's order, each tested against its own messages,
 * when about this many conversations or fewer are walked before the page is full (the page's end × conversations /
 * matches). Past it (a sparse word, a deep page), PostgreSQL hashes the search's matches once instead.
 */
const SEARCH_WALK_MAX = 600;

/**
 * `q`: the ids of the project's conversations whose searched columns contain the pattern, united with those having a
 * message that does, each side answered by a trigram index. Messages are searched in `ai_message_search`, their text
 * folded (Migration20261127000100's `og_fold`, Unicode-aware): `like og_fold(pattern)`, on narrow rows.
 */
const messagesSql = 'select sm.conversation_id from ai_message_search sm where sm.project_id = ? and sm.body like og_fold(?)';
function matchesSql(): string {
  const columns = Q_CONVERSATION_COLUMNS.map((c) => columnMatch('sc', c)).join(' or ');
  return `select sc.id from ai_conversations sc where sc.project_id = ? and (${columns}) union ${messagesSql}`;
}

interface SearchMatches {
  /** How many conversations match. */
  n: number;
  /** How many of them are imported history (CONTRACT §13.3: listed only when `where` names `source`). */
  history: number;
  /** Their ids as one array literal (`{1,2,…}`) when there are at most SEARCH_IDS_MAX of them. */
  ids: string | null;
  /** Past SEARCH_IDS_MAX: the project's conversations, to weigh how dense the matches are. */
  conversations: number | null;
}

/**
 * How many conversations match (with no other filter, the list's total: no second count), with their ids when few,
 * else the project's conversation count (an init plan PostgreSQL runs only when that branch is taken).
 */
async function searchMatches(ctx: RequestContext, pattern: string): Promise<SearchMatches> {
  const [row] = await selectOnReplica<SearchMatches>(
    ctx.em,
    `with m as materialized (${matchesSql()})
     select count(*)::int as n, case when count(*) <= ${SEARCH_IDS_MAX} then array_agg(id)::text end as ids,
            case when count(*) > ${SEARCH_IDS_MAX} then (select count(*)::int from ai_conversations pc where pc.project_id = ?) end
              as conversations,
            (select count(*)::int from ai_conversations hc join m hm on hm.id = hc.id where hc.project_id = ? and hc.source = 'history')
              as history
       from m`,
    [ctx.project.id, ...Q_CONVERSATION_COLUMNS.map(() => pattern), ctx.project.id, pattern, ctx.project.id, ctx.project.id],
  );
  return { n: Number(row?.n ?? 0), history: Number(row?.history ?? 0), ids: row?.ids ?? null, conversations: row?.conversations ?? null };
}

/**
 * `q` as a filter. A few matches: their ids (one array parameter, read by primary key). A broad word: the columns'
 * match, or the conversation's messages contain it. Dense matches (SEARCH_WALK_MAX): an `exists` per conversation
 * walked in the page's order, on its messages by `conversation_id` (`offset 0` keeps PostgreSQL from hashing the
 * whole search instead). Otherwise `id in (the messages' search)`; under `or`, PostgreSQL cannot turn the `in` into a
 * join (its generic plan, expecting few rows, would then join and sort every match) and runs it once as a hashed
 * subplan while walking the conversations in the page's order, which stops at the page's end.
 */
function searchFilter(ctx: RequestContext, pattern: string, matches: SearchMatches, pageEnd: number): Record<string, unknown> {
  if (matches.ids) return { id: raw('any(?::bigint[])', [matches.ids]) };
  const walk = matches.conversations !== null && (pageEnd * matches.conversations) / matches.n <= SEARCH_WALK_MAX;
  const messages = walk
    ? {
        [raw(
          (alias: string) =>
            `exists (select 1 from ai_messages dm where dm.conversation_id = ${alias}.id and og_fold(dm.content) like og_fold(?) offset 0)`,
          [pattern],
        )]: true,
      }
    : { id: { $in: raw(messagesSql, [ctx.project.id, pattern]) } };
  const columns = Q_CONVERSATION_COLUMNS.map((c) => ({ [raw((alias: string) => columnMatch(alias, c), [pattern])]: true }));
  return { $or: [...columns, messages] };
}

/**
 * `q` for a business owner (CONTRACT §11, fourth review: a level-2 search never touches other businesses' rows): the
 * ids of its businesses' conversations, read through their business (ai_conversations_business_idx), that match in a
 * searched column or in one of their own messages (by conversation, ai_messages_conversation_idx), computed once (an
 * init plan) and then read by id. No index over the whole project (the trigram ones) is asked: the `exists` in the
 * `or` leaves PostgreSQL no bitmap over them, and `offset 0` keeps it from hashing the project's matches instead. The
 * work, the answer and its total depend on the owner's conversations only.
 */
export function scopedSearchSql(): string {
  const columns = Q_CONVERSATION_COLUMNS.map((c) => columnMatch('oc', c)).join(' or ');
  return `select oc.id from ai_conversations oc
     where oc.project_id = ? and oc.business_id = any(?::bigint[])
       and (${columns}
            or exists (select 1 from ai_messages om where om.conversation_id = oc.id and og_fold(om.content) like og_fold(?) offset 0))`;
}

/** The parameters of scopedSearchSql, in order. */
export function scopedSearchParams(projectId: number, scope: number[], pattern: string): unknown[] {
  return [projectId, `{${scope.join(',')}}`, ...Q_CONVERSATION_COLUMNS.map(() => pattern), pattern];
}

function scopedSearchFilter(ctx: RequestContext, pattern: string, scope: number[]): Record<string, unknown> {
  return { id: raw(`any(array(${scopedSearchSql()}))`, scopedSearchParams(ctx.project.id, scope, pattern)) };
}

/** A relation group on `agent`: `agent_id in (select id from ai_agents where project_id = ? and …)`, all bound. */
function conversationRelations(ctx: RequestContext, scope: number[] | null = null): RelationFilters {
  return {
    agent: (filter) => {
      // a business owner's condition on agents looks at its businesses' agents only (CONTRACT §11, fourth review)
      const agents = ctx.em
        .createQueryBuilder(AiAgent, 'ag')
        .select('ag.id')
        .where({ $and: [{ project: ctx.project.id }, ...(scope ? [{ business_id: { $in: scope } }] : []), filter] });
      return { agent_id: { $in: raw(agents) } };
    },
  };
}
