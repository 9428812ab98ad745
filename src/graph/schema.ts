import 'reflect-metadata';
import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
import { buildSchema } from 'type-graphql';
import { RESOLVERS } from '../resolvers/index.js';

let built: Promise<GraphQLSchema> | undefined;

/** The one schema, built once per process from the TypeGraphQL resolvers and entity types. */
export function getSchema(): Promise<GraphQLSchema> {
  built ??= buildSchema({ resolvers: RESOLVERS, validate: false, emitSchemaFile: false });
  return built;
}

/** The SDL committed as schema/schema.graphql (sorted, so it diffs cleanly). */
export function printSdl(schema: GraphQLSchema): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
