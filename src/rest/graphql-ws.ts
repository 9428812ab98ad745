import type { FastifyBaseLogger, FastifyInstance, RouteOptions } from 'fastify';
import { specifiedRules, validate, type GraphQLSchema } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import mercurius from 'mercurius';
import type { IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';
import { WebSocketServer } from 'ws';
import type { GraphEngineName } from '../config.js';
import type { RequestContext } from '../context/index.js';
import { documentRules } from '../graph/limits.js';

/** Authenticates a subscription connection: its upgrade request and `connection_init` payload. */
export type WsAuth = (request: IncomingMessage & { id?: string; log?: FastifyBaseLogger }, payload: unknown) => Promise<RequestContext | null>;

export const NOOP_LOG = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined, trace: () => undefined, fatal: () => undefined, child: () => NOOP_LOG, level: 'silent', silent: () => undefined } as unknown as FastifyBaseLogger;

const KEEP_ALIVE_MS = 15_000;
const MAX_PAYLOAD = 1024 * 1024;
/** mercurius's subscription route (the GET route plus its WebSocket handler): not exported by its package index. */
const mercuriusSubscription = createRequire(__filename)('mercurius/lib/subscription.js');

/**
 * `/graphql` answers GET/POST (`route`) and WebSocket upgrades speaking the graphql-ws protocol
 * on the same path, with the same authentication (`auth`) and the same visibility (the services
 * check it). mercurius: its own subscription support, on an instance of its own (no `resolvers`
 * or `loaders`: the shared schema stays untouched) that also serves the GET route. Apollo: the
 * `graphql-ws` server on the same HTTP server.
 */
export async function registerSubscriptions(app: FastifyInstance, route: RouteOptions, engine: GraphEngineName, schema: GraphQLSchema, auth: WsAuth): Promise<void> {
  if (engine === 'mercurius') return mercuriusSubscriptions(app, route, schema, auth);
  app.route(route);
  apolloSubscriptions(app, schema, auth);
}

async function mercuriusSubscriptions(app: FastifyInstance, route: RouteOptions, schema: GraphQLSchema, auth: WsAuth): Promise<void> {
  await app.register(async (scope) => {
    const context = async (_socket: unknown, request: { raw: IncomingMessage; id: string; log: FastifyBaseLogger }) =>
      (await auth(Object.assign(request.raw, { id: request.id, log: request.log }), undefined)) ?? {};
    const onConnect = async (data: { payload?: unknown }) => {
      const payload = data?.payload;
      const hasCredential = payload && typeof payload === 'object' && Object.keys(payload).some((k) => /^(x-api-key|authorization)$/i.test(k));
      if (!hasCredential) return true; // the upgrade request's headers decide (context above); none: each operation gets 401
      const ctx = await auth({ headers: {}, socket: undefined } as unknown as IncomingMessage, payload);
      return ctx ?? false;
    };
    await scope.register(mercurius, {
      schema,
      routes: false,
      graphiql: false,
      cache: false,
      validationRules: documentRules(),
      subscription: { context, onConnect, keepAlive: KEEP_ALIVE_MS },
    });
    const subscriber = (scope as unknown as { graphql: { pubsub: unknown } }).graphql.pubsub;
    await scope.register(mercuriusSubscription, {
      getOptions: { ...route, method: 'GET' },
      subscriber,
      onConnect,
      subscriptionContextFn: context,
      keepAlive: KEEP_ALIVE_MS,
      errorFormatter: mercurius.defaultErrorFormatter,
    });
  });
  app.route({ ...route, method: 'POST' });
}

function apolloSubscriptions(app: FastifyInstance, schema: GraphQLSchema, auth: WsAuth): void {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_PAYLOAD });
  const contexts = new WeakMap<object, RequestContext>();
  const rules = [...specifiedRules, ...documentRules()];
  const server = useServer<Record<string, unknown>, { request: IncomingMessage; socket: object }>(
    {
      schema,
      validate: (s, document) => validate(s, document, rules),
      onConnect: async (ctx) => {
        const found = await auth(ctx.extra.request, ctx.connectionParams);
        if (!found) return false;
        contexts.set(ctx.extra.socket, found);
        return true;
      },
      context: (ctx) => contexts.get(ctx.extra.socket) as never,
    },
    wss,
    KEEP_ALIVE_MS,
  );
  app.server.on('upgrade', (request: IncomingMessage, socket, head) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/graphql') {
      socket.destroy();
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request));
  });
  app.addHook('preClose', async () => {
    await server.dispose();
    wss.close();
  });
}
