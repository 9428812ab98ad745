import { selectOnReplica } from '../../db/direct-read.js';
import type { RequestContext } from '../../context/index.js';
import { BUCKET_MS, coverSigned, type Grain } from './cover.js';
import { keep, remember } from './plan-cache.js';
import { DAY_MS, HOUR_MS, type MetricsSeries, type SeriesMetric, type SeriesPlan } from './series-plan.js';
import { businessFilter, conversationDeltas, round2, type Bind, type MetricsMode } from './shared.js';

/**
 * GET /ai/metrics/series (CONTRACT §9.5): one metric over local calendar buckets of a zone.
 *
 * Buckets are local calendar units (days of 23 or 25 hours across DST, ISO weeks from Monday,
 * months) or real hours; each bucket is clipped to the range [from 00:00, to + 1 day 00:00)
 * local, and its value is §6.3's definition applied to the clipped interval alone. Every
 * clipped interval is read from the rollups as a signed cover (cover.ts): the
 * 15-minute grain reaches every boundary of a whole-, half- or quarter-hour zone, so
 * Asia/Kolkata needs no finer rollup. The cost is bounded by the number of rollup buckets
 * and keys read, never by the number of orders.
 */

const readPlans = new Map<string, ReadPlan>();

/** Per bucket: the sums §6.3's definitions need. */
interface Sums {
  orders: number;
  revenue: number;
  conversations: number;
  /** by conversation state: 0 active, 1 completed, 2 abandoned, 3 failed, 4 closed without a reason */
  states: number[];
  cost: number;
}

const needsOrders = (m: SeriesMetric) => m === 'orders' || m === 'revenue' || m === 'conversion_rate';
const needsConversations = (m: SeriesMetric) => m !== 'orders' && m !== 'revenue';

function value(metric: SeriesMetric, s: Sums): number {
  const ratio = (a: number, b: number) => (b === 0 ? 0 : a / b);
  switch (metric) {
    case 'orders':
      return s.orders;
    case 'revenue':
      return round2(s.revenue);
    case 'conversations':
      return s.conversations;
    case 'completed_chats':
      return s.states[1];
    case 'abandoned_chats':
      return s.states[2];
    case 'failed_chats':
      return s.states[3];
    case 'success_rate':
      return round2(ratio(s.states[1], s.conversations) * 100);
    case 'average_cost':
      return round2(ratio(s.cost, s.conversations));
    case 'conversion_rate':
      return round2(ratio(s.orders, s.conversations) * 100);
  }
}

/** Reads the sums of every bucket (rollups, or the raw reference) and shapes the points. */
export async function runSeries(ctx: RequestContext, plan: SeriesPlan, businessIds: number[] | null, mode: MetricsMode): Promise<MetricsSeries> {
  const n = plan.starts.length;
  const sums: Sums[] = Array.from({ length: n }, () => ({ orders: 0, revenue: 0, conversations: 0, states: [0, 0, 0, 0, 0], cost: 0 }));
  // Boundaries off the 15-minute grid (local mean time of old dates) have no rollup bucket.
  const rollup = mode === 'rollup' && plan.bounds.every((t) => t % BUCKET_MS === 0);
  const reads = rollup ? rollupReads(ctx, plan, businessIds) : rawReads(ctx, plan, businessIds);
  const [orderRows, convRows] = await Promise.all([
    needsOrders(plan.metric) ? reads.orders() : [],
    needsConversations(plan.metric) ? reads.conversations() : [],
  ]);
  for (const r of orderRows) {
    sums[r.i].orders += r.w * Number(r.orders);
    sums[r.i].revenue += r.w * Number(r.revenue);
  }
  for (const r of convRows) {
    const c = r.w * Number(r.conversations);
    sums[r.i].conversations += c;
    sums[r.i].states[Number(r.state)] += c;
    sums[r.i].cost += r.w * Number(r.cost);
  }
  return {
    metric: plan.metric,
    group_by: plan.groupBy,
    timezone: plan.timezone,
    points: plan.starts.map((start, i) => ({ start, value: value(plan.metric, sums[i]) })),
  };
}

