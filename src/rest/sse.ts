import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { createSourceEventStream, type GraphQLSchema } from 'graphql';
import { isDatabaseUnavailable, isRejectedInput, rejectedInput, serviceUnavailable } from '../db/unavailable.js';
import type { NamedOperation } from '../graph/operations.js';
import type { BatchSink } from '../services/events/event-stream.js';
import { eventJson, type AiEventRecord } from '../services/events/feed.js';
import { fromGraphErrors } from './envelope.js';
import { FLUSH_NOW_BYTES, FlushWindows } from './flush-windows.js';

/**
 * The text of one write, with its HTTP/1.1 chunk framing made once too: the stream writes it on its
 * socket itself (one write, no per-write work of the response object), and thousands of streams
 * sending the same events send the same string.
 */
interface Frame {
  text: string;
  chunk: string | null;
}

function chunkOf(frame: Frame): string {
  return (frame.chunk ??= `${Buffer.byteLength(frame.text).toString(16)}\r\n${frame.text}\r\n`);
}

const KEEP_ALIVE: Frame = { text: ': keep-alive\n\n', chunk: null };

/** One frame per event, made once however many streams send it (the event object is shared by them). */
const FRAMES = new WeakMap<AiEventRecord, Frame>();
function frame(event: AiEventRecord): Frame {
  let f = FRAMES.get(event);
  if (f === undefined) {
    f = { text: `id: ${event.id}\nevent: ${event.type}\ndata: ${eventJson(event)}\n\n`, chunk: null };
    FRAMES.set(event, f);
  }
  return f;
}

/** The frames of the events one write sends, for the next stream that sends the same events (keyed by the first). */
const BATCH_FRAMES = new WeakMap<AiEventRecord, { events: AiEventRecord[]; frame: Frame }>();

/**
 * The text of one write: a stream that was caught up takes the same batch of shared events as its
 * peers, and gets the same string, so thousands of sockets do not each hold a copy of it.
 */
function framesOf(events: AiEventRecord[]): Frame {
  if (events.length === 1) return frame(events[0]);
  const cached = BATCH_FRAMES.get(events[0]);
  if (cached && cached.events.length === events.length && cached.events.every((e, i) => e === events[i])) return cached.frame;
  let text = '';
  for (const event of events) text += frame(event).text;
  const f: Frame = { text, chunk: null };
  BATCH_FRAMES.set(events[0], { events, frame: f });
  return f;
}

/**
 * `EventSource` cannot send headers: on the SSE routes a credential may come as `?api_key=` or
 * `?access_token=` (a header, when sent, wins). Runs before the pipeline; the values never reach
 * the logs (rest/log-redaction.ts).
 */
export async function queryCredentials(req: FastifyRequest): Promise<void> {
  const q = (req.query ?? {}) as Record<string, unknown>;
  if (req.headers['x-api-key'] === undefined && req.headers.authorization === undefined) {
    if (typeof q.api_key === 'string' && q.api_key) req.headers['x-api-key'] = q.api_key;
    else if (typeof q.access_token === 'string' && q.access_token) req.headers.authorization = `Bearer ${q.access_token}`;
  }
}

/**
 * The open SSE responses of one app and the one timer that sends their keep-alive comments (a
 * stream that sent something since the last tick is skipped): one timer per process, not one per
 * stream. Started with the first stream, stopped with the last. Its `windows` time the streams'
 * flush throttle (EVENTS_FLUSH_MS; 0 off).
 */
export class SseHub {
  private readonly open = new Set<SseWriter>();
  private timer: NodeJS.Timeout | null = null;
  readonly windows: FlushWindows;

  constructor(
    private readonly keepAliveMs: number,
    flushMs = 0,
  ) {
    this.windows = new FlushWindows(flushMs);
  }

  get size(): number {
    return this.open.size;
  }

  add(writer: SseWriter): void {
    this.open.add(writer);
    if (!this.timer) {
      this.timer = setInterval(() => this.tick(), this.keepAliveMs);
      this.timer.unref();
    }
  }

