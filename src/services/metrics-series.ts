import { selectOnReplica } from '../db/direct-read.js';
import { validationError, type Problem } from '../errors/codes.js';
import type { RequestContext } from '../context/index.js';
import { BUCKET_MS, coverSigned, type Grain } from './metrics-cover.js';
import { localMidnight, resolveZone, type OffsetAt, type PeriodInput } from './metrics-period.js';
import { businessFilter, round2, type Bind, type MetricsArgs, type MetricsMode } from './metrics-shared.js';

/**
 * GET /ai/metrics/series (CONTRACT §9.5): one metric over local calendar buckets of a zone.
 *
 * Buckets are local calendar units (days of 23 or 25 hours across DST, ISO weeks from Monday,
 * months) or real hours; each bucket is clipped to the range [from 00:00, to + 1 day 00:00)
 * local, and its value is §6.3's definition applied to the clipped interval alone. Every
 * clipped interval is read from the rollups as a signed cover (metrics-cover.ts): the
 * 15-minute grain reaches every boundary of a whole-, half- or quarter-hour zone, so
 * Asia/Kolkata needs no finer rollup. The cost is bounded by the number of rollup buckets
 * and keys read, never by the number of orders.
 */
export const SERIES_METRICS = [
  'orders',
  'revenue',
  'conversations',
  'completed_chats',
  'abandoned_chats',
  'failed_chats',
  'success_rate',
  'average_cost',
  'conversion_rate',
] as const;
export type SeriesMetric = (typeof SERIES_METRICS)[number];
export const SERIES_GROUPINGS = ['hour', 'day', 'week', 'month'] as const;
export type SeriesGrouping = (typeof SERIES_GROUPINGS)[number];

/** The longest range per grouping, in local days (month: 5 calendar years, checked apart). */
const MAX_DAYS: Record<SeriesGrouping, number> = { hour: 31, day: 366, week: 366, month: Infinity };
const MAX_YEARS_MONTH = 5;

export interface SeriesArgs extends MetricsArgs {
  metric: string;
  group_by: string;
  from: string;
  to: string;
}

export interface SeriesPoint {
  start: string;
  value: number;
}

export interface MetricsSeries {
  metric: string;
  group_by: string;
  timezone: string;
  points: SeriesPoint[];
}

