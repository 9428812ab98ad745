import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { getOperationAST, GraphQLError, Kind, OperationTypeNode, type DocumentNode, type GraphQLSchema } from 'graphql';
import { isOperator, type Caller, type OperatorContext, type RequestContext } from '../context/index.js';
import type { Project } from '../entities/project.js';
import { appError } from '../errors/codes.js';
import { assertNoNul } from '../errors/nul.js';
import { sameSecret } from '../platform/secrets.js';
import { OUTSIDE_DOCUMENTS, type GraphEngine, type GraphErrorLike, type GraphResult } from '../graph/engines.js';
import { parseBounded } from '../graph/limits.js';
import { RETRY_AFTER_SECONDS } from '../db/unavailable.js';
import { translate } from '../i18n/messages.js';
import { ACCESS, isAllowed, OPERATOR_FIELDS } from '../services/identity/access.js';
import type { Services } from '../services/index.js';
import { credentialsFrom } from '../services/identity/tenancy.service.js';
import { NOOP_LOG, registerSubscriptions } from './graphql-ws.js';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isErrorCode } from './envelope.js';
import { assertApplicationOpen, header, lookup, servable, type ClientIp } from './pipeline.js';
import { traceOperation } from '../platform/tracing.js';

interface GraphBody {
  query?: unknown;
  variables?: unknown;
  operationName?: unknown;
}

/**
 * `/graphql` for internal tools: server keys and level-0 users, on the project their credential
 * belongs to, through the gates of REST (CONTRACT §1, §11: application maintenance, the project
 * and its maintenance, usage limits, then the credential; refusals in the REST envelope); and the
 * operator (`Authorization: Bearer OPERATOR_TOKEN`), who passes no gate and may run only the
 * operator's own fields. Both engines sit behind this one route, so authentication and the error
 * format do not depend on the engine. Credentials travel in headers, never cookies, so no CSRF
 * token is needed.
 */
export async function registerGraphqlRoute(
  app: FastifyInstance,
  services: Services,
  engine: GraphEngine,
  clientIp: ClientIp,
  schema: GraphQLSchema,
): Promise<void> {
  const parsed = new ParsedDocuments(OUTSIDE_DOCUMENTS);
  const parse = (query: string) => parsed.get(query) ?? parseOrReport(query);
  const operatorToken = services.deps.config.operatorToken;
  const route: RouteOptions = {
    method: ['GET', 'POST'],
    url: '/graphql',
    schema: { hide: true },
    onSend: graphqlOverHttp,
    handler: async (req, reply) => {
      const body = readRequest(req);
      const ctx = isOperatorRequest(req, operatorToken)
        ? operatorContext(req, services)
        : await gatedContext(req, services, clientIp, () => switchesProjectMaintenance(body, parse));
      if (typeof body.query !== 'string' || body.query.length === 0) {
        return reply.code(400).send(errorsOnly('ERROR_VALIDATION', 'A `query` string is required.'));
      }
      if (body.variables != null && (typeof body.variables !== 'object' || Array.isArray(body.variables))) {
        return reply.code(400).send(errorsOnly('ERROR_VALIDATION', '`variables` must be an object.'));
      }
      // Parsed here first with the token bound, so an oversized document costs no more than its first tokens.
      const document = parse(body.query);
      if (document instanceof GraphQLError) {
        return send(reply, req, { errors: [{ message: document.message, locations: document.locations, documentError: true }] });
      }
      const unknown = unknownOperation(document, body.operationName);
      if (unknown) return send(reply, req, { errors: [{ message: unknown, documentError: true }] });
      // The operator's context has no project: it never reaches a tenant's resolver.
      if (isOperator(ctx) && !onlyFields(body, () => document, OPERATOR_FIELDS)) throw appError('ERROR_UNAUTHORIZED');
      if (req.method === 'GET' && isMutation(document, body.operationName)) {
        return reply.code(405).header('allow', 'POST').send(errorsOnly('ERROR_VALIDATION', 'Mutations need POST.'));
      }
      const operationName = typeof body.operationName === 'string' ? body.operationName : undefined;
      const query = body.query;
      const res = await traceOperation(
        () => {
          const op = getOperationAST(document, operationName);
          return {
            name: op?.name?.value ?? operationName,
            type: op?.operation,
            project: isOperator(ctx) ? undefined : ctx.project.code,
            req,
          };
        },
        // an OperatorContext only for the operator's fields, whose resolvers take GraphContext
        () =>
          engine.execute(
            { query, variables: (body.variables ?? undefined) as Record<string, unknown> | undefined, operationName },
            ctx as RequestContext,
          ),
      );
      // Kept only once the engine ran it: parsed, and validated with the limits of graph/limits.ts.
      if (!res.errors?.some((e) => e.documentError)) parsed.set(body.query, document);
      return send(reply, req, res);
    },
  };
  app.route(route);
  // Subscriptions (graphql-ws) share the path, one implementation for both engines (rest/graphql-ws.ts).
  registerSubscriptions(app, schema, {
    auth: (request, payload) => wsContext(services, clientIp, request, payload),
    formatError: (e, log) => formatError({ server: app, log }, e),
    maxSocketsPerCredential: services.deps.config.streams.perCredential,
    pending: services.deps.config.wsPending,
    clientAddress: (request) => clientIp(request.socket.remoteAddress ?? '', single(request.headers['x-forwarded-for'])),
    flushMs: services.deps.config.eventsFlushMs,
  });
}