type Row = { i: number; w: number; [k: string]: any };

interface Reads {
  orders(): Promise<Row[]>;
  conversations(): Promise<Row[]>;
}

const iso = (ms: number) => new Date(ms).toISOString();

const UNIT: Record<Grain, ((t: number) => number) | null> = {
  0: (t) => t + BUCKET_MS,
  3: (t) => t + HOUR_MS,
  4: (t) => t + 6 * HOUR_MS,
  1: (t) => t + DAY_MS,
  2: (t) => {
    const d = new Date(t);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  },
};

/**
 * The rollup read. Every bucket's signed cover is expanded into the rollup buckets it adds or
 * takes away (weights per series bucket); contiguous rollup buckets of one grain are read as
 * one index range (`cross join lateral … offset 0`, as metrics.service.ts does), summed per
 * rollup bucket, and the weights spread those sums onto the series' buckets, in SQL so the
 * money stays exact (numeric; float residue of a cancelled amount would move a tie across a
 * cent). Each rollup bucket is read once even when neighbouring series buckets share it.
 */
interface ReadPlan {
  runs: [number, number, number][];
  wg: number[];
  wb: string[];
  wi: number[];
  ws: number[];
}

function readPlan(plan: SeriesPlan): ReadPlan {
  const known = remember(readPlans, plan.key);
  if (known) return known;
  const weights = new Map<string, Map<number, number>>();
  for (let i = 0; i < plan.starts.length; i++)
    for (const part of coverSigned(plan.bounds[i], plan.bounds[i + 1]))
      for (let t = part.start; t < part.end; t = UNIT[part.grain]!(t)) {
        const key = `${part.grain}:${t}`;
        let w = weights.get(key);
        if (!w) weights.set(key, (w = new Map()));
        w.set(i, (w.get(i) ?? 0) + part.sign);
      }
  // contiguous runs per grain
  const byGrain = new Map<number, number[]>();
  for (const key of weights.keys()) {
    const [g, t] = key.split(':').map(Number);
    (byGrain.get(g) ?? byGrain.set(g, []).get(g)!).push(t);
  }
  const runs: [number, number, number][] = [];
  for (const [g, ts] of byGrain) {
    ts.sort((a, b) => a - b);
    let [s, e] = [ts[0], UNIT[g as Grain]!(ts[0])];
    for (const t of ts.slice(1)) {
      if (t === e) e = UNIT[g as Grain]!(t);
      else {
        runs.push([g, s, e]);
        [s, e] = [t, UNIT[g as Grain]!(t)];
      }
    }
    runs.push([g, s, e]);
  }
  // the weights as four parallel arrays: (rollup grain, rollup bucket) → (series bucket, sign)
  const rp: ReadPlan = { runs, wg: [], wb: [], wi: [], ws: [] };
  for (const [key, w] of weights) {
    const [g, t] = key.split(':').map(Number);
    for (const [i, sign] of w)
      if (sign !== 0) {
        rp.wg.push(g);
        rp.wb.push(iso(t));
        rp.wi.push(i);
        rp.ws.push(sign);
      }
  }
  keep(readPlans, plan.key, rp);
  return rp;
}

