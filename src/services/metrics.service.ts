import { selectOnReplica } from '../db/direct-read.js';
import { appError } from '../errors/codes.js';
import type { RequestContext } from '../context/index.js';
import { assertAiAdmin, visibleBusinessIds } from './access.js';
import { BUCKET_MS, coverSigned } from './metrics-cover.js';
import { planSeries, runSeries, type MetricsSeries, type SeriesArgs } from './metrics-series.js';
import { resolvePeriod, type MetricsPeriod, type Range } from './metrics-period.js';
import { businessFilter, round2, type Bind, type MetricsArgs, type MetricsMode } from './metrics-shared.js';

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
export const TOP_PRODUCTS = 10;



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

/** Aggregates of AI orders: one row per (period, agent provider + type, status group). */
interface OrderAgg {
  p: number;
  provider: string;
  provider_type: string;
  status_group: number;
  orders: number;
  revenue: number;
}

/** Aggregates of conversations: one row per (period, provider type, state). */
interface ConvAgg {
  p: number;
  provider_type: string;
  state: number;
  conversations: number;
  cost: number;
  rt_sum: number;
  rt_count: number;
}

interface Scope {
  period: MetricsPeriod;
  /** null: every business of the project (and orders without one). */
  businessIds: number[] | null;
  mode: MetricsMode;
}

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
    const rows = (await this.orderAgg(ctx, scope)).filter((r) => r.p === 1);
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
      .sort((x, y) => y.orders - x.orders || y.revenue - x.revenue || cmpStr(x.provider, y.provider) || cmpStr(x.provider_type, y.provider_type))
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
    const [cur, prev] = convTotals(await this.convAgg(ctx, scope));
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
    const [cur, prev] = orderTotals(await this.orderAgg(ctx, scope));
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
    const [orderRows, convRows] = await this.bothAgg(ctx, scope);
    const [oc, op] = orderTotals(orderRows);
    const [cc, cp] = convTotals(convRows);
    return {
      average_cost: compare(ratio(cc.cost, cc.conversations), ratio(cp.cost, cp.conversations), true),
      average_response_time_ms: compare(ratio(cc.rt_sum, cc.rt_count), ratio(cp.rt_sum, cp.rt_count), true),
      human_minutes_saved: compare(cc.conversations * HUMAN_MINUTES_PER_CONVERSATION, cp.conversations * HUMAN_MINUTES_PER_CONVERSATION, false),
      roi: compare(ratio(oc.orders, cc.cost), ratio(op.orders, cp.cost), true),
      conversion_rate: compare(ratio(oc.orders, cc.conversations) * 100, ratio(op.orders, cp.conversations) * 100, true),
    };
  }

  async products(ctx: RequestContext, args: MetricsArgs, mode: MetricsMode = 'rollup'): Promise<ProductMetric[]> {
    const scope = await this.scope(ctx, args, mode);
    const rows = await this.productAgg(ctx, scope);
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
    const [orderRows, convRows] = await this.bothAgg(ctx, scope);
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

  // ---- aggregation in PostgreSQL --------------------------------------------------------

  private async orderAgg(ctx: RequestContext, s: Scope): Promise<OrderAgg[]> {
    const params: unknown[] = [];
    const sql = this.orderSql(ctx, s, (v) => (params.push(v), '?'));
    return (await selectOnReplica<any>(ctx.em, sql, params)).map(orderRow);
  }

  private async convAgg(ctx: RequestContext, s: Scope): Promise<ConvAgg[]> {
    const params: unknown[] = [];
    const sql = this.convSql(ctx, s, (v) => (params.push(v), '?'));
    return (await selectOnReplica<any>(ctx.em, sql, params)).map(convRow);
  }

  /** Both aggregates in one round trip (overview, performance). */
  private async bothAgg(ctx: RequestContext, s: Scope): Promise<[OrderAgg[], ConvAgg[]]> {
    const params: unknown[] = [];
    const p: Bind = (v) => (params.push(v), '?');
    const orders = this.orderSql(ctx, s, p);
    const convs = this.convSql(ctx, s, p);
    const sql = `select (select coalesce(json_agg(o), '[]'::json) from (${orders}) o) o,
                        (select coalesce(json_agg(c), '[]'::json) from (${convs}) c) c`;
    const [row] = await selectOnReplica<any>(ctx.em, sql, params);
    const parse = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v) as unknown[];
    return [parse(row.o).map(orderRow), parse(row.c).map(convRow)];
  }

  private orderSql(ctx: RequestContext, s: Scope, p: Bind): string {
    let sql: string;
    if (useRollup(s)) {
      sql = `select x.p, a.provider, a.provider_type, x.status_group, sum(x.sign * x.orders)::bigint orders, sum(x.sign * x.revenue) revenue
        from (select v.p, v.sign, r.agent_id, r.status_group, sum(r.orders) orders, sum(r.revenue) revenue
              from ${rollupCover(s.period, p)}
              cross join lateral (
                select agent_id, status_group, orders, revenue from metrics_order_rollup
                where project_id = ${p(ctx.project.id)} and grain = v.grain and bucket >= v.s and bucket < v.e
                  ${businessFilter('business_id', s.businessIds, p)}
                offset 0) r
              group by 1, 2, 3, 4) x
        join ai_agents a on a.id = x.agent_id
        group by 1, 2, 3, 4
        having sum(x.sign * x.orders) <> 0
        order by 1, 2, 3, 4`;
    } else {
      sql = ORDERS_REFERENCE_SQL(s, p, ctx.project.id);
    }
    return sql;
  }

  private convSql(ctx: RequestContext, s: Scope, p: Bind): string {
    let sql: string;
    if (useRollup(s)) {
      sql = `select x.p, a.provider_type, x.state, sum(x.sign * x.conversations)::bigint conversations, sum(x.sign * x.cost) cost,
                    sum(x.sign * x.rt_sum) rt_sum, sum(x.sign * x.rt_count)::bigint rt_count
        from (select v.p, v.sign, r.agent_id, r.state, sum(r.conversations) conversations, sum(r.cost) cost,
                     sum(r.rt_sum) rt_sum, sum(r.rt_count) rt_count
              from ${rollupCover(s.period, p)}
              cross join lateral (
                select agent_id, state, conversations, cost, rt_sum, rt_count from metrics_conversation_rollup
                where project_id = ${p(ctx.project.id)} and grain = v.grain and bucket >= v.s and bucket < v.e
                  ${businessFilter('business_id', s.businessIds, p)}
                offset 0) r
              group by 1, 2, 3, 4) x
        join ai_agents a on a.id = x.agent_id
        group by 1, 2, 3
        having sum(x.sign * x.conversations) <> 0
        order by 1, 2, 3`;
    } else {
      sql = CONVERSATIONS_REFERENCE_SQL(s, p, ctx.project.id);
    }
    return sql;
  }

  private async productAgg(ctx: RequestContext, s: Scope) {
    const params: unknown[] = [];
    const p = (v: unknown) => (params.push(v), '?');
    let sql: string;
    if (useRollup(s)) {
      sql = `select r.product_id, r.name, sum(v.sign * r.times_sold)::bigint times_sold, sum(v.sign * r.orders)::bigint orders,
                    sum(v.sign * r.revenue) revenue
        from ${rollupCover(s.period, p, true)}
        cross join lateral (
          select product_id, name, times_sold, orders, revenue from metrics_product_rollup
          where project_id = ${p(ctx.project.id)} and grain = v.grain and bucket >= v.s and bucket < v.e
            ${businessFilter('business_id', s.businessIds, p)}
          offset 0) r
        group by r.product_id, r.name
        having sum(v.sign * r.orders) > 0
        order by 3 desc, 5 desc, 1, 2
        limit ${TOP_PRODUCTS}`;
    } else {
      sql = PRODUCTS_REFERENCE_SQL(s, p, ctx.project.id);
    }
    const rows = await selectOnReplica<any>(ctx.em, sql, params);
    return rows.map((r: any) => ({
      product_id: Number(r.product_id),
      name: String(r.name),
      times_sold: Number(r.times_sold),
      orders: Number(r.orders),
      revenue: Number(r.revenue),
    }));
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
    const found = await conn.execute('select id from businesses where project_id = ? and id = ?', [ctx.project.id, args.business_id], 'all');
    if (!found.length || (ids && !ids.includes(args.business_id))) throw appError('ERROR_BUSINESS_NOT_FOUND');
    ids = [args.business_id];
  }
  if (args.franchise_id !== undefined && args.franchise_id !== null) {
    const found = await conn.execute('select id from franchises where project_id = ? and id = ?', [ctx.project.id, args.franchise_id], 'all');
    if (!found.length) throw appError('ERROR_BUSINESS_NOT_FOUND');
    const rows = await conn.execute('select id from businesses where project_id = ? and franchise_id = ?', [ctx.project.id, args.franchise_id], 'all');
    const inFranchise = new Set<number>(rows.map((r: any) => Number(r.id)));
    ids = (ids ?? [...inFranchise]).filter((id) => inFranchise.has(id));
  }
  return ids;
}

