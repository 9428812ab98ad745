import type { MikroORM } from '@mikro-orm/postgresql';
import { causeOf, LineLimiter } from '../../db/unavailable.js';
import { type BusLog } from './event-bus.js';
import { type AiEventType } from './event-log.js';

/**
 * Reading the event log for open streams: one feed per project shares each read of the log among
 * that project's streams (ProjectFeed); each stream keeps its own position, filter and bounded
 * backlog (EventStream, event-stream.ts). The service (events.service.ts) opens streams on them.
 */

/** CONTRACT §9.4: one event as every stream, subscription and webhook shows it. */
export interface AiEventRecord {
  id: number;
  type: AiEventType | 'stream.reset';
  created_at: string;
  data: Record<string, unknown>;
}

/** A row of the log with what a stream filters on; `event` is shared by every stream that shows it. */
export interface LogRow {
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

export const BATCH = 500;

/** What one stream may hold unsent while the process sheds load (EVENTS_STREAM_BUFFER_BYTES otherwise). */
export const PRESSED_STREAM_BYTES = 64 * 1024;

/** What an event counts against a stream's buffer: its JSON (made once per event) and the frame around it. */
export function sizeOf(event: AiEventRecord): number {
  return eventJson(event).length + 64;
}

/** app_settings key prefix of a project's highest pruned event id. */
export const PRUNED_KEY = 'ai_events_pruned:';
// "OGEv", 0: project ids start at 1

/** The JSON text of an event, made once per event however many streams send it (keyed by its `data`). */
export const EVENT_JSON = new WeakMap<object, string>();

export function eventJson(event: { id: unknown; type: unknown; created_at: unknown; data: unknown }): string {
  const data = event.data;
  const cached = data && typeof data === 'object' ? EVENT_JSON.get(data) : undefined;
  if (cached !== undefined) return cached;
  const json = JSON.stringify({ id: event.id, type: event.type, created_at: event.created_at, data: event.data });
  if (data && typeof data === 'object') EVENT_JSON.set(data, json);
  return json;
}

/**
 * Events of CONTRACT §9.4 seen from a process: the bus that tells every process what was
 * committed, one shared tail of the log per project with open streams (one query per
 * notification, whatever the number of streams), the streams themselves, and pruning.
 */
/** Background failures repeat while the database is away: one line per message and cause per 5 s, without SQL. */
export const lines = new LineLimiter();

export function warnOnce(log: BusLog, cause: string, message: string): void {
  if (lines.admit(`${message} ${cause}`) !== false) log.warn({ cause }, message);
}

/** The oldest and newest kept event ids of a project (max 0 when none), and its highest pruned id (0 when none). */
export async function projectBounds(orm: MikroORM, projectId: number): Promise<{ min: number | null; max: number; pruned: number }> {
  const [row] = await orm.em.getConnection().execute<{ min: string | null; max: string | null; pruned: string | null }[]>(
    `select min(id)::text as min, max(id)::text as max,
            (select value #>> '{}' from app_settings where key = ?) as pruned
       from ai_events where project_id = ?`,
    [PRUNED_KEY + projectId, projectId],
    'all',
  );
  return { min: row.min === null ? null : Number(row.min), max: row.max === null ? 0 : Number(row.max), pruned: Number(row.pruned ?? 0) };
}

/** Rows of the log a feed holds for streams that lag: all of (after, last row's id], oldest first. */
interface Segment {
  after: number;
  rows: LogRow[];
  bytes: number;
}

/** What the rows a feed holds for lagging streams may weigh: its tail, and its recent reads of older rows (the newest kept whatever its size). */
export const TAIL_BYTES = 1024 * 1024;
export const RECENT_BYTES = 1024 * 1024;
/** Reads of older rows one feed runs at a time (besides its one read of new rows). */
const CATCH_UP_READERS = 1;

/** Index of the first row with id > `after` (rows.length when none). */
export function firstAfter(rows: readonly LogRow[], after: number): number {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (rows[mid].id <= after) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function weigh(rows: readonly LogRow[]): number {
  let bytes = 0;
  for (const r of rows) bytes += r.bytes;
  return bytes;
}

/** What a feed hands its batches to (an EventStream, event-stream.ts). */
export interface FeedReader {
  /** A batch (from, to]; returns the reader's cursor. */
  dispatch(from: number, rows: LogRow[], to: number): number;
  end(err: Error | null): void;
}

/**
 * The log of one project as this process's streams read it. One read of new rows per
 * notification, whatever the number of streams, handed to every stream that is caught up; the
 * rows some stream has not passed yet stay in the feed's tail (at most TAIL_BYTES), so a stream a
 * few batches behind takes the same objects from it without reading the log. A stream behind the
 * tail (a resume, a slow client) reads older rows through the feed: one read per position however
 * many streams wait there, CATCH_UP_READERS at a time, the last ones kept (RECENT_BYTES) for the
 * streams that follow. So the objects of an event exist once per process, and the JSON and frame
 * caches keyed by them hold.
 */
export class ProjectFeed {
  readonly streams = new Set<FeedReader>();
  /** The last id read and dispatched (null until the first stream opened). */
  position: number | null = null;
  /** Rows (tailFrom, position] not yet passed by every stream. */
  private tail: LogRow[] = [];
  private tailFrom = 0;
  private tailBytes = 0;
  /** Recent reads of rows older than the tail, oldest first. */
  private recent: Segment[] = [];
  private recentBytes = 0;
  /** Reads of older rows in flight or waiting, by the position they read after. */
  private readonly reads = new Map<number, Promise<LogRow[]>>();
  private readers = 0;
  private readonly queued: (() => void)[] = [];
  private fetching = false;
  private again = false;

  constructor(
    readonly projectId: number,
    private readonly orm: MikroORM,
    private readonly log: BusLog,
    private readonly onEmpty: () => void,
  ) {}

  /** Where the feed starts reading (the newest id when its first stream opened). */
  startAt(max: number): void {
    if (this.position !== null) return;
    this.position = max;
    this.tailFrom = max;
  }

  add(stream: FeedReader): void {
    this.streams.add(stream);
  }

  remove(stream: FeedReader): void {
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

  /**
   * Rows after `cursor` the feed holds without reading the log: the tail when it reaches back to
   * `cursor` (then they run to `position`), or a recent read that holds the row after it. null otherwise.
   */
  held(cursor: number): LogRow[] | null {
    if (this.position !== null && cursor >= this.tailFrom) return this.tail;
    for (const seg of this.recent) {
      if (seg.after <= cursor && seg.rows.length && cursor < seg.rows[seg.rows.length - 1].id) return seg.rows;
    }
    return null;
  }

  /**
   * Up to BATCH rows after `cursor` from the log, for a stream behind what the feed holds: one read
   * per position whatever the number of streams waiting there, CATCH_UP_READERS at a time; rows the
   * tail holds are taken from it, and the read is kept for the streams that follow.
   */
  readAfter(cursor: number): Promise<LogRow[]> {
    let read = this.reads.get(cursor);
    if (!read) {
      read = this.queuedRead(cursor).finally(() => this.reads.delete(cursor));
      this.reads.set(cursor, read);
    }
    return read;
  }

  private async queuedRead(cursor: number): Promise<LogRow[]> {
    // a reader that finishes hands its turn to the next one waiting
    if (this.readers < CATCH_UP_READERS) this.readers++;
    else await new Promise<void>((resolve) => this.queued.push(resolve));
    try {
      // a read that finished meanwhile may hold these rows already
      const held = this.held(cursor);
      if (held) return held;
      const rows = await this.read(cursor, BATCH);
      for (let i = 0; i < rows.length; i++) {
        if (rows[i].id <= this.tailFrom) continue;
        const j = firstAfter(this.tail, rows[i].id - 1);
        if (j < this.tail.length && this.tail[j].id === rows[i].id) rows[i] = this.tail[j];
      }
      this.keep({ after: cursor, rows, bytes: weigh(rows) });
      return rows;
    } finally {
      const next = this.queued.shift();
      if (next) next();
      else this.readers--;
    }
  }

  /** Keeps a read for the streams that follow: the newest always (one page, however big its events), older ones up to RECENT_BYTES. */
  private keep(seg: Segment): void {
    if (!seg.rows.length) return;
    this.recent.push(seg);
    this.recentBytes += seg.bytes;
    while (this.recent.length > 1 && this.recentBytes > RECENT_BYTES) this.recentBytes -= this.recent.shift()!.bytes;
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
            for (const r of rows) this.tail.push(r);
            this.tailBytes += weigh(rows);
            let least = this.position;
            for (const s of this.streams) least = Math.min(least, s.dispatch(from, rows, this.position));
            this.trim(least);
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

  /** Drops from the tail the rows every stream has passed (up to `least`), then the oldest while past TAIL_BYTES. */
  private trim(least: number): void {
    let cut = firstAfter(this.tail, least);
    let bytes = this.tailBytes;
    for (let i = 0; i < cut; i++) bytes -= this.tail[i].bytes;
    while (cut < this.tail.length && bytes > TAIL_BYTES) bytes -= this.tail[cut++].bytes;
    if (cut === 0) return;
    this.tailBytes = bytes;
    this.tailFrom = this.tail[cut - 1].id;
    this.tail = this.tail.slice(cut);
  }

  endAll(err: Error | null): void {
    for (const s of [...this.streams]) s.end(err);
  }
}
