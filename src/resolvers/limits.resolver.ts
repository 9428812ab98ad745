import { Arg, Ctx, Field, InputType, Int, Mutation, registerEnumType, Resolver } from 'type-graphql';
import { Project, type RateLimitRule } from '../entities/project.js';
import { validationError, type Problem } from '../errors/codes.js';
import type { GraphContext, RequestContext } from '../context/index.js';
import { ACCESS, assertAccess, assertOperator } from '../services/identity/access.js';

export enum RateLimitScope {
  project = 'project',
  ip = 'ip',
  user = 'user',
}
export enum RateLimitOnError {
  open = 'open',
  closed = 'closed',
}
registerEnumType(RateLimitScope, {
  name: 'RateLimitScope',
  description: 'What a usage limit counts by: the project, the client address or the user.',
});
registerEnumType(RateLimitOnError, {
  name: 'RateLimitOnError',
  description: 'When the counting store fails: open lets requests through, closed answers 503.',
});

@InputType({ description: 'One usage limit of a project.' })
export class RateLimitRuleInput {
  @Field(() => RateLimitScope) scope!: RateLimitScope;
  @Field(() => Int, { description: 'Requests allowed per window (positive).' }) points!: number;
  @Field(() => Int, { description: 'Window length in seconds (positive).' }) duration_s!: number;
  @Field(() => Int, { nullable: true, description: 'Excesses within ban_s seconds that ban the subject; with ban_s.' }) ban_after?:
    number | null;
  @Field(() => Int, { nullable: true, description: 'Ban length in seconds; with ban_after.' }) ban_s?: number | null;
  @Field(() => RateLimitOnError, { nullable: true, description: 'Default open.' }) on_error?: RateLimitOnError | null;
}

const MAX_RULES = 20;
const MAX_SECONDS = 366 * 24 * 3600;

/**
 * A project's usage limits are the operator's, named by the project's code; its maintenance flag
 * is the project's own (its level 0 and server keys). A change reaches this process at once and
 * every other process within the project cache's 2 seconds.
 */
@Resolver()
export class LimitsResolver {
  @Mutation(() => Project, {
    description: 'Replaces the usage limits of the project named by its code (an empty list turns them off; the operator only).',
  })
  async setProjectRateLimits(
    @Ctx() ctx: GraphContext,
    @Arg('project', () => String, { description: 'The project code.' }) project: string,
    @Arg('rules', () => [RateLimitRuleInput]) rules: RateLimitRuleInput[],
  ): Promise<Project> {
    assertOperator(ctx);
    const valid = validRules(rules);
    const found = await ctx.services.deps.orm.em.fork().findOne(Project, { code: project });
    if (!found) throw validationError([{ field: 'project' }]);
    return update(ctx, found, { rate_limits: valid });
  }

  @Mutation(() => Project, { description: "Turns maintenance of the caller's project on or off (503 for its operations but this one)." })
  async setProjectMaintenance(@Ctx() ctx: RequestContext, @Arg('enabled', () => Boolean) enabled: boolean): Promise<Project> {
    assertAccess(ctx, ACCESS.INTERNAL);
    return update(ctx, ctx.project, { maintenance: enabled });
  }
}

async function update(
  ctx: GraphContext,
  project: Project,
  changes: Partial<Pick<Project, 'rate_limits' | 'maintenance'>>,
): Promise<Project> {
  const em = ctx.services.deps.orm.em.fork();
  await em.nativeUpdate(Project, { id: project.id }, { ...changes, updated_at: new Date() });
  ctx.services.tenancy.forgetProject(project.code);
  return em.findOneOrFail(Project, { id: project.id });
}

function validRules(rules: RateLimitRuleInput[]): RateLimitRule[] {
  const problems: Problem[] = [];
  const bad = (field: string, rule?: Problem['rule'], params?: Problem['params']) => problems.push({ field, rule, params });
  const inRange = (n: number | null | undefined, max: number) => typeof n === 'number' && Number.isInteger(n) && n > 0 && n <= max;
  if (rules.length > MAX_RULES) bad('rules', 'max_items', { max: MAX_RULES });
  const out = rules.map((r, i): RateLimitRule => {
    const at = `rules[${i}]`;
    if (!Object.values(RateLimitScope).includes(r.scope)) bad(`${at}.scope`, 'enum', { values: Object.values(RateLimitScope) });
    if (!inRange(r.points, 2 ** 31 - 1)) bad(`${at}.points`, 'range', { min: 1, max: 2 ** 31 - 1 });
    if (!inRange(r.duration_s, MAX_SECONDS)) bad(`${at}.duration_s`, 'range', { min: 1, max: MAX_SECONDS });
    const hasBan = r.ban_after != null || r.ban_s != null;
    if (hasBan && !inRange(r.ban_after, 2 ** 31 - 1)) bad(`${at}.ban_after`, 'range', { min: 1, max: 2 ** 31 - 1 });
    if (hasBan && !inRange(r.ban_s, MAX_SECONDS)) bad(`${at}.ban_s`, 'range', { min: 1, max: MAX_SECONDS });
    if (r.on_error != null && !Object.values(RateLimitOnError).includes(r.on_error))
      bad(`${at}.on_error`, 'enum', { values: Object.values(RateLimitOnError) });
    return {
      scope: r.scope,
      points: r.points,
      duration_s: r.duration_s,
      ...(hasBan ? { ban_after: r.ban_after!, ban_s: r.ban_s! } : {}),
      on_error: r.on_error ?? 'open',
    };
  });
  if (problems.length) throw validationError(problems);
  return out;
}
