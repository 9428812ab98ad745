import { randomBytes } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { AppConfig } from '../../config.js';
import { validationError } from '../../errors/codes.js';
import type { RequestContext } from '../../context/index.js';
import { causeOf } from '../../db/unavailable.js';
import { vacuumQueue, VacuumPace } from '../../db/vacuum.js';
import { namespaceOf } from '../../limits/store.js';
import { assertAiAdmin, visibleBusinessIds } from '../identity/access.js';
import { postgresBus, redisBus, type BusLog, type EventBus } from './event-bus.js';
import { AI_EVENT_TYPES, projectsWithInbox, sequencePass, type OutboxKind } from './event-log.js';
import { StreamRegistry } from './streams.js';
import { EventStream } from './event-stream.js';
import { type AiEventRecord, type StreamFilter, PRUNED_KEY, warnOnce, projectBounds, ProjectFeed } from './feed.js';

export interface EventsQuery {
  types?: readonly string[] | null;
  conversation_id?: number | null;
  last_event_id?: string | number | null;
}

/** Overflow handlers registered for a context before its stream opens (the WebSocket transport). */
const OVERFLOW = new WeakMap<object, () => void>();

/** What the caller's current-conversation stream shows: one set for all of them. */
const CURRENT_TYPES: ReadonlySet<string> = new Set(['message.created', 'conversation.closed']);

const PRUNE_BATCH = 1000;

/** Key of the advisory lock that lets one process at a time prune (pg_try_advisory_xact_lock(int, int)). */
const PRUNE_LOCK: [number, number] = [0x4f474576, 0];

/** Last-Event-ID / last_event_id: digits only (at most 18, so it stays an exact number); anything else is a 400. */
export function parseLastEventId(value: unknown, field = 'last_event_id'): number | null {
  if (value === undefined || value === null || value === '') return null;
  const text = typeof value === 'string' || typeof value === 'number' ? String(value) : '';
  if (!/^\d{1,18}$/.test(text) || !Number.isSafeInteger(Number(text)))
    throw validationError([{ field, rule: 'range', params: { min: 0, max: Number.MAX_SAFE_INTEGER } }]);
  return Number(text);
}

export class EventsService {
  private bus: EventBus | null = null;
  private readonly wakers = new Set<(kind: OutboxKind | null) => void>();
  /** Names this process in its WORK_CHANNEL notices, so it does not wake its workers a second time on its own. */
  private readonly origin = randomBytes(6).toString('hex');
  private readonly feeds = new Map<number, ProjectFeed>();
  /**
   * Per project: the sequencer pass running in this process, the one queued behind it, and the outbox
   * kinds the writes waiting for the queued one gave rows to (that pass tells every process).
   */
  private readonly passes = new Map<number, { running: Promise<void> | null; queued: Promise<void> | null; work: Set<OutboxKind> }>();
  private poll: NodeJS.Timeout | null = null;
  /** The inbox's vacuums (db/vacuum.ts), and whether one runs. */
  private readonly inboxVacuum = { pace: new VacuumPace(), running: false };
  private prune: NodeJS.Timeout | null = null;
  private log: BusLog = { warn: () => undefined, info: () => undefined };
  /** Every open stream of this process: caps, re-validation, the per-process bound (events/streams.ts). */
  readonly streams: StreamRegistry;

  constructor(
    private readonly orm: MikroORM,
    private readonly config: AppConfig,
  ) {
    this.streams = new StreamRegistry(orm, config.streams, config.pressure.maxOpenStreams);
  }