function rollupReads(ctx: RequestContext, plan: SeriesPlan, businessIds: number[] | null): Reads {
  const { runs, wg, wb, wi, ws } = readPlan(plan);
  /** Sums per rollup bucket, then the signed sums per series bucket, exact (numeric) in SQL. */
  const read = async (table: string, cols: string[], group: string, deltas?: (p: Bind) => string): Promise<Row[]> => {
    if (!runs.length) return [];
    const params: unknown[] = [];
    const p: Bind = (v) => (params.push(v), '?');
    const values = runs.map(([g, s, e]) => `(${p(g)}::smallint, ${p(iso(s))}::timestamptz, ${p(iso(e))}::timestamptz)`).join(', ');
    const keys = group ? `, x.${group}` : '';
    const sql = `select w.i${keys}, ${cols.map((c) => `sum(w.sign * x.${c}) ${c}`).join(', ')}
      from (
        select r.grain, r.bucket${group ? `, r.${group}` : ''}, ${cols.map((c) => `sum(r.${c}) ${c}`).join(', ')}
        from (values ${values}) v(grain, s, e)
        cross join lateral (
          select * from ${table}
          where project_id = ${p(ctx.project.id)} and grain = v.grain and bucket >= v.s and bucket < v.e
            ${businessFilter('business_id', businessIds, p)}
          offset 0) r
        group by 1, 2${group ? ', 3' : ''}) x
      join unnest(${p(`{${wg.join(',')}}`)}::smallint[], ${p(`{${wb.join(',')}}`)}::timestamptz[], ${p(`{${wi.join(',')}}`)}::int[],
                  ${p(`{${ws.join(',')}}`)}::int[]) w(grain, bucket, i, sign)
        on w.grain = x.grain and w.bucket = x.bucket
      group by 1${group ? ', 2' : ''}${deltas ? `
      union all
      ${deltas(p)}` : ''}`;
    const rows = await selectOnReplica<any>(ctx.em, sql, params);
    return rows.map((r: any) => ({ ...r, i: Number(r.i), w: 1 }));
  };
  return {
    orders: () => read('metrics_order_rollup', ['orders', 'revenue'], ''),
    // a bucket's rollup sums and its deltas come as two rows: runSeries adds them
    conversations: () =>
      read('metrics_conversation_rollup', ['conversations', 'cost'], 'state', (p) =>
        conversationDeltas(
          [`width_bucket(d.bucket, ${p(`{${plan.bounds.map(iso).join(',')}}`)}::timestamptz[]) - 1 i`],
          ['state'], ['conversations', 'cost'], plan.bounds[0], plan.bounds[plan.bounds.length - 1], ctx.project.id, businessIds, p,
        ),
      ),
  };
}

/**
 * The reference read over orders and conversations (kept as the definition the rollups must
 * equal; also used for boundaries off the 15-minute grid). `width_bucket` over the bounds
 * gives 1 for the first bucket.
 */
function rawReads(ctx: RequestContext, plan: SeriesPlan, businessIds: number[] | null): Reads {
  const run = async (sql: (p: Bind) => string): Promise<Row[]> => {
    const params: unknown[] = [];
    const p: Bind = (v) => (params.push(v), '?');
    const rows = await selectOnReplica<any>(ctx.em, sql(p), params);
    return rows.map((r: any) => ({ ...r, i: Number(r.b) - 1, w: 1 }));
  };
  const bounds = (p: Bind) => `${p(`{${plan.bounds.map(iso).join(',')}}`)}::timestamptz[]`;
  const n = plan.starts.length;
  return {
    orders: () =>
      run(
        (p) => `select width_bucket(o.created_at, ${bounds(p)}) b, count(*) orders, sum(coalesce(metrics_num(o.summary -> 'total'), 0)) revenue
          from orders o join ai_conversations c on c.id = o.conversation_id
          where o.project_id = ${p(ctx.project.id)} and o.created_at >= ${p(iso(plan.bounds[0]))}::timestamptz
            and o.created_at < ${p(iso(plan.bounds[n]))}::timestamptz ${businessFilter('o.business_id', businessIds, p)}
          group by 1`,
      ),
    conversations: () =>
      run(
        (p) => `select width_bucket(c.created_at, ${bounds(p)}) b, metrics_conv_state(c.status, c.status_reason) state, count(*) conversations,
            sum(coalesce(metrics_num(c.usage -> 'cost'), 0)) cost
          from ai_conversations c
          where c.project_id = ${p(ctx.project.id)} and c.created_at >= ${p(iso(plan.bounds[0]))}::timestamptz
            and c.created_at < ${p(iso(plan.bounds[n]))}::timestamptz ${businessFilter('c.business_id', businessIds, p)}
          group by 1, 2`,
      ),
  };
}
