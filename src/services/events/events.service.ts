import type { MikroORM } from '@mikro-orm/postgresql';
import type { AppConfig } from '../../config.js';
import { validationError } from '../../errors/codes.js';
import type { RequestContext } from '../../context/index.js';
import { causeOf, LineLimiter } from '../../db/unavailable.js';
import { namespaceOf } from '../../limits/store.js';
import { assertAiAdmin, visibleBusinessIds } from '../identity/access.js';
import { postgresBus, redisBus, type BusLog, type EventBus } from './event-bus.js';
import { AI_EVENT_TYPES, type AiEventType } from './event-log.js';
import { StreamRegistry, type StreamTicket } from './streams.js';

/** CONTRACT §9.4: one event as every stream, subscription and webhook shows it. */
export interface AiEventRecord {
  id: number;
  type: AiEventType | 'stream.reset';
  created_at: string;
  data: Record<string, unknown>;
}

/** A row of the log with what a stream filters on; `event` is shared by every stream that shows it. */
interface LogRow {
  id: number;
  business_id: number | null;
  conversation_id: number | null;
  public: boolean;
  event: AiEventRecord;
  /** Its JSON length, counted against a stream's buffer. */
  bytes: number;
}

/** Which events of the project one stream shows. */
export interface StreamFilter {
  types: ReadonlySet<string> | null;
  conversationId: number | null;
  /** null: every business of the project (levels 0, server keys). */
  businessIds: ReadonlySet<number> | null;
  /** Only public messages (the caller's current-conversation stream). */
  publicOnly: boolean;
}

export interface EventsQuery {
  types?: readonly string[] | null;
  conversation_id?: number | null;
  last_event_id?: string | number | null;
}

const BATCH = 500;
/** What one stream may hold unsent while the process sheds load (EVENTS_STREAM_BUFFER_BYTES otherwise). */
const PRESSED_STREAM_BYTES = 64 * 1024;
/** What an event counts against a stream's buffer: its JSON (made once per event) and the frame around it. */
function sizeOf(event: AiEventRecord): number {
  return eventJson(event).length + 64;
}
/** Overflow handlers registered for a context before its stream opens (the WebSocket transport). */
const OVERFLOW = new WeakMap<object, () => void>();
/** What the caller's current-conversation stream shows: one set for all of them. */
const CURRENT_TYPES: ReadonlySet<string> = new Set(['message.created', 'conversation.closed']);
/** app_settings key prefix of a project's highest pruned event id. */
const PRUNED_KEY = 'ai_events_pruned:';
const PRUNE_BATCH = 1000;
/** Key of the advisory lock that lets one process at a time prune (pg_try_advisory_xact_lock(int, int)). */
const PRUNE_LOCK: [number, number] = [0x4f474576, 0]; // "OGEv", 0: project ids start at 1

/** The JSON text of an event, made once per event however many streams send it (keyed by its `data`). */
const EVENT_JSON = new WeakMap<object, string>();
export function eventJson(event: { id: unknown; type: unknown; created_at: unknown; data: unknown }): string {
  const data = event.data;
  const cached = data && typeof data === 'object' ? EVENT_JSON.get(data) : undefined;
  if (cached !== undefined) return cached;
  const json = JSON.stringify({ id: event.id, type: event.type, created_at: event.created_at, data: event.data });
  if (data && typeof data === 'object') EVENT_JSON.set(data, json);
  return json;
}

/** Last-Event-ID / last_event_id: digits only (at most 18, so it stays an exact number); anything else is a 400. */
export function parseLastEventId(value: unknown, field = 'last_event_id'): number | null {
  if (value === undefined || value === null || value === '') return null;
  const text = String(value);
  if (!/^\d{1,18}$/.test(text) || !Number.isSafeInteger(Number(text))) throw validationError([{ field, rule: 'range', params: { min: 0, max: Number.MAX_SAFE_INTEGER } }]);
  return Number(text);
}