// ---- the raw-scan reference queries (kept as the definition the rollups must equal) -----


/** AI orders (non-null conversation_id; agent = the conversation's agent) of both periods. */
function ORDERS_REFERENCE_SQL(s: Scope, p: Bind, projectId: number): string {
  return `select case when o.created_at >= ${p(iso(s.period.current.start))}::timestamptz then 1 else 0 end p,
      a.provider, a.provider_type, metrics_status_group(o.status) status_group,
      count(*) orders, sum(coalesce(metrics_num(o.summary -> 'total'), 0)) revenue
    from orders o
    join ai_conversations c on c.id = o.conversation_id
    join ai_agents a on a.id = c.agent_id
    where o.project_id = ${p(projectId)}
      and o.created_at >= ${p(iso(s.period.previous.start))}::timestamptz and o.created_at < ${p(iso(s.period.current.end))}::timestamptz
      ${businessFilter('o.business_id', s.businessIds, p)}
    group by 1, 2, 3, 4
    order by 1, 2, 3, 4`;
}

function CONVERSATIONS_REFERENCE_SQL(s: Scope, p: Bind, projectId: number): string {
  return `select case when c.created_at >= ${p(iso(s.period.current.start))}::timestamptz then 1 else 0 end p,
      a.provider_type, metrics_conv_state(c.status, c.status_reason) state, count(*) conversations,
      sum(coalesce(metrics_num(c.usage -> 'cost'), 0)) cost,
      coalesce(sum(metrics_num(c.usage -> 'response_time_ms')), 0) rt_sum,
      count(metrics_num(c.usage -> 'response_time_ms')) rt_count
    from ai_conversations c
    join ai_agents a on a.id = c.agent_id
    where c.project_id = ${p(projectId)}
      and c.created_at >= ${p(iso(s.period.previous.start))}::timestamptz and c.created_at < ${p(iso(s.period.current.end))}::timestamptz
      ${businessFilter('c.business_id', s.businessIds, p)}
    group by 1, 2, 3
    order by 1, 2, 3`;
}