/**
 * The credential of a subscription: in the `connection_init` payload (`{"X-Api-Key": KEY}` or
 * `{"Authorization": "Bearer TOKEN"}`, any case), else the upgrade request's headers.
 */
export function wsContext(
  services: Services,
  clientIp: ClientIp,
  request: IncomingMessage & { id?: string; log?: FastifyBaseLogger },
  payload: unknown,
): Promise<RequestContext | null> {
  const fromPayload: Record<string, string | undefined> = {};
  if (payload && typeof payload === 'object') {
    for (const [k, v] of Object.entries(payload as Record<string, unknown>)) {
      const name = k.toLowerCase();
      if ((name === 'x-api-key' || name === 'authorization') && typeof v === 'string') fromPayload[name] = v;
    }
  }
  const headers = Object.keys(fromPayload).length
    ? { ...request.headers, 'x-api-key': undefined, authorization: undefined, ...fromPayload }
    : request.headers;
  return graphContext(services, clientIp, {
    headers,
    remoteAddress: request.socket?.remoteAddress,
    id: request.id ?? randomUUID(),
    log: request.log ?? NOOP_LOG,
  });
}

/**
 * The one operation a project in maintenance may still run through /graphql: switching it off
 * (CONTRACT §11): `setProjectMaintenance`, with `__typename` beside it at most. `__typename` alone
 * switches nothing and gets the 503 like any other document.
 */
const PROJECT_MAINTENANCE_FIELDS: ReadonlySet<string> = new Set(['setProjectMaintenance', '__typename']);
function switchesProjectMaintenance(body: GraphBody, parse: (query: string) => DocumentNode | GraphQLError): boolean {
  const fields = rootFields(body, parse);
  return !!fields && fields.includes('setProjectMaintenance') && fields.every((f) => f !== null && PROJECT_MAINTENANCE_FIELDS.has(f));
}

/** `Authorization: Bearer OPERATOR_TOKEN`, compared in constant time; never true while the token is unset. */
function isOperatorRequest(req: FastifyRequest, operatorToken: string | undefined): boolean {
  if (!operatorToken) return false;
  const { bearer } = credentialsFrom(req.headers);
  return bearer !== undefined && sameSecret(bearer, operatorToken);
}

function operatorContext(req: FastifyRequest, services: Services): OperatorContext {
  return { operator: true, requestId: req.id, lang: 'en', services, log: req.log };
}

/**
 * A tenant's request through the checks of CONTRACT §1 (rest/pipeline.ts), in its order; the
 * project is the credential's. Refusals are thrown: the REST error handler answers them with the
 * envelope, status and headers (429's X-RateLimit-*) of REST.
 */
async function gatedContext(
  req: FastifyRequest,
  services: Services,
  clientIp: ClientIp,
  maintenanceExempt: () => boolean,
): Promise<RequestContext> {
  await assertApplicationOpen(services);
  const creds = credentialsFrom(req.headers);
  const found =
    creds.apiKey === undefined && creds.bearer === undefined ? null : await lookup(req, () => services.tenancy.identifyAnyProject(creds));
  if (!found) throw appError('ERROR_UNAUTHORIZED'); // no credential, or one of no project: there is no project to check
  const project = servable(found.project, maintenanceExempt);
  const { caller } = found;
  const ip = clientIp(req.socket.remoteAddress ?? '', header(req, 'x-forwarded-for'));
  await services.limits.enforce({ project, ip, userId: caller.kind === 'user' ? caller.user.id : undefined });
  if (caller.kind === 'invalid' || !isAllowed({ caller }, ACCESS.INTERNAL)) throw appError('ERROR_UNAUTHORIZED');
  return contextFor(
    services,
    clientIp,
    { headers: req.headers, remoteAddress: req.socket.remoteAddress, id: req.id, log: req.log },
    project,
    caller,
  );
}

