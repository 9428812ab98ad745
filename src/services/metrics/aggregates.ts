import { selectOnReplica } from '../../db/direct-read.js';
import type { RequestContext } from '../../context/index.js';
import { BUCKET_MS, coverSigned } from './cover.js';
import type { MetricsPeriod, Range } from './period.js';
import { businessFilter, pendingDeltas, type Bind, type MetricsMode } from './shared.js';

/**
 * The SQL of the metrics: the aggregates of orders, conversations and products of a period and
 * its comparison period, read from the rollups when every boundary falls on a 15-minute bucket,
 * else by the raw-scan reference queries (the definition the rollups must equal). The figures
 * built from these rows are in metrics.service.ts.
 */

export const TOP_PRODUCTS = 10;

/** Aggregates of AI orders: one row per (period, agent provider + type, status group). */
export interface OrderAgg {
  p: number;
  provider: string;
  provider_type: string;
  status_group: number;
  orders: number;
  revenue: number;
}

/** Aggregates of conversations: one row per (period, provider type, state). */
export interface ConvAgg {
  p: number;
  provider_type: string;
  state: number;
  conversations: number;
  cost: number;
  rt_sum: number;
  rt_count: number;
}

export interface Scope {
  period: MetricsPeriod;
  /** null: every business of the project (and orders without one). */
  businessIds: number[] | null;
  mode: MetricsMode;
}

export async function orderAgg(ctx: RequestContext, s: Scope): Promise<OrderAgg[]> {
  const params: unknown[] = [];
  const sql = orderSql(ctx, s, (v) => (params.push(v), '?'));
  return (await selectOnReplica<any>(ctx.em, sql, params)).map(orderRow);
}

export async function convAgg(ctx: RequestContext, s: Scope): Promise<ConvAgg[]> {
  const params: unknown[] = [];
  const sql = convSql(ctx, s, (v) => (params.push(v), '?'));
  return (await selectOnReplica<any>(ctx.em, sql, params)).map(convRow);
}

/** Both aggregates in one round trip (overview, performance). */
export async function bothAgg(ctx: RequestContext, s: Scope): Promise<[OrderAgg[], ConvAgg[]]> {
  const params: unknown[] = [];
  const p: Bind = (v) => (params.push(v), '?');
  const orders = orderSql(ctx, s, p);
  const convs = convSql(ctx, s, p);
  const sql = `select (select coalesce(json_agg(o), '[]'::json) from (${orders}) o) o,
                      (select coalesce(json_agg(c), '[]'::json) from (${convs}) c) c`;
  const [row] = await selectOnReplica<any>(ctx.em, sql, params);
  const parse = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v) as unknown[];
  return [parse(row.o).map(orderRow), parse(row.c).map(convRow)];
}

function orderSql(ctx: RequestContext, s: Scope, p: Bind): string {
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
            group by 1, 2, 3, 4
            union all
            ${pendingDeltas(
              'metrics_order_delta',
              [`case when d.bucket >= ${p(iso(s.period.current.start))}::timestamptz then 1 else 0 end p`, '1 sign'],
              ['agent_id', 'status_group'],
              ['orders', 'revenue'],
              s.period.previous.start,
              s.period.current.end,
              ctx.project.id,
              s.businessIds,
              p,
            )}) x
      join ai_agents a on a.id = x.agent_id
      group by 1, 2, 3, 4
      having sum(x.sign * x.orders) <> 0
      order by 1, 2, 3, 4`;
  } else {
    sql = ORDERS_REFERENCE_SQL(s, p, ctx.project.id);
  }
  return sql;
}

function convSql(ctx: RequestContext, s: Scope, p: Bind): string {
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
            group by 1, 2, 3, 4
            union all
            ${pendingDeltas(
              'metrics_conversation_delta',
              [`case when d.bucket >= ${p(iso(s.period.current.start))}::timestamptz then 1 else 0 end p`, '1 sign'],
              ['agent_id', 'state'],
              ['conversations', 'cost', 'rt_sum', 'rt_count'],
              s.period.previous.start,
              s.period.current.end,
              ctx.project.id,
              s.businessIds,
              p,
            )}) x
      join ai_agents a on a.id = x.agent_id
      group by 1, 2, 3
      having sum(x.sign * x.conversations) <> 0
      order by 1, 2, 3`;
  } else {
    sql = CONVERSATIONS_REFERENCE_SQL(s, p, ctx.project.id);
  }
  return sql;
}

export async function productAgg(ctx: RequestContext, s: Scope) {
  const params: unknown[] = [];
  const p = (v: unknown) => (params.push(v), '?');
  let sql: string;
  if (useRollup(s)) {
    sql = `select r.product_id, r.name, sum(r.times_sold)::bigint times_sold, sum(r.orders)::bigint orders, sum(r.revenue) revenue
      from (
        select r.product_id, r.name, v.sign * r.times_sold times_sold, v.sign * r.orders orders, v.sign * r.revenue revenue
        from ${rollupCover(s.period, p, true)}
        cross join lateral (
          select product_id, name, times_sold, orders, revenue from metrics_product_rollup
          where project_id = ${p(ctx.project.id)} and grain = v.grain and bucket >= v.s and bucket < v.e
            ${businessFilter('business_id', s.businessIds, p)}
          offset 0) r
        union all
        ${pendingDeltas(
          'metrics_product_delta',
          [],
          ['product_id', 'name'],
          ['times_sold', 'orders', 'revenue'],
          s.period.current.start,
          s.period.current.end,
          ctx.project.id,
          s.businessIds,
          p,
        )}) r
      group by r.product_id, r.name
      having sum(r.orders) > 0
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
    where c.project_id = ${p(projectId)} and c.source = 'live'
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
  const ranges: [Range, number][] = currentOnly
    ? [[period.current, 1]]
    : [
        [period.previous, 0],
        [period.current, 1],
      ];
  const rows = ranges.flatMap(([r, label]) =>
    coverSigned(r.start, r.end).map(
      (c) =>
        `(${p(c.grain)}::smallint, ${p(iso(c.start))}::timestamptz, ${p(iso(c.end))}::timestamptz, ${p(c.sign)}::int, ${p(label)}::int)`,
    ),
  );
  return `(values ${rows.join(', ')}) v(grain, s, e, sign, p)`;
}
