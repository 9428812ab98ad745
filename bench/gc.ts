import autocannon from 'autocannon';
import { openBenchDatabase } from './database.js';
import { benchNodeArgs, SERVE_NODE_ARGS, startServe } from './processes.js';

/**
 * `node dist/bench/gc.js [path]`: what V8's garbage collector does in `serve` under the bench's
 * load (10 connections, 10 s after a 3 s warm-up; default path `GET /configs` of the `bench`
 * project, which `npm run bench` prepares). `serve` runs with SERVE_NODE_ARGS, or with
 * BENCH_NODE_ARGS instead when set (to compare flags), plus `--trace-gc-nvp`; the report counts
 * full (mark-compact) and young (scavenge) collections, their pause time, and the bytes each
 * scavenge promoted to the old generation: what fills the old generation and forces full collections.
 */
const PATH = process.argv[2] ?? '/v400/en/bench/configs';
const KEY = process.env.BENCH_KEY ?? 'bench-server-key-0123456789';

interface Collection {
  kind: string;
  pauseMs: number;
  promoted: number;
}

function parse(line: string): Collection | null {
  const fields = new Map(line.split(/\s+/).map((kv) => kv.split('=') as [string, string]));
  const kind = fields.get('gc');
  if (!kind) return null;
  return { kind, pauseMs: Number(fields.get('pause') ?? 0), promoted: Number(fields.get('promoted') ?? 0) };
}

async function main(): Promise<void> {
  const db = await openBenchDatabase();
  const given = benchNodeArgs();
  const nodeArgs = given.length ? given : SERVE_NODE_ARGS;
  const env = { ...process.env, DATABASE_URL: db.url, LOG_LEVEL: 'warn' };
  const serve = await startServe(env, [...nodeArgs, '--trace-gc-nvp']);
  let trace = '';
  try {
    const fire = (duration: number) => autocannon({ url: serve.origin + PATH, headers: { 'x-api-key': KEY }, connections: 10, duration });
    await fire(3);
    serve.child.stdout!.on('data', (d) => (trace += d));
    const cpu0 = serve.cpuMs();
    const run = await fire(10);
    const answered = run['2xx'] + run.non2xx;
    const cpuPerReq = (serve.cpuMs() - cpu0) / answered;
    const all = trace
      .split('\n')
      .map(parse)
      .filter((c): c is Collection => c !== null);
    const full = all.filter((c) => c.kind === 'mc' || c.kind === 'mmc');
    const young = all.filter((c) => c.kind === 's');
    const sum = (cs: Collection[], f: (c: Collection) => number) => cs.reduce((n, c) => n + f(c), 0);
    console.log(`serve ${nodeArgs.join(' ')}: GET ${PATH}, 10 connections, 10 s`);
    console.log(
      `  requests ${answered} (non-2xx ${run.non2xx}), p99 ${run.latency.p99} ms, CPU ${cpuPerReq.toFixed(2)} ms/req, RSS ${serve.rssMb().toFixed(0)} MB`,
    );
    console.log(
      `  full collections ${full.length}, paused ${sum(full, (c) => c.pauseMs).toFixed(0)} ms (incremental marking steps not included)`,
    );
    console.log(
      `  scavenges ${young.length}, paused ${sum(young, (c) => c.pauseMs).toFixed(0)} ms, promoted ${(sum(young, (c) => c.promoted) / young.length / 1024 || 0).toFixed(0)} KB each on average`,
    );
  } finally {
    await serve.stop();
    await db.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