  remove(writer: SseWriter): void {
    this.open.delete(writer);
    if (this.open.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  private tick(): void {
    for (const w of this.open) w.keepAlive();
  }
}

type EventIterator = AsyncIterableIterator<AiEventRecord> & {
  takeQueued?(): AiEventRecord[];
  park?(sink: BatchSink): boolean;
  flushParked?(sink: BatchSink): void;
  onOverflow?: (() => void) | null;
};

/** The open writers by their response and by their socket, for the listeners they all share. */
const WRITERS = new WeakMap<object, SseWriter>();
function onResponseClose(this: object): void {
  WRITERS.get(this)?.stop();
}
function onSocketDrain(this: object): void {
  WRITERS.get(this)?.wakeUp();
}

/**
 * One SSE response: writes frames on its socket with backpressure, ends with its iterator or its
 * client. The headers go out through the response (chunked, or plain for an HTTP/1.0 client);
 * each frame is then one write of a prepared string on the socket, and `end()` of the response
 * still closes the body properly. An idle stream costs no closure, promise or suspended function
 * of its own: its listeners are shared (WRITERS), and while it is caught up it is parked on its
 * EventStream, which hands it live batches (`take`) and calls `resume` when `pump` must run again.
 * Flush throttle (leading edge, `hub.flushMs`): a stream that sent events less than flushMs ago
 * leaves a new live batch queued in its EventStream (`defer`) and sends everything queued by then
 * in one write when the window ends; one idle longer sends at once. Order, ids and the slow-client
 * bound are the EventStream's, unchanged: the deferred events are its queue.
 */
class SseWriter implements BatchSink {
  open = true;
  /** Something was written since the last keep-alive tick. */
  private wrote = false;
  /** When events were last sent (Date.now() ms), and whether a flush is scheduled. */
  private sentAt = 0;
  private flushing = false;
  private wake: (() => void) | null = null;
  private readonly chunked: boolean;
  private readonly socket: FastifyReply['raw']['socket'];

  constructor(
    private readonly hub: SseHub,
    readonly raw: FastifyReply['raw'],
    readonly iterator: EventIterator,
    private readonly log: FastifyBaseLogger,
  ) {
    this.chunked = (raw as unknown as { chunkedEncoding: boolean }).chunkedEncoding === true;
    this.socket = raw.socket;
    WRITERS.set(raw, this);
    raw.on('close', onResponseClose);
    if (this.socket) {
      WRITERS.set(this.socket, this);
      this.socket.on('drain', onSocketDrain);
    }
  }

  stop(): void {
    if (!this.open) return;
    this.open = false;
    this.hub.remove(this);
    if (this.socket) {
      this.socket.off('drain', onSocketDrain);
      WRITERS.delete(this.socket);
    }
    this.iterator.return?.(undefined).catch(() => undefined);
    this.wakeUp();
    if (!this.raw.writableEnded) this.raw.end();
  }

  wakeUp(): void {
    const w = this.wake;
    this.wake = null;
    w?.();
  }

  /** The client stopped reading past the stream's bound: the connection is cut (it may never drain). */
  overflow(): void {
    this.log.info({ buffered: this.socket?.writableLength ?? 0 }, 'event stream closed: the client is not reading');
    this.stop();
    this.raw.destroy();
  }

  /** BatchSink: writes a live batch; false once the socket is full (or the stream closed). */
  take(events: AiEventRecord[]): boolean {
    return this.send(events) && !this.needsDrain();
  }

  /** BatchSink: within the window after the last send, the batch waits in the stream until the window ends. */
  defer(queuedBytes: number): boolean {
    if (queuedBytes >= FLUSH_NOW_BYTES) return false;
    if (this.flushing) return true;
    const at = this.hub.windows.end(this.sentAt);
    if (at === null) return false;
    this.flushing = true;
    this.hub.windows.at(at, () => this.flush());
    return true;
  }

  /** The window ended: the parked stream hands over what it queued meanwhile. */
  private flush(): void {
    this.flushing = false;
    if (this.open) this.iterator.flushParked?.(this);
  }

  /** BatchSink: the stream needs its reader (after the feed's dispatch that said so). */
  resume(): void {
    queueMicrotask(() => void this.pump());
  }

  /** Sends what the stream yields until it is caught up with room (then it parks), ends, or fails. */
  async pump(): Promise<void> {
    try {
      for (;;) {
        const next = await this.iterator.next();
        if (next.done || !this.open) break;
        // what else is queued goes out in the same write
        const queued = this.iterator.takeQueued?.() ?? [];
        queued.unshift(next.value);
        if (!this.send(queued)) break;
        // Respect backpressure: take the next event only once the socket has room again.
        await this.drained();
        if (!this.open) break;
        // Caught up, with room: the live batches go out from the feed's dispatch, not a turn of this loop each.
        if (this.iterator.park?.(this)) return;
      }
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'event stream ended by a failure; the client resumes with Last-Event-ID');
    }
    this.stop();
  }

  /** Writes events in one write; false when the stream is closed. */
  private send(events: AiEventRecord[]): boolean {
    this.sentAt = Date.now();
    return this.write(framesOf(events));
  }

  /** Writes a frame; false when the stream is closed. */
  write(frame: Frame): boolean {
    const socket = this.socket;
    if (!this.open || !socket || socket.destroyed) return false;
    this.wrote = true;
    socket.write(this.chunked ? chunkOf(frame) : frame.text);
    return true;
  }

  keepAlive(): void {
    if (!this.wrote && !this.needsDrain()) this.write(KEEP_ALIVE);
    this.wrote = false;
  }

  needsDrain(): boolean {
    return this.socket?.writableNeedDrain === true;
  }

  /** Resolves once the socket has room again (or the stream closed). */
  drained(): Promise<void> {
    if (!this.open || !this.needsDrain()) return Promise.resolve();
    return new Promise<void>((resolve) => (this.wake = resolve));
  }
}

/**
 * Runs a named subscription in-process (graphql-js `createSourceEventStream` on the one schema,
 * whatever the engine) and writes the events its source stream yields as Server-Sent Events. Failures before the stream
 * opens (access, caps, 404, bad input) are the usual error envelopes; once it opens, status and headers
 * go out at once, then `id:`/`event:`/`data:` per event, and the hub's keep-alive comments.
 */
export async function runSse(
  req: FastifyRequest,
  reply: FastifyReply,
  schema: GraphQLSchema,
  op: NamedOperation,
  variables: Record<string, unknown>,
  hub: SseHub,
): Promise<void> {
  // The source stream of the subscription: its subscribe resolver runs (access, 404, bad input), but not
  // a GraphQL execution per event and stream: the operation selects the whole event and its field
  // resolver hands the event through, so the event is written as it comes (rest/sse.ts, docs/events.md).
  const result = await createSourceEventStream({
    schema,
    document: op.document,
    operationName: op.name,
    variableValues: variables,
    contextValue: req.ctx,
  });
  if (!(Symbol.asyncIterator in result)) {
    const errors = result.errors ?? [];
    if (errors.some((e) => !e.extensions?.code && isRejectedInput(e.originalError ?? e))) throw rejectedInput();
    if (errors.some((e) => !e.extensions?.code && isDatabaseUnavailable(e.originalError ?? e))) throw serviceUnavailable();
    throw fromGraphErrors(errors.map((e) => ({ message: e.message, extensions: e.extensions, path: e.path })));
  }
  // The stream holds what it needs; the request's context (its EntityManager) is not kept for the stream's life.
  req.ctx = null;
  const iterator = result as EventIterator;
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    ...(reply.getHeaders() as Record<string, string>),
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
    'x-request-id': req.id,
  });
  raw.flushHeaders();

  const writer = new SseWriter(hub, raw, iterator, req.log);
  hub.add(writer);
  // What arrives while the client does not read queues in the stream, up to EVENTS_STREAM_BUFFER_BYTES;
  // past it the stream gives up and the connection is cut (a socket that never drains would otherwise stay).
  iterator.onOverflow = () => writer.overflow();
  // The handler returns now: the stream lives on in its writer, not in a function waiting here.
  void writer.pump();
}
