import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/**
 * The V8 flags `npm start` gives `serve` (package.json): the old generation is capped at 448 MB.
 * The live heap under the bench's load is about 50 MB, but without a cap V8 lets garbage grow the
 * heap past 170 MB before collecting it (RSS 230–280 MB after 60 s, 150 MB with a 128 MB cap, the
 * same with 256: 156 and 158 MB after 21 s of the 50-row list). 448: STREAMS_MAX_OPEN defaults to
 * what half the heap limit holds at 24 KiB per stream (13 KB per SSE stream, 21 KB per
 * subscription, measured), and 10,000 need a heap limit of ~470 MB (docs/events.md).
 * Without allocation-site pretenuring: V8 pretenured `pg`'s row objects, which then filled the
 * small old generation with dead rows and forced a full collection every second (README, fourth round).
 * Single-threaded GC: on two cores V8's helper threads (parallel scavenges, concurrent marking)
 * compete with the main thread and PostgreSQL; without them `serve` spent ~5 % less CPU per
 * request in alternated A/B rounds (docs/benchmarks.md, issue 24 second round). Re-measure on bigger hosts.
 */
export const SERVE_NODE_ARGS = ['--max-old-space-size=448', '--no-allocation-site-pretenuring', '--single-threaded-gc'];

/** A server the benchmark started: `ordergraph serve` or the hand-written baseline. */
export interface BenchServer {
  origin: string;
  child: ChildProcess;
  /** Resident set size in MB (Linux /proc), NaN elsewhere. */
  rssMb(): number;
  /** CPU time used so far (user + system), in ms (Linux /proc), NaN elsewhere. */
  cpuMs(): number;
  /** The last 20,000 characters it wrote (stdout and stderr): why it exited, when it did. */
  output(): string;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** BENCH_NODE_ARGS (e.g. `--cpu-prof --cpu-prof-dir=bench/results/prof`): extra flags for `serve` only. */
export function benchNodeArgs(): string[] {
  return (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
}

/**
 * `ordergraph serve` (the compiled CLI) with `env`, ready once /health/live answers; `nodeArgs` go
 * to node (default: SERVE_NODE_ARGS, then BENCH_NODE_ARGS). `build`: `current` (this tree's dist/)
 * or the name of a snapshot (`npm run bench:snapshot NAME`).
 */
export function startServe(
  env: NodeJS.ProcessEnv,
  nodeArgs = [...SERVE_NODE_ARGS, ...benchNodeArgs()],
  build = 'current',
): Promise<BenchServer> {
  return startServer(serveScript(build), ['serve'], env, '/health/live', nodeArgs);
}

/** The CLI of a build: `current` (this tree's dist/) or a snapshot under bench/results/builds. */
export function serveScript(build: string): string {
  const main =
    build === 'current'
      ? path.join(__dirname, '..', 'src', 'cli', 'main.js')
      : path.resolve('bench', 'results', 'builds', build, 'dist', 'src', 'cli', 'main.js');
  if (!fs.existsSync(main)) throw new Error(`${build}: ${main} not found (npm run bench:snapshot ${build})`);
  return main;
}

/** Starts `node script args` with `env` (plus PORT and HOST) and waits until `readyPath` answers. */
export async function startServer(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  readyPath: string,
  nodeArgs: string[] = [],
  execPath = process.execPath,
): Promise<BenchServer> {
  const port = await freePort();
  const child = spawn(execPath, [...nodeArgs, script, ...args], {
    env: { ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out = (out + d).slice(-20_000)));
  child.stderr.on('data', (d) => (out = (out + d).slice(-20_000)));
  const origin = `http://127.0.0.1:${port}`;
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${path.basename(script)} exited ${child.exitCode}: ${out}`);
    try {
      if ((await fetch(origin + readyPath)).status < 500) break;
    } catch {
      // not listening yet
    }
    if (Date.now() - started > 60_000) throw new Error(`${path.basename(script)} did not start: ${out}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    origin,
    child,
    output: () => out,
    rssMb: () => {
      try {
        const line = fs
          .readFileSync(`/proc/${child.pid}/status`, 'utf8')
          .split('\n')
          .find((l) => l.startsWith('VmRSS:'));
        return line ? Number(line.split(/\s+/)[1]) / 1024 : NaN;
      } catch {
        return NaN;
      }
    },
    cpuMs: () => {
      try {
        const fields = fs.readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
        return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in clock ticks (USER_HZ 100)
      } catch {
        return NaN;
      }
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        const kill = setTimeout(() => child.kill('SIGKILL'), 15_000);
        child.once('exit', () => (clearTimeout(kill), resolve()));
        child.kill('SIGTERM');
      }),
  };
}