  /** Starts the bus (LISTEN, or Redis), the safety poll and the pruner. Idempotent. */
  start(log: BusLog & { error(obj: unknown, msg?: string): void }): void {
    if (this.bus) return;
    this.log = log;
    this.streams.start(log);
    const onNotify = (projectId: number | null, lastId: number) => {
      this.notified(projectId, lastId);
      // (re)connected: notices may have been missed, the workers look too
      if (projectId === null) this.wake(null);
    };
    // another process's commit queued rows (this process's own were woken by its pass)
    const onWork = (origin: string, kinds: readonly OutboxKind[]) => {
      if (origin === this.origin) return;
      for (const kind of kinds) this.wake(kind);
    };
    const databaseUrl = this.config.databaseUrl ?? this.orm.config.getClientUrl();
    this.bus = this.config.redisUrl
      ? redisBus(this.config.redisUrl, namespaceOf(databaseUrl), onNotify, onWork, log)
      : postgresBus(this.config.databaseDirectUrl ?? databaseUrl, onNotify, onWork, log);
    if (this.config.eventsPollMs > 0) {
      this.poll = setInterval(() => {
        this.notified(null, 0);
        void this.sequenceLeftovers();
        this.vacuumInboxSoon();
      }, this.config.eventsPollMs);
      this.poll.unref();
    }
    if (this.config.eventsPruneIntervalMs > 0) {
      this.prune = setInterval(() => {
        this.pruneOld().catch((err) => warnOnce(log, causeOf(err), 'pruning events failed'));
      }, this.config.eventsPruneIntervalMs);
      this.prune.unref();
    }
  }

  async close(): Promise<void> {
    if (this.poll) clearInterval(this.poll);
    if (this.prune) clearInterval(this.prune);
    for (const feed of this.feeds.values()) feed.endAll(null);
    this.feeds.clear();
    await this.streams.close();
    await this.bus?.close();
    this.bus = null;
  }

  get busKind(): 'postgres' | 'redis' | null {
    return this.bus?.kind ?? null;
  }

  /**
   * Gives ids to the project's committed inbox events (event-log.ts `sequenceEvents`) and tells the
   * streams. Resolves once a pass that started after this call has finished: passes of a project
   * run one at a time in this process, and every caller arriving during a pass shares the next one,
   * so a busy project needs about one pass per pass duration, not one per write. `queued`: the
   * outbox workers the caller's commit gave rows to; the pass wakes them here and, through its
   * NOTIFY, in every process (with webhooks when it added deliveries). Never rejects: a failed pass
   * is logged, and the poll moves what it left.
   */
  sequence(projectId: number, queued: readonly OutboxKind[] = []): Promise<void> {
    let state = this.passes.get(projectId);
    if (!state) this.passes.set(projectId, (state = { running: null, queued: null, work: new Set() }));
    for (const kind of queued) state.work.add(kind);
    if (state.queued) return state.queued;
    const s = state;
    const start = (): Promise<void> => {
      s.queued = null;
      const work = [...s.work];
      s.work.clear();
      const pass = this.pass(projectId, work).finally(() => {
        if (s.running === pass) s.running = null;
        if (!s.running && !s.queued) this.passes.delete(projectId);
      });
      s.running = pass;
      return pass;
    };
    // none running: the pass starts once this turn of the event loop is over, so the writes whose
    // commits were answered in the same turn share it
    s.queued = s.running ? s.running.then(start) : new Promise<void>((resolve) => setImmediate(resolve)).then(start);
    return s.queued;
  }

  private async pass(projectId: number, queued: OutboxKind[]): Promise<void> {
    let work = queued;
    try {
      const done = await sequencePass(this.orm.em.getConnection(), projectId, queued, this.origin);
      work = done.work;
      if (done.lastId !== null) {
        this.committed(projectId, done.lastId);
        this.inboxVacuum.pace.deleted();
        this.vacuumInboxSoon();
      }
    } catch (err) {
      warnOnce(this.log, causeOf(err), 'sequencing events failed; the poll retries');
    }
    // this process's workers at once; the others through the pass's NOTIFY (Redis: published here)
    for (const kind of work) this.wake(kind);
    if (work.length) this.bus?.publishWork(this.origin, work);
  }

