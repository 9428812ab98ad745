import { validationError, type Problem } from '../../errors/codes.js';
import { localMidnight, resolveZone, type OffsetAt, type PeriodInput } from './period.js';
import type { MetricsArgs } from './shared.js';
import { keep, remember } from './plan-cache.js';

/**
 * The buckets of a series (CONTRACT §9.5): its parameters validated (every bad one named at once)
 * and its local calendar buckets laid out, clipped to the range. Reading them is series.ts.
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

const layouts = new Map<string, Omit<SeriesPlan, 'metric'>>();

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
export const DAY_MS = 86_400_000;
export const HOUR_MS = 3_600_000;

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
    else if (tooLong && groupBy === 'month')
      problems.push({ field: 'to', rule: 'max_years', params: { max: MAX_YEARS_MONTH, other: 'from' } });
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
    for (let t = rangeStart; t < rangeEnd;) {
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
    for (let t = localMidnight(offsetAt, y, m, d); t < rangeEnd;) {
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
