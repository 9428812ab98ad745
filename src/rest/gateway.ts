import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { operationOf, type NamedOperation } from '../graph/operations.js';
import type { RoutePlans } from '../graph/plans.js';
import type { Services } from '../services/index.js';
import { success, fromGraphErrors } from './envelope.js';
import { envelopeResponse, errorResponse } from './json-schema.js';
import { pipeline, type ClientIp } from './pipeline.js';
import { rootField, type RouteInput, type RouteSpec } from './route-spec.js';

const SECURED: { [scheme: string]: string[] }[] = [{ bearerAuth: [] }, { apiKeyAuth: [] }];

export const API_PREFIX = '/v400/:lang/:project';

export interface GatewayDeps {
  services: Services;
  /** The compiled plans the routes run (graph/plans.ts), whichever engine serves /graphql. */
  plans: RoutePlans;
  operations: Map<string, NamedOperation>;
  routes: RouteSpec[];
  clientIp: ClientIp;
}

/** Registers every declared route under /v400/{lang}/{project}. */
export async function registerGateway(app: FastifyInstance, deps: GatewayDeps): Promise<void> {
  await app.register(
    async (api) => {
      for (const spec of deps.routes) api.route(toFastifyRoute(spec, deps));
    },
    { prefix: API_PREFIX },
  );
}

function toFastifyRoute(spec: RouteSpec, deps: GatewayDeps) {
  const op = deps.operations.get(spec.operation);
  if (!op) throw new Error(`route ${spec.method} ${spec.path}: unknown operation ${spec.operation}`);
  deps.plans.prepare(op.source);
  const declared = new Set(operationOf(op).variableDefinitions?.map((v) => v.variable.name.value) ?? []);
  return {
    method: spec.method,
    url: spec.path,
    schema: {
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
      response: { 200: envelopeResponse, '4xx': errorResponse, '5xx': errorResponse },
    },
    onRequest: pipeline(spec, deps.services, deps.clientIp),
    handler: async (req: FastifyRequest, _reply: FastifyReply) => {
      const input: RouteInput = {
        params: req.params as Record<string, any>,
        query: (req.query ?? {}) as Record<string, any>,
        body: req.body ?? {},
      };
      const variables = spec.variables ? spec.variables(input) : pick(declared, input);
      const query = spec.document ? await spec.document(input, op.source) : op.source;
      const res = await deps.plans.run(query, variables, req.ctx!);
      if (res.errors?.length) throw fromGraphErrors(res.errors);
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
