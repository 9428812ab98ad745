import 'reflect-metadata';
import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
import { buildSchema } from 'type-graphql';
import { RESOLVERS } from '../resolvers/index.js';

let built: Promise<GraphQLSchema> | undefined;

const UNUSED_PUBSUB = {
  publish: () => undefined,
  subscribe: () => {
    throw new Error('type-graphql pub/sub is not used');
  },
};

/**
 * The one schema, built once per process from the TypeGraphQL resolvers and entity types. Every
 * object type is declared with `simpleResolvers: true`: a field without a @FieldResolver is read
 * by the engine itself instead of through a TypeGraphQL wrapper per field and row (no middlewares
 * are used, so the wrapper only cost time).
 */
export function getSchema(): Promise<GraphQLSchema> {
  // Subscriptions bring their own async iterators (services/events/events.service.ts); type-graphql's
  // pub/sub is never used, but it insists on one when a resolver declares a subscription.
  built ??= buildSchema({ resolvers: RESOLVERS, validate: false, emitSchemaFile: false, pubSub: UNUSED_PUBSUB });
  return built;
}

/** The SDL committed as schema/schema.graphql (sorted, so it diffs cleanly). */
export function printSdl(schema: GraphQLSchema): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
