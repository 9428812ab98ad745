import {
  getNamedType,
  isEnumType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  isUnionType,
  Kind,
  typeFromAST,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type GraphQLCompositeType,
} from 'graphql';
import type { JSONSchema } from './json-schema.js';
import { FIELD_SCHEMAS, GRAPHQL_TYPE } from './openapi/records.js';

/**
 * The JSON Schema (OpenAPI 3.1: `null` as a type) of what a named operation answers, from its selection
 * set over the schema's types: each selected field (by its alias) with its type, `required` unless an
 * @include/@skip or a fragment on a narrower type makes it conditional (a selected field is always in
 * the answer; `null` is allowed where the schema says nullable). Built-in scalars map to their JSON
 * types, `DateTimeISO` to a date-time string, `JSON` to any JSON value (or what FIELD_SCHEMAS says the
 * field holds), enums to their values. This is
 * how /openapi.json documents each route's 200 answer without a schema written by hand (rest/gateway.ts).
 */
export function operationDataSchema(schema: GraphQLSchema, document: DocumentNode): JSONSchema {
  const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  if (!operation) throw new Error('the document has no operation');
  const root = schema.getRootType(operation.operation);
  if (!root) throw new Error(`the schema has no ${operation.operation} type`);
  const fragments = new Map(
    document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]),
  );
  return selectionSchema(schema, root, operation.selectionSet, fragments);
}

const SCALARS: Record<string, JSONSchema> = {
  Int: { type: 'integer' },
  Float: { type: 'number' },
  String: { type: 'string' },
  ID: { type: 'string' },
  Boolean: { type: 'boolean' },
  DateTimeISO: { type: 'string', format: 'date-time' },
  DateTime: { type: 'string', format: 'date-time' },
  SafeInt: { type: 'integer', format: 'int64' },
  // an agent's credentials: which keys are stored, never a value (resolvers/agent.resolver.ts)
  CredentialFlags: {
    type: 'object',
    additionalProperties: { type: 'boolean' },
    example: { waba_id: true, phone_number_id: true, access_token: true, app_secret: false, verify_token: false, dataset_id: false },
  },
};

function selectionSchema(
  schema: GraphQLSchema,
  parent: GraphQLCompositeType,
  selectionSet: SelectionSetNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
): JSONSchema {
  const properties: Record<string, JSONSchema> = {};
  const required: string[] = [];
  const visit = (set: SelectionSetNode, on: GraphQLCompositeType, conditional: boolean) => {
    for (const selection of set.selections) {
      const maybe = conditional || !!selection.directives?.some((d) => d.name.value === 'include' || d.name.value === 'skip');
      if (selection.kind === Kind.FIELD) {
        const key = selection.alias?.value ?? selection.name.value;
        properties[key] = fieldSchema(schema, on, selection, fragments).schema;
        if (!maybe && !required.includes(key)) required.push(key);
      } else {
        const fragment = selection.kind === Kind.FRAGMENT_SPREAD ? fragments.get(selection.name.value) : selection;
        if (!fragment) continue;
        const condition = fragment.typeCondition ? typeFromAST(schema, fragment.typeCondition) : on;
        // A fragment on another type of an abstract parent applies only to some answers.
        const narrower = condition !== on;
        visit(fragment.selectionSet, (condition ?? on) as GraphQLCompositeType, maybe || narrower);
      }
    }
  };
  visit(selectionSet, parent, false);
  return { type: 'object', [GRAPHQL_TYPE]: parent.name, properties, ...(required.length && { required }) };
}

function fieldSchema(
  schema: GraphQLSchema,
  parent: GraphQLCompositeType,
  node: FieldNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
): { schema: JSONSchema; nullable: boolean } {
  const name = node.name.value;
  if (name === '__typename') return { schema: { type: 'string' }, nullable: false };
  const def = isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[name] : undefined;
  if (!def) return { schema: {}, nullable: true };
  const known = FIELD_SCHEMAS[`${parent.name}.${name}`];
  if (known) return isNonNullType(def.type) ? { schema: known, nullable: false } : { schema: nullable(known), nullable: true };
  return outputSchema(schema, def.type, node, fragments);
}

function outputSchema(
  schema: GraphQLSchema,
  type: GraphQLOutputType,
  node: FieldNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
): { schema: JSONSchema; nullable: boolean } {
  if (isNonNullType(type)) return { schema: bareSchema(schema, type.ofType, node, fragments), nullable: false };
  return { schema: nullable(bareSchema(schema, type, node, fragments)), nullable: true };
}

/** The schema of a value of `type` that is present (nullability is the caller's). */
function bareSchema(
  schema: GraphQLSchema,
  type: GraphQLOutputType,
  node: FieldNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
): JSONSchema {
  if (isNonNullType(type)) return bareSchema(schema, type.ofType, node, fragments);
  if (isListType(type)) {
    const item = outputSchema(schema, type.ofType, node, fragments);
    return { type: 'array', items: item.schema };
  }
  if (isScalarType(type)) return SCALARS[type.name] ?? { description: `any JSON value (${type.name})` };
  if (isEnumType(type)) return { type: 'string', enum: type.getValues().map((v) => v.value) };
  if (isUnionType(type) || isInterfaceType(type) || isObjectType(type)) {
    return node.selectionSet ? selectionSchema(schema, getNamedType(type) as GraphQLObjectType, node.selectionSet, fragments) : {};
  }
  return {};
}

/** `schema` or null (OpenAPI 3.1: `null` joins the type, or the enum). */
export function nullable(schema: JSONSchema): JSONSchema {
  const keys = Object.keys(schema).filter((k) => k !== 'description');
  // an empty schema (any JSON value) already admits null
  if (keys.length === 0) return schema;
  const { type, enum: values } = schema as { type?: string | string[]; enum?: unknown[] };
  if (type === undefined) {
    const { description, ...rest } = schema;
    const anyOf = (rest.anyOf as JSONSchema[] | undefined) ?? (rest.oneOf as JSONSchema[] | undefined);
    if (anyOf && Object.keys(rest).length === 1) {
      if (anyOf.some((s) => s.type === 'null')) return schema;
      return { ...(description !== undefined && { description }), [rest.anyOf ? 'anyOf' : 'oneOf']: [...anyOf, { type: 'null' }] };
    }
    return { ...(description !== undefined && { description }), anyOf: [rest, { type: 'null' }] };
  }
  const types = Array.isArray(type) ? type : [type];
  return {
    ...schema,
    type: types.includes('null') ? types : [...types, 'null'],
    ...(values && !values.includes(null) && { enum: [...values, null] }),
  };
}

/** The root field of an answer of one root field, else the whole data object (what `rootField` returns at runtime). */
export function rootFieldSchema(data: JSONSchema): JSONSchema {
  const properties = (data.properties ?? {}) as Record<string, JSONSchema>;
  const keys = Object.keys(properties);
  return keys.length === 1 ? properties[keys[0]] : data;
}

/** The schema of `data.path[0].path[1]…`, or undefined when the selection has no such field. */
export function propertyAt(data: JSONSchema, ...path: string[]): JSONSchema | undefined {
  let at: JSONSchema | undefined = data;
  for (const key of path) at = (at?.properties as Record<string, JSONSchema> | undefined)?.[key];
  return at;
}
