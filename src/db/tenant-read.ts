import {
  RawQueryFragment,
  ReferenceKind,
  type EntityMetadata,
  type EntityName,
  type FilterQuery,
  type QueryOrderMap,
} from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { TENANT_FILTER, type TenantEntity } from '../entities/tenant.js';
import { rowBuilder, selectMapped, selectRows, type ConnectionType } from './direct-read.js';

/**
 * Tenant-scoped reads without entities: plain objects (property names, JS values) straight from
 * MikroORM's QueryBuilder, with no entity instances, identity map or unit of work, for read paths
 * that change nothing. The project scope is not a condition the caller writes: it is taken from
 * the request's EntityManager (the tenant filter's parameter) and AND-ed in front of every query,
 * and an EntityManager without one is refused, so a read through here cannot leave its project.
 * Only entities extending TenantEntity are accepted (by type, and checked at run time).
 * The rows have the entity's prototype (so the graph takes them as the type they are) but are not
 * managed entities: never persist or `wrap` them. The `project` relation is the bare id; lazy
 * properties are absent unless `fields` names them.
 */

export interface ReadOptions<T> {
  /** Properties to select (default: every column). */
  fields?: readonly (keyof T & string)[];
  orderBy?: QueryOrderMap<T> | QueryOrderMap<T>[];
  limit?: number;
  offset?: number;
  /** 'read' for a replica when the caller routes through `readOnReplica` (db/replicas.ts); default the primary. */
  connectionType?: ConnectionType;
}

/** The project of a request-scoped EntityManager; throws when it has none. */
export function tenantOf(em: EntityManager): number {
  const projectId = em.getFilterParams<{ projectId?: number }>(TENANT_FILTER)?.projectId;
  if (!Number.isInteger(projectId)) throw new Error('tenant read without a project scope');
  return projectId as number;
}

function scoped<T extends TenantEntity>(em: EntityManager, entity: EntityName<T>, where: FilterQuery<T>, type?: ConnectionType) {
  const meta = em.getMetadata().get(typeof entity === 'string' ? entity : (entity as { name: string }).name);
  if (!meta.properties.project) throw new Error(`${meta.className} is not a tenant entity`);
  const projectId = tenantOf(em);
  const condition = where && Object.keys(where).length ? { $and: [{ project: projectId }, where] } : { project: projectId };
  return { meta, condition, qb: () => em.createQueryBuilder(entity, 'e', type).where(condition as never) };
}

/**
 * Building a query through the QueryBuilder costs more CPU than running it (≈0.4 ms against
 * ≈0.2 ms), so the SQL text is kept per query *shape*: the filter with its values replaced by
 * their types (arrays by their length), the fields, the order and whether there is a limit and an
 * offset. The values are collected in the same walk; the text is reused only when the
 * QueryBuilder's own bindings for the first query of that shape were exactly those values in that
 * order (otherwise that shape is always built afresh).
 */
const compiled = new Map<string, string | null>();
const MAX_SHAPES = 1000;

/** Raw SQL fragments (as keys or values) keep a query out of the kept shapes: their text is not in the shape. */
const RAW = Symbol('raw');

function shapeOf(v: unknown, values: unknown[]): string {
  if (v === null || v === undefined) return String(v);
  if (v instanceof RawQueryFragment) throw RAW;
  if (Array.isArray(v)) return `[${v.map((x) => shapeOf(x, values)).join(',')}]`;
  if (v instanceof Date) return (values.push(v), 'D');
  if (typeof v === 'object') {
    return `{${Object.keys(v)
      .map((k) => {
        if (RawQueryFragment.isKnownFragment(k)) throw RAW;
        return `${JSON.stringify(k)}:${shapeOf((v as Record<string, unknown>)[k], values)}`;
      })
      .join(',')}}`;
  }
  values.push(v);
  return (typeof v)[0];
}

/** The shape's key, or null when the condition holds raw SQL (such a query is always built afresh). */
function shapeKey(prefix: string, condition: unknown, values: unknown[]): string | null {
  try {
    return `${prefix}|${shapeOf(condition, values)}`;
  } catch (err) {
    if (err === RAW) return null;
    throw err;
  }
}

const sameValues = (a: readonly unknown[], b: readonly unknown[]) =>
  a.length === b.length && a.every((x, i) => x === b[i] || (x instanceof Date && b[i] instanceof Date && x.getTime() === b[i].getTime()));

