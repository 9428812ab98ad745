import type { EntityName, FilterQuery, QueryOrderMap } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { TENANT_FILTER, type TenantEntity } from '../entities/tenant.js';

/**
 * Tenant-scoped reads without entities: plain objects (property names, JS values) straight from
 * MikroORM's QueryBuilder, with no entity instances, identity map or unit of work, for read paths
 * that change nothing. The project scope is not a condition the caller writes: it is taken from
 * the request's EntityManager (the tenant filter's parameter) and AND-ed in front of every query,
 * and an EntityManager without one is refused, so a read through here cannot leave its project.
 * Only entities extending TenantEntity are accepted (by type, and checked at run time).
 * The rows are typed as the entity for the graph's sake, but they are plain objects: the
 * `project` relation is the bare id, lazy properties are absent unless `fields` names them.
 */

export interface ReadOptions<T> {
  /** Properties to select (default: every column). */
  fields?: readonly (keyof T & string)[];
  orderBy?: QueryOrderMap<T> | QueryOrderMap<T>[];
  limit?: number;
  offset?: number;
}

/** The project of a request-scoped EntityManager; throws when it has none. */
export function tenantOf(em: EntityManager): number {
  const projectId = em.getFilterParams<{ projectId?: number }>(TENANT_FILTER)?.projectId;
  if (!Number.isInteger(projectId)) throw new Error('tenant read without a project scope');
  return projectId as number;
}

function scoped<T extends TenantEntity>(em: EntityManager, entity: EntityName<T>, where: FilterQuery<T>) {
  const meta = em.getMetadata().get(typeof entity === 'string' ? entity : (entity as { name: string }).name);
  if (!meta.properties.project) throw new Error(`${meta.className} is not a tenant entity`);
  const projectId = tenantOf(em);
  const condition = where && Object.keys(where).length ? { $and: [{ project: projectId }, where] } : { project: projectId };
  return em.createQueryBuilder(entity, 'e').where(condition as never);
}

/** Rows of the request's project matching `where`. */
export async function readRows<T extends TenantEntity>(
  em: EntityManager,
  entity: EntityName<T>,
  where: FilterQuery<T>,
  opts: ReadOptions<T> = {},
): Promise<T[]> {
  const qb = scoped(em, entity, where);
  if (opts.fields) qb.select(opts.fields as never);
  if (opts.orderBy) qb.orderBy(opts.orderBy as never);
  if (opts.limit !== undefined) qb.limit(opts.limit);
  if (opts.offset) qb.offset(opts.offset);
  return (await qb.execute('all')) as T[];
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
export async function countRows<T extends TenantEntity>(em: EntityManager, entity: EntityName<T>, where: FilterQuery<T>): Promise<number> {
  const row = (await scoped(em, entity, where).count().execute('get')) as { count: number | string };
  return Number(row.count);
}
