import { firstAfter, PRESSED_STREAM_BYTES, sizeOf, type AiEventRecord, type LogRow, type ProjectFeed, type StreamFilter } from './feed.js';
import { type StreamTicket } from './streams.js';

/** A consumer a stream hands its live batches to while parked (the SSE writer). */
export interface BatchSink {
  /** Takes a batch; false when it can take no more now. */
  take(events: AiEventRecord[]): boolean;
  /** The stream needs its reader again (it fell behind or ended, or take said no). Called once per park. */
  resume(): void;
  /**
   * Whether the sink sends later what is queued now (a flush throttle's window, rest/sse.ts): then the
   * events stay in the stream's queue, counted against its bound, the stream stays parked, and the
   * sink calls `flushParked()` when its window ends. `queuedBytes`: what the queue holds.
   */
  defer?(queuedBytes: number): boolean;
}

/**
 * One stream's async iterator. While it is behind (a resume, or batches it could not take) it
 * catches up through its feed (the feed's tail, or shared reads of the log), then takes the feed's
 * batches. `cursor` is the last id of the log it has looked at (shown or filtered out), so nothing
 * is skipped and nothing is shown twice. What is queued is bounded by `maxBytes`: catching up stops
 * there until the queue drains; a live batch past it ends the stream (the client resumes with Last-Event-ID).
 */
export class EventStream implements AsyncIterableIterator<AiEventRecord> {
  /** Shared event objects only (one pointer per entry): thousands of streams may each hold a backlog. */
  private queue: AiEventRecord[] = [];
  private head = 0;
  private bytes = 0;
  private behind = true;
  private reading = false;
  private done = false;
  private error: Error | null = null;
  private waiter: (() => void) | null = null;
  /** While parked (SSE): the consumer that takes each live batch at once. */
  private sink: BatchSink | null = null;

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
  private take(rows: readonly LogRow[], paced: boolean): void {
    for (let i = firstAfter(rows, this.cursor); i < rows.length; i++) {
      const row = rows[i];
      if (paced && this.bytes > 0 && this.bytes + row.bytes > this.maxBytes) {
        // the rest waits until the queue drains (the feed holds it, or reads it again)
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

  /**
   * A batch (from, to] of the feed. Taken only when this stream is caught up; otherwise it catches
   * up through the feed. Returns the cursor (the feed keeps the rows after the least of them).
   */
  dispatch(from: number, rows: LogRow[], to: number): number {
    if (this.done) return to;
    if (this.reading || this.behind || this.cursor < from) {
      this.behind = true;
    } else {
      this.take(rows, false);
      if (this.cursor < to && !this.done) this.cursor = to;
    }
    if (this.sink) this.feedSink();
    else this.wakeUp();
    return this.cursor;
  }

  /**
   * Hands the live batches to `sink` as the feed dispatches them, without a promise and a turn of
   * the reader's loop per batch, until the stream needs its reader again: it fell behind, it
   * ended, or `sink` took a batch and said it can take no more (its socket is full); then it calls
   * `sink.resume()` once. A parked stream holds no promise and no suspended function. Returns false
   * (nothing parked) when the reader has work at once.
   */
  park(sink: BatchSink): boolean {
    if (this.done || this.behind || this.head < this.queue.length) return false;
    this.sink = sink;
    return true;
  }

  private feedSink(): void {
    if (!this.done && !this.behind) {
      if (this.head === this.queue.length) return; // nothing this stream shows: stay parked
      if (this.sink!.defer?.(this.bytes)) return; // sent in one write when the sink's window ends
      if (this.sink!.take(this.takeQueued())) return;
    }
    this.wakeUp();
  }

  /** The sink's window ended (`BatchSink.defer`): what is queued goes to it now, if the stream is still parked on it. */
  flushParked(sink: BatchSink): void {
    if (this.sink !== sink || this.done || this.behind || this.head === this.queue.length) return;
    if (this.sink.take(this.takeQueued())) return;
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
    const sink = this.sink;
    if (sink) {
      this.sink = null;
      sink.resume();
    }
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

  /** Takes what follows the cursor: from what the feed holds when it can, else from a read it shares. */
  private async catchUp(): Promise<void> {
    this.behind = false;
    let rows = this.feed.held(this.cursor);
    if (!rows) {
      this.reading = true;
      try {
        rows = await this.feed.readAfter(this.cursor);
      } catch (err) {
        this.end(err as Error);
        return;
      } finally {
        this.reading = false;
      }
      if (this.done) return;
    }
    this.take(rows, true);
    if ((this.feed.position ?? 0) > this.cursor) this.behind = true;
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
