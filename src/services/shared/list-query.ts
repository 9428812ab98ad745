import { raw } from '@mikro-orm/core';
import { validationError } from '../../errors/codes.js';

/**
 * The shared list parameters of CONTRACT §3: `where`, `orderBy`, `page`, `page_size`.
 * Input is parsed into a small tree over allow-listed attributes with typed, checked values;
 * the tree becomes a MikroORM filter (every value a bound parameter, every column from the
 * allow-list). Anything else is a 400 naming the parameter, attribute or operator.
 * A group may name a relation (`{"attribute": "agent", "conditions": [...]}`): its conditions
 * are over that relation's own allow-list, one level deep; the caller turns it into a subquery.
 */

/** The `pagination` object of a list answer (CONTRACT §3). */
export interface Pagination {
  current_page: number;
  page_size: number;
  total_pages: number;
  total: number;
  from: number | null;
  to: number | null;
}

/** `id`: a 64-bit record id (CONTRACT §16), exact below 2^53; `int`: a 32-bit integer column. */
export type AttributeType = 'int' | 'id' | 'string' | 'boolean' | 'timestamp';
export type Attributes = Readonly<Record<string, AttributeType>>;
/** Relations a group may name, with their attributes. */
export type Relations = Readonly<Record<string, Attributes>>;

export const OPERATORS = ['=', '!=', '<', '<=', '>', '>=', 'ilike', 'in', 'null', 'not_null'] as const;
export type Operator = (typeof OPERATORS)[number];

export type Scalar = number | string | boolean | Date | null;
/** `asText`: `ilike` on an integer attribute compares its decimal text. */
export type Condition = { attribute: string; op: Operator; value?: Scalar | Scalar[]; asText?: boolean };
export type Group = { conector: 'AND' | 'OR'; items: Node[] };
export type RelationGroup = { relation: string; where: Group };
export type Node = Condition | Group | RelationGroup;
/** Per relation: the filter on the list's entity that keeps rows whose related row matches `filter`. */
export type RelationFilters = Readonly<Record<string, (filter: Record<string, unknown>) => Record<string, unknown>>>;

export interface OrderKey {
  attribute: string;
  direction: 'asc' | 'desc';
}

export interface ListQuery {
  where: Group;
  orderBy: OrderKey[];
  page: number;
  page_size: number;
}

export interface ListInput {
  where?: unknown;
  orderBy?: string | null;
  page?: number | null;
  page_size?: number | null;
}

export const DEFAULT_PAGE_SIZE = 10;
export const MAX_PAGE_SIZE = 100;
/** GraphQL `Int` is 32-bit: the largest page a caller can name. */
export const MAX_PAGE = 2_147_483_647;
const MAX_WHERE_LENGTH = 10_000;
const MAX_CONDITIONS = 100;
const MAX_DEPTH = 5;
const MAX_IN_VALUES = 1_000;
const MAX_STRING = 1_000;
const INT_MAX = 2_147_483_647;
const ISO_DATE = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?)(Z|[+-]\d{2}(?::?\d{2})?)?)?$/;

/**
 * Words a caller may write in place of an attribute's value, per attribute (`{"assignee_id": "me"}`): the
 * word is replaced by its value before the value is checked against the attribute's type.
 */
export type ValueAliases = Readonly<Record<string, Readonly<Record<string, Scalar>>>>;

/** Parses and checks every list parameter; throws one 400 naming the first bad one. */
export function parseListQuery(input: ListInput, attributes: Attributes, relations: Relations = {}, aliases: ValueAliases = {}): ListQuery {
  return {
    where: parseWhere(input.where, attributes, relations, aliases),
    orderBy: parseOrderBy(input.orderBy, attributes),
    page: parseInteger('page', input.page, 1, 1, MAX_PAGE),
    page_size: parseInteger('page_size', input.page_size, DEFAULT_PAGE_SIZE, 1, MAX_PAGE_SIZE),
  };
}

function parseInteger(field: string, value: unknown, fallback: number, min: number, max: number): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
    throw validationError([{ field, rule: 'range', params: { min, max } }]);
  return value;
}

const whereError = () => validationError([{ field: 'where', rule: 'filter' }]);
const clip = (s: string) => (s.length > 64 ? `${s.slice(0, 64)}…` : s);

