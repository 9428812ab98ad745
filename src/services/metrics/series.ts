import { selectOnReplica } from '../../db/direct-read.js';
import type { RequestContext } from '../../context/index.js';
import { BUCKET_MS, coverSigned, type Grain } from './cover.js';
import { keep, remember } from './plan-cache.js';
import { DAY_MS, HOUR_MS, type MetricsSeries, type SeriesMetric, type SeriesPlan } from './series-plan.js';
import { businessFilter, pendingDeltas, round2, type Bind, type MetricsMode } from './shared.js';

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
export async function runSeries(
  ctx: RequestContext,
  plan: SeriesPlan,
  businessIds: number[] | null,
  mode: MetricsMode,
): Promise<MetricsSeries> {
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
/** A bucket's second of the UTC day: the expression of the narrow rollups' time-of-day indexes. */
const TIME_OF_DAY = "mod(extract(epoch from bucket - timestamptz '1970-01-01 00:00:00+00')::bigint, 86400)::int";

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
  runs: number;
  /**
   * Per grain finer than a day, its buckets when they sit at a few times of the UTC day (a
   * half-hour zone's local midnights: the 6-hour block at 18:00 and the quarter-hours at 18:00 and
   * 18:15 for Asia/Kolkata): read through the time-of-day index, one descent per time instead of
   * one per day (Migration20261125000600_metrics_series_rollups).
   */
  tod: { grain: number; seconds: string; from: string; to: string }[] | null;
  /** The runs (grain, start, end) and the weights (grain, bucket, series bucket, sign) as array literals, made once per plan. */
  text: { rg: string; rs: string; re: string; wg: string; wb: string; wi: string; ws: string };
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
  // runs per grain
  const byGrain = new Map<number, number[]>();
  for (const key of weights.keys()) {
    const [g, t] = key.split(':').map(Number);
    (byGrain.get(g) ?? byGrain.set(g, []).get(g)!).push(t);
  }
  // Runs a few buckets apart are read as one range: an index descent costs more than the rows of
  // the buckets between them, which the weights' join drops (a Kolkata day's 6-hour blocks: 735
  // descents for a year of days became a handful).
  const runs: [number, number, number][] = [];
  const tod: NonNullable<ReadPlan['tod']> = [];
  for (const [g, ts] of byGrain) {
    ts.sort((a, b) => a - b);
    const times = g === 0 || g === 3 || g === 4 ? byTimeOfDay(g, ts) : null;
    if (times) {
      tod.push(times);
      continue;
    }
    const unit = UNIT[g as Grain]!;
    let [s, e] = [ts[0], unit(ts[0])];
    for (const t of ts.slice(1)) {
      if (t <= unit(unit(unit(unit(e))))) e = unit(t);
      else {
        runs.push([g, s, e]);
        [s, e] = [t, unit(t)];
      }
    }
    runs.push([g, s, e]);
  }
  // the weights as four parallel arrays: (rollup grain, rollup bucket) → (series bucket, sign)
  const [wg, wb, wi, ws]: (string | number)[][] = [[], [], [], []];
  for (const [key, w] of weights) {
    const [g, t] = key.split(':').map(Number);
    for (const [i, sign] of w)
      if (sign !== 0) {
        wg.push(g);
        wb.push(iso(t));
        wi.push(i);
        ws.push(sign);
      }
  }
  const array = (xs: (string | number)[]) => `{${xs.join(',')}}`;
  const rp: ReadPlan = {
    runs: runs.length,
    tod: tod.length ? tod : null,
    text: {
      rg: array(runs.map((r) => r[0])),
      rs: array(runs.map((r) => iso(r[1]))),
      re: array(runs.map((r) => iso(r[2]))),
      wg: array(wg),
      wb: array(wb),
      wi: array(wi),
      ws: array(ws),
    },
  };
  keep(readPlans, plan.key, rp);
  return rp;
}

/** One grain's buckets read by time of day, when there are many and a few times of day cover them without waste. */
function byTimeOfDay(grain: Grain, ts: number[]): NonNullable<ReadPlan['tod']>[number] | null {
  if (ts.length < 16) return null;
  const seconds = [...new Set(ts.map((t) => (t % DAY_MS) / 1000))];
  const days = Math.ceil((ts[ts.length - 1] - ts[0] + 1) / DAY_MS);
  if (seconds.length > 96 || seconds.length * days > 2 * ts.length) return null;
  return { grain, seconds: `{${seconds.join(',')}}`, from: iso(ts[0]), to: iso(UNIT[grain]!(ts[ts.length - 1])) };
}