/**
 * Events of CONTRACT §9.4 seen from a process: the bus that tells every process what was
 * committed, one shared tail of the log per project with open streams (one query per
 * notification, whatever the number of streams), the streams themselves, and pruning.
 */
/** Background failures repeat while the database is away: one line per message and cause per 5 s, without SQL. */
const lines = new LineLimiter();
function warnOnce(log: BusLog, cause: string, message: string): void {
  if (lines.admit(`${message} ${cause}`) !== false) log.warn({ cause }, message);
}

export class EventsService {
  private bus: EventBus | null = null;
  private readonly wakers = new Set<() => void>();
  private readonly feeds = new Map<number, ProjectFeed>();
  private poll: NodeJS.Timeout | null = null;
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
      this.wake();
    };
    const databaseUrl = this.config.databaseUrl ?? this.orm.config.getClientUrl();
    this.bus = this.config.redisUrl
      ? redisBus(this.config.redisUrl, namespaceOf(databaseUrl), onNotify, log)
      : postgresBus(this.config.databaseDirectUrl ?? databaseUrl, onNotify, log);
    if (this.config.eventsPollMs > 0) {
      this.poll = setInterval(() => this.notified(null, 0), this.config.eventsPollMs);
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

  /** After a commit that appended events up to `lastId` (services/events/event-log.ts): this process's streams, then the others. */
  committed(projectId: number, lastId: number): void {
    this.notified(projectId, lastId);
    this.wake();
    this.bus?.publish(projectId, lastId);
  }

  /**
   * `fn` runs whenever events were committed, in this process or (through the bus) in another: the
   * wake-up of the outbox workers, whose rows are written in the same transactions as events.
   * Returns the function that removes it.
   */
  onCommit(fn: () => void): () => void {
    this.wakers.add(fn);
    return () => this.wakers.delete(fn);
  }

  private wake(): void {
    for (const fn of this.wakers) fn();
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
    if (conversationId !== null && (!Number.isInteger(conversationId) || conversationId < 1)) throw validationError([{ field: 'conversation_id', rule: 'range', params: { min: 1, max: Number.MAX_SAFE_INTEGER } }]);
    const lastId = parseLastEventId(q.last_event_id);
    const scope = await visibleBusinessIds(ctx);
    return this.open(ctx, lastId, { types, conversationId, businessIds: scope ? new Set(scope) : null, publicOnly: false });
  }

  /** The caller's current conversation: its public `message.created` and its `conversation.closed`. */
  async streamCurrent(ctx: RequestContext, providerExternalId: string, lastEventId: unknown): Promise<AsyncIterableIterator<AiEventRecord>> {
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
    feed.position ??= max;
    const stream = new EventStream(feed, cursor, filter, this.config.eventsStreamBufferBytes, ticket);
    ticket.stop = () => stream.end(null);
    stream.onOverflow = OVERFLOW.get(ctx) ?? null;
    if (reset) stream.push({ id: cursor, type: 'stream.reset', created_at: new Date().toISOString(), data: { last_event_id: lastId, oldest_id: min } });
    feed.add(stream);
    return stream;
  }
}

/** The oldest and newest kept event ids of a project (max 0 when none), and its highest pruned id (0 when none). */
async function projectBounds(orm: MikroORM, projectId: number): Promise<{ min: number | null; max: number; pruned: number }> {
  const [row] = await orm.em.getConnection().execute<{ min: string | null; max: string | null; pruned: string | null }[]>(
    `select min(id)::text as min, max(id)::text as max,
            (select value #>> '{}' from app_settings where key = ?) as pruned
       from ai_events where project_id = ?`,
    [PRUNED_KEY + projectId, projectId],
    'all',
  );
  return { min: row.min === null ? null : Number(row.min), max: row.max === null ? 0 : Number(row.max), pruned: Number(row.pruned ?? 0) };
}

/** The tail of one project's log, read once per notification for every stream of the project in this process. */
class ProjectFeed {
  readonly streams = new Set<EventStream>();
  /** The last id read and dispatched (null until the first stream opened). */
  position: number | null = null;
  private fetching = false;
  private again = false;

