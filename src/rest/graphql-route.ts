import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { getOperationAST, GraphQLError, type DocumentNode, type GraphQLSchema } from 'graphql';
import type { RequestContext } from '../context/index.js';
import { OUTSIDE_DOCUMENTS, type GraphEngine, type GraphErrorLike, type GraphResult } from '../graph/engines.js';
import { parseBounded } from '../graph/limits.js';
import { RETRY_AFTER_SECONDS } from '../db/unavailable.js';
import { translate } from '../i18n/messages.js';
import { ACCESS, isAllowed } from '../services/identity/access.js';
import type { Services } from '../services/index.js';
import { credentialsFrom } from '../services/identity/tenancy.service.js';
import { NOOP_LOG, registerSubscriptions } from './graphql-ws.js';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isErrorCode } from './envelope.js';
import type { ClientIp } from './pipeline.js';

interface GraphBody {
  query?: unknown;
  variables?: unknown;
  operationName?: unknown;
}

/**
 * `/graphql` for internal tools: server keys and level-0 users only, on the project their
 * credential belongs to. Both engines sit behind this one route, so authentication and the
 * error format do not depend on the engine. Credentials travel in headers, never cookies,
 * so no CSRF token is needed.
 */
export async function registerGraphqlRoute(app: FastifyInstance, services: Services, engine: GraphEngine, clientIp: ClientIp, schema: GraphQLSchema): Promise<void> {
  const parsed = new ParsedDocuments(OUTSIDE_DOCUMENTS);
  const route: RouteOptions = {
    method: ['GET', 'POST'],
    url: '/graphql',
    schema: { hide: true },
    handler: async (req, reply) => {
      const ctx = await internalContext(req, services, clientIp);
      if (!ctx) return reply.code(401).send(errorsOnly('ERROR_UNAUTHORIZED', 'Authentication is required.'));
      const body = readRequest(req);
      if (typeof body.query !== 'string' || body.query.length === 0) {
        return reply.code(400).send(errorsOnly('ERROR_VALIDATION', 'A `query` string is required.'));
      }
      if (body.variables != null && (typeof body.variables !== 'object' || Array.isArray(body.variables))) {
        return reply.code(400).send(errorsOnly('ERROR_VALIDATION', '`variables` must be an object.'));
      }
      // Parsed here first with the token bound, so an oversized document costs no more than its first tokens.
      const document = parsed.get(body.query) ?? parseOrReport(body.query);
      if (document instanceof GraphQLError) {
        return send(reply, req, { errors: [{ message: document.message, locations: document.locations, documentError: true }] });
      }
      if (req.method === 'GET' && isMutation(document, body.operationName)) {
        return reply.code(405).header('allow', 'POST').send(errorsOnly('ERROR_VALIDATION', 'Mutations need POST.'));
      }
      const res = await engine.execute(
        {
          query: body.query,
          variables: (body.variables ?? undefined) as Record<string, unknown> | undefined,
          operationName: typeof body.operationName === 'string' ? body.operationName : undefined,
        },
        ctx,
      );
      // Kept only once the engine ran it: parsed, and validated with the limits of graph/limits.ts.
      if (!res.errors?.some((e) => e.documentError)) parsed.set(body.query, document);
      return send(reply, req, res);
    },
  };
  // Subscriptions (graphql-ws) share the path: the engine serves the upgrade (rest/graphql-ws.ts).
  await registerSubscriptions(app, route, engine.name, schema, (request, payload) => wsContext(services, clientIp, request, payload));
}

/**
 * The credential of a subscription: in the `connection_init` payload (`{"X-Api-Key": KEY}` or
 * `{"Authorization": "Bearer TOKEN"}`, any case), else the upgrade request's headers.
 */
export function wsContext(services: Services, clientIp: ClientIp, request: IncomingMessage & { id?: string; log?: FastifyBaseLogger }, payload: unknown): Promise<RequestContext | null> {
  const fromPayload: Record<string, string | undefined> = {};
  if (payload && typeof payload === 'object') {
    for (const [k, v] of Object.entries(payload as Record<string, unknown>)) {
      const name = k.toLowerCase();
      if ((name === 'x-api-key' || name === 'authorization') && typeof v === 'string') fromPayload[name] = v;
    }
  }
  const headers = Object.keys(fromPayload).length ? { ...request.headers, 'x-api-key': undefined, authorization: undefined, ...fromPayload } : request.headers;
  return graphContext(services, clientIp, { headers, remoteAddress: request.socket?.remoteAddress, id: request.id ?? randomUUID(), log: request.log ?? NOOP_LOG });
}

