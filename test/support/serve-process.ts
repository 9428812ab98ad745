import { spawn, type ChildProcess } from 'node:child_process';
import { CLI } from './dist.js';
import { freePort } from './net.js';

/** A real `ordergraph serve` process of a test (dist/ must be built: ensureBuilt). */
export interface ServeProcess {
  base: string;
  child: ChildProcess;
  output: () => string;
}

/**
 * Starts `serve` (another build's CLI with `opts.cli`, more arguments with `opts.args`, under a command
 * such as `unshare` with `opts.wrap`) on `databaseUrl` with `env` on top of a clean environment; waits
 * for /health/live.
 */
export async function startServe(
  databaseUrl: string,
  env: NodeJS.ProcessEnv = {},
  opts: { cli?: string; args?: string[]; wrap?: string[] } = {},
): Promise<ServeProcess> {
  const port = await freePort();
  const full: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: databaseUrl, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' };
  for (const k of ['REDIS_URL', 'MAINTENANCE_MODE', 'TRUST_PROXY', 'GRAPHQL_ENGINE']) delete full[k];
  const command = [...(opts.wrap ?? []), process.execPath, opts.cli ?? CLI, 'serve', ...(opts.args ?? [])];
  const child = spawn(command[0], command.slice(1), {
    env: { ...full, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const base = `http://127.0.0.1:${port}`;
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited ${child.exitCode}: ${out}`);
    try {
      if ((await fetch(`${base}/health/live`)).ok) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() - started > 60_000) throw new Error(`server did not start: ${out}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return { base, child, output: () => out };
}

/** SIGTERM, then SIGKILL after 10 s. */
export async function stopServe(servers: ServeProcess[]): Promise<void> {
  await Promise.all(
    servers.map(
      (s) =>
        new Promise<void>((resolve) => {
          if (s.child.exitCode !== null || s.child.signalCode !== null) return resolve();
          const kill = setTimeout(() => s.child.kill('SIGKILL'), 10_000);
          s.child.once('exit', () => {
            clearTimeout(kill);
            resolve();
          });
          s.child.kill('SIGTERM');
        }),
    ),
  );
}
