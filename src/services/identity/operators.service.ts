import { LEVEL } from '../../entities/user.js';
import type { RequestContext } from '../../context/index.js';
import { runStatement } from '../../db/direct-read.js';
import { assertAiAdmin, visibleBusinessIds } from './access.js';

/** A colleague a console can name and assign a conversation to (CONTRACT §10.6). */
export interface Operator {
  id: number;
  name: string | null;
  level: number;
  business_ids: number[];
}

/** A business a console names (its agents, its orders) and whose currency it shows amounts in. */
export interface BusinessName {
  id: number;
  name: string;
  currency: string;
}

/** More than a counter ever lists at once: the list stops there. */
export const OPERATORS_MAX = 500;

/**
 * `GET /ai/operators` (CONTRACT §10.6): the project's enabled users of levels 0 and 2 (who can see conversations), by
 * name, so a console shows authors and assignees by name and can assign a conversation to a colleague. A level-2
 * caller sees itself, the administrators (level 0: they see every business, so they share each of the caller's, and
 * §10.2 lets the caller assign a conversation to them) and those who share one of its businesses, each with only the
 * businesses they share (CONTRACT §11, fourth review: nothing of other businesses); administrators are listed with
 * `business_ids` [].
 */
export class OperatorService {
  async list(ctx: RequestContext): Promise<Operator[]> {
    assertAiAdmin(ctx);
    const { caller } = ctx;
    const owner = caller.kind === 'user' && caller.user.level === LEVEL.BUSINESS_OWNER ? caller.user.id : null;
    const rows = await runStatement<{ id: number; name: string | null; level: number; business_ids: number[] }>(
      ctx.em.getConnection(),
      `select u.id, nullif(trim(concat_ws(' ', u.name, u.lastname)), '') as name, u.level,
              case when u.level = ? then '{}'::bigint[] else coalesce(array_agg(ub.business_id order by ub.business_id)
                filter (where ub.business_id is not null and (?::bigint is null or ub.business_id in (
                  select mine.business_id from user_businesses mine where mine.project_id = u.project_id and mine.user_id = ?::bigint))), '{}') end
                as business_ids
         from users u left join user_businesses ub on ub.project_id = u.project_id and ub.user_id = u.id
        where u.project_id = ? and u.level in (?, ?) and u.enabled and not u.guest
          and (?::bigint is null or u.id = ?::bigint or u.level = ? or exists (
                select 1 from user_businesses mine join user_businesses theirs on theirs.business_id = mine.business_id
                 where mine.project_id = u.project_id and mine.user_id = ?::bigint and theirs.user_id = u.id))
        group by u.id
        order by name nulls last, u.id
        limit ${OPERATORS_MAX}`,
      [LEVEL.ADMIN, owner, owner, ctx.project.id, LEVEL.ADMIN, LEVEL.BUSINESS_OWNER, owner, owner, LEVEL.ADMIN, owner],
      ctx.em.getTransactionContext(),
    );
    return rows.map((r) => ({ id: Number(r.id), name: r.name, level: Number(r.level), business_ids: r.business_ids.map(Number) }));
  }

  /**
   * `GET /ai/businesses`: the businesses the caller may see (a business owner: theirs, §10.3), by name with their
   * currency (§15.1), so a console names them ("Pizzeria Centro", not "business 1") and writes amounts in their money.
   */
  async businesses(ctx: RequestContext): Promise<BusinessName[]> {
    assertAiAdmin(ctx);
    const scope = await visibleBusinessIds(ctx);
    const rows = await runStatement<{ id: number; name: string; currency: string }>(
      ctx.em.getConnection(),
      `select b.id, b.name, b.currency from businesses b
        where b.project_id = ? and (?::bigint[] is null or b.id = any(?::bigint[]))
        order by b.name, b.id
        limit ${OPERATORS_MAX}`,
      [ctx.project.id, scope, scope],
      ctx.em.getTransactionContext(),
    );
    return rows.map((r) => ({ id: Number(r.id), name: r.name, currency: r.currency }));
  }
}