function internalContext(req: FastifyRequest, services: Services, clientIp: ClientIp): Promise<RequestContext | null> {
  return graphContext(services, clientIp, { headers: req.headers, remoteAddress: req.socket.remoteAddress, id: req.id, log: req.log });
}

/**
 * The context of the internal graph (`/graphql`, its WebSocket subscriptions): server keys and
 * level-0 users, on their credential's project; null for anyone else.
 */
export async function graphContext(
  services: Services,
  clientIp: ClientIp,
  req: { headers: Record<string, string | string[] | undefined>; remoteAddress?: string; id: string; log: FastifyBaseLogger },
): Promise<RequestContext | null> {
  const creds = credentialsFrom(req.headers);
  if (creds.apiKey === undefined && creds.bearer === undefined) return null;
  const found = await services.tenancy.identifyAnyProject(creds);
  if (!found || found.caller.kind === 'invalid' || !found.project.subscription_active) return null;
  const { project, caller } = found;
  if (!isAllowed({ caller }, ACCESS.INTERNAL)) return null;
  const forwardedFor = req.headers['x-forwarded-for'] as string | undefined;
  return {
    requestId: req.id,
    project,
    caller,
    em: services.tenancy.scopedEm(project),
    lang: 'en',
    ip: clientIp(req.remoteAddress ?? '', forwardedFor),
    forwardedFor,
    userAgent: req.headers['user-agent'] as string | undefined,
    services,
    log: req.log,
  };
}

function readRequest(req: FastifyRequest): GraphBody {
  if (req.method === 'POST') return (req.body && typeof req.body === 'object' ? req.body : {}) as GraphBody;
  const q = req.query as Record<string, string | undefined>;
  let variables: unknown = q.variables;
  if (typeof variables === 'string') {
    try {
      variables = JSON.parse(variables);
    } catch {
      variables = 'invalid';
    }
  }
  return { query: q.query, variables, operationName: q.operationName };
}

/**
 * Documents the engine accepted, by their text: a repeated document skips this route's own parse
 * (the engines keep their parsed and validated copies themselves). Bounded in entries; texts
 * longer than MAX_KEPT_TEXT are never kept.
 */
const MAX_KEPT_TEXT = 16 * 1024;
class ParsedDocuments {
  private readonly entries = new Map<string, DocumentNode>();

  constructor(private readonly max: number) {}

  get(text: string): DocumentNode | undefined {
    return this.entries.get(text);
  }

  set(text: string, document: DocumentNode): void {
    if (text.length > MAX_KEPT_TEXT || this.entries.has(text)) return;
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(text, document);
  }
}

function parseOrReport(query: string): DocumentNode | GraphQLError {
  try {
    return parseBounded(query);
  } catch (err) {
    if (err instanceof GraphQLError) return err;
    throw err;
  }
}

function isMutation(document: DocumentNode, operationName: unknown): boolean {
  return getOperationAST(document, typeof operationName === 'string' ? operationName : undefined)?.operation === 'mutation';
}

function send(reply: FastifyReply, req: FastifyRequest, res: GraphResult): FastifyReply {
  const errors = res.errors?.map((e) => formatError(req, e));
  const rejected = res.data == null && res.errors?.some((e) => e.documentError);
  const unavailable = res.data == null && res.errors?.some((e) => e.extensions?.code === 'ERROR_SERVICE_UNAVAILABLE');
  if (unavailable) reply.header('retry-after', String(RETRY_AFTER_SECONDS));
  return reply.code(rejected ? 400 : unavailable ? 503 : 200).send(errors?.length ? { data: res.data ?? null, errors } : { data: res.data });
}

/** AppErrors keep their code and status; document errors their message; anything else says nothing. */
function formatError(req: FastifyRequest, e: GraphErrorLike) {
  const ext = e.extensions ?? {};
  const code = String(ext.code ?? '');
  if (isErrorCode(code) && Array.isArray(ext.messages)) {
    const first = (ext.messages as { key: string }[])[0];
    return {
      message: first ? translate('en', first) : code,
      path: e.path,
      extensions: { code, status: ext.status, ...(ext.result ? { result: ext.result } : {}) },
    };
  }
  if (e.documentError) return { message: e.message, locations: e.locations };
  req.server.outage.unexpected(req.log, e, 'graph operation failed');
  return { message: 'Internal error.', path: e.path, extensions: { code: 'ERROR_INTERNAL' } };
}

function errorsOnly(code: string, message: string) {
  return { errors: [{ message, extensions: { code } }] };
}
