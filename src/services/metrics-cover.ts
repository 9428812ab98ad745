/**
 * How a period is read from the rollups: as signed sums of 15-minute, UTC-day and UTC-month
 * buckets (Migration20261121000400_metrics keeps all three grains).
 */
export const BUCKET_MS = 15 * 60_000;
const DAY_MS = 86_400_000;

export interface CoverPart {
  /** 0: 15-minute buckets, 1: UTC days, 2: UTC months. */
  grain: 0 | 1 | 2;
  start: number;
  end: number;
  /** +1: add these buckets; -1: take them away (an outer bucket's overhang). */
  sign: 1 | -1;
}

/** Rough rows read per bucket of each grain, relative to a 15-minute bucket. */
const GRAIN_COST = [1, 6, 6];

const monthFloor = (t: number) => {
  const d = new Date(t);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
};
const monthCeil = (t: number) => {
  const f = monthFloor(t);
  if (f === t) return t;
  const d = new Date(t);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
};
const dayFloor = (t: number) => Math.floor(t / DAY_MS) * DAY_MS;
const dayCeil = (t: number) => Math.ceil(t / DAY_MS) * DAY_MS;

function countMonths(a: number, b: number): number {
  const x = new Date(a);
  const y = new Date(b);
  return (y.getUTCFullYear() - x.getUTCFullYear()) * 12 + (y.getUTCMonth() - x.getUTCMonth());
}

function negate(parts: CoverPart[]): CoverPart[] {
  return parts.map((p) => ({ ...p, sign: (p.sign === 1 ? -1 : 1) as 1 | -1 }));
}

/**
 * A 15-minute-aligned range [start, end) as signed sums of rollup buckets, the cheapest found:
 * whole UTC months and days inside it, or an outer month/day minus its overhang, down to
 * 15-minute buckets at the edges. Every aggregate is a sum, so subtracting is exact.
 */
export function coverSigned(start: number, end: number, level: 0 | 1 | 2 = 2): { cost: number; parts: CoverPart[] } {
  if (start >= end) return { cost: 0, parts: [] };
  if (level === 0) return { cost: (end - start) / BUCKET_MS, parts: [{ grain: 0, start, end, sign: 1 }] };
  const lower = (level - 1) as 0 | 1;
  const [floor, ceil] = level === 2 ? [monthFloor, monthCeil] : [dayFloor, dayCeil];
  let best = coverSigned(start, end, lower);
  for (const innerStart of [true, false])
    for (const innerEnd of [true, false]) {
      const a = innerStart ? ceil(start) : floor(start);
      const b = innerEnd ? floor(end) : ceil(end);
      if (a >= b) continue;
      const head = innerStart ? coverSigned(start, a, lower) : { ...coverSigned(a, start, lower) };
      const tail = innerEnd ? coverSigned(b, end, lower) : { ...coverSigned(end, b, lower) };
      const units = level === 2 ? countMonths(a, b) : (b - a) / DAY_MS;
      const cost = head.cost + tail.cost + units * GRAIN_COST[level];
      if (cost < best.cost) {
        best = {
          cost,
          parts: [
            { grain: level, start: a, end: b, sign: 1 },
            ...(innerStart ? head.parts : negate(head.parts)),
            ...(innerEnd ? tail.parts : negate(tail.parts)),
          ],
        };
      }
    }
  return best;
}
