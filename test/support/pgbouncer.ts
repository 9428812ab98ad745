import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './net.js';

export interface PgBouncer {
  /** The server URL with PgBouncer's host and port (any database name works: `* =` entry). */
  url: string;
  stop(): Promise<void>;
}

/** Where Debian installs it; null when it is not installed. */
export function pgbouncerBinary(): string | null {
  for (const candidate of ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer']) if (fs.existsSync(candidate)) return candidate;
  const which = spawnSync('sh', ['-c', 'command -v pgbouncer'], { encoding: 'utf8' });
  return which.status === 0 && which.stdout.trim() ? which.stdout.trim() : null;
}

/**
 * A PgBouncer in `pool_mode = transaction` in front of the PostgreSQL of `serverUrl`, for tests and
 * benchmarks: every database name is routed to that server (`* =`), clients are trusted, and the
 * server login uses the URL's user and password. As root it runs as `postgres` (PgBouncer refuses root).
 */
export async function startPgBouncer(
  serverUrl: string,
  /** `ignoreStartupParameters: null` leaves PgBouncer's default (none ignored: `statement_timeout` is refused). */
  opts: { poolSize?: number; ignoreStartupParameters?: string | null } = {},
): Promise<PgBouncer> {
  const binary = pgbouncerBinary();
  if (!binary) throw new Error('pgbouncer is not installed (Debian: apt-get install pgbouncer)');
  const server = new URL(serverUrl);
  const user = decodeURIComponent(server.username || 'postgres');
  const password = decodeURIComponent(server.password);
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ordergraph-pgbouncer-'));
  fs.chmodSync(dir, 0o755);
  const quote = (s: string) => `"${s.replace(/"/g, '""')}"`;
  fs.writeFileSync(path.join(dir, 'users.txt'), `${quote(user)} ${quote(password)}\n`);
  fs.writeFileSync(
    path.join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${server.hostname} port=${server.port || 5432} user=${user}${password ? ` password=${password}` : ''}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${path.join(dir, 'users.txt')}`,
      'pool_mode = transaction',
      'max_client_conn = 2000',
      `default_pool_size = ${opts.poolSize ?? 10}`,
      'max_db_connections = 0',
      // Databases come and go (one per test file); idle server connections must not keep them busy.
      'server_idle_timeout = 5',
      ...(opts.ignoreStartupParameters === null
        ? []
        : [`ignore_startup_parameters = ${opts.ignoreStartupParameters ?? 'extra_float_digits,statement_timeout'}`]),
      '',
    ].join('\n'),
  );
  const args = [path.join(dir, 'pgbouncer.ini')];
  if (process.getuid?.() === 0) args.unshift('-u', 'postgres');
  const child: ChildProcess = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr!.on('data', (d) => (log = (log + d).slice(-4000)));
  await waitForPort(port, child, () => log);
  server.hostname = '127.0.0.1';
  server.port = String(port);
  return {
    url: server.toString(),
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGINT');
        await exited;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A PgBouncer in front of a test database (`directUrl`, its DATABASE_DIRECT_URL): `url` is the
 * pooled DATABASE_URL for `serve` (with DATABASE_PREPARED_STATEMENTS=false). A string when it
 * cannot run here: the reason to print and skip.
 */
export async function pgbouncerFor(directUrl: string): Promise<{ url: string; bouncer: PgBouncer } | string> {
  if (!pgbouncerBinary()) return 'pgbouncer is not installed';
  const server = new URL(directUrl);
  const name = server.pathname.slice(1);
  server.pathname = '/';
  try {
    const bouncer = await startPgBouncer(server.toString());
    const url = new URL(bouncer.url);
    url.pathname = `/${name}`;
    return { url: url.toString(), bouncer };
  } catch (err) {
    return (err as Error).message.slice(0, 200);
  }
}

async function waitForPort(port: number, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`pgbouncer exited: ${log()}`);
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => {
        s.end();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`pgbouncer did not listen on ${port}: ${log()}`);
}
