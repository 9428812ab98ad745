import { ID_KEY } from '../../db/advisory.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { RequestContext } from '../../context/index.js';
import { directTransaction, runStatement } from '../../db/direct-read.js';

type Connection = ReturnType<EntityManager['getConnection']>;

/** CONTRACT §9.4, §10.1 (`message.status`), §10.2 (`conversation.handoff`), §12.3 (`message.updated`: a file stored or failed) and §15.3 (carts and orders): the event types, and what `data` holds for each. */
export const AI_EVENT_TYPES = [
  'conversation.created',
  'conversation.closed',
  'conversation.handoff',
  'message.created',
  'message.status',
  'message.updated',
  'template.sent',
  'template.status',
  'agent.updated',
  'cart.updated',
  'order.created',
  'order.status',
  'order.updated',
] as const;
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

/**
 * The outbox workers a commit can give something to do (workers/index.ts): webhook deliveries, WhatsApp replies,
 * inbound files, history chunks, Conversions API events (CONTRACT §15.6).
 */
export const OUTBOX_KINDS = ['webhooks', 'sends', 'downloads', 'history', 'conversions'] as const;
export type OutboxKind = (typeof OUTBOX_KINDS)[number];
/**
 * The channel of the NOTIFY that says "rows were queued for these outbox workers": payload
 * `ORIGIN:kind,kind`, ORIGIN naming the process that queued them (it does not wake itself twice).
 */
export const WORK_CHANNEL = 'ai_work';
/** First key of a project's sequencer lock (pg_advisory_xact_lock(int, int)); the second is the project id. Writers never take it. */
export const SEQUENCER_LOCK_CLASS = 0x4f474576; // "OGEv"

/**
 * Appends events inside the caller's transaction, to the project's inbox, without any lock: a
 * project's writers never wait for each other here. The events get their ids once committed, from
 * a sequencer pass (`sequenceEvents`), which `writeWithEvents` runs after the commit. Returns
 * whether anything was appended.
 */
export async function appendEvents(tx: EntityManager, projectId: number, events: NewAiEvent[]): Promise<boolean> {
  if (events.length === 0) return false;
  if (!tx.isInTransaction()) throw new Error('appendEvents outside a transaction');
  const rows = events.map((e) => ({
    type: e.type,
    agent_id: e.agent_id,
    business_id: e.business_id,
    conversation_id: e.conversation_id ?? null,
    public: e.public ?? true,
    data: e.data,
  }));
  await runStatement(
    tx.getConnection(),
    `insert into ai_event_inbox (project_id, type, agent_id, business_id, conversation_id, public, data, created_at)
     select ?::bigint, r.type, r.agent_id, r.business_id, r.conversation_id, r.public, r.data, clock_timestamp()
       from rows from (jsonb_to_recordset(?::jsonb) as (type text, agent_id bigint, business_id bigint, conversation_id bigint, public boolean, data jsonb))
            with ordinality as r(type, agent_id, business_id, conversation_id, public, data, n)
      order by r.n`,
    [projectId, JSON.stringify(rows)],
    tx.getTransactionContext(),
  );
  return true;
}

/**
 * One sequencer pass for a project: its committed inbox rows move to `ai_events`, where they get
 * their ids, in one statement (its own transaction) that first takes the project's sequencer lock.
 * Passes of one project therefore follow each other, and each draws its ids after the previous pass
 * committed: ids increase in the order events become visible (CONTRACT §9.4), whatever the order
 * in which writers committed. Within a pass rows keep their inbox order, so a conversation's
 * events (its writers hold its row lock, hence commit in turn) keep the order of its changes.
 * The webhook outbox (CONTRACT §9.4, workers/webhook-dispatcher.ts) gets one pending delivery per
 * event and enabled webhook of the project that wants its type; the NOTIFY is sent at commit.
 * Returns the last id given (null when the inbox was empty).
 */
export async function sequenceEvents(conn: Connection, projectId: number): Promise<number | null> {
  return (await sequencePass(conn, projectId, [], '')).lastId;
}

/**
 * sequenceEvents, which also tells every process which outbox workers have rows to claim: `queued`
 * (the kinds the writes sharing this pass queued in their own transactions) and `webhooks` when the
 * pass added deliveries, in a NOTIFY on WORK_CHANNEL (from `origin`) sent at its commit; returned as
 * `work`. A pass that added no delivery and was given nothing wakes no worker anywhere.
 */
