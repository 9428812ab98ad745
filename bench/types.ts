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
  /** Overrides of the app's configuration for this scenario (e.g. `redisUrl`); the runner builds one app per distinct value. */
  config?: Partial<AppConfig>;
}

export interface BenchPrepareContext {
  orm: MikroORM;
  load(fixture: FixtureFile): Promise<void>;
}

/**
 * A file under bench/scenarios/ exports `prepare`: it loads the data it needs (once per run,
 * into the bench database) and returns the requests to measure. bench/run.ts runs every
 * scenario under each engine and prints req/s and latency percentiles.
 */
export type PrepareScenarios = (ctx: BenchPrepareContext) => Promise<BenchScenario[]>;