export interface SeriesPlan {
  /** Identifies the layout (grouping, zone, range): the same key, the same buckets. */
  key: string;
  metric: SeriesMetric;
  groupBy: SeriesGrouping;
  timezone: string;
  /** Bucket i is [bounds[i], bounds[i + 1]) (UTC ms, already clipped to the range). */
  bounds: number[];
  /** The buckets' own local starts, ISO 8601 with the offset at that instant. */
  starts: string[];
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

function parseDate(v: unknown): [number, number, number] | null {
  const m = typeof v === 'string' ? DATE.exec(v) : null;
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (y < 1000 || y > 9990) return null;
  const t = new Date(Date.UTC(y, mo - 1, d));
  if (t.getUTCFullYear() !== y || t.getUTCMonth() !== mo - 1 || t.getUTCDate() !== d) return null;
  return [y, mo, d];
}

/** `2026-03-29T00:00:00+01:00`: the local wall time of an instant with the zone's offset then. */
export function localIso(offsetAt: OffsetAt, ms: number): string {
  const off = offsetAt(ms);
  const wall = new Date(ms + off).toISOString().slice(0, 19);
  const mins = Math.round(Math.abs(off) / 60_000);
  return `${wall}${off < 0 ? '-' : '+'}${String(Math.floor(mins / 60)).padStart(2, '0')}:${String(mins % 60).padStart(2, '0')}`;
}

/** Validates the parameters (every bad one named at once) and lays out the buckets. */
export function planSeries(args: SeriesArgs & PeriodInput): SeriesPlan {
  const problems: Problem[] = [];
  const metric = (SERIES_METRICS as readonly string[]).includes(args.metric) ? (args.metric as SeriesMetric) : null;
  if (!metric) problems.push({ field: 'metric', rule: 'enum', params: { values: SERIES_METRICS } });
  const groupBy = (SERIES_GROUPINGS as readonly string[]).includes(args.group_by) ? (args.group_by as SeriesGrouping) : null;
  if (!groupBy) problems.push({ field: 'group_by', rule: 'enum', params: { values: SERIES_GROUPINGS } });
  const from = parseDate(args.from);
  if (!from) problems.push({ field: 'from', rule: 'date' });
  const to = parseDate(args.to);
  if (!to) problems.push({ field: 'to', rule: 'date' });
  const zone = resolveZone(args, problems);
  if (from && to && groupBy) {
    const days = (Date.UTC(to[0], to[1] - 1, to[2]) - Date.UTC(from[0], from[1] - 1, from[2])) / DAY_MS + 1;
    const tooLong =
      groupBy === 'month'
        ? Date.UTC(to[0], to[1] - 1, to[2]) >= Date.UTC(from[0] + MAX_YEARS_MONTH, from[1] - 1, from[2])
        : days > MAX_DAYS[groupBy];
    if (days < 1) problems.push({ field: 'to', rule: 'date_order', params: { other: 'from' } });
    else if (tooLong && groupBy === 'month') problems.push({ field: 'to', rule: 'max_years', params: { max: MAX_YEARS_MONTH, other: 'from' } });
    else if (tooLong) problems.push({ field: 'to', rule: 'max_days', params: { max: MAX_DAYS[groupBy] - 1, other: 'from' } });
  }
  if (problems.length || !metric || !groupBy || !from || !to) throw validationError(problems);

  const layoutKey = `${groupBy}|${zone.label}|${args.from}|${args.to}`;
  const known = remember(layouts, layoutKey);
  if (known) return { metric, ...known };
  const { offsetAt } = zone;
  const rangeStart = localMidnight(offsetAt, from[0], from[1], from[2]);
  const rangeEnd = localMidnight(offsetAt, to[0], to[1], to[2] + 1);
  // Local calendar units: each bucket's own start (possibly before the range) and the next's.
  const starts: number[] = [];
  if (groupBy === 'hour') {
    // Real hours: the next instant whose local wall clock shows a whole hour.
    for (let t = rangeStart; t < rangeEnd; ) {
      starts.push(t);
      let next = t + HOUR_MS;
      const intoHour = (((next + offsetAt(next)) % HOUR_MS) + HOUR_MS) % HOUR_MS;
      if (intoHour !== 0 && next - intoHour > t) next -= intoHour;
      t = next;
    }
  } else {
    let [y, m, d] = from;
    if (groupBy === 'week') d -= (new Date(Date.UTC(y, m - 1, d)).getUTCDay() + 6) % 7;
    if (groupBy === 'month') d = 1;
    for (let t = localMidnight(offsetAt, y, m, d); t < rangeEnd; ) {
      starts.push(t);
      if (groupBy === 'day') d += 1;
      else if (groupBy === 'week') d += 7;
      else m += 1;
      t = localMidnight(offsetAt, y, m, d);
    }
  }
  const bounds = starts.map((s) => Math.max(s, rangeStart));
  bounds.push(rangeEnd);
  const layout = { key: layoutKey, groupBy, timezone: zone.label, bounds, starts: starts.map((s) => localIso(offsetAt, s)) };
  keep(layouts, layoutKey, layout);
  return { metric, ...layout };
}

/**
 * Layouts and rollup read plans already worked out (a dashboard asks for the same few series
 * again and again; planning a Kolkata year of days costs milliseconds of CPU, mostly the signed
 * covers, whose own cache a 744-point hour series would flush). Small maps, cleared when full.
 */
const layouts = new Map<string, Omit<SeriesPlan, 'metric'>>();
const readPlans = new Map<string, ReadPlan>();
const MAX_PLANS = 200;
function remember<T>(m: Map<string, T>, key: string): T | undefined {
  return m.get(key);
}
function keep<T>(m: Map<string, T>, key: string, v: T): void {
  if (m.size >= MAX_PLANS) m.clear();
  m.set(key, v);
}

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
  const read = async (table: string, cols: string[], group: string): Promise<Row[]> => {
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
      group by 1${group ? ', 2' : ''}`;
    const rows = await selectOnReplica<any>(ctx.em, sql, params);
    return rows.map((r: any) => ({ ...r, i: Number(r.i), w: 1 }));
  };
  return {
    orders: () => read('metrics_order_rollup', ['orders', 'revenue'], ''),
    conversations: () => read('metrics_conversation_rollup', ['conversations', 'cost'], 'state'),
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