  constructor(
    readonly projectId: number,
    private readonly orm: MikroORM,
    private readonly log: BusLog,
    private readonly onEmpty: () => void,
  ) {}

  add(stream: EventStream): void {
    this.streams.add(stream);
  }

  remove(stream: EventStream): void {
    this.streams.delete(stream);
    if (this.streams.size === 0) this.onEmpty();
  }

  /** Rows with id > after, oldest first. Ids follow commit order, so all below the last one read are committed too. */
  async read(after: number, limit: number): Promise<LogRow[]> {
    const rows = await this.orm.em.getConnection().execute<Record<string, any>[]>(
      `select e.id::text as id_text, e.type, e.business_id, e.conversation_id, e.public, e.data, e.created_at
         from ai_events e where e.project_id = ? and e.id > ? order by e.id limit ?`,
      [this.projectId, after, limit],
      'all',
    );
    return rows.map((r) => {
      const id = Number(r.id_text);
      const event: AiEventRecord = { id, type: r.type, created_at: new Date(r.created_at).toISOString(), data: r.data };
      return { id, business_id: r.business_id, conversation_id: r.conversation_id, public: r.public, event, bytes: sizeOf(event) };
    });
  }

  wake(lastId: number): void {
    if (this.streams.size === 0) return;
    if (this.position !== null && lastId <= this.position) return;
    void this.fetch();
  }

  /** One reader at a time; a notification during a read makes it read again. */
  private async fetch(): Promise<void> {
    if (this.fetching) {
      this.again = true;
      return;
    }
    this.fetching = true;
    try {
      do {
        this.again = false;
        for (;;) {
          const from = this.position ?? 0;
          const rows = await this.read(from, BATCH);
          if (rows.length) {
            this.position = rows[rows.length - 1].id;
            for (const s of this.streams) s.dispatch(from, rows, this.position);
          }
          if (rows.length < BATCH || this.streams.size === 0) break;
        }
      } while (this.again && this.streams.size > 0);
    } catch (err) {
      // The database went away: streams end cleanly, their clients resume with Last-Event-ID.
      warnOnce(this.log, causeOf(err), 'reading events failed; ending the streams');
      this.endAll(err as Error);
    } finally {
      this.fetching = false;
    }
  }

  endAll(err: Error | null): void {
    for (const s of [...this.streams]) s.end(err);
  }
}

/**
 * One stream's async iterator. It reads the log itself while it is behind (a resume, or a batch
 * it could not take), then takes the feed's batches. `cursor` is the last id of the log it has
 * looked at (shown or filtered out), so nothing is skipped and nothing is shown twice. What is
 * queued is bounded by `maxBytes`: past it the stream ends (the client resumes with Last-Event-ID).
 */
class EventStream implements AsyncIterableIterator<AiEventRecord> {
  /** Shared event objects only (one pointer per entry): thousands of streams may each hold a backlog. */
  private queue: AiEventRecord[] = [];
  private head = 0;
  private bytes = 0;
  private behind = true;
  /** Rows of the last read of the log not taken yet (the queue was full). */
  private pending: LogRow[] = [];
  private reading = false;
  private done = false;
  private error: Error | null = null;
  private waiter: (() => void) | null = null;

  constructor(
    private readonly feed: ProjectFeed,
    private cursor: number,
    private readonly filter: StreamFilter,
    private readonly maxBytes: number,
    private readonly ticket: StreamTicket,
  ) {}

  /**
   * Runs when this stream is ended because its client fell too far behind (the SSE writer sets
   * it, to cut a connection that may never drain).
   */
  onOverflow: (() => void) | null = null;

  [Symbol.asyncIterator]() {
    return this;
  }

  push(event: AiEventRecord): void {
    this.queue.push(event);
    this.bytes += sizeOf(event);
  }

