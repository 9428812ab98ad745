import { appError } from '../../errors/codes.js';
import type { RequestContext } from '../../context/index.js';
import { assertAiAdmin, visibleBusinessIds } from '../identity/access.js';
import { bothAgg, convAgg, orderAgg, productAgg, type ConvAgg, type OrderAgg, type Scope } from './aggregates.js';
import { runSeries } from './series.js';
import { planSeries, type MetricsSeries, type SeriesArgs } from './series-plan.js';
import { resolvePeriod } from './period.js';
import { businessFilter, round2, type Bind, type MetricsArgs, type MetricsMode } from './shared.js';

export { businessFilter, round2, type Bind, type MetricsArgs, type MetricsMode };

export interface Comparison {
  current: number;
  previous: number;
  change_percentage: number;
}

export interface AgentMetric {
  provider: string;
  provider_type: string;
  orders: number;
  revenue: number;
  participation_percentage: number;
}

export interface ChatMetrics {
  active_chats: { current: number };
  total_chats: Comparison;
  completed_chats: Comparison;
  abandoned_chats: Comparison;
  failed_chats: Comparison;
  success_rate: Comparison;
}

export interface OrderMetrics {
  total_orders: Comparison;
  total_revenue: Comparison;
  average_revenue: Comparison;
  completed_orders: Comparison;
  cancelled_orders: Comparison;
  active_orders: Comparison;
}

export interface PerformanceMetrics {
  average_cost: Comparison;
  average_response_time_ms: Comparison;
  human_minutes_saved: Comparison;
  roi: Comparison;
  conversion_rate: Comparison;
}

export interface ProductMetric {
  product_id: number | null;
  name: string;
  times_sold: number;
  orders: number;
  revenue: number;
}

export interface ProviderTypeComparison extends Comparison {
  provider_type: string;
}

export interface OverviewMetrics {
  orders: Comparison;
  revenue: { total: Comparison; average: Comparison };
  conversations: { total: Comparison; by_provider_type: ProviderTypeComparison[] };
}

/** Spec §8: 5 human minutes per conversation. */
export const HUMAN_MINUTES_PER_CONVERSATION = 5;

/** CONTRACT §6.3: from unrounded values; previous 0 → 100 when current > 0, else 0. */
export function changePercentage(current: number, previous: number): number {
  if (previous === 0) return current > 0 ? 100 : 0;
  return ((current - previous) / previous) * 100;
}

function compare(current: number, previous: number, roundValues: boolean): Comparison {
  return {
    current: roundValues ? round2(current) : current,
    previous: roundValues ? round2(previous) : previous,
    change_percentage: round2(changePercentage(current, previous)),
  };
}

const ratio = (a: number, b: number) => (b === 0 ? 0 : a / b);

interface OrderTotals {
  orders: number;
  revenue: number;
  byGroup: [number, number, number];
}

export class MetricsService {
  constructor(private readonly now: () => number = Date.now) {}

  // ---- the six operations -------------------------------------------------------------

  async agents(ctx: RequestContext, args: MetricsArgs, mode: MetricsMode = 'rollup'): Promise<AgentMetric[]> {
    const scope = await this.scope(ctx, args, mode);
    const rows = (await orderAgg(ctx, scope)).filter((r) => r.p === 1);
    const byAgent = new Map<string, { provider: string; provider_type: string; orders: number; revenue: number }>();
    let total = 0;
    for (const r of rows) {
      const k = JSON.stringify([r.provider, r.provider_type]);
      const a = byAgent.get(k) ?? { provider: r.provider, provider_type: r.provider_type, orders: 0, revenue: 0 };
      a.orders += r.orders;
      a.revenue += r.revenue;
      total += r.orders;
      byAgent.set(k, a);
    }
    return [...byAgent.values()]
      .filter((a) => a.orders > 0)
      .sort(
        (x, y) =>
          y.orders - x.orders || y.revenue - x.revenue || cmpStr(x.provider, y.provider) || cmpStr(x.provider_type, y.provider_type),
      )
      .map((a) => ({
        provider: a.provider,
        provider_type: a.provider_type,
        orders: a.orders,
        revenue: round2(a.revenue),
        participation_percentage: round2(ratio(a.orders, total) * 100),
      }));
  }

