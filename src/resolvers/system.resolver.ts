import { Arg, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import { Project } from '../entities/project.js';
import type { GraphContext, RequestContext } from '../context/index.js';
import { ACCESS, assertAccess, assertOperator } from '../services/identity/access.js';

/**
 * Internal tools: the project the credential belongs to; and the application switch, which is the
 * operator's (CONTRACT §11). Reading it is the operator's too: a tenant learns of maintenance from
 * the 503 every request of it gets meanwhile.
 */
@Resolver()
export class SystemResolver {
  @Query(() => Project, { description: 'The project of the calling key or token.' })
  project(@Ctx() ctx: RequestContext): Project {
    assertAccess(ctx, ACCESS.INTERNAL);
    return ctx.project;
  }

  @Query(() => Boolean, { description: 'Whether the application is in maintenance (the operator only).' })
  applicationMaintenance(@Ctx() ctx: GraphContext): Promise<boolean> {
    assertOperator(ctx);
    return ctx.services.settings.maintenance();
  }

  @Mutation(() => Boolean, { description: 'Turns application maintenance on or off for every process within seconds (the operator only).' })
  setApplicationMaintenance(@Ctx() ctx: GraphContext, @Arg('enabled', () => Boolean) enabled: boolean): Promise<boolean> {
    assertOperator(ctx);
    return ctx.services.settings.setMaintenance(enabled);
  }
}
