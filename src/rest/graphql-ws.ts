import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { CloseCode, handleProtocols, makeServer } from 'graphql-ws';
import type { GraphQLError, GraphQLFormattedError, GraphQLSchema } from 'graphql';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { WsPendingConfig } from '../config.js';
import type { RequestContext } from '../context/index.js';
import { isDatabaseFailure, RETRY_AFTER_SECONDS } from '../db/unavailable.js';
import { AppError } from '../errors/app-error.js';
import { appError } from '../errors/codes.js';
import { databaseFailure, type GraphErrorLike } from '../graph/engines.js';
import { checkSubscription, openSubscription, type CheckedSubscription } from '../graph/subscription.js';
import { translate } from '../i18n/messages.js';
import { credentialKey, decrement } from '../services/events/streams.js';
import { FLUSH_NOW_BYTES, FlushWindows } from './flush-windows.js';

/** Authenticates a subscription connection: its upgrade request and `connection_init` payload. */
export type WsAuth = (
  request: IncomingMessage & { id?: string; log?: FastifyBaseLogger },
  payload: unknown,
) => Promise<RequestContext | null>;

export interface SubscriptionOptions {
  auth: WsAuth;
  /** How POST /graphql shows an error (rest/graphql-route.ts): the same for the WebSocket's `error` and `next` messages. */
  formatError: (e: GraphErrorLike, log: FastifyBaseLogger) => GraphQLFormattedError;
  /** Acknowledged sockets one credential may hold in this process (STREAMS_PER_CREDENTIAL: each may carry a subscription). */
  maxSocketsPerCredential: number;
  /** Sockets not acknowledged yet (opening, or before their `connection_init` is accepted) per client address and per process. */
  pending: WsPendingConfig;
  /** The client address of an upgrade request (the socket's, or the first x-forwarded-for hop from a trusted proxy). */
  clientAddress: (request: IncomingMessage) => string;
  /** EVENTS_FLUSH_MS: a socket that sent less than this ago holds its next messages until the window ends (0: off). */
  flushMs: number;
}

export const NOOP_LOG = {
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  debug: () => undefined,
  trace: () => undefined,
  fatal: () => undefined,
  child: () => NOOP_LOG,
  level: 'silent',
  silent: () => undefined,
} as unknown as FastifyBaseLogger;

/** CONTRACT §11: no valid `connection_init` this long after opening: 4408. */
export const WS_INIT_TIMEOUT_MS = 10_000;
/** A credential check slower than this closes the socket (1013, try again) instead of holding it. */
const WS_AUTH_TIMEOUT_MS = 4_000;
/** A subscriber with more than this waiting in its socket's send buffer is disconnected (CONTRACT §11). */
export const WS_MAX_BUFFERED = 1024 * 1024;
/** The largest message a client may send: the body limit of POST /graphql (app.ts). */
const WS_MAX_PAYLOAD = 1024 * 1024;
const KEEP_ALIVE_MS = 15_000;
/** A standard close code: the server refuses for now (a slow credential check, a credential holding its share of sockets). */
export const WS_TRY_AGAIN = 1013;

interface Extra {
  socket: WebSocket;
  request: IncomingMessage;
}

/** A socket's flush throttle: its TCP socket, when it last sent, and whether it is corked until its window ends. */
interface SendWindow {
  tcp: Duplex;
  sentAt: number;
  corked: boolean;
}

/**
 * WebSocket upgrades on `/graphql` speak the graphql-ws protocol, the same for both engines: the
 * graphql-ws server over `ws`, the credential checked by `auth` (the gates of /graphql) before the
 * acknowledgement, documents bounded like POST /graphql (graph/subscription.ts), a send buffer
 * capped per socket, keep-alive pings (one timer for all sockets) only once acknowledged.
 */
