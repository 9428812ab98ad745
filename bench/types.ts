import type { MikroORM } from '@mikro-orm/postgresql';
import type { AppConfig } from '../src/config.js';
import type { FixtureFile } from '../src/fixtures/types.js';

/** One HTTP request autocannon repeats. `path` is the full path (`/v400/en/bench/configs`). */
export interface BenchScenario {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** Overrides of the app's configuration for this scenario (e.g. `redisUrl`); the runner starts one `serve` per distinct value. */
  config?: Partial<AppConfig>;
  /** The hand-written route of bench/baseline.ts answers this request too: the runner alternates the two and prints their ratio. */
  baseline?: boolean;
  /** Requests that differ each time (e.g. signed webhooks with fresh ids): the body and headers of the next one. */
  next?: () => { body: string; headers: Record<string, string> };
  /** Successive requests take these paths/headers in turn (writes spread over conversations or callers). */
  rotate?: { path?: string; headers?: Record<string, string> }[];
  /**
   * Another GraphQL server reads the same rows (PostGraphile, bench/postgraphile.ts, when BENCH_POSTGRAPHILE is
   * set): `body` is its document; the runner alternates it with `serve` like a baseline and prints the ratio.
   */
  rival?: { name: string; body: string };
  /** Sample pg_stat_activity's wait events during the measured runs and print them (bench/waits.ts). */
  sampleWaits?: boolean;
  /** Tables vacuumed before each measured run (harness vacuumFor): a write scenario's runs start from the same state. */
  vacuum?: string[];
}

export interface BenchPrepareContext {
  orm: MikroORM;
  load: (fixture: FixtureFile) => Promise<void>;
}

/**
 * A file under bench/scenarios/ exports `prepare`: it loads the data it needs (once per run,
 * into the bench database) and returns the requests to measure. bench/run.ts runs every
 * scenario under each engine (and, with `baseline`, alternates it with the hand-written route)
 * and prints req/s, latency percentiles and the ratio.
 */
export type PrepareScenarios = (ctx: BenchPrepareContext) => Promise<BenchScenario[]>;
