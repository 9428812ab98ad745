import net from 'node:net';
import path from 'node:path';
import { ensureDatabase } from '../src/db/database.js';
import { startEmbeddedPostgres, withDatabase } from '../src/db/embedded.js';

export const BENCH_PG_PORT = 54339;
/** The database of `npm run bench` (and bench:ab, bench:gc, which run its scenarios). */
export const BENCH_DB = 'ordergraph_bench';

function portInUse(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ port, host: '127.0.0.1' });
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}

/**
 * DATABASE_URL when set; otherwise the database `name` on the embedded PostgreSQL under
 * .data/bench-pg (port 54339), reused when something already listens there (stopped at the end
 * only if this run started it). Each bench that seeds data of its own names its own database, so
 * the benches share the server without their fixtures' ids meeting (`npm run bench`, then
 * `npm run bench:metrics`, then `npm run bench:events`, in any order).
 */
export async function openBenchDatabase(name = BENCH_DB): Promise<{ url: string; stop(): Promise<void> }> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, stop: async () => undefined };
  let serverUrl = `postgres://postgres:postgres@127.0.0.1:${BENCH_PG_PORT}/postgres`;
  let stop: () => Promise<void> = async () => undefined;
  if (!(await portInUse(BENCH_PG_PORT))) {
    const server = await startEmbeddedPostgres({ dir: path.resolve('.data', 'bench-pg'), port: BENCH_PG_PORT });
    serverUrl = server.url;
    stop = server.stop;
  } else {
    console.log(`(reusing the PostgreSQL already listening on ${BENCH_PG_PORT})`);
  }
  try {
    await ensureDatabase(serverUrl, name);
  } catch (err) {
    await stop();
    throw err;
  }
  return { url: withDatabase(serverUrl, name), stop };
}
