import type { PeriodInput } from './period.js';

/** The common query parameters of every metrics operation (spec §4.4). */
export interface MetricsArgs extends PeriodInput {
  business_id?: number | null;
  franchise_id?: number | null;
}

/**
 * `rollup`: the fast path over the trigger-maintained rollups (15-minute and UTC-day buckets).
 * `raw`: the reference, scanning orders, order lines and conversations. Both return the same
 * aggregates; the shaping below is shared.
 */
export type MetricsMode = 'rollup' | 'raw';

/** Money, averages and percentages: 2 decimals, half away from zero, at the very end. */
export function round2(x: number): number {
  if (!Number.isFinite(x)) return 0;
  // Below 1e-6 (or from 1e21) the decimal text is in exponent form, which `e2` cannot extend: a
  // signed sum's float residue (1e-16 of a cancelled amount) must round to 0, not to NaN.
  if (Math.abs(x) < 1e-6 || Math.abs(x) >= 1e21) return Math.round(x * 100) / 100 + 0;
  const r = Math.sign(x) * Math.round(Number(`${Math.abs(x)}e2`));
  return Number(`${r}e-2`) + 0;
}

/** Binds a value as the next positional parameter and returns its placeholder. */
export type Bind = (v: unknown) => string;

/** ` and COLUMN in (…)` for a business scope (null: no restriction; empty: nothing). */
export function businessFilter(column: string, ids: number[] | null, p: Bind): string {
  if (ids === null) return '';
  if (ids.length === 0) return ' and false';
  return ` and ${column} in (${ids.map((id) => p(id)).join(', ')})`;
}

/**
 * The rows of one signed range `v(grain, s, e)` of the conversation rollup, read inside a
 * `cross join lateral`: the rollup rows of that grain, and the deltas the trigger appended since
 * the compactor last ran (Migration20261125000400_metrics_deltas). Deltas are 15-minute rows and
 * the range is aligned on its grain, so `bucket >= s and bucket < e` finds them whatever the
 * grain; `withBucket` names each delta's bucket at the range's grain. One statement, one
 * snapshot: a compaction commits before it or after it, so nothing is counted twice or missed.
 */
export function conversationRange(cols: string[], projectId: number, businessIds: number[] | null, p: Bind, withBucket = false): string {
  const rollup = withBucket ? ['grain', 'bucket', ...cols] : cols;
  const delta = withBucket ? ['v.grain', 'metrics_bin(v.grain, bucket)', ...cols] : cols;
  return `select ${rollup.join(', ')} from metrics_conversation_rollup
        where project_id = ${p(projectId)} and grain = v.grain and bucket >= v.s and bucket < v.e${businessFilter('business_id', businessIds, p)}
      union all
      select ${delta.join(', ')} from metrics_conversation_delta
        where project_id = ${p(projectId)} and bucket >= v.s and bucket < v.e${businessFilter('business_id', businessIds, p)}
      offset 0`;
}
