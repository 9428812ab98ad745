import 'reflect-metadata';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { credentialCipher } from '../src/platform/dev-key.js';
import { openBenchDatabase } from './database.js';
import { CONNECTIONS, fire, floorOf, machine, median, prepareScenarios, type Run } from './harness.js';
import { benchNodeArgs, SERVE_NODE_ARGS, serveScript, startServer, type BenchServer } from './processes.js';
import type { BenchScenario } from './types.js';

/**
 * `npm run bench:ab -- A B [filter]`: the A/B harness. A and B are builds of `serve` kept with
 * `npm run bench:snapshot NAME` (bench/results/builds/NAME: dist/ and schema/ as they were), or
 * `current` (this tree's dist/), or `baseline` (bench/baseline.ts, the hand-written routes).
 * Both are started once and stay up; for each scenario (a substring of the names in `filter`,
 * `ratio` for the scenarios with a baseline) each is warmed up BENCH_WARMUP seconds (default 10:
 * a process's first rounds run 20–60 % slower), then BENCH_ROUNDS rounds (default 6) of
 * BENCH_DURATION seconds (default 4) alternate A and B, the order flipping every round. The
 * figure is each server's CPU time per answered request (from /proc: user + system), whose
 * median and spread are printed with the req/s, p99 and the B/A ratios; RSS at the end.
 * BENCH_ENGINE (default mercurius) is the GRAPHQL_ENGINE of both; BENCH_NODE_ARGS go to both
 * `serve`s (e.g. `--require ./dist/bench/profile-signal.js` for bench:profile-diff); BENCH_NODE_ARGS_B
 * go to B only, so one build can be compared with itself under other node flags (`current current`), and
 * BENCH_ENV_B (`NAME=value NAME=value`) is added to B's environment only: the same build under another setting
 * (e.g. `BENCH_ENV_B=WRITE_BATCH_MAX=1`, the writes each alone).
 * A write scenario (a POST with a baseline) also runs its commit floor (harness floorOf, on a
 * bench/baseline.ts process of its own) after A and B in every round: each side's req/s over the
 * floor's of the same round is printed beside the A/B ratios.
 */
const PROFILE = process.env.BENCH_PROFILE === '1';
const PROFILE_DIR = path.resolve('bench', 'results', 'prof');
const profiling = PROFILE ? ['--require', path.join(__dirname, 'profile-signal.js')] : [];

function script(side: string): { script: string; args: string[]; ready: string; nodeArgs: string[] } {
  if (side === 'baseline') return { script: path.join(__dirname, 'baseline.js'), args: [], ready: '/health', nodeArgs: profiling };
  return {
    script: serveScript(side),
    args: ['serve'],
    ready: '/health/live',
    nodeArgs: [...SERVE_NODE_ARGS, ...benchNodeArgs(), ...profiling],
  };
}

interface Side {
  name: string;
  server: BenchServer;
  runs: Run[];
}

const f = (n: number, d = 0) => n.toFixed(d);

/** BENCH_ENV_B as variables: `NAME=value` words. */
function envB(): NodeJS.ProcessEnv {
  const words = (process.env.BENCH_ENV_B ?? '').split(' ').filter(Boolean);
  return Object.fromEntries(
    words.map((w) => {
      const at = w.indexOf('=');
      if (at < 1) throw new Error(`BENCH_ENV_B: "${w}" is not NAME=value`);
      return [w.slice(0, at), w.slice(at + 1)];
    }),
  );
}

