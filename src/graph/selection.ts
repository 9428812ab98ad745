import {
  getNamedType,
  isLeafType,
  isObjectType,
  Kind,
  parse,
  print,
  validate,
  type FieldNode,
  type GraphQLObjectType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { validationError } from '../errors/codes.js';
import { fragmentsOf, withFragments } from './operations.js';
import { getSchema } from './schema.js';

/**
 * The params tree of CONTRACT §3 as a GraphQL selection set. `params=id,status,agent.name`
 * becomes `{ id status agent { id name } }`; a bare relation (`agent`) is that type's default
 * projection (every field without arguments that is a leaf); `id` is always included. `fields`
 * (the messages list) is the same without relations. The selection replaces the one at `target`
 * in the route's named operation, the resulting document is validated against the schema, and
 * the printed document is cached per (operation, params) in a bounded map.
 */
export interface SelectionRequest {
  /** The query parameter the value came from, for error messages: `params` or `fields`. */
  parameter: 'params' | 'fields';
  /** The raw comma-separated value; empty or absent: the operation's own document. */
  value: unknown;
  /** The operation's source (the gateway's `base`). */
  base: string;
  /** Field path from the operation root to the list or object whose selection is replaced. */
  target: readonly string[];
  /** Whether dotted paths and bare relations are allowed. */
  relations: boolean;
  /** Fields always selected besides `id` (e.g. `messages_count`). */
  always?: readonly string[];
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const MAX_VALUE_LENGTH = 2_000;
const MAX_DEPTH = 3;
/** Built documents kept (the route plans keep as many compiled, beside the named operations: graph/plans.ts). */
export const SELECTION_CACHE_LIMIT = 500;
const cache = new Map<string, string>();

type Tree = Map<string, Tree>;

export async function documentWithSelection(req: SelectionRequest): Promise<string> {
  const { parameter, value, base } = req;
  if (value === undefined || value === null || value === '') return base;
  if (typeof value !== 'string') throw validationError([{ field: parameter, rule: 'string' }]);
  if (value.length > MAX_VALUE_LENGTH) throw validationError([{ field: parameter, rule: 'max_length', params: { max: MAX_VALUE_LENGTH } }]);
  const key = `${req.target.join('.')}|${req.relations ? 1 : 0}|${(req.always ?? []).join(',')}|${value}`;
  const hit = cache.get(key);
  if (hit !== undefined) {
    // Refresh its place: the map is evicted oldest first.
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const schema = await getSchema();
  const doc = parse(base, { noLocation: true });
  const op = doc.definitions[0] as OperationDefinitionNode;
  const targetType = typeAt(schema, req.target);
  const tree = parseTree(value, req.relations);
  const selection = selectionFor(targetType, tree, req.relations, req.always ?? [], '', 1);
  // Fragments the replaced selection no longer spreads are left out (an unused fragment is invalid).
  const built = withFragments({ ...op, selectionSet: replaceAt(op.selectionSet, req.target, selection) }, fragmentsOf(doc));
  if (validate(schema, built).length > 0) throw validationError([{ field: parameter }]);
  const source = print(built);
  if (cache.size >= SELECTION_CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(key, source);
  return source;
}

/** Entries cached now (tests). */
export function selectionCacheSize(): number {
  return cache.size;
}

function parseTree(value: string, relations: boolean): Tree {
  const tree: Tree = new Map();
  for (const raw of value.split(',')) {
    const token = raw.trim();
    if (!token) continue;
    const path = token.split('.');
    if (path.some((p) => !NAME.test(p)) || path.length > MAX_DEPTH || (!relations && path.length > 1)) throw unknown(token);
    let node = tree;
    for (const name of path) {
      let next = node.get(name);
      if (!next) node.set(name, (next = new Map()));
      node = next;
    }
  }
  return tree;
}

function unknown(field: string) {
  return validationError([{ field: field.length > 64 ? `${field.slice(0, 64)}…` : field, key: 'unknown_field' }]);
}

function selectionFor(
  type: GraphQLObjectType,
  tree: Tree,
  relations: boolean,
  always: readonly string[],
  prefix: string,
  depth: number,
): SelectionSetNode {
  const fields = type.getFields();
  const names = new Map<string, SelectionSetNode | undefined>();
  if (fields.id) names.set('id', undefined);
  for (const name of always) if (fields[name]) names.set(name, undefined);
  for (const [name, children] of tree) {
    const path = `${prefix}${name}`;
    const field = Object.prototype.hasOwnProperty.call(fields, name) ? fields[name] : undefined;
    if (!field || field.args.some((a) => a.type.toString().endsWith('!'))) throw unknown(path);
    const named = getNamedType(field.type);
    if (isLeafType(named)) {
      if (children.size > 0) throw unknown(`${path}.${[...children.keys()][0]}`);
      names.set(name, undefined);
    } else if (isObjectType(named) && relations && depth < MAX_DEPTH) {
      const sub = children.size > 0 ? children : defaultProjection(named);
      names.set(name, selectionFor(named, sub, relations, [], `${path}.`, depth + 1));
    } else {
      throw unknown(path);
    }
  }
  return {
    kind: Kind.SELECTION_SET,
    selections: [...names].map(([name, selectionSet]): FieldNode => ({
      kind: Kind.FIELD,
      name: { kind: Kind.NAME, value: name },
      ...(selectionSet ? { selectionSet } : {}),
    })),
  };
}

/** A relation's default projection: its leaf fields that take no arguments. */
function defaultProjection(type: GraphQLObjectType): Tree {
  const tree: Tree = new Map();
  for (const f of Object.values(type.getFields())) {
    if (f.args.length === 0 && isLeafType(getNamedType(f.type))) tree.set(f.name, new Map());
  }
  return tree;
}

function typeAt(schema: GraphQLSchema, target: readonly string[]): GraphQLObjectType {
  let type: GraphQLObjectType | null | undefined = schema.getQueryType();
  for (const name of target) {
    const field = type?.getFields()[name];
    const named = field && getNamedType(field.type);
    if (!named || !isObjectType(named)) throw new Error(`selection target ${target.join('.')} is not an object field`);
    type = named;
  }
  if (!type) throw new Error('no query type');
  return type;
}

function replaceAt(set: SelectionSetNode, target: readonly string[], replacement: SelectionSetNode): SelectionSetNode {
  if (target.length === 0) return replacement;
  const [head, ...rest] = target;
  let found = false;
  const selections = set.selections.map((s) => {
    if (s.kind !== Kind.FIELD || (s.alias?.value ?? s.name.value) !== head || !s.selectionSet) return s;
    found = true;
    return { ...s, selectionSet: replaceAt(s.selectionSet, rest, replacement) };
  });
  if (!found) throw new Error(`selection target ${head} is not in the operation`);
  return { ...set, selections };
}