  private visible(row: LogRow): boolean {
    const f = this.filter;
    if (f.types && !f.types.has(row.event.type)) return false;
    if (f.conversationId !== null && row.conversation_id !== f.conversationId) return false;
    if (f.businessIds && (row.business_id === null || !f.businessIds.has(row.business_id))) return false;
    if (f.publicOnly && !row.public) return false;
    return true;
  }

  /**
   * Takes rows past the cursor. Reading the log itself (`paced`), it stops at the cap and reads on
   * once the queue drains; a live batch past the cap ends the stream instead.
   */
  private take(rows: LogRow[], paced: boolean): void {
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i];
      if (row.id <= this.cursor) continue;
      if (paced && this.bytes > 0 && this.bytes + row.bytes > this.maxBytes) {
        // the rest of this read waits (at most one batch) until the queue drains
        this.pending = rows.slice(i);
        this.behind = true;
        return;
      }
      this.cursor = row.id;
      if (this.visible(row)) this.push(row.event);
    }
    // While the process sheds load, a stream may hold far less: laggards end first, and resume later.
    if (!paced && this.bytes > (this.ticket.pressed() ? Math.min(this.maxBytes, PRESSED_STREAM_BYTES) : this.maxBytes)) {
      // A client this slow resumes later from its last id; keeping more would grow without bound.
      this.queue = [];
      this.head = 0;
      this.bytes = 0;
      this.end(null);
      this.onOverflow?.();
    }
  }

  /** A batch (from, to] of the feed. Taken only when this stream is exactly caught up; otherwise it reads the log itself. */
  dispatch(from: number, rows: LogRow[], to: number): void {
    if (this.done) return;
    if (this.reading || this.behind || this.cursor < from) {
      this.behind = true;
    } else {
      this.take(rows, false);
      if (this.cursor < to && !this.done) this.cursor = to;
    }
    this.wakeUp();
  }

  end(err: Error | null): void {
    if (this.done) return;
    this.done = true;
    this.error = err;
    this.feed.remove(this);
    this.ticket.release();
    this.wakeUp();
  }

  private wakeUp(): void {
    const w = this.waiter;
    this.waiter = null;
    w?.();
  }

  async next(): Promise<IteratorResult<AiEventRecord>> {
    for (;;) {
      if (this.head < this.queue.length) {
        const item = this.queue[this.head];
        this.queue[this.head++] = undefined as never;
        this.bytes -= sizeOf(item);
        if (this.head === this.queue.length) {
          this.queue = [];
          this.head = 0;
        }
        return { value: item, done: false };
      }
      if (this.done) {
        if (this.error) {
          const err = this.error;
          this.error = null;
          throw err;
        }
        return { value: undefined, done: true };
      }
      if (this.behind) {
        await this.catchUp();
        continue;
      }
      await new Promise<void>((resolve) => (this.waiter = resolve));
    }
  }

  private async catchUp(): Promise<void> {
    this.behind = false;
    this.reading = true;
    let rows: LogRow[];
    try {
      rows = this.pending.length ? this.pending : await this.feed.read(this.cursor, BATCH);
      this.pending = [];
    } catch (err) {
      this.reading = false;
      this.end(err as Error);
      return;
    } finally {
      this.reading = false;
    }
    if (this.done) return;
    this.take(rows, true);
    if (this.pending.length || rows.length === BATCH || (this.feed.position ?? 0) > this.cursor) this.behind = true;
  }

  /** Everything queued right now, taken at once (the SSE writer sends it in one write). */
  takeQueued(): AiEventRecord[] {
    const out: AiEventRecord[] = [];
    for (let i = this.head; i < this.queue.length; i++) out.push(this.queue[i]);
    this.queue = [];
    this.head = 0;
    this.bytes = 0;
    return out;
  }

  async return(): Promise<IteratorResult<AiEventRecord>> {
    this.end(null);
    this.queue = [];
    this.head = 0;
    return { value: undefined, done: true };
  }

  async throw(err?: unknown): Promise<IteratorResult<AiEventRecord>> {
    this.end(null);
    throw err;
  }
}