export async function sequencePass(
  conn: Connection,
  projectId: number,
  queued: readonly OutboxKind[],
  origin: string,
): Promise<{ lastId: number | null; work: OutboxKind[] }> {
  const [row] = await runStatement<{ last_id: string | null; work: string }>(
    conn,
    `with pass_lock as (select pg_advisory_xact_lock(?::int, ${ID_KEY})),
     moved as (
       delete from ai_event_inbox i
        where i.project_id = ?::bigint and exists (select 1 from pass_lock)
       returning i.*),
     ins as (
       insert into ai_events (project_id, type, agent_id, business_id, conversation_id, public, data, created_at)
       select project_id, type, agent_id, business_id, conversation_id, public, data, created_at from moved order by seq
       returning id, type),
     deliveries as (
       insert into ai_webhook_deliveries (project_id, webhook_id, event_id, event_type)
       select w.project_id, w.id, ins.id, ins.type
         from ins join ai_webhooks w on w.project_id = ?::bigint and w.enabled and (w.events @> jsonb_build_array(ins.type) or w.events @> '["*"]')
        order by ins.id, w.id
       returning 1),
     work as (select concat_ws(',', nullif(?::text, ''), case when exists (select 1 from deliveries) then 'webhooks' end) as kinds)
     select max(ins.id)::text as last_id, (select kinds from work) as work,
            case when count(*) > 0 then pg_notify(?::text, ?::text || ':' || max(ins.id)) end as events_told,
            (select pg_notify(?::text, ?::text || ':' || kinds) from work where kinds <> '') as work_told
       from ins`,
    [SEQUENCER_LOCK_CLASS, projectId, projectId, projectId, queued.join(','), EVENTS_CHANNEL, String(projectId), WORK_CHANNEL, origin],
  );
  return { lastId: row.last_id === null ? null : Number(row.last_id), work: kindsOf(row.work) };
}

/** A WORK_CHANNEL payload (`ORIGIN:kind,kind`): its origin and kinds (unknown names dropped); null when no kind is known. */
export function parseWork(payload: string | undefined): { origin: string; kinds: OutboxKind[] } | null {
  const at = (payload ?? '').lastIndexOf(':');
  const kinds = kindsOf(payload?.slice(at + 1));
  return kinds.length ? { origin: at < 0 ? '' : payload!.slice(0, at), kinds } : null;
}

const kindsOf = (list: string | undefined): OutboxKind[] => [
  ...new Set((list ?? '').split(',').filter((k): k is OutboxKind => (OUTBOX_KINDS as readonly string[]).includes(k))),
];

/** Projects whose inbox holds committed rows no pass has moved yet (a process died between a commit and its pass). */
export async function projectsWithInbox(conn: Connection): Promise<number[]> {
  const rows = await conn.execute<{ project_id: number }[]>('select distinct project_id from ai_event_inbox', [], 'all');
  return rows.map((r) => r.project_id);
}

/**
 * The one way a service writes with events: `work` runs in a transaction and says what it
 * changed; its events are appended last in the same transaction (no change without its event, no
 * event without its change); `inboxed` says its own statements put events in the inbox (a
 * message with its event in one statement). After the commit the write waits for the sequencer
 * pass that gives them ids (shared by every write of the project that committed meanwhile), so
 * once it answers, its events are in the log, and streams and webhooks have been told.
 * `statementsOnly`: `work` uses no entity method of the ORM nor its `execute`, only statements of
 * db/direct-read.ts (records.ts `run`), and runs in db/direct-read.ts directTransaction.
 */
export async function writeWithEvents<T>(
  ctx: RequestContext,
  work: (tx: EntityManager) => Promise<{ value: T; events: NewAiEvent[]; inboxed?: boolean; queued?: readonly OutboxKind[] }>,
  opts: { statementsOnly?: boolean } = {},
): Promise<T> {
  const inTransaction = async (tx: EntityManager) => {
    const { value, events, inboxed, queued } = await work(tx);
    return { value, queued, appended: (await appendEvents(tx, ctx.project.id, events)) || inboxed === true };
  };
  // `statementsOnly`: `work` runs only db/direct-read.ts statements (records.ts `run`), so its transaction can be a plain one
  const { value, appended, queued } = await (opts.statementsOnly
    ? directTransaction(ctx.em, inTransaction)
    : ctx.em.transactional(inTransaction));
  if (appended || queued?.length) await ctx.services.events.sequence(ctx.project.id, queued);
  return value;
}

/**
 * For a write that is one statement inserting its own inbox rows (atomic without a transaction):
 * once it committed, wait for the pass that gives them ids, as writeWithEvents does. `queued`: the
 * outbox workers it gave rows to (a WhatsApp reply, an inbound file), woken here and in every process.
 */
export function eventsCommitted(ctx: RequestContext, queued: readonly OutboxKind[] = []): Promise<void> {
  return ctx.services.events.sequence(ctx.project.id, queued);
}
