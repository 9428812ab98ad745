import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import type { FastifyInstance } from 'fastify';
import type { ExecutionResult, GraphQLFormattedError, GraphQLSchema } from 'graphql';
import mercurius, { type MercuriusContext } from 'mercurius';
import type { GraphEngineName } from '../config.js';
import { isDatabaseFailure, isRejectedInput, rejectedSqlState, rejectedInput, serviceUnavailable } from '../db/unavailable.js';
import type { RequestContext } from '../context/index.js';
import { ByteBoundedCache } from './document-cache.js';
import { documentRules, PARSE_OPTIONS } from './limits.js';

export interface GraphRequest {
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
}

/** An error as either engine reports it; `extensions` carries AppError's code and status. */
export interface GraphErrorLike {
  message: string;
  extensions?: Record<string, unknown>;
  path?: readonly (string | number)[];
  locations?: readonly { line: number; column: number }[];
  /** Set when the document itself was rejected (parse or validation). */
  documentError?: boolean;
}

export interface GraphResult {
  data?: Record<string, any> | null;
  errors?: readonly GraphErrorLike[];
}

/** Runs an operation of the shared schema in-process. Both engines answer the same shape. */
export interface GraphEngine {
  readonly name: GraphEngineName;
  execute(request: GraphRequest, ctx: RequestContext): Promise<GraphResult>;
  close(): Promise<void>;
}

/**
 * `named`: the sources the REST routes send for the operations of schema/operations/ (a fixed set,
 * known at start-up), kept parsed and compiled apart from outside documents (OUTSIDE_DOCUMENTS).
 */
export async function createEngine(
  name: GraphEngineName,
  app: FastifyInstance,
  schema: GraphQLSchema,
  named: ReadonlySet<string>,
): Promise<GraphEngine> {
  return name === 'apollo' ? apolloEngine(app, schema, named) : mercuriusEngine(app, schema, named);
}

/**
 * A resolver's database failure: 503 ERROR_SERVICE_UNAVAILABLE while the database cannot serve
 * (logged once per outage), or 400 ERROR_VALIDATION when it refused a value the request carried
 * (a warning: no input is an outage, CONTRACT §11). The one mapping of such errors, for both
 * engines, subscriptions and the gateway's route plans (./plans.ts).
 */
export function databaseFailure(
  app: FastifyInstance,
  err: unknown,
  e: { message: string; path?: GraphErrorLike['path']; locations?: GraphErrorLike['locations'] },
): GraphErrorLike {
  let mapped;
  if (isRejectedInput(err)) {
    app.log.warn({ sqlstate: rejectedSqlState(err) }, 'the database refused a value of the request');
    mapped = rejectedInput();
  } else {
    app.outage.failed(err);
    mapped = serviceUnavailable();
  }
  const { extensions } = mapped;
  return { message: extensions.messages[0].key, path: e.path, locations: e.locations, extensions: { ...extensions } };
}

type Graphql = FastifyInstance['graphql'];

/**
 * Documents from outside (`/graphql`) kept parsed and validated by their text, per engine: a
 * document enters only after graphql's rules and the limits of ./limits.ts passed it (the cost
 * limit bounds what a kept document expands to, fragments included). mercurius compiles one with
 * graphql-jit once it has been seen JIT_AFTER times.
 */
export const OUTSIDE_DOCUMENTS = 256;
export const JIT_AFTER = 10;

/**
 * Two mercurius instances, each in a plugin scope of its own: one keeps and compiles (graphql-jit,
 * on the second run) only the named operations, the other outside documents (OUTSIDE_DOCUMENTS,
 * compiled after JIT_AFTER runs), so outside documents can never evict the named ones. The REST
 * routes run their own plans (./plans.ts). routes: false: /graphql is rest/graphql-route.ts, for
 * both engines, with one auth path.
 */
