import 'reflect-metadata';
import fs from 'node:fs';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import { isDeepStrictEqual } from 'node:util';
import autocannon from 'autocannon';
import { build } from '../src/app.js';
import { BENCH_PROJECT, BENCH_SERVER_KEY, DEFAULT_BENCH_ORDERS, ensureBenchData } from '../src/bench-data/seed.js';
import { loadConfig } from '../src/config.js';
import { initORM, migrate } from '../src/db/orm.js';
import type { RequestContext } from '../src/graph/context.js';
import { openBenchDatabase } from './database.js';
import { MetricsService, type MetricsArgs, type MetricsMode } from '../src/services/metrics.service.js';

/**
 * `npm run bench:metrics`: seeds (or reuses) the 1M-order `bench-metrics` project, then
 * measures every metrics endpoint over HTTP with autocannon, for the current day and for a
 * whole month, and times the raw-scan reference queries next to the rollup path.
 *
 * DATABASE_URL when set, otherwise the embedded PostgreSQL under .data/bench-pg (port 54339;
 * reused when already running). BENCH_ORDERS (default 1,000,000), BENCH_DURATION (seconds per
 * run, default 5), BENCH_CONNECTIONS (comma-separated, default `1,10`), GRAPHQL_ENGINE (default
 * mercurius).
 */
const ENDPOINTS = ['agents', 'chats', 'orders', 'overview', 'performance', 'products'] as const;
const ZONE = 'Asia/Kolkata';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function table(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (i < 2 ? `${'-'.repeat(w + 1)}-` : `${'-'.repeat(w + 1)}:`)).join('|')}|`;
  return [line(head), rule, ...rows.map(line)].join('\n');
}

async function main(): Promise<void> {
  const n = Number(process.env.BENCH_ORDERS ?? DEFAULT_BENCH_ORDERS);
  const duration = Number(process.env.BENCH_DURATION ?? 5);
  const connectionSets = (process.env.BENCH_CONNECTIONS ?? '1,10').split(',').map(Number);
  const connections = Math.max(...connectionSets);
  const config = loadConfig();
  const db = await openBenchDatabase();
  const orm = await initORM({ clientUrl: db.url, poolMax: connections + 5 });
  try {
    await migrate(orm);
    const seed = await ensureBenchData(orm, n, (line) => process.stderr.write(`${line}\n`));
    console.log(`${BENCH_PROJECT}: ${seed.orders} AI orders (${seed.inserted} inserted this run${seed.rebuilt ? ', rollups rebuilt' : ''}), seed step ${seed.seconds.toFixed(1)}s`);

    const now = new Date();
    const lastMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1)).toISOString().slice(0, 7);
    const periods: { label: string; args: MetricsArgs; query: string }[] = [
      { label: `day (${ZONE})`, args: { timezone: ZONE }, query: `timezone=${encodeURIComponent(ZONE)}` },
      { label: `month ${lastMonth} (${ZONE})`, args: { month: lastMonth, timezone: ZONE }, query: `month=${lastMonth}&timezone=${encodeURIComponent(ZONE)}` },
    ];

    // In-process timings: the raw-scan reference vs the rollup path, and that they agree.
    const [{ id: projectId }] = await orm.em.getConnection().execute('select id from projects where code = ?', [BENCH_PROJECT], 'all');
    const service = new MetricsService();
    const ctx = () =>
      ({ requestId: 'bench', project: { id: projectId, ai_enabled: true }, caller: { kind: 'server', apiKeyId: 0 }, em: orm.em.fork(), lang: 'en', ip: '127.0.0.1' }) as unknown as RequestContext;
    const timed = async (endpoint: (typeof ENDPOINTS)[number], args: MetricsArgs, mode: MetricsMode) => {
      const fn = service[endpoint] as (c: RequestContext, a: MetricsArgs, m: MetricsMode) => Promise<unknown>;
      const times: number[] = [];
      let result: unknown;
      for (let i = 0; i < 3; i++) {
        const t0 = process.hrtime.bigint();
        result = await fn.call(service, ctx(), args, mode);
        times.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
      return { ms: median(times), result };
    };
    const direct = new Map<string, { raw: number; rollup: number; equal: boolean }>();
    for (const p of periods)
      for (const e of ENDPOINTS) {
        const raw = await timed(e, p.args, 'raw');
        const rollup = await timed(e, p.args, 'rollup');
        direct.set(`${e}|${p.label}`, { raw: raw.ms, rollup: rollup.ms, equal: isDeepStrictEqual(raw.result, rollup.result) });
        console.log(`direct ${e} ${p.label}: raw ${raw.ms.toFixed(1)} ms, rollup ${rollup.ms.toFixed(1)} ms, equal ${isDeepStrictEqual(raw.result, rollup.result)}`);
      }

    const engine = config.graphqlEngine;
    const { app } = await build({ orm, logger: false, config: { ...config, databaseUrl: db.url } });
    const rows: string[][] = [];
    try {
      await app.listen({ port: 0, host: '127.0.0.1' });
      const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
      for (const c of connectionSets)
      for (const p of periods)
        for (const e of ENDPOINTS) {
          const url = `${origin}/v400/en/${BENCH_PROJECT}/ai/metrics/${e}?${p.query}`;
          const opts = { url, connections: c, headers: { 'x-api-key': BENCH_SERVER_KEY }, timeout: 10 };
          await autocannon({ ...opts, duration: 1 });
          const r = await autocannon({ ...opts, duration });
          const d = direct.get(`${e}|${p.label}`)!;
          const bad = r.non2xx + r.errors + r.timeouts;
          rows.push([
            e, p.label, String(c), r.requests.average.toFixed(0), String(r.latency.p50), String(r.latency.p99),
            d.rollup.toFixed(1), d.raw.toFixed(1), d.equal ? 'yes' : 'NO', String(bad),
          ]);
          console.log(`${engine} c=${c} ${e} ${p.label}: ${r.requests.average.toFixed(0)} req/s, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms${bad ? `, ${bad} bad` : ''}`);
        }
    } finally {
      await new Promise((r) => setTimeout(r, 500));
      await app.close();
    }
    let cpu = os.cpus()[0]?.model ?? 'unknown CPU';
    try {
      const line = fs.readFileSync('/proc/cpuinfo', 'utf8').split('\n').find((l) => l.startsWith('model name'));
      if (line) cpu = line.split(':').slice(1).join(':').trim();
    } catch {
      // not Linux
    }
    console.log(`\n${seed.orders} AI orders, ${engine}, ${duration}s per run after 1 s warm-up; ${cpu}, nproc ${os.availableParallelism()}, Node ${process.version}`);
    console.log(
      table(['endpoint', 'period', 'connections', 'req/s', 'p50 ms', 'p99 ms', 'rollup ms (direct)', 'raw scan ms (direct)', 'equal', 'non-2xx'], rows),
    );
  } finally {
    await orm.close();
    await db.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