/** `where`: JSON text (REST) or an already parsed value (the graph's JSON scalar). */
export function parseWhere(text: unknown, attributes: Attributes, relations: Relations = {}, aliases: ValueAliases = {}): Group {
  if (text === undefined || text === null || text === '') return { conector: 'AND', items: [] };
  let value = text;
  if (typeof text === 'string') {
    if (text.length > MAX_WHERE_LENGTH) throw validationError([{ field: 'where', rule: 'max_length', params: { max: MAX_WHERE_LENGTH } }]);
    try {
      value = JSON.parse(text);
    } catch {
      throw validationError([{ field: 'where', key: 'malformed_json' }]);
    }
  }
  const scope: Scope = { attributes, relations, aliases, budget: { conditions: 0 } };
  if (Array.isArray(value)) return { conector: 'AND', items: value.map((item) => parseElement(item, scope, 1)) };
  if (isObject(value)) {
    if ('conditions' in value) return parseGroup(value, scope, 1);
    return { conector: 'AND', items: Object.entries(value).map(([attribute, v]) => literal(attribute, v, scope)) };
  }
  throw whereError();
}

/** What a level of the tree may name; relation groups get their relation's attributes and no relations. */
interface Scope {
  attributes: Attributes;
  relations: Relations;
  aliases: ValueAliases;
  budget: { conditions: number };
}

function parseElement(item: unknown, scope: Scope, depth: number): Node {
  if (!isObject(item)) throw whereError();
  if ('conditions' in item) return 'attribute' in item ? parseRelationGroup(item, scope, depth) : parseGroup(item, scope, depth);
  const keys = Object.keys(item);
  if (!('attribute' in item) || typeof item.attribute !== 'string' || keys.some((k) => k !== 'attribute' && k !== 'value')) {
    throw whereError();
  }
  if (!('value' in item)) throw whereError();
  const v = item.value;
  if (isObject(v)) return operation(item.attribute, v, scope);
  return literal(item.attribute, v, scope);
}

function parseGroup(group: Record<string, unknown>, scope: Scope, depth: number): Group {
  if (depth > MAX_DEPTH) throw whereError();
  if (Object.keys(group).some((k) => k !== 'conditions' && k !== 'conector')) throw whereError();
  const { conditions, conector = 'AND' } = group;
  if (!Array.isArray(conditions) || typeof conector !== 'string') throw whereError();
  const upper = conector.toUpperCase();
  if (upper !== 'AND' && upper !== 'OR') throw whereError();
  return { conector: upper, items: conditions.map((c) => parseElement(c, scope, depth + 1)) };
}

/** `{"attribute": "agent", "conditions": [...], "conector"?}`: conditions on the relation's attributes. */
function parseRelationGroup(group: Record<string, unknown>, scope: Scope, depth: number): RelationGroup {
  const { attribute, ...rest } = group;
  if (typeof attribute !== 'string') throw whereError();
  if (!Object.prototype.hasOwnProperty.call(scope.relations, attribute)) {
    attributeType(attribute, scope.attributes); // an unknown name is unknown; a known one is not a relation
    throw validationError([{ field: attribute, key: 'not_a_relation' }]);
  }
  const inner: Scope = { attributes: scope.relations[attribute], relations: {}, aliases: {}, budget: scope.budget };
  return { relation: attribute, where: parseGroup(rest, inner, depth) };
}

function attributeType(attribute: string, attributes: Attributes): AttributeType {
  if (!Object.prototype.hasOwnProperty.call(attributes, attribute)) {
    throw validationError([{ field: clip(attribute), key: 'unknown_attribute', params: { values: Object.keys(attributes) } }]);
  }
  return attributes[attribute];
}

function count(budget: { conditions: number }): void {
  if (++budget.conditions > MAX_CONDITIONS) throw whereError();
}

/** A literal: an exact match; an array means "any of"; null means "is null". */
function literal(attribute: string, v: unknown, { attributes, aliases, budget }: Scope): Condition {
  const type = attributeType(attribute, attributes);
  count(budget);
  v = dealias(aliases, attribute, v);
  if (v === null) return { attribute, op: 'null' };
  if (Array.isArray(v)) return { attribute, op: 'in', value: list(type, v) };
  return { attribute, op: '=', value: scalar(type, v) };
}

/** The value an alias word stands for (in an array, each element); anything else unchanged. */
function dealias(aliases: ValueAliases, attribute: string, v: unknown): unknown {
  const words = Object.prototype.hasOwnProperty.call(aliases, attribute) ? aliases[attribute] : null;
  if (!words) return v;
  const one = (x: unknown) => (typeof x === 'string' && Object.prototype.hasOwnProperty.call(words, x) ? words[x] : x);
  return Array.isArray(v) ? v.map(one) : one(v);
}

