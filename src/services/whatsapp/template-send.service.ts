import type { EntityManager } from '@mikro-orm/postgresql';
import { readOnReplica } from '../../db/replicas.js';
import { countRows, readRows } from '../../db/tenant-read.js';
import { AiTemplateSend, type TemplateSendStatus } from '../../entities/ai-template-send.js';
import type { RequestContext } from '../../context/index.js';
import { assertAiAdmin } from '../identity/access.js';
import { findVisibleAgent } from '../agents/agent-lookup.js';
import type { Page } from '../conversations/conversation.service.js';
import type { NewAiEvent } from '../events/event-log.js';
import { pagination, parseListQuery, toFilter, toOrderBy, type Attributes, type ListInput } from '../shared/list-query.js';

/** What `where` and `orderBy` of the send log accept (CONTRACT §9.3). */
export const SEND_WHERE: Attributes = { status: 'string', template_id: 'id', to: 'string', created_at: 'timestamp' };
export const SEND_ORDER: Attributes = { id: 'id', created_at: 'timestamp', status: 'string' };
/** Newest first unless the caller orders otherwise. */
const DEFAULT_ORDER = '-created_at,-id';

/**
 * The states a status may move a send from: forward only (accepted → sent → delivered → read,
 * skipping allowed); `failed` from any state before `read`, and final.
 */
export const MOVES_FROM: Readonly<Record<Exclude<TemplateSendStatus, 'accepted'>, readonly TemplateSendStatus[]>> = {
  sent: ['accepted'],
  delivered: ['accepted', 'sent'],
  read: ['accepted', 'sent', 'delivered'],
  failed: ['accepted', 'sent', 'delivered'],
};

const iso = (v: unknown) => (v == null ? null : new Date(v as string | Date).toISOString());

/** The send record as the REST API shows it, from an entity or a raw row. */
export function templateSendRecord(s: Record<string, any>): Record<string, unknown> {
  return {
    id: s.id,
    agent_id: s.agent_id,
    template_id: s.template_id ?? null,
    message_id: s.message_id,
    to: s.to,
    status: s.status,
    error: s.error ?? null,
    created_at: iso(s.created_at),
    updated_at: iso(s.updated_at),
  };
}

export function templateSendEvent(
  type: 'template.sent' | 'template.status',
  row: Record<string, any>,
  agent: { id: number; business_id?: number | null },
): NewAiEvent {
  return { type, data: templateSendRecord(row), agent_id: agent.id, business_id: agent.business_id ?? null };
}

/** Inserts a send (status `accepted`) in the caller's transaction; null when the message id is already logged. */
export async function insertTemplateSend(
  tx: EntityManager,
  projectId: number,
  send: { agent_id: number; template_id: number; message_id: string; to: string },
): Promise<Record<string, any> | null> {
  const rows = await tx.getConnection().execute<Record<string, any>[]>(
    `insert into ai_template_sends (project_id, agent_id, template_id, message_id, "to", status)
     values (?, ?, ?, ?, ?, 'accepted')
     on conflict (agent_id, message_id) do nothing
     returning *`,
    [projectId, send.agent_id, send.template_id, send.message_id, send.to],
    'all',
    tx.getTransactionContext(),
  );
  return rows[0] ?? null;
}

/**
 * Moves a send forward in the caller's transaction, in one statement (so concurrent statuses of one
 * send serialise on its row and each sees the other's result); null when there is no such send or
 * the status would not move it forward.
 */
export async function moveTemplateSend(
  tx: EntityManager,
  projectId: number,
  agentId: number,
  messageId: string,
  status: Exclude<TemplateSendStatus, 'accepted'>,
  error: string | null,
): Promise<Record<string, any> | null> {
  const from = MOVES_FROM[status];
  const rows = await tx.getConnection().execute<Record<string, any>[]>(
    `update ai_template_sends set status = ?, error = ?, updated_at = now()
      where project_id = ? and agent_id = ? and message_id = ? and status in (${from.map(() => '?').join(', ')})
      returning *`,
    [status, error, projectId, agentId, messageId, ...from],
    'all',
    tx.getTransactionContext(),
  );
  return rows[0] ?? null;
}

/** `GET /ai/agents/{agent_id}/templates/sends`: the agent's send log, paginated, newest first by default. */
export class TemplateSendService {
  async list(ctx: RequestContext, agentId: number, input: ListInput): Promise<Page<AiTemplateSend>> {
    assertAiAdmin(ctx);
    const where = parseListQuery({ ...input, orderBy: null }, SEND_WHERE).where;
    const q = { ...parseListQuery({ ...input, where: null, orderBy: input.orderBy ?? DEFAULT_ORDER }, SEND_ORDER), where };
    const agent = await findVisibleAgent(ctx, agentId);
    const filter = () => {
      const f = toFilter(q.where);
      return (Object.keys(f).length ? { $and: [{ agent_id: agent.id }, f] } : { agent_id: agent.id }) as never;
    };
    const [items, total] = await readOnReplica(ctx.em, (connectionType) =>
      Promise.all([
        readRows(ctx.em, AiTemplateSend, filter(), {
          orderBy: toOrderBy(q.orderBy) as never,
          limit: q.page_size,
          offset: (q.page - 1) * q.page_size,
          connectionType,
        }),
        countRows(ctx.em, AiTemplateSend, filter(), connectionType),
      ]),
    );
    return { items, pagination: pagination(q.page, q.page_size, total, items.length) };
  }
}
