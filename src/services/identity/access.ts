import { UserBusiness } from '../../entities/user-business.js';
import { LEVEL } from '../../entities/user.js';
import { appError } from '../../errors/codes.js';
import { isOperator, type GraphContext, type OperatorContext, type RequestContext } from '../../context/index.js';

/** Who may run an operation. The REST gateway and the services read the same policy. */
export interface Access {
  anonymous?: boolean;
  /** User levels allowed; 'any' lets every authenticated user in, guests included. */
  levels?: readonly number[] | 'any';
  server?: boolean;
}

export const ACCESS = {
  OPEN: { anonymous: true, levels: 'any', server: true },
  AUTHENTICATED: { levels: 'any', server: true },
  AI_ADMIN: { levels: [LEVEL.ADMIN, LEVEL.BUSINESS_OWNER], server: true },
  INTERNAL: { levels: [LEVEL.ADMIN], server: true },
} as const satisfies Record<string, Access>;

export function isAllowed(ctx: Pick<RequestContext, 'caller'>, access: Access): boolean {
  const { caller } = ctx;
  if (caller.kind === 'anonymous') return access.anonymous === true;
  if (caller.kind === 'server') return access.server === true;
  if (!access.levels) return false;
  return access.levels === 'any' || access.levels.includes(caller.user.level);
}

/** 401 unless the caller is allowed. */
export function assertAccess(ctx: Pick<RequestContext, 'caller'>, access: Access): void {
  if (!isAllowed(ctx, access)) throw appError('ERROR_UNAUTHORIZED');
}

/**
 * Operator settings (application maintenance, usage limits): the operator only. Anyone else who
 * reaches a resolver (a project's server key or level-0 user: /graphql admits no one else) gets
 * ERROR_FORBIDDEN, and nothing changes.
 */
export function assertOperator(ctx: GraphContext): asserts ctx is OperatorContext {
  if (!isOperator(ctx)) throw appError('ERROR_FORBIDDEN');
}

/** Root fields the operator's context may run (rest/graphql-route.ts checks a document against them before executing it). */
export const OPERATOR_FIELDS: ReadonlySet<string> = new Set([
  'applicationMaintenance',
  'setApplicationMaintenance',
  'setProjectRateLimits',
  '__typename',
]);

/** 403 when the project's AI module is off. */
export function assertAiModule(ctx: Pick<RequestContext, 'project'>): void {
  if (!ctx.project.ai_enabled) throw appError('ERROR_AI_MODULE_DISABLED');
}

/** The AI operations' guard: level/key first (401), then the module (403). */
export function assertAiAdmin(ctx: RequestContext): void {
  assertAccess(ctx, ACCESS.AI_ADMIN);
  assertAiModule(ctx);
}

/**
 * The businesses a caller may see: `null` means all of the project (administrators, server
 * keys); a business owner sees the businesses they own.
 */
export async function visibleBusinessIds(ctx: RequestContext): Promise<number[] | null> {
  const { caller } = ctx;
  if (caller.kind !== 'user' || caller.user.level !== LEVEL.BUSINESS_OWNER) return null;
  const rows = await ctx.em.find(UserBusiness, { user_id: caller.user.id }, { fields: ['business_id'] });
  return rows.map((r) => r.business_id);
}
