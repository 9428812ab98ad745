import type { EntityManager } from '@mikro-orm/postgresql';
import type { RequestContext } from '../../context/index.js';

/** CONTRACT §9.4 and §10.1 (`message.status`): the event types, and what `data` holds for each. */
export const AI_EVENT_TYPES = ['conversation.created', 'conversation.closed', 'message.created', 'message.status', 'template.sent', 'template.status'] as const;
export type AiEventType = (typeof AI_EVENT_TYPES)[number];

/** One event to append: its type, its data (the record as the REST API shows it) and who may see it. */
export interface NewAiEvent {
  type: AiEventType;
  data: Record<string, unknown>;
  agent_id: number | null;
  /** The agent's business: a level-2 user sees the events of the agents of their businesses. */
  business_id: number | null;
  conversation_id?: number | null;
  /** false for a non-public message: the caller's current-conversation stream does not show it. */
  public?: boolean;
}

/** The channel of the NOTIFY that says "events up to id N in project P": payload `P:N`. */
export const EVENTS_CHANNEL = 'ai_events';
/** First key of the project's event lock (pg_advisory_xact_lock(int, int)); the second is the project id. */
const EVENT_LOCK_CLASS = 0x4f474576; // "OGEv"

/**
 * Appends events inside the caller's transaction and returns the last id (null for none).
 *
 * Ids increase in commit order within a project because they are taken only while the
 * project's transaction-scoped advisory lock is held, and that lock is released after the
 * transaction is visible: a reader that has seen id N can never later find a committed N-1.
 * Call it last in the transaction, so the lock is held only for this insert and the commit.
 * The NOTIFY is delivered by PostgreSQL at commit, and never for a rolled-back transaction.
 */
export async function appendEvents(tx: EntityManager, projectId: number, events: NewAiEvent[]): Promise<number | null> {
  if (events.length === 0) return null;
  if (!tx.isInTransaction()) throw new Error('appendEvents outside a transaction');
  const rows = events.map((e) => ({
    type: e.type,
    agent_id: e.agent_id,
    business_id: e.business_id,
    conversation_id: e.conversation_id ?? null,
    public: e.public ?? true,
    data: e.data,
  }));
  // One statement, one round trip while the lock is held: the lock (a CTE that is never inlined,
  // since it calls a volatile function) yields its row before the insert's first row takes an id;
  // the webhook outbox (CONTRACT §9.4, workers/webhook-dispatcher.ts) gets one pending delivery per
  // event and enabled webhook of the project that wants its type, from the inserted rows themselves.
  const [{ last_id }] = await tx.getConnection().execute<{ last_id: string }[]>(
    `with event_lock as (select pg_advisory_xact_lock(?, ?)),
     ins as (
       insert into ai_events (project_id, type, agent_id, business_id, conversation_id, public, data, created_at)
       select ?, r.type, r.agent_id, r.business_id, r.conversation_id, r.public, r.data, clock_timestamp()
         from event_lock,
              rows from (jsonb_to_recordset(?::jsonb) as (type text, agent_id int, business_id int, conversation_id int, public boolean, data jsonb))
              with ordinality as r(type, agent_id, business_id, conversation_id, public, data, n)
        order by r.n
       returning id, type),
     deliveries as (
       insert into ai_webhook_deliveries (project_id, webhook_id, event_id, event_type)
       select w.project_id, w.id, ins.id, ins.type
         from ins join ai_webhooks w on w.project_id = ? and w.enabled and (w.events @> jsonb_build_array(ins.type) or w.events @> '["*"]')
        order by ins.id, w.id)
     select max(id)::text as last_id, pg_notify(?, ? || ':' || max(id)) from ins`,
    [EVENT_LOCK_CLASS, projectId, projectId, JSON.stringify(rows), projectId, EVENTS_CHANNEL, String(projectId)],
    'all',
    tx.getTransactionContext(),
  );
  return Number(last_id);
}

/**
 * The one way a service writes with events: `work` runs in a transaction and says what it
 * changed; its events are appended last in the same transaction (no change without its event, no
 * event without its change), and after the commit the process's event bus is told.
 */
export async function writeWithEvents<T>(
  ctx: RequestContext,
  work: (tx: EntityManager) => Promise<{ value: T; events: NewAiEvent[] }>,
): Promise<T> {
  const { value, lastId } = await ctx.em.transactional(async (tx) => {
    const { value, events } = await work(tx);
    return { value, lastId: await appendEvents(tx, ctx.project.id, events) };
  });
  if (lastId !== null) ctx.services.events.committed(ctx.project.id, lastId);
  return value;
}