function operation(attribute: string, rawSpec: Record<string, unknown>, { attributes, aliases, budget }: Scope): Condition {
  const spec = 'value' in rawSpec ? { ...rawSpec, value: dealias(aliases, attribute, rawSpec.value) } : rawSpec;
  const type = attributeType(attribute, attributes);
  count(budget);
  if (Object.keys(spec).some((k) => k !== 'condition' && k !== 'value')) throw whereError();
  const op = spec.condition;
  if (typeof op !== 'string') throw whereError();
  if (!(OPERATORS as readonly string[]).includes(op)) throw validationError([{ field: clip(op), key: 'unknown_operator' }]);
  switch (op as Operator) {
    case 'null':
    case 'not_null':
      if ('value' in spec && spec.value !== null) throw whereError();
      return { attribute, op: op as Operator };
    case 'in':
      if (!Array.isArray(spec.value)) throw whereError();
      return { attribute, op: 'in', value: list(type, spec.value) };
    case 'ilike':
      // Strings, and integers as their decimal text (a search box: `id ilike '%42%'`).
      if (type !== 'string' && type !== 'int' && type !== 'id')
        throw validationError([{ field: clip(attribute), key: 'ilike_not_supported' }]);
      if (typeof spec.value !== 'string') throw whereError();
      return { attribute, op: 'ilike', value: scalar('string', spec.value), asText: type === 'int' || type === 'id' };
    case '=':
    case '!=':
    case '<':
    case '<=':
    case '>':
    case '>=':
      if (!('value' in spec) || spec.value === null || typeof spec.value === 'object') throw whereError();
      return { attribute, op: op as Operator, value: scalar(type, spec.value) };
  }
}

function list(type: AttributeType, values: unknown[]): Scalar[] {
  if (values.length > MAX_IN_VALUES) throw whereError();
  return values.map((v) => scalar(type, v));
}

/** A value of the attribute's type, or a 400: nothing unchecked reaches the database. */
function scalar(type: AttributeType, v: unknown): Scalar {
  switch (type) {
    case 'int':
      if (typeof v === 'number' && Number.isInteger(v) && Math.abs(v) <= INT_MAX) return v;
      if (typeof v === 'string' && /^-?\d{1,10}$/.test(v) && Math.abs(Number(v)) <= INT_MAX) return Number(v);
      break;
    case 'id':
      if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
      if (typeof v === 'string' && /^-?\d{1,18}$/.test(v) && Number.isSafeInteger(Number(v))) return Number(v);
      break;
    case 'boolean':
      if (typeof v === 'boolean') return v;
      break;
    case 'string':
      if (typeof v === 'string' && v.length <= MAX_STRING && !v.includes('\u0000')) return v;
      break;
    case 'timestamp': {
      const d = typeof v === 'string' ? timestamp(v) : null;
      if (d && !Number.isNaN(d.getTime()) && d.getUTCFullYear() >= 1 && d.getUTCFullYear() <= 9999) return d;
      break;
    }
  }
  throw whereError();
}

/**
 * ISO 8601 or `YYYY-MM-DD HH:mm:ss`; UTC when no zone is given, whatever the server's own zone
 * (JavaScript would read a zoneless date-time as local time).
 */
function timestamp(v: string): Date | null {
  const m = ISO_DATE.exec(v);
  if (!m) return null;
  const [, date, time, zone] = m;
  if (!time) return new Date(`${date}T00:00:00Z`);
  const offset =
    !zone || zone === 'Z'
      ? 'Z'
      : /^[+-]\d{2}$/.test(zone)
        ? `${zone}:00`
        : zone.includes(':')
          ? zone
          : `${zone.slice(0, 3)}:${zone.slice(3)}`;
  return new Date(`${date}T${time}${offset}`);
}

/** `orderBy=-created_at,id`: allow-listed attributes, `-` for descending; `id` ends every order. */
export function parseOrderBy(raw: string | null | undefined, attributes: Attributes): OrderKey[] {
  const keys: OrderKey[] = [];
  const seen = new Set<string>();
  if (raw != null && typeof raw !== 'string') throw validationError([{ field: 'orderBy', rule: 'string' }]);
  for (const part of (raw ?? '').split(',')) {
    const token = part.trim();
    if (!token) continue;
    const desc = token.startsWith('-');
    const attribute = desc ? token.slice(1) : token;
    attributeType(attribute, attributes);
    if (seen.has(attribute)) continue;
    seen.add(attribute);
    keys.push({ attribute, direction: desc ? 'desc' : 'asc' });
  }
  if (!seen.has('id')) keys.push({ attribute: 'id', direction: 'asc' });
  return keys;
}

