/**
 * Layouts and rollup read plans already worked out (a dashboard asks for the same few series
 * again and again; planning a Kolkata year of days costs milliseconds of CPU, mostly the signed
 * covers, whose own cache a 744-point hour series would flush). Small maps, cleared when full.
 */
const MAX_PLANS = 200;

export function remember<T>(m: Map<string, T>, key: string): T | undefined {
  return m.get(key);
}

export function keep<T>(m: Map<string, T>, key: string, v: T): void {
  if (m.size >= MAX_PLANS) m.clear();
  m.set(key, v);
}
