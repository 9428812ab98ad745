import { readOnReplica } from '../../db/replicas.js';
import { selectOnReplica } from '../../db/direct-read.js';
import { countRows, readOne, readRows } from '../../db/tenant-read.js';
import { AiAgent } from '../../entities/ai-agent.js';
import { AiConversation } from '../../entities/ai-conversation.js';
import { AiMessage } from '../../entities/ai-message.js';
import type { TenantEntity } from '../../entities/tenant.js';
import { appError, notFound404 } from '../../errors/codes.js';
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
  type ListInput,
  type ListQuery,
  type RelationFilters,
  type Relations,
} from '../shared/list-query.js';
import { INT_MAX } from './message-rules.js';

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
  handler: 'string',
  assignee_id: 'int',
};

/** Relation groups of the conversation list: `{"attribute": "agent", "conditions": [...]}`. */
export const CONVERSATION_RELATIONS: Relations = {
  agent: {
    id: 'int',
    name: 'string',
    provider: 'string',
    provider_type: 'string',
    provider_external_id: 'string',
    enabled: 'boolean',
    business_id: 'int',
  },
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

/** Every agent column but the encrypted credentials. */
const AGENT_FIELDS = [
  'id',
  'business_id',
  'name',
  'provider',
  'provider_type',
  'provider_external_id',
  'enabled',
  'created_at',
  'updated_at',
  'credential_keys',
] as const;

/**
 * The conversation reads (CONTRACT §6.2): the list, one conversation and its messages, the caller's
 * current conversation and its public messages. The writes are ConversationWriteService's.
 */
export class ConversationService {
  /** `GET /ai/conversations`: levels 0 and 2 and server keys; a level-2 user sees their businesses' only. */
  async list(ctx: RequestContext, input: ListInput): Promise<Page<AiConversation>> {
    assertAiAdmin(ctx);
    const q = parseListQuery(input, CONVERSATION_ATTRIBUTES, CONVERSATION_RELATIONS);
    const scope = await visibleBusinessIds(ctx);
    if (scope !== null && scope.length === 0) return { items: [], pagination: pagination(q.page, q.page_size, 0, 0) };
    return readPage(ctx, AiConversation, q, () => {
      const filters = [toFilter(q.where, conversationRelations(ctx)), ...(scope ? [{ business_id: { $in: scope } }] : [])].filter(
        (f) => Object.keys(f).length,
      );
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
      return (
        Object.keys(where).length ? { $and: [{ conversation_id: conversation.id }, where] } : { conversation_id: conversation.id }
      ) as never;
    });
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
    if (!Number.isInteger(id) || id < 1 || id > INT_MAX) throw appError('ERROR_AI_CONVERSATION_NOT_FOUND');
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

/** The caller's active conversation with the agent, or null (a WhatsApp contact's has a contact and is never the caller's). */
export function activeConversation(ctx: RequestContext, agentId: number, userId: number | null): Promise<AiConversation | null> {
  return readOne(ctx.em, AiConversation, { agent_id: agentId, user_id: userId, contact: null, status: 'active' });
}

/**
 * One page of a list and its total, on a healthy replica when there is one. `where` builds the filter
 * afresh for each query: raw fragments (ilike on integers, relation groups) are spent by the query that uses them.
 */
export async function readPage<T extends TenantEntity>(
  ctx: RequestContext,
  entity: EntityName<T>,
  q: ListQuery,
  where: () => FilterQuery<NoInfer<T>>,
): Promise<Page<T>> {
  const [items, total] = await readOnReplica(ctx.em, (connectionType) =>
    Promise.all([
      readRows(ctx.em, entity, where(), {
        orderBy: toOrderBy(q.orderBy) as never,
        limit: q.page_size,
        offset: (q.page - 1) * q.page_size,
        connectionType,
      }),
      countRows(ctx.em, entity, where(), connectionType),
    ]),
  );
  return { items, pagination: pagination(q.page, q.page_size, total, items.length) };
}

/** A relation group on `agent`: `agent_id in (select id from ai_agents where project_id = ? and …)`, all bound. */
function conversationRelations(ctx: RequestContext): RelationFilters {
  return {
    agent: (filter) => {
      const agents = ctx.em
        .createQueryBuilder(AiAgent, 'ag')
        .select('ag.id')
        .where({ $and: [{ project: ctx.project.id }, filter] });
      return { agent_id: { $in: raw(agents) } };
    },
  };
}