export function registerSubscriptions(app: FastifyInstance, schema: GraphQLSchema, opts: SubscriptionOptions): void {
  // allowSynchronousEvents false: one message per turn of the event loop, so a flood of large
  // documents on a socket yields to everything else between them.
  const wss = new WebSocketServer({ noServer: true, maxPayload: WS_MAX_PAYLOAD, handleProtocols, allowSynchronousEvents: false });
  const contexts = new WeakMap<WebSocket, RequestContext>();
  const log = (socket: WebSocket) => contexts.get(socket)?.log ?? app.log;
  /** Opened, not acknowledged yet; and how many of those per client address (each socket's address in `addresses`). */
  const pending = new Set<WebSocket>();
  const pendingPerAddress = new Map<string, number>();
  const addresses = new WeakMap<WebSocket, string>();
  const settle = (socket: WebSocket) => {
    if (!pending.delete(socket)) return;
    decrement(pendingPerAddress, addresses.get(socket)!);
  };
  /** Acknowledged sockets, and whether each answered the last ping. */
  const alive = new Map<WebSocket, boolean>();
  const streams = new WeakMap<object, AsyncIterableIterator<unknown>>();
  /** Acknowledged sockets per project and credential, and each socket's key (an idle socket costs memory too). */
  const perCredential = new Map<string, number>();
  const credentials = new WeakMap<WebSocket, string>();
  const windows = new FlushWindows(opts.flushMs);
  const sendWindows = new WeakMap<WebSocket, SendWindow>();
  let closing = false;

  const server = makeServer<Record<string, unknown> | undefined, Extra>({
    schema,
    connectionInitWaitTimeout: WS_INIT_TIMEOUT_MS,
    onConnect: async (ctx) => {
      const { socket, request } = ctx.extra;
      const found = await authenticate(app, opts.auth, request, ctx.connectionParams, socket);
      if (!found || found instanceof AppError || socket.readyState !== socket.OPEN) return false; // graphql-ws closes with 4403
      const key = `${found.project.id}:${credentialKey(found)}`;
      const held = perCredential.get(key) ?? 0;
      if (held >= opts.maxSocketsPerCredential) {
        socket.close(WS_TRY_AGAIN, 'Too many connections for this credential'); // graphql-ws's 4403 after it is then a no-op
        return false;
      }
      perCredential.set(key, held + 1);
      credentials.set(socket, key);
      contexts.set(socket, found);
      settle(socket);
      alive.set(socket, true);
      return true;
    },
    onSubscribe: async (ctx, _id, payload) => {
      const checked = checkSubscription(schema, payload);
      if (Array.isArray(checked)) return checked as GraphQLError[];
      const { document, operationName } = checked as CheckedSubscription;
      // The credential is checked again for each subscription: one that stopped being valid opens nothing.
      const { socket, request } = ctx.extra;
      const contextValue = await authenticate(app, opts.auth, request, ctx.connectionParams, socket);
      if (!contextValue || contextValue instanceof AppError) return [contextValue ?? appError('ERROR_UNAUTHORIZED')];
      contexts.set(socket, contextValue);
      contextValue.services.events.onOverflow(contextValue, () => disconnect(socket, 'the subscriber is not reading'));
      const results = await openSubscription(schema, checked as CheckedSubscription, contextValue);
      if (Array.isArray(results)) return results as GraphQLError[];
      // graphql-ws hands these arguments to `subscribe` below, which returns the stream opened here.
      const args = { schema, document, operationName, contextValue };
      streams.set(args, results as AsyncIterableIterator<unknown>);
      return args;
    },
    subscribe: (args) => streams.get(args) as never,
    onError: (ctx, _id, _payload, errors) => errors.map((e) => shown(e, ctx.extra.socket)),
    onNext: (ctx, _id, _payload, _args, result) =>
      result.errors ? { ...result, errors: result.errors.map((e) => shown(e, ctx.extra.socket)) } : undefined,
  });

  const shown = (e: GraphQLError, socket: WebSocket) => opts.formatError(asGraphError(app, e), log(socket));
  // The flush throttle: within the window after a send, the TCP socket is corked (what ws writes waits
  // in its buffer, counted in bufferedAmount) and uncorked at the window's end, one write for all of it.
  const hold = (w: SendWindow) => {
    if (w.corked) return;
    const at = windows.end(w.sentAt);
    if (at === null) {
      w.sentAt = Date.now();
      return;
    }
    w.corked = true;
    w.tcp.cork();
    windows.at(at, () => release(w));
  };
  const release = (w: SendWindow) => {
    if (!w.corked) return;
    w.corked = false;
    w.sentAt = Date.now();
    w.tcp.uncork();
  };
  const disconnect = (socket: WebSocket, why: string) => {
    log(socket).info({ buffered: socket.bufferedAmount }, `subscription socket closed: ${why}`);
    socket.terminate();
  };

  wss.on('connection', (socket: WebSocket, request: IncomingMessage, address: string, tcp: Duplex) => {
    if (windows.ms > 0) sendWindows.set(socket, { tcp, sentAt: 0, corked: false });
    pending.add(socket);
    addresses.set(socket, address);
    pendingPerAddress.set(address, (pendingPerAddress.get(address) ?? 0) + 1);
    socket.on('error', () => socket.terminate());
    socket.on('pong', () => alive.has(socket) && alive.set(socket, true));
    const closed = server.opened(
      {
        protocol: socket.protocol,
        send: (data) => {
          if (socket.readyState !== socket.OPEN) return;
          // Checked before each send: a client that stops reading never makes the server buffer more than this.
          if (socket.bufferedAmount > WS_MAX_BUFFERED) return disconnect(socket, 'the subscriber is not reading');
          const window = sendWindows.get(socket);
          if (window) hold(window);
          socket.send(data);
          if (window?.corked && window.tcp.writableLength >= FLUSH_NOW_BYTES) release(window);
        },
        close: (code, reason) => socket.close(code, reason),
        onMessage: (cb) =>
          socket.on('message', (data) => {
            // ws's default binaryType ('nodebuffer'): every message, text or binary, arrives as one Buffer.
            cb((data as Buffer).toString()).catch((err: unknown) => {
              log(socket).error({ err: (err as Error).message }, 'subscription message failed');
              socket.close(CloseCode.InternalServerError, 'Internal server error');
            });
          }),
      },
      { socket, request },
    );
    socket.once('close', (code, reason) => {
      settle(socket);
      alive.delete(socket);
      const key = credentials.get(socket);
      if (key !== undefined) decrement(perCredential, key);
      closed(code, String(reason)).catch(() => undefined);
    });
  });

  const keepAlive = setInterval(() => {
    for (const [socket, answered] of alive) {
      if (!answered) {
        socket.terminate();
        continue;
      }
      alive.set(socket, false);
      if (socket.bufferedAmount > WS_MAX_BUFFERED) disconnect(socket, 'the subscriber is not reading');
      else socket.ping();
    }
  }, KEEP_ALIVE_MS);
  keepAlive.unref();

  app.server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if ((request.url ?? '').split('?')[0] !== '/graphql') {
      socket.destroy();
      return;
    }
    const pressured = app as FastifyInstance & { isUnderPressure?: () => boolean };
    // Sockets that never authenticate are bounded per address before the process's bound: from one
    // address they never make another address's upgrade fail (CONTRACT §11).
    const address = opts.clientAddress(request);
    if (
      closing ||
      (pendingPerAddress.get(address) ?? 0) >= opts.pending.perAddress ||
      pending.size >= opts.pending.max ||
      (typeof pressured.isUnderPressure === 'function' && pressured.isUnderPressure())
    ) {
      refuseUpgrade(socket);
      return;
    }
    // counted at once in 'connection' (ws calls it synchronously here), so the next upgrade sees it
    wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request, address, socket));
  });
  app.addHook('preClose', async () => {
    closing = true;
    clearInterval(keepAlive);
    for (const socket of wss.clients) socket.close(1001, 'Going away');
    // the HTTP server's close waits for upgraded sockets: a client that does not answer the close is cut
    setTimeout(() => wss.clients.forEach((socket) => socket.terminate()), 1_000).unref();
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  });
}

