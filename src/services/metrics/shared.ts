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
