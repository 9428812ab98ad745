import { validationError, type Problem } from '../../errors/codes.js';

/** A half-open UTC interval [start, end), in epoch milliseconds. */
export interface Range {
  start: number;
  end: number;
}

export interface MetricsPeriod {
  current: Range;
  previous: Range;
  /** How the zone was chosen, for logs and tests. */
  zone: string;
}

export interface PeriodInput {
  month?: string | null;
  timezone?: string | null;
  timezone_offset?: number | null;
}

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;

/** The zone's offset from UTC at an instant, in milliseconds (positive east). */
export type OffsetAt = (instantMs: number) => number;

const formatters = new Map<string, Intl.DateTimeFormat>();

function zoneFormatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(tz, f);
  }
  return f;
}

/** True for a zone name Intl knows (IANA names and aliases; offsets like "+05:30" are not zones here). */
export function isValidTimeZone(tz: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(tz) || tz.length > 64) return false;
  try {
    zoneFormatter(tz);
    return true;
  } catch {
    return false;
  }
}

/**
 * Zone offsets already worked out, by zone and second: formatToParts costs ~10 µs, and a period's
 * boundaries (local midnights) are the same instants request after request.
 */
const offsets = new Map<string, number>();
const MAX_OFFSETS = 10_000;

function ianaOffset(tz: string): OffsetAt {
  const f = zoneFormatter(tz);
  return (ms) => {
    const second = Math.floor(ms / 1000);
    const key = `${tz} ${second}`;
    let offset = offsets.get(key);
    if (offset === undefined) {
      const p: Record<string, number> = {};
      for (const part of f.formatToParts(new Date(ms))) if (part.type !== 'literal') p[part.type] = Number(part.value);
      offset = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - second * 1000;
      if (offsets.size >= MAX_OFFSETS) offsets.clear();
      offsets.set(key, offset);
    }
    return offset;
  };
}

/** The UTC instant of local midnight starting the local date (y, m 1-based, d). */
export function localMidnight(offsetAt: OffsetAt, y: number, m: number, d: number): number {
  const wall = Date.UTC(y, m - 1, d);
  let t = wall - offsetAt(wall);
  t = wall - offsetAt(t);
  return t;
}

/** The local calendar date at an instant. */
export function localDate(offsetAt: OffsetAt, ms: number): { y: number; m: number; d: number } {
  const local = new Date(ms + offsetAt(ms));
  return { y: local.getUTCFullYear(), m: local.getUTCMonth() + 1, d: local.getUTCDate() };
}

/**
 * The metrics period of CONTRACT §6.3: `month=YYYY-MM` or else the current day, in the zone
 * chosen by `timezone` (IANA), else `timezone_offset` (whole hours −12..14), else UTC; the
 * comparison period is the previous day or month. Bad values: 400 naming the parameter.
 */
export function resolvePeriod(input: PeriodInput, now: number = Date.now()): MetricsPeriod {
  const problems: Problem[] = [];
  const resolved = resolveZone(input, problems);
  const { offsetAt, zone } = resolved;
  const { month } = input;
  let monthParts: [number, number] | null = null;
  if (month !== undefined && month !== null) {
    const m = typeof month === 'string' ? MONTH.exec(month) : null;
    // Years 1000–9998 only: every boundary (and the previous month's) stays a 4-digit year.
    if (!m || Number(m[1]) < 1000 || Number(m[1]) > 9998) problems.push({ field: 'month', rule: 'month' });
    else monthParts = [Number(m[1]), Number(m[2])];
  }
  if (problems.length) throw validationError(problems);

  if (monthParts) {
    const [y, m] = monthParts;
    const start = localMidnight(offsetAt, y, m, 1);
    const end = localMidnight(offsetAt, m === 12 ? y + 1 : y, m === 12 ? 1 : m + 1, 1);
    const prevStart = localMidnight(offsetAt, m === 1 ? y - 1 : y, m === 1 ? 12 : m - 1, 1);
    return { current: { start, end }, previous: { start: prevStart, end: start }, zone };
  }
  const today = localDate(offsetAt, now);
  const start = localMidnight(offsetAt, today.y, today.m, today.d);
  const next = new Date(Date.UTC(today.y, today.m - 1, today.d + 1));
  const prev = new Date(Date.UTC(today.y, today.m - 1, today.d - 1));
  const end = localMidnight(offsetAt, next.getUTCFullYear(), next.getUTCMonth() + 1, next.getUTCDate());
  const prevStart = localMidnight(offsetAt, prev.getUTCFullYear(), prev.getUTCMonth() + 1, prev.getUTCDate());
  return { current: { start, end }, previous: { start: prevStart, end: start }, zone };
}

export interface Zone {
  offsetAt: OffsetAt;
  /** `UTC`, the IANA name, or `UTC+5` (the period's label). */
  zone: string;
  /** `UTC`, the IANA name, or `UTC+05:00` (the series' `timezone` echo, CONTRACT §9.5). */
  label: string;
}

/**
 * The zone of CONTRACT §6.3: `timezone` (IANA) wins over `timezone_offset` (whole hours
 * −12..14); neither: UTC. A bad value is pushed onto `problems` (naming the parameter).
 */
export function resolveZone(input: PeriodInput, problems: Problem[]): Zone {
  const { timezone, timezone_offset: offset } = input;
  if (timezone !== undefined && timezone !== null) {
    if (typeof timezone !== 'string' || !isValidTimeZone(timezone)) problems.push({ field: 'timezone', rule: 'timezone' });
    else return { offsetAt: ianaOffset(timezone), zone: timezone, label: timezone };
  } else if (offset !== undefined && offset !== null) {
    if (typeof offset !== 'number' || !Number.isInteger(offset) || offset < -12 || offset > 14)
      problems.push({ field: 'timezone_offset', rule: 'range', params: { min: -12, max: 14 } });
    else {
      const fixedMs = offset * 3_600_000;
      return {
        offsetAt: () => fixedMs,
        zone: `UTC${offset >= 0 ? '+' : ''}${offset}`,
        label: `UTC${offset < 0 ? '-' : '+'}${String(Math.abs(offset)).padStart(2, '0')}:00`,
      };
    }
  }
  return { offsetAt: () => 0, zone: 'UTC', label: 'UTC' };
}
