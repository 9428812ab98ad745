import type { EventArgs, EventSubscriber } from '@mikro-orm/core';
import { TENANT_FILTER, TenantEntity } from '../entities/tenant.js';

/**
 * The insert half of tenant isolation: a tenant entity may only be written through an entity
 * manager scoped to a project, and only for that project. The read half is the tenant filter.
 */
export class TenantGuard implements EventSubscriber {
  beforeCreate(args: EventArgs<unknown>): void {
    this.check(args);
  }

  beforeUpdate(args: EventArgs<unknown>): void {
    this.check(args);
  }

  private check({ entity, em }: EventArgs<unknown>): void {
    if (!(entity instanceof TenantEntity)) return;
    const scope = em.getFilterParams<{ projectId?: number }>(TENANT_FILTER);
    const projectId = entity.project?.id;
    if (scope?.projectId === undefined) throw new Error('tenant write without a project scope');
    if (projectId !== scope.projectId) throw new Error('tenant write for another project');
  }
}