const MIKRO_OPS: Partial<Record<Operator, string>> = {
  '=': '$eq',
  '!=': '$ne',
  '<': '$lt',
  '<=': '$lte',
  '>': '$gt',
  '>=': '$gte',
  ilike: '$ilike',
  in: '$in',
};

/**
 * Attributes that are no column but an SQL expression over the row (`alias` is the list's table alias),
 * with its bound parameters: a condition on one compares the expression, an order sorts by it.
 */
export type Computed = Readonly<Record<string, (alias: string) => { sql: string; params: unknown[] }>>;

/**
 * The parsed tree as a MikroORM filter: the ORM binds every value as a parameter. A relation
 * group becomes what `relations` makes of its inner filter (a subquery on the related table).
 */
export function toFilter(node: Node, relations: RelationFilters = {}, computed: Computed = {}): Record<string, unknown> {
  if ('relation' in node) {
    const inner = toFilter(node.where);
    const make = relations[node.relation];
    if (!make) throw new Error(`no filter for the relation ${node.relation}`);
    return Object.keys(inner).length ? make(inner) : {};
  }
  if ('items' in node) {
    // An empty group constrains nothing, at any depth.
    const parts = node.items.map((item) => toFilter(item, relations, computed)).filter((f) => Object.keys(f).length > 0);
    if (parts.length === 0) return {};
    return { [node.conector === 'AND' ? '$and' : '$or']: parts };
  }
  const { attribute, op } = node;
  const value = op === 'ilike' ? likePattern(node.value as string) : node.value;
  if (Object.prototype.hasOwnProperty.call(computed, attribute))
    return computedFilter(computed[attribute], op, value, node.asText === true);
  // The column is an allow-listed attribute name (never caller text); the pattern is a parameter.
  if (node.asText) return { [raw((alias: string) => `${alias}.${attribute}::text`)]: { $ilike: value } };
  if (op === 'null') return { [attribute]: null };
  if (op === 'not_null') return { [attribute]: { $ne: null } };
  if (value === null && op === '=') return { [attribute]: null };
  if (value === null && op === '!=') return { [attribute]: { $ne: null } };
  return { [attribute]: { [MIKRO_OPS[op]!]: value } };
}

/**
 * An `ilike` value as a LIKE pattern (CONTRACT §11): `%` and `_` stay wildcards, every other
 * character is literal. Backslash is LIKE's escape character, so each one is doubled: `a\b` finds
 * `a\b`, and a value ending in a backslash is a pattern, not a database error.
 */
export function likePattern(value: string): string {
  return value.replaceAll('\\', '\\\\');
}

/**
 * A condition on a computed attribute: the expression (its own parameters first) against the value; `asText`
 * (`ilike` on an integer, CONTRACT §11) compares the expression's decimal text.
 */
function computedFilter(expression: Computed[string], op: Operator, value: Condition['value'], asText = false): Record<string, unknown> {
  const key = (alias: string) => (asText ? `(${expression(alias).sql})::text` : `(${expression(alias).sql})`);
  const fragment = () => raw(key, expression('e').params);
  if (op === 'null') return { [fragment()]: null };
  if (op === 'not_null') return { [fragment()]: { $ne: null } };
  return { [fragment()]: { [MIKRO_OPS[op]!]: value } };
}

/** The order; a computed attribute sorts by its expression (the SQL and parameters of `computed`). */
export function toOrderBy(keys: OrderKey[], computed: Computed = {}): Record<string, 'asc' | 'desc'>[] {
  return keys.map((k) => {
    if (!Object.prototype.hasOwnProperty.call(computed, k.attribute)) return { [k.attribute]: k.direction };
    const expression = computed[k.attribute];
    return { [raw((alias: string) => `(${expression(alias).sql})`, expression('e').params)]: k.direction };
  });
}

/** The `pagination` block of CONTRACT §2. */
export function pagination(page: number, pageSize: number, total: number, returned: number): Pagination {
  const offset = (page - 1) * pageSize;
  return {
    current_page: page,
    page_size: pageSize,
    total_pages: Math.ceil(total / pageSize),
    total,
    from: returned > 0 ? offset + 1 : null,
    to: returned > 0 ? offset + returned : null,
  };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
