import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import type { FastifyInstance } from 'fastify';
import type { GraphQLSchema } from 'graphql';
import mercurius from 'mercurius';
import type { GraphEngineName } from '../config.js';
import type { RequestContext } from './context.js';

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

export async function createEngine(name: GraphEngineName, app: FastifyInstance, schema: GraphQLSchema): Promise<GraphEngine> {
  return name === 'apollo' ? apolloEngine(schema) : mercuriusEngine(app, schema);
}

async function mercuriusEngine(app: FastifyInstance, schema: GraphQLSchema): Promise<GraphEngine> {
  // routes: false: /graphql is served by rest/graphql-route.ts for both engines, with one auth path.
  await app.register(mercurius, { schema, jit: 1, routes: false, graphiql: false, cache: 1024 });
  return {
    name: 'mercurius',
    async execute({ query, variables, operationName }, ctx) {
      try {
        return (await app.graphql(query, ctx as never, variables, operationName)) as GraphResult;
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

async function apolloEngine(schema: GraphQLSchema): Promise<GraphEngine> {
  const server = new ApolloServer<RequestContext>({
    schema,
    // The cache-control plugin would wrap every resolver of the shared schema: keep it off.
    plugins: [ApolloServerPluginCacheControlDisabled(), ApolloServerPluginLandingPageDisabled()],
    includeStacktraceInErrorResponses: false,
    introspection: true,
  });
  await server.start();
  return {
    name: 'apollo',
    async execute(request, ctx) {
      const res = await server.executeOperation(request, { contextValue: ctx });
      if (res.body.kind !== 'single') throw new Error('incremental delivery is not used');
      const { data, errors } = res.body.singleResult;
      return {
        data: data as GraphResult['data'],
        errors: errors?.map((e) => ({
          ...e,
          documentError: ['GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED', 'BAD_USER_INPUT'].includes(
            String(e.extensions?.code),
          ) && !e.path,
        })),
      };
    },
    close: () => server.stop(),
  };
}