type GraphRequest = { headers: Record<string, string | string[] | undefined>; remoteAddress?: string; id: string; log: FastifyBaseLogger };

/**
 * The context of the internal graph for a credential, for its WebSocket subscriptions (at
 * `connection_init` and again at each `subscribe`; `/graphql` requests pass the gates of
 * gatedContext): server keys and level-0 users, on their credential's project; null for anyone
 * else. Application and project maintenance refuse it too (thrown: the socket closes with 4403);
 * usage limits are spent by requests, not by a socket's subscriptions.
 */
export async function graphContext(services: Services, clientIp: ClientIp, req: GraphRequest): Promise<RequestContext | null> {
  const creds = credentialsFrom(req.headers);
  if (creds.apiKey === undefined && creds.bearer === undefined) return null;
  await assertApplicationOpen(services);
  const found = await services.tenancy.identifyAnyProject(creds);
  if (!found || found.caller.kind === 'invalid' || !found.project.subscription_active) return null;
  const { project, caller } = found;
  if (!isAllowed({ caller }, ACCESS.INTERNAL)) return null;
  return contextFor(
    services,
    clientIp,
    req,
    servable(project, () => false),
    caller,
  );
}

function contextFor(services: Services, clientIp: ClientIp, req: GraphRequest, project: Project, caller: Caller): RequestContext {
  const forwardedFor = single(req.headers['x-forwarded-for']);
  return {
    requestId: req.id,
    project,
    caller,
    em: services.tenancy.scopedEm(project),
    lang: 'en',
    ip: clientIp(req.remoteAddress ?? '', forwardedFor),
    forwardedFor,
    userAgent: single(req.headers['user-agent']),
    services,
    log: req.log,
  };
}

function single(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v.join(', ') : v;
}

/**
 * Whether the operation the request names selects only `allowed` root fields (fragments at the
 * root never pass); false for a missing or unparsable document (the engine answers those).
 */
function onlyFields(body: GraphBody, parse: (query: string) => DocumentNode | GraphQLError, allowed: ReadonlySet<string>): boolean {
  return !!rootFields(body, parse)?.every((f) => f !== null && allowed.has(f));
}

/** The root selections of the operation the request names (null for a fragment); null without one. */
function rootFields(body: GraphBody, parse: (query: string) => DocumentNode | GraphQLError): (string | null)[] | null {
  if (typeof body.query !== 'string') return null;
  const document = parse(body.query);
  if (document instanceof GraphQLError) return null;
  const op = getOperationAST(document, typeof body.operationName === 'string' ? body.operationName : undefined);
  return op ? op.selectionSet.selections.map((s) => (s.kind === Kind.FIELD ? s.name.value : null)) : null;
}

function readRequest(req: FastifyRequest): GraphBody {
  const body = readFields(req);
  // an empty operationName names no operation (some clients send "" for none)
  return body.operationName === '' ? { ...body, operationName: undefined } : body;
}

