/**
 * How a period is read from the rollups: as signed sums of 15-minute, UTC-hour, UTC 6-hour,
 * UTC-day and UTC-month buckets (the grains of Migration20261121000400_metrics and
 * Migration20261122000000_metrics_hour_grains).
 */
export const BUCKET_MS = 15 * 60_000;
const HOUR_MS = 3_600_000;
const SIX_HOURS_MS = 6 * HOUR_MS;
const DAY_MS = 86_400_000;

/** Rollup grain codes as stored: 0 15 minutes, 3 hours, 4 6-hour blocks, 1 UTC days, 2 UTC months. */
export type Grain = 0 | 1 | 2 | 3 | 4;

export interface CoverPart {
  grain: Grain;
  start: number;
  end: number;
  /** +1: add these buckets; -1: take them away (an outer bucket's overhang). */
  sign: 1 | -1;
}

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
const fixed = (ms: number) => ({
  floor: (t: number) => Math.floor(t / ms) * ms,
  ceil: (t: number) => Math.ceil(t / ms) * ms,
  units: (a: number, b: number) => (b - a) / ms,
});

/**
 * The grains from finest to coarsest, with the rough rows read per bucket relative to a
 * 15-minute one. At high volume every bucket holds most of the key space, so coarser buckets
 * cost little more than fine ones; that is what keeps a period's cost bounded by the key space.
 */
const LEVELS: {
  grain: Grain;
  cost: number;
  floor: (t: number) => number;
  ceil: (t: number) => number;
  units: (a: number, b: number) => number;
}[] = [
  { grain: 0, cost: 1, ...fixed(BUCKET_MS) },
  { grain: 3, cost: 2, ...fixed(HOUR_MS) },
  { grain: 4, cost: 4, ...fixed(SIX_HOURS_MS) },
  { grain: 1, cost: 6, ...fixed(DAY_MS) },
  {
    grain: 2,
    cost: 6,
    floor: monthFloor,
    ceil: monthCeil,
    units: (a, b) => {
      const x = new Date(a);
      const y = new Date(b);
      return (y.getUTCFullYear() - x.getUTCFullYear()) * 12 + (y.getUTCMonth() - x.getUTCMonth());
    },
  },
];

function negate(parts: CoverPart[]): CoverPart[] {
  return parts.map((p) => ({ ...p, sign: p.sign === 1 ? -1 : 1 }));
}

/** Covers already worked out, by range: a dashboard asks for the same few periods again and again. */
const covers = new Map<string, readonly CoverPart[]>();
const MAX_COVERS = 1000;

/**
 * A 15-minute-aligned range [start, end) as signed sums of rollup buckets, the cheapest found:
 * whole buckets of a grain inside it, or an outer bucket minus its overhang, down to finer
 * grains at the edges. Every aggregate is a sum, so subtracting is exact.
 */
export function coverSigned(start: number, end: number): readonly CoverPart[] {
  const key = `${start}:${end}`;
  let parts = covers.get(key);
  if (!parts) {
    parts = cheapest(start, end, LEVELS.length - 1, new Map()).parts;
    if (covers.size >= MAX_COVERS) covers.clear();
    covers.set(key, parts);
  }
  return parts;
}

type Cover = { cost: number; parts: CoverPart[] };

function cheapest(start: number, end: number, level: number, seen: Map<string, Cover>): Cover {
  if (start >= end) return { cost: 0, parts: [] };
  const { grain, cost: unitCost, floor, ceil, units } = LEVELS[level];
  if (level === 0) return { cost: units(start, end) * unitCost, parts: [{ grain, start, end, sign: 1 }] };
  const key = `${level}:${start}:${end}`;
  const known = seen.get(key);
  if (known) return known;
  let best = cheapest(start, end, level - 1, seen);
  for (const innerStart of [true, false])
    for (const innerEnd of [true, false]) {
      const a = innerStart ? ceil(start) : floor(start);
      const b = innerEnd ? floor(end) : ceil(end);
      if (a >= b) continue;
      const head = innerStart ? cheapest(start, a, level - 1, seen) : cheapest(a, start, level - 1, seen);
      const tail = innerEnd ? cheapest(b, end, level - 1, seen) : cheapest(end, b, level - 1, seen);
      const cost = head.cost + tail.cost + units(a, b) * unitCost;
      if (cost < best.cost) {
        best = {
          cost,
          parts: [
            { grain, start: a, end: b, sign: 1 },
            ...(innerStart ? head.parts : negate(head.parts)),
            ...(innerEnd ? tail.parts : negate(tail.parts)),
          ],
        };
      }
    }
  seen.set(key, best);
  return best;
}