function rollupReads(ctx: RequestContext, plan: SeriesPlan, businessIds: number[] | null): Reads {
  const { runs, tod, text: t } = readPlan(plan);
  /** Sums per rollup bucket, then the signed sums per series bucket, exact (numeric) in SQL. */
  const read = async (table: string, cols: string[], group: string, deltas?: (p: Bind) => string): Promise<Row[]> => {
    if (!runs && !tod) return [];
    const params: unknown[] = [];
    const p: Bind = (v) => (params.push(v), '?');
    const keys = group ? `, x.${group}` : '';
    const fields = `grain, bucket${group ? `, ${group}` : ''}, ${cols.join(', ')}`;
    const parts: string[] = [];
    if (runs)
      parts.push(`select r.* from unnest(${p(t.rg)}::smallint[], ${p(t.rs)}::timestamptz[], ${p(t.re)}::timestamptz[]) v(grain, s, e)
        cross join lateral (
          select ${fields} from ${table}
          where project_id = ${p(ctx.project.id)} and grain = v.grain and bucket >= v.s and bucket < v.e
            ${businessFilter('business_id', businessIds, p)}
          offset 0) r`);
    for (const part of tod ?? [])
      parts.push(`select ${fields} from ${table}
          where project_id = ${p(ctx.project.id)} and grain = ${p(part.grain)} and ${TIME_OF_DAY} = any(${p(part.seconds)}::int[])
            and bucket >= ${p(part.from)}::timestamptz and bucket < ${p(part.to)}::timestamptz
            ${businessFilter('business_id', businessIds, p)}`);
    const sql = `select w.i${keys}, ${cols.map((c) => `sum(w.sign * x.${c}) ${c}`).join(', ')}
      from (
        select r.grain, r.bucket${group ? `, r.${group}` : ''}, ${cols.map((c) => `sum(r.${c}) ${c}`).join(', ')}
        from (${parts.join(' union all ')}) r
        group by 1, 2${group ? ', 3' : ''}) x
      join unnest(${p(t.wg)}::smallint[], ${p(t.wb)}::timestamptz[], ${p(t.wi)}::int[], ${p(t.ws)}::int[]) w(grain, bucket, i, sign)
        on w.grain = x.grain and w.bucket = x.bucket
      group by 1${group ? ', 2' : ''}${
        deltas
          ? `
      union all
      ${deltas(p)}`
          : ''
      }`;
    const rows = await selectOnReplica<any>(ctx.em, sql, params);
    return rows.map((r: any) => ({ ...r, i: Number(r.i), w: 1 }));
  };
  return {
    // the narrow rollups (Migration20261125000600_metrics_series_rollups): only the business and the state
    // a bucket's rollup sums and its pending deltas come as two rows: runSeries adds them
    orders: () =>
      read('metrics_order_series', ['orders', 'revenue'], '', (p) =>
        pendingDeltas(
          'metrics_order_delta',
          [`width_bucket(d.bucket, ${p(`{${plan.bounds.map(iso).join(',')}}`)}::timestamptz[]) - 1 i`],
          [],
          ['orders', 'revenue'],
          plan.bounds[0],
          plan.bounds[plan.bounds.length - 1],
          ctx.project.id,
          businessIds,
          p,
        ),
      ),
    conversations: () =>
      read('metrics_conversation_series', ['conversations', 'cost'], 'state', (p) =>
        pendingDeltas(
          'metrics_conversation_delta',
          [`width_bucket(d.bucket, ${p(`{${plan.bounds.map(iso).join(',')}}`)}::timestamptz[]) - 1 i`],
          ['state'],
          ['conversations', 'cost'],
          plan.bounds[0],
          plan.bounds[plan.bounds.length - 1],
          ctx.project.id,
          businessIds,
          p,
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
        (
          p,
        ) => `select width_bucket(o.created_at, ${bounds(p)}) b, count(*) orders, sum(coalesce(metrics_num(o.summary -> 'total'), 0)) revenue
          from orders o join ai_conversations c on c.id = o.conversation_id
          where o.project_id = ${p(ctx.project.id)} and o.created_at >= ${p(iso(plan.bounds[0]))}::timestamptz
            and o.created_at < ${p(iso(plan.bounds[n]))}::timestamptz ${businessFilter('o.business_id', businessIds, p)}
          group by 1`,
      ),
    conversations: () =>
      run(
        (
          p,
        ) => `select width_bucket(c.created_at, ${bounds(p)}) b, metrics_conv_state(c.status, c.status_reason) state, count(*) conversations,
            sum(coalesce(metrics_num(c.usage -> 'cost'), 0)) cost
          from ai_conversations c
          where c.project_id = ${p(ctx.project.id)} and c.source = 'live' and c.created_at >= ${p(iso(plan.bounds[0]))}::timestamptz
            and c.created_at < ${p(iso(plan.bounds[n]))}::timestamptz ${businessFilter('c.business_id', businessIds, p)}
          group by 1, 2`,
      ),
  };
}
