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

/** The tables of the deltas not yet folded into the rollups: conversations (issue 34), orders and their lines (issue 65). */
export type DeltaTable = 'metrics_conversation_delta' | 'metrics_order_delta' | 'metrics_product_delta';

/**
 * The deltas of `table` in `[from, to)` not yet folded into the rollup
 * (Migration20261125000400_metrics_deltas, Migration20261202000150_order_metric_deltas), summed per `labels` (SQL expressions of the delta's
 * 15-minute `d.bucket`, e.g. the period or the series bucket it falls in) and `keys`. Rollup reads
 * only run when every boundary is on the 15-minute grid, so a delta's bucket lies wholly inside
 * one period or series bucket: it is read like a raw row, by one index range, not through the
 * rollup's signed cover. Callers `union all` it with the rollup's sums in the same statement (one
 * snapshot: a compaction commits before or after it, so nothing is counted twice or missed).
 */
export function pendingDeltas(
  table: DeltaTable,
  labels: string[],
  keys: string[],
  cols: string[],
  from: number,
  to: number,
  projectId: number,
  businessIds: number[] | null,
  p: Bind,
): string {
  const columns = [...labels, ...keys.map((k) => `d.${k}`), ...cols.map((c) => `sum(d.${c}) ${c}`)];
  const grouped = [...labels, ...keys].map((_, i) => i + 1);
  return `select ${columns.join(', ')}
    from ${table} d
    where d.project_id = ${p(projectId)} and d.bucket >= ${p(new Date(from).toISOString())}::timestamptz and d.bucket < ${p(new Date(to).toISOString())}::timestamptz
      ${businessFilter('d.business_id', businessIds, p)}
    ${grouped.length ? `group by ${grouped.join(', ')}` : ''}`;
}