  async chats(ctx: RequestContext, args: MetricsArgs, mode: MetricsMode = 'rollup'): Promise<ChatMetrics> {
    const scope = await this.scope(ctx, args, mode);
    const [cur, prev] = convTotals(await convAgg(ctx, scope));
    return {
      active_chats: { current: cur.byState[0] },
      total_chats: compare(cur.conversations, prev.conversations, false),
      completed_chats: compare(cur.byState[1], prev.byState[1], false),
      abandoned_chats: compare(cur.byState[2], prev.byState[2], false),
      failed_chats: compare(cur.byState[3], prev.byState[3], false),
      success_rate: compare(ratio(cur.byState[1], cur.conversations) * 100, ratio(prev.byState[1], prev.conversations) * 100, true),
    };
  }

  async orders(ctx: RequestContext, args: MetricsArgs, mode: MetricsMode = 'rollup'): Promise<OrderMetrics> {
    const scope = await this.scope(ctx, args, mode);
    const [cur, prev] = orderTotals(await orderAgg(ctx, scope));
    return {
      total_orders: compare(cur.orders, prev.orders, false),
      total_revenue: compare(cur.revenue, prev.revenue, true),
      average_revenue: compare(ratio(cur.revenue, cur.orders), ratio(prev.revenue, prev.orders), true),
      completed_orders: compare(cur.byGroup[1], prev.byGroup[1], false),
      cancelled_orders: compare(cur.byGroup[2], prev.byGroup[2], false),
      active_orders: compare(cur.byGroup[0], prev.byGroup[0], false),
    };
  }

  async performance(ctx: RequestContext, args: MetricsArgs, mode: MetricsMode = 'rollup'): Promise<PerformanceMetrics> {
    const scope = await this.scope(ctx, args, mode);
    const [orderRows, convRows] = await bothAgg(ctx, scope);
    const [oc, op] = orderTotals(orderRows);
    const [cc, cp] = convTotals(convRows);
    return {
      average_cost: compare(ratio(cc.cost, cc.conversations), ratio(cp.cost, cp.conversations), true),
      average_response_time_ms: compare(ratio(cc.rt_sum, cc.rt_count), ratio(cp.rt_sum, cp.rt_count), true),
      human_minutes_saved: compare(
        cc.conversations * HUMAN_MINUTES_PER_CONVERSATION,
        cp.conversations * HUMAN_MINUTES_PER_CONVERSATION,
        false,
      ),
      roi: compare(ratio(oc.orders, cc.cost), ratio(op.orders, cp.cost), true),
      conversion_rate: compare(ratio(oc.orders, cc.conversations) * 100, ratio(op.orders, cp.conversations) * 100, true),
    };
  }

  async products(ctx: RequestContext, args: MetricsArgs, mode: MetricsMode = 'rollup'): Promise<ProductMetric[]> {
    const scope = await this.scope(ctx, args, mode);
    const rows = await productAgg(ctx, scope);
    return rows.map((r) => ({
      product_id: r.product_id === 0 ? null : r.product_id,
      name: r.name,
      times_sold: r.times_sold,
      orders: r.orders,
      revenue: round2(r.revenue),
    }));
  }

  async overview(ctx: RequestContext, args: MetricsArgs, mode: MetricsMode = 'rollup'): Promise<OverviewMetrics> {
    const scope = await this.scope(ctx, args, mode);
    const [orderRows, convRows] = await bothAgg(ctx, scope);
    const [oc, op] = orderTotals(orderRows);
    const [cc, cp] = convTotals(convRows);
    const types = new Map<string, [number, number]>();
    for (const r of convRows) {
      const t = types.get(r.provider_type) ?? [0, 0];
      t[r.p === 1 ? 0 : 1] += r.conversations;
      types.set(r.provider_type, t);
    }
    return {
      orders: compare(oc.orders, op.orders, false),
      revenue: {
        total: compare(oc.revenue, op.revenue, true),
        average: compare(ratio(oc.revenue, oc.orders), ratio(op.revenue, op.orders), true),
      },
      conversations: {
        total: compare(cc.conversations, cp.conversations, false),
        by_provider_type: [...types.entries()]
          .filter(([, [c, p]]) => c !== 0 || p !== 0)
          .sort(([a], [b]) => cmpStr(a, b))
          .map(([provider_type, [c, p]]) => ({ provider_type, ...compare(c, p, false) })),
      },
    };
  }