/**
 * The connection's context; null for a missing or invalid credential, the AppError of a gate that
 * refused it (maintenance, usage limits). A check that fails for another reason (the database) or
 * takes too long closes the socket with 1013: try again.
 */
async function authenticate(
  app: FastifyInstance,
  auth: WsAuth,
  request: IncomingMessage,
  payload: unknown,
  socket: WebSocket,
): Promise<RequestContext | AppError | null> {
  let timer: NodeJS.Timeout | undefined;
  const tooSlow = new Promise<'slow'>((resolve) => (timer = setTimeout(() => resolve('slow'), WS_AUTH_TIMEOUT_MS)));
  try {
    const found = await Promise.race([auth(Object.assign(request, { id: randomUUID(), log: app.log }), payload ?? undefined), tooSlow]);
    if (found !== 'slow') return found;
    app.log.warn('subscription credential check timed out');
  } catch (err) {
    if (err instanceof AppError) return err;
    app.log.warn({ err: (err as Error).message }, 'subscription credential check failed');
  } finally {
    clearTimeout(timer);
  }
  socket.close(WS_TRY_AGAIN, 'Try again later');
  return null;
}

/** A request's own mistakes (parse, validation, variables) have no original error; a database failure is 503 as on POST /graphql. */
function asGraphError(app: FastifyInstance, e: GraphQLError): GraphErrorLike {
  const shape = { message: e.message, locations: e.locations, path: e.path, extensions: e.extensions };
  if (!e.originalError) return { ...shape, documentError: !e.extensions?.code };
  if (!e.extensions?.code && isDatabaseFailure(e.originalError)) return databaseFailure(app, e.originalError, e);
  return shape;
}

/** Load shedding and the pending-socket cap: the upgrade is answered 503 with Retry-After, as REST. */
function refuseUpgrade(socket: Duplex): void {
  const body = JSON.stringify({
    error: true,
    code: 'ERROR_SERVICE_UNAVAILABLE',
    result: [translate('en', { key: 'ERROR_SERVICE_UNAVAILABLE' })],
  });
  socket.end(
    'HTTP/1.1 503 Service Unavailable\r\nconnection: close\r\ncontent-type: application/json; charset=utf-8\r\nx-content-type-options: nosniff\r\n' +
      `retry-after: ${RETRY_AFTER_SECONDS}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}
