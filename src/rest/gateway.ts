import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { GraphQLSchema } from 'graphql';
import { operationOf, type NamedOperation } from '../graph/operations.js';
import type { RoutePlans } from '../graph/plans.js';
import type { Services } from '../services/index.js';
import { success, fromGraphErrors } from './envelope.js';
import { idempotencyHooks } from './idempotency.js';
import { envelopeResponse, errorResponse } from './json-schema.js';
import { pipeline, type ClientIp } from './pipeline.js';
import { rootField, type RouteInput, type RouteSpec } from './route-spec.js';
import { queryCredentials, runSse, type SseHub } from './sse.js';
import { traceOperation } from '../platform/tracing.js';
import { sendMedia } from './media-response.js';
import multipart from '@fastify/multipart';
import { UPLOAD_MAX_PARTS } from './upload-body.js';

const SECURED: { [scheme: string]: string[] }[] = [{ bearerAuth: [] }, { apiKeyAuth: [] }];

export const API_PREFIX = '/v400/:lang/:project';

export interface GatewayDeps {
  services: Services;
  /** The compiled plans the routes run (graph/plans.ts), whichever engine serves /graphql. */
  plans: RoutePlans;
  operations: Map<string, NamedOperation>;
  routes: RouteSpec[];
  clientIp: ClientIp;
  /** The executable schema: SSE routes subscribe on it in-process. */
  schema: GraphQLSchema;
  /** The open SSE responses and their shared keep-alive timer. */
  sse: SseHub;
}

/** Registers every declared route under /v400/{lang}/{project}. */
export async function registerGateway(app: FastifyInstance, deps: GatewayDeps): Promise<void> {
  await app.register(
    async (api) => {
      for (const spec of deps.routes) {
        if (spec.rawBody) await api.register(async (raw) => keepRawBody(raw).route(toFastifyRoute(spec, deps)));
        else if (spec.upload)
          await api.register(async (up) => {
            await multipartOnly(up, deps);
            up.route(toFastifyRoute(spec, deps));
          });
        else api.route(toFastifyRoute(spec, deps));
      }
    },
    { prefix: API_PREFIX },
  );
}

function toFastifyRoute(spec: RouteSpec, deps: GatewayDeps) {
  const op = deps.operations.get(spec.operation);
  if (!op) throw new Error(`route ${spec.method} ${spec.path}: unknown operation ${spec.operation}`);
  deps.plans.prepare(op.source);
  const declared = new Set(operationOf(op).variableDefinitions?.map((v) => v.variable.name.value) ?? []);
  const opType = operationOf(op).operation;
  return {
    method: spec.method,
    url: spec.path,
    schema: {
      // generated clients name their methods after the operation the route runs
      operationId: spec.operation,
      summary: spec.summary,
      tags: spec.tags,
      security: spec.access.anonymous ? [] : SECURED,
      params: {
        type: 'object',
        properties: { lang: { type: 'string' }, project: { type: 'string' }, ...(spec.schema?.params?.properties as object) },
        required: ['lang', 'project', ...((spec.schema?.params?.required as string[]) ?? [])],
      },
      ...(spec.schema?.querystring && { querystring: spec.schema.querystring }),
      ...(spec.schema?.body && { body: spec.schema.body }),
      response: { 200: spec.plainText ? { type: 'string' } : envelopeResponse, '4xx': errorResponse, '5xx': errorResponse },
    },
    onRequest: spec.stream
      ? [queryCredentials, pipeline(spec, deps.services, deps.clientIp)]
      : pipeline(spec, deps.services, deps.clientIp),
    ...idempotencyHooks(spec, deps.services),
    handler: async (req: FastifyRequest, reply: FastifyReply) => {
      const input: RouteInput = {
        params: req.params as Record<string, any>,
        query: (req.query ?? {}) as Record<string, any>,
        body: spec.rawBody
          ? await spec.rawBody(req.ctx!, Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0), req.headers)
          : spec.upload
            ? await spec.upload(req.ctx!, req)
            : (req.body ?? {}),
        headers: req.headers,
      };
      if (spec.stream) {
        const variables = spec.variables ? spec.variables(input) : pick(declared, input);
        return runSse(req, reply, deps.schema, op, variables, deps.sse);
      }
      const variables = spec.variables ? spec.variables(input) : pick(declared, input);
      const query = spec.document ? await spec.document(input, op.source) : op.source;
      const res = await traceOperation(
        () => ({ name: op.name, type: opType, project: req.ctx?.project.code, req }),
        () => deps.plans.run(query, variables, req.ctx!),
      );
      if (res.errors?.length) throw fromGraphErrors(res.errors);
      if (spec.file) {
        const named = spec.file(res.data ?? {});
        const media = await deps.services.mediaFiles.row(req.ctx!, named.media_id);
        return sendMedia(req, reply, media, deps.services.media, { document: named.document ?? media.message_type === 'document' });
      }
      if (spec.plainText) return reply.type('text/plain; charset=utf-8').send(String(rootField(res.data ?? {})));
      return success(spec.respond ? spec.respond(res.data ?? {}, input) : { result: rootField(res.data ?? {}) });
    },
  };
}

/** SOFA's rule: a variable comes from the path, then the query, then the body. */
function pick(declared: Set<string>, input: RouteInput): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const source of [input.body, input.query, input.params]) {
    if (!source || typeof source !== 'object') continue;
    for (const [k, v] of Object.entries(source)) if (declared.has(k)) out[k] = v;
  }
  return out;
}

/** A context whose every body, whatever its content type, reaches the handler as the bytes received. */
/**
 * An upload route's context (CONTRACT §12.5): multipart/form-data only (any other type is 415), parsed
 * by @fastify/multipart as a stream the route consumes: nothing is buffered, and one file part at most.
 * The part's size is the media store's to limit (it knows the kind); the parser's own cap is MEDIA_MAX_BYTES.
 */
async function multipartOnly(up: FastifyInstance, deps: GatewayDeps): Promise<void> {
  up.removeAllContentTypeParsers();
  // (a Fastify instance is thenable: it is not returned from this async function, which would await it)
  await up.register(multipart, {
    limits: {
      files: 1,
      fields: UPLOAD_MAX_PARTS,
      parts: UPLOAD_MAX_PARTS,
      fieldSize: 1024,
      headerPairs: 50,
      fileSize: deps.services.media.config.maxBytes + 1,
    },
  });
}

function keepRawBody(raw: FastifyInstance): FastifyInstance {
  raw.removeAllContentTypeParsers();
  raw.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  return raw;
}