  /** After a pass that moved rows, and at every poll: one vacuum of the inbox at a time, when its pace says (db/vacuum.ts). */
  private vacuumInboxSoon(): void {
    const v = this.inboxVacuum;
    if (v.running || !v.pace.take()) return;
    v.running = true;
    vacuumQueue(this.orm.em.getConnection(), 'ai_event_inbox')
      .catch((err) => warnOnce(this.log, causeOf(err), 'vacuuming the events inbox failed'))
      .finally(() => (v.running = false));
  }

  /** The poll's share: inbox rows a pass never moved (their writer's process died right after its commit). */
  private async sequenceLeftovers(): Promise<void> {
    try {
      for (const projectId of await projectsWithInbox(this.orm.em.getConnection())) await this.sequence(projectId);
    } catch (err) {
      warnOnce(this.log, causeOf(err), 'reading the events inbox failed');
    }
  }

  /** After a commit that appended events up to `lastId` (services/events/event-log.ts): this process's streams, then the others. */
  committed(projectId: number, lastId: number): void {
    this.notified(projectId, lastId);
    this.bus?.publish(projectId, lastId);
  }

  /**
   * `fn(kind)` runs whenever rows were committed for the outbox workers of `kind`, in this process
   * or (through the bus) in another; `null`: anything may be waiting (the bus reconnected). A commit
   * that queued nothing (a message with no WhatsApp send, events no webhook wants) wakes nobody.
   * Returns the function that removes it.
   */
  onWork(fn: (kind: OutboxKind | null) => void): () => void {
    this.wakers.add(fn);
    return () => this.wakers.delete(fn);
  }

  private wake(kind: OutboxKind | null): void {
    for (const fn of this.wakers) fn(kind);
  }

  /**
   * `fn` runs when the next stream opened with this context is ended because its client fell too
   * far behind (the transport then cuts a connection that may never drain). The stream keeps `fn`,
   * not the context.
   */
  onOverflow(ctx: RequestContext, fn: () => void): void {
    OVERFLOW.set(ctx, fn);
  }

  /** Open streams in this process (the bench and tests read it). */
  get openStreams(): number {
    return this.streams.size;
  }

  /** `GET /ai/events` and the subscription `aiEvents`: levels 0/2 and server keys; level 2 sees their businesses' agents' events. */
  async streamAll(ctx: RequestContext, q: EventsQuery): Promise<AsyncIterableIterator<AiEventRecord>> {
    assertAiAdmin(ctx);
    const types = q.types?.length ? new Set(q.types) : null;
    const unknown = [...(types ?? [])].filter((t) => !(AI_EVENT_TYPES as readonly string[]).includes(t));
    if (unknown.length) throw validationError([{ field: 'types', rule: 'items_enum', params: { values: AI_EVENT_TYPES } }]);
    const conversationId = q.conversation_id ?? null;
    if (conversationId !== null && (!Number.isInteger(conversationId) || conversationId < 1))
      throw validationError([{ field: 'conversation_id', rule: 'range', params: { min: 1, max: Number.MAX_SAFE_INTEGER } }]);
    const lastId = parseLastEventId(q.last_event_id);
    const scope = await visibleBusinessIds(ctx);
    return this.open(ctx, lastId, { types, conversationId, businessIds: scope ? new Set(scope) : null, publicOnly: false });
  }

  /** The caller's current conversation: its public `message.created` and its `conversation.closed`. */
  async streamCurrent(
    ctx: RequestContext,
    providerExternalId: string,
    lastEventId: unknown,
  ): Promise<AsyncIterableIterator<AiEventRecord>> {
    const lastId = parseLastEventId(lastEventId);
    const conversation = await ctx.services.conversations.currentActive(ctx, providerExternalId);
    return this.open(ctx, lastId, {
      types: CURRENT_TYPES,
      conversationId: conversation.id,
      businessIds: null,
      publicOnly: true,
    });
  }