async function mercuriusEngine(app: FastifyInstance, schema: GraphQLSchema, named: ReadonlySet<string>): Promise<GraphEngine> {
  const common = {
    schema,
    routes: false,
    graphiql: false,
    validationRules: documentRules(),
    graphql: { parseOptions: PARSE_OPTIONS },
    errorFormatter: outageAwareFormatter(app),
  };
  const compiled = await scopedMercurius(app, { ...common, jit: 1, cache: named.size });
  const outside = await scopedMercurius(app, { ...common, jit: JIT_AFTER, cache: OUTSIDE_DOCUMENTS });
  return {
    name: 'mercurius',
    async execute({ query, variables, operationName }, ctx) {
      const graphql = named.has(query) ? compiled : outside;
      try {
        return (await graphql(query, ctx as never, variables, operationName)) as GraphResult;
      } catch (err) {
        // mercurius throws parse/validation failures (MER_ERR_GQL_VALIDATION) with details in `errors`.
        const errors = (err as { errors?: GraphErrorLike[] }).errors;
        if (!Array.isArray(errors)) throw err;
        return { errors: errors.map((e) => ({ message: e.message, locations: e.locations, documentError: true })) };
      }
    },
    close: async () => undefined,
  };
}

/**
 * mercurius formats errors (dropping `originalError`) and logs each one with its stack before
 * `app.graphql` returns, so a resolver's database failure (or refusal) is recognised here, while the original
 * error is at hand, and is neither logged per request nor formatted as an internal error.
 */
function outageAwareFormatter(app: FastifyInstance) {
  return (execution: ExecutionResult & Required<Pick<ExecutionResult, 'errors'>>, ctx: MercuriusContext) => {
    const outage = execution.errors.filter(isDatabaseFailure);
    if (!outage.length) return mercurius.defaultErrorFormatter(execution, ctx);
    const others = execution.errors.filter((e) => !isDatabaseFailure(e));
    const formatted = others.length ? (mercurius.defaultErrorFormatter({ ...execution, errors: others }, ctx).response.errors ?? []) : [];
    return {
      statusCode: 200,
      response: { data: execution.data ?? null, errors: [...outage.map((e) => databaseFailure(app, e, e)), ...formatted] as never },
    };
  };
}

async function scopedMercurius(app: FastifyInstance, opts: Record<string, unknown>): Promise<Graphql> {
  let instance: FastifyInstance | undefined;
  await app.register(async (scope) => {
    await scope.register(mercurius, opts);
    instance = scope;
  });
  // called as a method: mercurius reads its instance from `this`
  return ((...args: Parameters<Graphql>) => instance!.graphql(...args)) as Graphql;
}

/**
 * Apollo keeps parsed, validated documents in its store. Two servers: one whose store holds only
 * the named operations, one whose store holds outside documents
 * (OUTSIDE_DOCUMENTS; both bounded in entries and bytes), so outside documents never evict the named ones.
 */
async function apolloEngine(app: FastifyInstance, schema: GraphQLSchema, named: ReadonlySet<string>): Promise<GraphEngine> {
  const namedBytes = [...named].reduce((n, s) => n + Buffer.byteLength(s), 0);
  const formatError = (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError =>
    isDatabaseFailure(error) ? databaseFailure(app, error, formatted) : formatted;
  const storing = await apolloServer(schema, formatError, new ByteBoundedCache(named.size, 64 * namedBytes + 16 * 1024 * 1024));
  const plain = await apolloServer(schema, formatError, new ByteBoundedCache(OUTSIDE_DOCUMENTS, 16 * 1024 * 1024));
  return {
    name: 'apollo',
    async execute(request, ctx) {
      const server = named.has(request.query) ? storing : plain;
      const res = await server.executeOperation(request, { contextValue: ctx });
      if (res.body.kind !== 'single') throw new Error('incremental delivery is not used');
      const { data, errors } = res.body.singleResult;
      return {
        data: data as GraphResult['data'],
        errors: errors?.map((e) => ({
          ...e,
          documentError:
            ['GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED', 'BAD_USER_INPUT'].includes(String(e.extensions?.code)) && !e.path,
        })),
      };
    },
    close: async () => {
      await Promise.all([storing.stop(), plain.stop()]);
    },
  };
}

async function apolloServer(
  schema: GraphQLSchema,
  formatError: (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError,
  documentStore: ByteBoundedCache | null,
): Promise<ApolloServer<RequestContext>> {
  const server = new ApolloServer<RequestContext>({
    schema,
    formatError,
    validationRules: documentRules(),
    parseOptions: PARSE_OPTIONS,
    documentStore,
    // The cache-control plugin would wrap every resolver of the shared schema: keep it off.
    plugins: [ApolloServerPluginCacheControlDisabled(), ApolloServerPluginLandingPageDisabled()],
    includeStacktraceInErrorResponses: false,
    introspection: true,
  });
  await server.start();
  return server;
}
