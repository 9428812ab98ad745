import { Arg, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import { Project } from '../entities/project.js';
import type { RequestContext } from '../context/index.js';
import { ACCESS, assertAccess } from '../services/identity/access.js';

/** Internal tools: the project the credential belongs to, and the application switches. */
@Resolver()
export class SystemResolver {
  @Query(() => Project, { description: 'The project of the calling key or token.' })
  project(@Ctx() ctx: RequestContext): Project {
    assertAccess(ctx, ACCESS.INTERNAL);
    return ctx.project;
  }

  @Query(() => Boolean, { description: 'Whether the application is in maintenance.' })
  applicationMaintenance(@Ctx() ctx: RequestContext): Promise<boolean> {
    assertAccess(ctx, ACCESS.INTERNAL);
    return ctx.services.settings.maintenance();
  }

  @Mutation(() => Boolean, { description: 'Turns application maintenance on or off for every process within seconds.' })
  setApplicationMaintenance(@Ctx() ctx: RequestContext, @Arg('enabled', () => Boolean) enabled: boolean): Promise<boolean> {
    assertAccess(ctx, ACCESS.INTERNAL);
    return ctx.services.settings.setMaintenance(enabled);
  }
}