  // ---- scope: access, filters, period -------------------------------------------------

  private async scope(ctx: RequestContext, args: MetricsArgs, mode: MetricsMode): Promise<Scope> {
    assertAiAdmin(ctx);
    const period = resolvePeriod(args, this.now());
    return { period, businessIds: await metricsBusinessIds(ctx, args), mode };
  }

  /** GET /ai/metrics/series (CONTRACT §9.5): see metrics-series.ts. */
  async series(ctx: RequestContext, args: SeriesArgs, mode: MetricsMode = 'rollup'): Promise<MetricsSeries> {
    assertAiAdmin(ctx);
    const plan = planSeries(args);
    return runSeries(ctx, plan, await metricsBusinessIds(ctx, args), mode);
  }
}

/**
 * The businesses a metrics read is restricted to (null: every business of the project, and
 * orders without one): the caller's visible businesses, narrowed by `business_id` /
 * `franchise_id`; one that is not the project's: 400 ERROR_BUSINESS_NOT_FOUND.
 */
export async function metricsBusinessIds(ctx: RequestContext, args: MetricsArgs): Promise<number[] | null> {
  const conn = ctx.em.getConnection();
  let ids = await visibleBusinessIds(ctx);
  if (args.business_id !== undefined && args.business_id !== null) {
    const found = await conn.execute(
      'select id from businesses where project_id = ? and id = ?',
      [ctx.project.id, args.business_id],
      'all',
    );
    if (!found.length || (ids && !ids.includes(args.business_id))) throw appError('ERROR_BUSINESS_NOT_FOUND');
    ids = [args.business_id];
  }
  if (args.franchise_id !== undefined && args.franchise_id !== null) {
    const found = await conn.execute(
      'select id from franchises where project_id = ? and id = ?',
      [ctx.project.id, args.franchise_id],
      'all',
    );
    if (!found.length) throw appError('ERROR_BUSINESS_NOT_FOUND');
    const rows = await conn.execute(
      'select id from businesses where project_id = ? and franchise_id = ?',
      [ctx.project.id, args.franchise_id],
      'all',
    );
    const inFranchise = new Set<number>(rows.map((r: any) => Number(r.id)));
    ids = (ids ?? [...inFranchise]).filter((id) => inFranchise.has(id));
  }
  return ids;
}

function cmpStr(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function orderTotals(rows: OrderAgg[]): [OrderTotals, OrderTotals] {
  const t = (): OrderTotals => ({ orders: 0, revenue: 0, byGroup: [0, 0, 0] });
  const out: [OrderTotals, OrderTotals] = [t(), t()];
  for (const r of rows) {
    const x = out[r.p === 1 ? 0 : 1];
    x.orders += r.orders;
    x.revenue += r.revenue;
    x.byGroup[r.status_group] += r.orders;
  }
  return out;
}

interface ConvTotals {
  conversations: number;
  cost: number;
  rt_sum: number;
  rt_count: number;
  byState: number[];
}

function convTotals(rows: ConvAgg[]): [ConvTotals, ConvTotals] {
  const t = (): ConvTotals => ({ conversations: 0, cost: 0, rt_sum: 0, rt_count: 0, byState: [0, 0, 0, 0, 0] });
  const out: [ConvTotals, ConvTotals] = [t(), t()];
  for (const r of rows) {
    const x = out[r.p === 1 ? 0 : 1];
    x.conversations += r.conversations;
    x.cost += r.cost;
    x.rt_sum += r.rt_sum;
    x.rt_count += r.rt_count;
    x.byState[r.state] += r.conversations;
  }
  return out;
}