/**
 * The SQL text of a query: kept per shape when the shape has one (see `compiled`), otherwise built.
 * `build` makes the QueryBuilder query; `values` are the shape's values in walk order.
 */
function sqlOf(
  key: string | null,
  values: readonly unknown[],
  build: () => { sql: string; bindings: readonly unknown[] },
): { sql: string; bindings: readonly unknown[] } {
  const kept = key === null ? null : compiled.get(key);
  if (kept) return { sql: kept, bindings: values };
  const query = build();
  if (kept === undefined && key !== null) {
    if (compiled.size >= MAX_SHAPES) compiled.delete(compiled.keys().next().value as string);
    compiled.set(key, sameValues(query.bindings, values) ? query.sql : null);
  }
  return query;
}

/** Rows of the request's project matching `where`. */
export async function readRows<T extends TenantEntity>(
  em: EntityManager,
  entity: EntityName<T>,
  where: FilterQuery<T>,
  opts: ReadOptions<T> = {},
): Promise<T[]> {
  const { meta, condition, qb: newQb } = scoped(em, entity, where, opts.connectionType);
  const values: unknown[] = [];
  const key = shapeKey(
    `${meta.className}|${opts.fields?.join(',') ?? '*'}|${JSON.stringify(opts.orderBy ?? null)}|${opts.limit !== undefined}|${!!opts.offset}`,
    condition,
    values,
  );
  if (opts.limit !== undefined) values.push(opts.limit);
  if (opts.offset) values.push(opts.offset);
  const { sql, bindings } = sqlOf(key, values, () => {
    const qb = newQb();
    if (opts.fields) qb.select(opts.fields as never);
    if (opts.orderBy) qb.orderBy(opts.orderBy);
    if (opts.limit !== undefined) qb.limit(opts.limit);
    if (opts.offset) qb.offset(opts.offset);
    return qb.getKnexQuery().toSQL();
  });
  return selectMapped(em, sql, bindings, (fields) => entityRows<T>(em, meta, fields), opts.connectionType);
}

type EntityRowOf<T> = (values: unknown[]) => T;
const entityMappers = new WeakMap<EntityMetadata, Map<string, EntityRowOf<any>>>();
const MAX_MAPPERS = 100;

/**
 * What readRows makes of a row: what MikroORM's result mapper (`driver.mapResult`) gives for the
 * same columns (each property from its column, in the entity's property order: booleans as
 * booleans, dates parsed as the ORM parses them, a many-to-one as its bare id; then the columns no
 * property maps), with the entity's prototype. The entity's prototype, not its constructor:
 * TypeGraphQL passes instances of the class through as they are but would build a new entity
 * (defaults, ORM setters) for every field resolver call. Made once per entity and column list,
 * straight from pg's arrays: the ORM's mapper wants an object keyed by column and builds a second
 * one property by property (with a map of the columns it used and a loop over the row), then the
 * prototype was swapped in (issue 45). The row is one object literal: never assigned through the
 * prototype, whose accessors (one per property) cost ~20 µs a row.
 * Entities the mapper treats specially (embeddables, composite references, inheritance) keep the ORM's.
 */
function entityRows<T>(em: EntityManager, meta: EntityMetadata, fields: readonly { name: string }[]): EntityRowOf<T> {
  let byColumns = entityMappers.get(meta);
  if (!byColumns) entityMappers.set(meta, (byColumns = new Map()));
  const key = fields.map((f) => f.name).join('\u0000');
  let mapper = byColumns.get(key);
  if (!mapper) {
    if (byColumns.size >= MAX_MAPPERS) byColumns.clear();
    byColumns.set(key, (mapper = compileEntityRows(em, meta, fields)));
  }
  return mapper;
}

