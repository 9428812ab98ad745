import { Filter, ManyToOne, type Ref } from '@mikro-orm/core';
import { Project } from './project.js';

export const TENANT_FILTER = 'tenant';

/**
 * Tenant scoping by construction: every entity extending this carries its project and is
 * filtered by it on every find. The filter is on by default and needs the request's project id
 * as a parameter, so a query made without a tenant context fails instead of reading across projects.
 * Inserts are guarded by TenantGuard (db/tenant-guard.ts).
 */
@Filter({
  name: TENANT_FILTER,
  cond: (args: { projectId: number }) => ({ project: args.projectId }),
  default: true,
})
export abstract class TenantEntity {
  @ManyToOne(() => Project, { ref: true, hidden: true })
  project!: Ref<Project>;
}
