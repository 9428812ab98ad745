import {
  GraphQLError,
  getNamedType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  OperationTypeNode,
  type FieldNode,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import { MAX_PAGE_SIZE } from '../services/shared/list-query.js';

/**
 * Fields below the root that make one SQL statement per page (loaded for every item of a list
 * at once). Root fields always make at least one.
 */
export const BATCHED_FIELDS = new Set(['AiConversation.agent', 'AiConversation.messages_count']);

/** Rows assumed for a list without `page_size` (configs, templates, metrics rows). */
const UNPAGED_LIST_ROWS = MAX_PAGE_SIZE;

/**
 * What a document may make the database do, counted before it runs: each root field is one
 * statement plus the rows it may read (its literal `page_size`, or the largest page when the size
 * is a variable or absent; a list without paging counts as a full page), and each batched field
 * below it one more statement plus a row per parent row. GraphQL Armor's cost rule counts the
 * document's shape only, so ten thousand aliases of a paged list would pass it; this does not.
 */
export function databaseCostRule(max: number, measured?: (n: number) => void): ValidationRule {
  return (context: ValidationContext) => ({
    OperationDefinition: {
      enter(operation) {
        const root =
          operation.operation === OperationTypeNode.MUTATION ? context.getSchema().getMutationType() : context.getSchema().getQueryType();
        if (!root) return;
        const cost = new DocumentCost(context).rootCost(operation.selectionSet, root);
        if (cost > max) {
          context.reportError(new GraphQLError(`Database cost limit of ${max} exceeded, found ${cost}.`, { nodes: [operation] }));
        } else {
          measured?.(cost);
        }
      },
    },
  });
}

class DocumentCost {
  /** Fragment costs by name and parent row count: every fragment is walked once per row count. */
  private readonly memo = new Map<string, number>();
  private readonly walking = new Set<string>();

  constructor(private readonly context: ValidationContext) {}

  rootCost(set: SelectionSetNode, root: GraphQLObjectType): number {
    let cost = 0;
    for (const field of this.fields(set, root)) {
      const def = root.getFields()[field.name.value];
      if (!def) continue;
      const rows = rowsOf(field, def.type);
      cost += 1 + rows + (field.selectionSet ? this.innerCost(field.selectionSet, def.type, rows) : 0);
    }
    return cost;
  }

  /** Batched fields below a root field whose parent holds `rows` rows. */
  private innerCost(set: SelectionSetNode, type: GraphQLOutputType, rows: number): number {
    const parent = getNamedType(type);
    if (!isObjectType(parent)) return 0;
    let cost = 0;
    for (const sel of set.selections) {
      if (sel.kind === Kind.FIELD) {
        const def = parent.getFields()[sel.name.value];
        if (!def) continue;
        if (BATCHED_FIELDS.has(`${parent.name}.${def.name}`)) cost += 1 + rows;
        if (sel.selectionSet) cost += this.innerCost(sel.selectionSet, def.type, rows);
      } else if (sel.kind === Kind.INLINE_FRAGMENT) {
        cost += this.innerCost(sel.selectionSet, parent, rows);
      } else {
        cost += this.fragmentCost(sel.name.value, parent, rows);
      }
    }
    return cost;
  }

  private fragmentCost(name: string, parent: GraphQLObjectType, rows: number): number {
    const key = `${name}:${parent.name}:${rows}`;
    const known = this.memo.get(key);
    if (known !== undefined) return known;
    const fragment = this.context.getFragment(name);
    if (!fragment || this.walking.has(key)) return 0; // unknown fragments and cycles are graphql's own errors
    this.walking.add(key);
    const cost = this.innerCost(fragment.selectionSet, parent, rows);
    this.walking.delete(key);
    this.memo.set(key, cost);
    return cost;
  }

  /** The root fields of a selection, through fragments (each fragment's fields listed once per spread). */
  private fields(set: SelectionSetNode, root: GraphQLObjectType, seen = new Set<string>()): FieldNode[] {
    const out: FieldNode[] = [];
    for (const sel of set.selections) {
      if (sel.kind === Kind.FIELD) out.push(sel);
      else if (sel.kind === Kind.INLINE_FRAGMENT) out.push(...this.fields(sel.selectionSet, root, seen));
      else {
        const fragment = this.context.getFragment(sel.name.value);
        if (!fragment || seen.has(sel.name.value)) continue; // a root fragment spread twice selects its fields once
        seen.add(sel.name.value);
        out.push(...this.fields(fragment.selectionSet, root, seen));
      }
    }
    return out;
  }
}

/** Rows a root field may read: its literal page size, the largest page, or 1 for an object. */
function rowsOf(field: FieldNode, type: GraphQLOutputType): number {
  const size = field.arguments?.find((a) => a.name.value === 'page_size');
  if (size) return size.value.kind === Kind.INT ? Math.min(Math.max(Number(size.value.value), 1), MAX_PAGE_SIZE) : MAX_PAGE_SIZE;
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) return UNPAGED_LIST_ROWS;
  const named = getNamedType(type);
  // a page object (items + pagination) without page_size still reads a default page
  return isObjectType(named) && 'items' in named.getFields() ? MAX_PAGE_SIZE : 1;
}