function compileEntityRows<T>(em: EntityManager, meta: EntityMetadata, fields: readonly { name: string }[]): EntityRowOf<T> {
  const driver = em.getDriver();
  const special =
    !!meta.discriminatorColumn ||
    !!meta.polymorphs?.length ||
    meta.props.some((p) => p.embedded || p.kind === ReferenceKind.EMBEDDED || (p.fieldNames?.length ?? 0) > 1);
  // the ORM's own mapper, over a column-named object, then the entity's prototype
  const viaOrm = (): EntityRowOf<T> => {
    const asObject = rowBuilder(fields);
    return (v) => Object.setPrototypeOf(driver.mapResult(asObject(v) as never, meta), meta.prototype) as T;
  };
  if (special) return viaOrm();
  const platform = driver.getPlatform();
  const tz = platform.getTimezone();
  // as the ORM's result mapper (EntityComparator.getResultMapper) turns a date column's value into a Date
  const date = (value: unknown): unknown => {
    if (value == null || value instanceof Date) return value;
    if (typeof value === 'bigint') return platform.parseDate(Number(value));
    if (!tz || tz === 'local') return platform.parseDate(value as string);
    const text = value as string;
    if (typeof value === 'number' || text.includes('+') || text.lastIndexOf('-') > 10 || text.endsWith('Z'))
      return platform.parseDate(value as string);
    return platform.parseDate(text + tz);
  };
  const column = new Map<string, number>();
  fields.forEach((f, i) => column.set(f.name, i)); // a repeated column: its last value, as in pg's objects
  const entries: string[] = [];
  const set = new Set<string>();
  const used = new Set<string>();
  for (const prop of meta.props) {
    if (!prop.fieldNames?.length) continue;
    const i = column.get(prop.fieldNames[0]);
    if (i === undefined) continue;
    const value =
      prop.runtimeType === 'boolean'
        ? `v[${i}] == null ? v[${i}] : !!v[${i}]`
        : prop.runtimeType === 'Date' && !platform.isNumericProperty(prop)
          ? `date(v[${i}])`
          : `v[${i}]`;
    entries.push(`${JSON.stringify(prop.name)}: ${value}`);
    set.add(prop.name);
    used.add(prop.fieldNames[0]);
  }
  // the columns no property maps (a property's own value, never undefined from pg, stays)
  for (const [name, i] of column) {
    if (!used.has(name) && !set.has(name) && !(name in Object.prototype)) entries.push(`${JSON.stringify(name)}: v[${i}]`);
  }
  // One literal: its properties are defined, not assigned, so the prototype's accessors (MikroORM
  // puts one on the prototype for every property) are never called, and every row has one shape.
  // `__proto__` as a name would set the prototype: such a list keeps the ORM's mapper.
  if ([...set, ...column.keys()].includes('__proto__')) return viaOrm();
  const make = new Function('proto', 'date', `return function (v) {\n  return { __proto__: proto, ${entries.join(', ')} };\n};`);
  return make(meta.prototype, date) as EntityRowOf<T>;
}

/**
 * A row of `entity` read by a statement of the caller's own (its columns as `alias.column`, from
 * `columnsOf`), as readRows gives them: property names and JS values, the entity's prototype, not managed.
 */
export function entityRow<T extends TenantEntity>(em: EntityManager, entity: EntityName<T>, row: Record<string, unknown>): T {
  const meta = em.getMetadata().get(typeof entity === 'string' ? entity : (entity as { name: string }).name);
  return Object.setPrototypeOf(em.getDriver().mapResult(row as never, meta), meta.prototype) as T;
}

/** The columns readRows selects of `entity` by default (its lazy properties left out), as `alias.column`. */
export function columnsOf<T extends TenantEntity>(em: EntityManager, entity: EntityName<T>, alias: string): string[] {
  const meta = em.getMetadata().get(typeof entity === 'string' ? entity : (entity as { name: string }).name);
  return meta.props
    .filter((p) => !p.lazy && p.persist !== false && p.fieldNames?.length)
    .flatMap((p) => p.fieldNames.map((f) => `${alias}.${f}`));
}

/** The first row of the request's project matching `where`, or null. */
export async function readOne<T extends TenantEntity>(
  em: EntityManager,
  entity: EntityName<T>,
  where: FilterQuery<T>,
  opts: Omit<ReadOptions<T>, 'limit' | 'offset'> = {},
): Promise<T | null> {
  const [row] = await readRows(em, entity, where, { ...opts, limit: 1 });
  return row ?? null;
}

/** How many rows of the request's project match `where`. */
export async function countRows<T extends TenantEntity>(
  em: EntityManager,
  entity: EntityName<T>,
  where: FilterQuery<T>,
  connectionType?: ConnectionType,
): Promise<number> {
  const { meta, condition, qb } = scoped(em, entity, where, connectionType);
  const values: unknown[] = [];
  const key = shapeKey(`${meta.className}|count`, condition, values);
  const { sql, bindings } = sqlOf(key, values, () => qb().count().getKnexQuery().toSQL());
  const [row] = await selectRows<{ count: number | string }>(em, sql, bindings, connectionType);
  return Number(row.count);
}