function readFields(req: FastifyRequest): GraphBody {
  if (req.method === 'POST') return req.body && typeof req.body === 'object' ? req.body : {};
  const q = req.query as Record<string, string | undefined>;
  let variables: unknown = q.variables;
  if (typeof variables === 'string') {
    try {
      variables = JSON.parse(variables);
    } catch {
      variables = 'invalid';
    }
    assertNoNul(variables, 'variables'); // a POST body was checked whole (refuseNul); this JSON text only now decodes
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

/**
 * GraphQL's request error when the request selects no operation of its document (an
 * `operationName` it lacks, or none among several; CONTRACT §11): the caller's mistake, answered
 * like a document that does not validate, never run.
 */
function unknownOperation(document: DocumentNode, operationName: unknown): string | null {
  const name = typeof operationName === 'string' ? operationName : undefined;
  if (getOperationAST(document, name)) return null;
  if (name !== undefined) return `Unknown operation named "${name}".`;
  return 'Must provide operation name if query contains multiple operations.';
}

function isMutation(document: DocumentNode, operationName: unknown): boolean {
  return getOperationAST(document, typeof operationName === 'string' ? operationName : undefined)?.operation === OperationTypeNode.MUTATION;
}

function send(reply: FastifyReply, req: FastifyRequest, res: GraphResult): FastifyReply {
  const errors = res.errors?.map((e) => formatError(req, e));
  const rejected = res.data == null && res.errors?.some((e) => e.documentError);
  const unavailable = res.data == null && res.errors?.some((e) => e.extensions?.code === 'ERROR_SERVICE_UNAVAILABLE');
  if (unavailable) reply.header('retry-after', String(RETRY_AFTER_SECONDS));
  // a request that never executed (it does not parse or validate) has no `data` at all; its status is 400,
  // but 200 for a client that asks for the legacy application/json alone (GraphQL over HTTP: such a client
  // reads `errors` only from a 200)
  const status = rejected ? (asksLegacyJson(req.headers.accept) ? 200 : 400) : unavailable ? 503 : 200;
  return reply.code(status).send(errors?.length ? { ...(!rejected && { data: res.data ?? null }), errors } : { data: res.data });
}

export const GRAPHQL_RESPONSE_TYPE = 'application/graphql-response+json';

/**
 * GraphQL over HTTP on every answer of /graphql: `application/graphql-response+json` when the client's
 * Accept names it before `application/json` (else `application/json`, the legacy type); and a refusal
 * before execution (credential, maintenance, usage limits, a body the server does not take) keeps its
 * status and REST envelope and also carries GraphQL's `errors` with the same code, so a GraphQL client
 * reads it as one.
 */
async function graphqlOverHttp(req: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  const type = String(reply.getHeader('content-type') ?? '');
  if (typeof payload !== 'string' || !type.startsWith('application/json')) return payload;
  // only a body holding the envelope's `"error":true` can be a refusal: a result is not parsed again (it cost
  // /graphql a tenth of its CPU)
  const refusal = payload.includes('"error":true') ? refusalWithErrors(payload) : null;
  if (refusal !== null) return refusal;
  if (prefersGraphqlResponse(req.headers.accept)) reply.type(`${GRAPHQL_RESPONSE_TYPE}; charset=utf-8`);
  return payload;
}

/** A REST refusal's envelope with GraphQL's `errors` added (same code); null for anything else. */
function refusalWithErrors(payload: string): string | null {
  let body: unknown;
  try {
    body = JSON.parse(payload);
  } catch {
    return null;
  }
  if (!body || typeof body !== 'object') return null;
  const envelope = body as { error?: unknown; code?: unknown; result?: unknown; errors?: unknown };
  if (envelope.error !== true || typeof envelope.code !== 'string' || envelope.errors) return null;
  const first = Array.isArray(envelope.result) && typeof envelope.result[0] === 'string' ? envelope.result[0] : envelope.code;
  return JSON.stringify({ ...envelope, errors: [{ message: first, extensions: { code: envelope.code } }] });
}

/** Whether Accept names application/graphql-response+json before (or without) application/json. */
function prefersGraphqlResponse(accept: string | undefined): boolean {
  const types = acceptedTypes(accept);
  const graph = types.find((t) => t.type === GRAPHQL_RESPONSE_TYPE);
  const json = types.find((t) => t.type === 'application/json');
  return !!graph && (!json || graph.q >= json.q);
}

/** Whether Accept names application/json and not application/graphql-response+json before it. */
function asksLegacyJson(accept: string | undefined): boolean {
  return acceptedTypes(accept).some((t) => t.type === 'application/json') && !prefersGraphqlResponse(accept);
}

/** The media types Accept names with a q above 0. */
function acceptedTypes(accept: string | undefined): { type: string; q: number }[] {
  if (!accept) return [];
  return accept
    .split(',')
    .map((part) => {
      const [type, ...params] = part.trim().toLowerCase().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return { type: type.trim(), q: q ? Number(q.slice(2)) : 1 };
    })
    .filter((t) => t.q > 0);
}

/** AppErrors keep their code and status; document errors their message; anything else says nothing. */
function formatError(req: Pick<FastifyRequest, 'server' | 'log'>, e: GraphErrorLike) {
  const ext = e.extensions ?? {};
  const code = typeof ext.code === 'string' ? ext.code : '';
  if (isErrorCode(code) && Array.isArray(ext.messages)) {
    const first = (ext.messages as { key: string }[])[0];
    return {
      message: first ? translate('en', first) : code,
      path: e.path,
      extensions: { code, status: ext.status, ...(ext.result ? { result: ext.result } : {}) },
    };
  }
  // GraphQL's request errors (parse, validation, an unknown operationName): the caller's to fix
  if (e.documentError) return { message: e.message, locations: e.locations, extensions: { code: 'ERROR_VALIDATION' } };
  req.server.outage.unexpected(req.log, e, 'graph operation failed');
  return { message: 'Internal error.', path: e.path, extensions: { code: 'ERROR_INTERNAL' } };
}

function errorsOnly(code: string, message: string) {
  return { errors: [{ message, extensions: { code } }] };
}
