import type { FastifyReply, FastifyRequest } from 'fastify';
import { createSourceEventStream, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { isDatabaseUnavailable, serviceUnavailable } from '../db/unavailable.js';
import type { NamedOperation } from '../graph/operations.js';
import { eventJson, type AiEventRecord } from '../services/events/events.service.js';
import type { Services } from '../services/index.js';
import { fromGraphErrors } from './envelope.js';

export interface SseOptions {
  keepAliveMs: number;
}

/**
 * `EventSource` cannot send headers: on the SSE routes a credential may come as `?api_key=` or
 * `?access_token=` (a header, when sent, wins). Runs before the pipeline; the values never reach
 * the logs (rest/log-redaction.ts).
 */
/** One frame per event, made once however many streams send it (the event object is shared by them). */
const FRAMES = new WeakMap<AiEventRecord, string>();
function frame(event: AiEventRecord): string {
  let text = FRAMES.get(event);
  if (text === undefined) {
    text = `id: ${event.id}\nevent: ${event.type}\ndata: ${eventJson(event)}\n\n`;
    FRAMES.set(event, text);
  }
  return text;
}

export async function queryCredentials(req: FastifyRequest): Promise<void> {
  const q = (req.query ?? {}) as Record<string, unknown>;
  if (req.headers['x-api-key'] === undefined && req.headers.authorization === undefined) {
    if (typeof q.api_key === 'string' && q.api_key) req.headers['x-api-key'] = q.api_key;
    else if (typeof q.access_token === 'string' && q.access_token) req.headers.authorization = `Bearer ${q.access_token}`;
  }
}

/**
 * Runs a named subscription in-process (graphql-js `createSourceEventStream` on the one schema,
 * whatever the engine) and writes the events its source stream yields as Server-Sent Events. Failures before the stream
 * opens (access, 404, bad input) are the usual error envelopes; once it opens, status and headers
 * go out at once, then `id:`/`event:`/`data:` per event and a keep-alive comment on a timer.
 */
export async function runSse(
  req: FastifyRequest,
  reply: FastifyReply,
  schema: GraphQLSchema,
  op: NamedOperation,
  variables: Record<string, unknown>,
  opts: SseOptions,
  services: Services,
): Promise<void> {
  // The source stream of the subscription: its subscribe resolver runs (access, 404, bad input), but not
  // a GraphQL execution per event and stream: the operation selects the whole event and its field
  // resolver hands the event through, so the event is written as it comes (rest/sse.ts, docs/events.md).
  const result = await createSourceEventStream({ schema, document: op.document, operationName: op.name, variableValues: variables, contextValue: req.ctx });
  if (!(Symbol.asyncIterator in result)) {
    const errors = (result as ExecutionResult).errors ?? [];
    if (errors.some((e) => !e.extensions?.code && isDatabaseUnavailable(e.originalError ?? e))) throw serviceUnavailable();
    throw fromGraphErrors(errors.map((e) => ({ message: e.message, extensions: e.extensions, path: e.path })));
  }
  const iterator = result as AsyncIterableIterator<AiEventRecord> & { takeQueued?(): AiEventRecord[] };
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

  let open = true;
  let wake: (() => void) | null = null;
  const stop = () => {
    if (!open) return;
    open = false;
    clearInterval(keepAlive);
    iterator.return?.(undefined).catch(() => undefined);
    wake?.();
    if (!raw.writableEnded) raw.end();
  };
  /** Writes a frame; false when the stream is closed. The writer waits for `drain` below, so the socket holds at most one frame past its high-water mark. */
  const write = (frame: string): boolean => {
    if (!open || raw.destroyed) return false;
    raw.write(frame);
    return true;
  };
  // What arrives while the client does not read queues in the stream, up to EVENTS_STREAM_BUFFER_BYTES;
  // past it the stream gives up and the connection is cut (a socket that never drains would otherwise stay).
  services.events.onOverflow(req.ctx!, () => {
    req.log.info({ buffered: raw.writableLength }, 'event stream closed: the client is not reading');
    stop();
    raw.destroy();
  });
  const keepAlive = setInterval(() => write(': keep-alive\n\n'), opts.keepAliveMs);
  raw.on('close', stop);
  raw.on('drain', () => wake?.());

  try {
    for (;;) {
      const next = await iterator.next();
      if (next.done || !open) break;
      // what else is queued goes out in the same write
      let frames = frame(next.value);
      for (const event of iterator.takeQueued?.() ?? []) frames += frame(event);
      if (!write(frames)) break;
      // Respect backpressure: take the next event only once the socket has room again.
      while (open && raw.writableNeedDrain) await new Promise<void>((resolve) => (wake = resolve));
      wake = null;
    }
  } catch (err) {
    req.log.warn({ err: (err as Error).message }, 'event stream ended by a failure; the client resumes with Last-Event-ID');
  } finally {
    stop();
  }
}