function PRODUCTS_REFERENCE_SQL(s: Scope, p: Bind, projectId: number): string {
  return `select coalesce(op.product_id, 0) product_id, op.name, sum(op.quantity)::bigint times_sold,
      count(distinct op.order_id) orders, sum(op.quantity * op.price) revenue
    from orders o
    join ai_conversations c on c.id = o.conversation_id
    join order_products op on op.order_id = o.id
    where o.project_id = ${p(projectId)}
      and o.created_at >= ${p(iso(s.period.current.start))}::timestamptz and o.created_at < ${p(iso(s.period.current.end))}::timestamptz
      ${businessFilter('o.business_id', s.businessIds, p)}
    group by 1, 2
    order by 3 desc, 5 desc, 1, 2
    limit ${TOP_PRODUCTS}`;
}

// ---- helpers ------------------------------------------------------------------------------

function orderRow(r: any): OrderAgg {
  return {
    p: Number(r.p),
    provider: r.provider,
    provider_type: r.provider_type,
    status_group: Number(r.status_group),
    orders: Number(r.orders),
    revenue: Number(r.revenue),
  };
}

function convRow(r: any): ConvAgg {
  return {
    p: Number(r.p),
    provider_type: r.provider_type,
    state: Number(r.state),
    conversations: Number(r.conversations),
    cost: Number(r.cost),
    rt_sum: Number(r.rt_sum),
    rt_count: Number(r.rt_count),
  };
}

function cmpStr(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}


/** Rollups answer exactly when every boundary falls on a 15-minute bucket. */
function useRollup(s: Scope): boolean {
  if (s.mode !== 'rollup') return false;
  const { current, previous } = s.period;
  return [current.start, current.end, previous.start].every((t) => t % BUCKET_MS === 0);
}

/**
 * `(values …) v(grain, s, e, sign, p)`: the signed bucket ranges of both periods (p 1 = current).
 * Each range is read by its own index range scan (`cross join lateral (… offset 0)`: without
 * the fence the planner hash-joins the few ranges against a scan of the whole rollup). The order
 * and conversation reads sum the rows per sign first and apply the sign to those few sums
 * (multiplying every row's numeric values by it cost a fifth of the overview statement); the
 * product read does not, as its rows hardly collapse before the product grouping.
 */
function rollupCover(period: MetricsPeriod, p: Bind, currentOnly = false): string {
  const ranges: [Range, number][] = currentOnly ? [[period.current, 1]] : [[period.previous, 0], [period.current, 1]];
  const rows = ranges.flatMap(([r, label]) =>
    coverSigned(r.start, r.end).map(
      (c) => `(${p(c.grain)}::smallint, ${p(iso(c.start))}::timestamptz, ${p(iso(c.end))}::timestamptz, ${p(c.sign)}::int, ${p(label)}::int)`,
    ),
  );
  return `(values ${rows.join(', ')}) v(grain, s, e, sign, p)`;
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