  /**
   * Deletes events older than the retention, in batches of PRUNE_BATCH rows, each its own short
   * transaction that first takes a try-lock: one process at a time prunes, nobody waits for it,
   * and no lock is held longer than one batch. Returns the rows deleted.
   */
  async pruneOld(): Promise<number> {
    let total = 0;
    for (;;) {
      const em = this.orm.em.fork();
      const deleted = await em.transactional(async (tx) => {
        const conn = tx.getConnection();
        const ctx = tx.getTransactionContext();
        const [{ ok }] = await conn.execute<{ ok: boolean }[]>('select pg_try_advisory_xact_lock(?, ?) as ok', PRUNE_LOCK, 'all', ctx);
        if (!ok) return -1;
        // Each project's highest pruned id is kept (app_settings `ai_events_pruned:P`): a stream resuming below it gets stream.reset.
        const res = await conn.execute<{ n: number }[]>(
          `with gone as (
             delete from ai_events where id in (
               select id from ai_events where created_at < now() - make_interval(days => ?) order by created_at limit ?)
             returning project_id, id),
           marks as (
             insert into app_settings (key, value, updated_at)
             select ? || project_id, to_jsonb(max(id)), now() from gone group by project_id
             on conflict (key) do update
               set value = to_jsonb(greatest((app_settings.value #>> '{}')::bigint, (excluded.value #>> '{}')::bigint)), updated_at = now())
           select count(*)::int as n from gone`,
          [this.config.eventsRetentionDays, PRUNE_BATCH, PRUNED_KEY],
          'all',
          ctx,
        );
        return Number(res[0].n);
      });
      if (deleted <= 0) return total;
      total += deleted;
      if (deleted < PRUNE_BATCH) return total;
    }
  }

  private feed(projectId: number): ProjectFeed {
    let feed = this.feeds.get(projectId);
    if (!feed) {
      feed = new ProjectFeed(projectId, this.orm, this.log, () => {
        if (feed!.streams.size === 0) this.feeds.delete(projectId);
      });
      this.feeds.set(projectId, feed);
    }
    return feed;
  }

  private notified(projectId: number | null, lastId: number): void {
    if (projectId === null) {
      for (const feed of this.feeds.values()) feed.wake(Infinity);
      return;
    }
    this.feeds.get(projectId)?.wake(lastId);
  }

  /**
   * A stream of the project's visible events with id > lastId (none given: from now on). An
   * id older than the kept events (below the project's highest pruned id), or newer than any
   * event of the project, first yields `stream.reset`.
   */
  private async open(ctx: RequestContext, lastId: number | null, filter: StreamFilter): Promise<EventStream> {
    const projectId = ctx.project.id;
    const ticket = await this.streams.admit(ctx);
    let bounds: Awaited<ReturnType<typeof projectBounds>>;
    try {
      bounds = await projectBounds(this.orm, projectId);
    } catch (err) {
      ticket.release();
      throw err;
    }
    const { min, max, pruned } = bounds;
    const feed = this.feed(projectId);
    let cursor = max;
    let reset = false;
    if (lastId !== null) {
      // Below the highest pruned id, events after lastId may be gone; above the newest, the id was never ours.
      reset = lastId < pruned || lastId > max;
      cursor = lastId > max ? max : lastId;
    }
    feed.startAt(max);
    const stream = new EventStream(feed, cursor, filter, this.config.eventsStreamBufferBytes, ticket);
    ticket.stop = () => stream.end(null);
    // a level-2 user's businesses: the re-checks read them again into this very set (streams.ts)
    ticket.scope = filter.businessIds as Set<number> | null;
    stream.onOverflow = OVERFLOW.get(ctx) ?? null;
    if (reset)
      stream.push({
        id: cursor,
        type: 'stream.reset',
        created_at: new Date().toISOString(),
        data: { last_event_id: lastId, oldest_id: min },
      });
    feed.add(stream);
    return stream;
  }
}