async function main(): Promise<void> {
  const [a, b, filter] = process.argv.slice(2);
  if (!a || !b) throw new Error('usage: ab.js A B [filter]  (A, B: a snapshot name, current or baseline)');
  const rounds = Number(process.env.BENCH_ROUNDS ?? 6);
  const duration = Number(process.env.BENCH_DURATION ?? 4);
  const warmup = Number(process.env.BENCH_WARMUP ?? 10);
  const engine = process.env.BENCH_ENGINE ?? 'mercurius';
  const config = loadConfig();
  const db = await openBenchDatabase();
  const sides: Side[] = [];
  let floorServer: BenchServer | undefined;
  let profiled = 0;
  const lines: string[] = [];
  try {
    const scenarios = (await prepareScenarios(db.url, credentialCipher(config.credentialsKey))).filter(
      (s) => !s.config && (!filter || (filter === 'ratio' ? s.baseline : filter.split('|').some((p) => s.name.includes(p)))),
    );
    if (!scenarios.length) throw new Error(`no scenario matches "${filter}"`);
    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: db.url, GRAPHQL_ENGINE: engine, LOG_LEVEL: 'warn' };
    for (const k of ['REDIS_URL', 'MAINTENANCE_MODE', 'TRUST_PROXY']) delete env[k];
    for (const [i, name] of [a, b].entries()) {
      const s = script(name);
      const extra = i === 1 ? (process.env.BENCH_NODE_ARGS_B ?? '').split(' ').filter(Boolean) : [];
      const server = await startServer(s.script, s.args, i === 1 ? { ...env, ...envB() } : env, s.ready, [...s.nodeArgs, ...extra]);
      let tail = '';
      server.child.stderr!.on('data', (d) => (tail = (tail + d).slice(-4000)));
      server.child.once('exit', (code, signal) => console.error(`${name} exited (${code ?? signal}) ${tail}`));
      sides.push({ name: i === 1 && name === a ? `${name}-B` : name, server, runs: [] });
    }
    if (scenarios.some(floorOf)) {
      floorServer = await startServer(path.join(__dirname, 'baseline.js'), [], env, '/health', []);
    }
    lines.push(
      `| scenario | ${sides[0].name} CPU µs/req (min–max) | ${sides[1].name} CPU µs/req (min–max) | ${sides[1].name}/${sides[0].name} CPU | ${sides[0].name} req/s | ${sides[1].name} req/s | ${sides[1].name}/${sides[0].name} req/s | p99 ms ${sides[0].name} / ${sides[1].name} | floor req/s, p99 ms | ${sides[0].name}/floor, ${sides[1].name}/floor req/s |`,
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    );
    for (const s of scenarios) {
      for (const side of sides) {
        side.runs = [];
        await fire(side.server, s, warmup);
      }
      const floor = floorOf(s);
      const floorRuns: Run[] = [];
      if (floor) await fire(floorServer!, floor, Math.min(warmup, 3));
      if (PROFILE) for (const side of sides) side.server.child.kill('SIGWINCH');
      for (let i = 0; i < rounds; i++) {
        for (const side of i % 2 ? [...sides].reverse() : sides) side.runs.push(await fire(side.server, s, duration));
        if (floor) floorRuns.push(await fire(floorServer!, floor, duration));
        console.log(
          `${s.name} round ${i + 1}: ${sides.map((x) => `${x.name} ${f(x.runs[i].cpuMsPerReq * 1000)} µs/req ${f(x.runs[i].rps)} req/s p99 ${x.runs[i].p99} ms`).join(', ')}${floor ? `, floor ${f(floorRuns[i].rps)} req/s p99 ${floorRuns[i].p99} ms` : ''}`,
        );
      }
      if (PROFILE) await keepProfiles(sides, s, ++profiled);
      const bad = sides.reduce((n, x) => n + x.runs.reduce((m, r) => m + r.bad, 0), 0) + floorRuns.reduce((m, r) => m + r.bad, 0);
      const [ra, rb] = sides.map((x) => x.runs);
      const cpu = (rs: Run[]) =>
        `${f(median(rs.map((r) => r.cpuMsPerReq * 1000)))} (${f(Math.min(...rs.map((r) => r.cpuMsPerReq * 1000)))}–${f(Math.max(...rs.map((r) => r.cpuMsPerReq * 1000)))})`;
      const perRound = (g: (r: Run) => number) => median(ra.map((r, i) => g(rb[i]) / g(r)));
      lines.push(
        `| ${s.name} | ${cpu(ra)} | ${cpu(rb)} | ${f(
          perRound((r) => r.cpuMsPerReq),
          2,
        )} | ${f(median(ra.map((r) => r.rps)))} | ${f(median(rb.map((r) => r.rps)))} | ${f(
          perRound((r) => r.rps),
          2,
        )} | ${median(ra.map((r) => r.p99))} / ${median(rb.map((r) => r.p99))} | ${
          floorRuns.length ? `${f(median(floorRuns.map((r) => r.rps)))}, ${median(floorRuns.map((r) => r.p99))}` : '–'
        } | ${
          floorRuns.length ? [ra, rb].map((rs) => f(median(rs.map((r, i) => r.rps / floorRuns[i].rps)), 2)).join(', ') : '–'
        } |${bad ? ` ${bad} non-2xx/errors` : ''}`,
      );
      if (bad) process.exitCode = 1;
    }
  } finally {
    for (const side of sides) lines.push(`${side.name}: RSS ${f(side.server.rssMb())} MB at the end`);
    for (const side of sides) await side.server.stop();
    await floorServer?.stop();
    await db.stop();
  }
  console.log(
    `\n${machine()}; load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(
        ' ',
      )}; engine ${engine}; ${warmup} s warm-up, ${rounds} alternated rounds of ${duration} s, ${CONNECTIONS} connections; medians of the rounds, ratios the median of the per-round ratios\n`,
  );
  console.log(lines.join('\n'));
}

/** Stops the profilers and names their files `<side>-<scenario>.cpuprofile`, with the requests answered beside them. */
async function keepProfiles(sides: Side[], s: BenchScenario, n: number): Promise<void> {
  for (const side of sides) side.server.child.kill('SIGWINCH');
  for (const side of sides) {
    const from = path.join(PROFILE_DIR, `${side.server.child.pid}-${n}.cpuprofile`);
    for (let waited = 0; !fs.existsSync(from); waited += 100) {
      if (waited > 30_000) throw new Error(`${side.name}: no profile written (${from})`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const to = path.join(PROFILE_DIR, `${side.name}-${s.name.replace(/[^\w]+/g, '_')}`);
    fs.renameSync(from, `${to}.cpuprofile`);
    fs.writeFileSync(`${to}.requests`, String(side.runs.reduce((m, r) => m + r.requests, 0)));
    console.log(`profile: ${to}.cpuprofile`);
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  process.exit(1);
});
