import 'reflect-metadata';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import autocannon from 'autocannon';
import { DefaultLogger, type LogContext } from '@mikro-orm/core';
import { MikroORM } from '@mikro-orm/postgresql';
import { BENCH_PROJECT, BENCH_SERVER_KEY, DEFAULT_BENCH_ORDERS, ensureBenchData } from '../src/bench-data/seed.js';
import { loadConfig } from '../src/config.js';
import { initORM, migrate, ormConfig } from '../src/db/orm.js';
import type { RequestContext } from '../src/context/index.js';
import { openBenchDatabase } from './database.js';
import { startServe, startServer, type BenchServer } from './processes.js';
import { MetricsService, type MetricsArgs, type MetricsMode } from '../src/services/metrics/metrics.service.js';

/**
 * `npm run bench:metrics`: seeds (or reuses) the 1M-order `bench-metrics` project, then
 * measures every metrics endpoint over HTTP with autocannon, for the current day and for a
 * whole month, and times the raw-scan reference queries next to the rollup path.
 *
 * DATABASE_URL when set, otherwise the embedded PostgreSQL under .data/bench-pg (port 54339;
 * reused when already running). BENCH_DIRECT=0 skips the in-process raw/rollup timings. BENCH_ORDERS (default 1,000,000), BENCH_DURATION (seconds per
 * run, default 5), BENCH_CONNECTIONS (comma-separated, default `1,10`), GRAPHQL_ENGINE (default
 * mercurius), BENCH_ONLY=series (only the series scenarios, at the largest connection count).
 */
const ENDPOINTS = ['agents', 'chats', 'orders', 'overview', 'performance', 'products'] as const;
type Endpoint = (c: RequestContext, a: MetricsArgs, m: MetricsMode) => Promise<unknown>;
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
  const db = await openBenchDatabase('ordergraph_bench_metrics');
  const orm = await initORM({ clientUrl: db.url, poolMax: connections + 5 });
  try {
    await migrate(orm);
    const seed = await ensureBenchData(orm, n, (line) => process.stderr.write(`${line}\n`));
    console.log(
      `${BENCH_PROJECT}: ${seed.orders} AI orders (${seed.inserted} inserted this run${seed.rebuilt ? ', rollups rebuilt' : ''}), seed step ${seed.seconds.toFixed(1)}s`,
    );

    const now = new Date();
    const lastMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1)).toISOString().slice(0, 7);
    const periods: { label: string; args: MetricsArgs; query: string }[] = [
      { label: `day (${ZONE})`, args: { timezone: ZONE }, query: `timezone=${encodeURIComponent(ZONE)}` },
      {
        label: `month ${lastMonth} (${ZONE})`,
        args: { month: lastMonth, timezone: ZONE },
        query: `month=${lastMonth}&timezone=${encodeURIComponent(ZONE)}`,
      },
    ];

    // In-process timings: the raw-scan reference vs the rollup path, and that they agree.
    const [{ id: projectId }] = await orm.em.getConnection().execute('select id from projects where code = ?', [BENCH_PROJECT], 'all');
    const service = new MetricsService();
    const ctx = () =>
      ({
        requestId: 'bench',
        project: { id: projectId, ai_enabled: true },
        caller: { kind: 'server', apiKeyId: 0 },
        em: orm.em.fork(),
        lang: 'en',
        ip: '127.0.0.1',
      }) as unknown as RequestContext;
    const timed = async (endpoint: (typeof ENDPOINTS)[number], args: MetricsArgs, mode: MetricsMode) => {
      const times: number[] = [];
      let result: unknown;
      for (let i = 0; i < 3; i++) {
        const t0 = process.hrtime.bigint();
        result = await (service[endpoint] as Endpoint).call(service, ctx(), args, mode);
        times.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
      return { ms: median(times), result };
    };
    const direct = new Map<string, { raw: number; rollup: number; equal: boolean }>();
    // BENCH_DIRECT=0 skips these (at 10M orders the raw scans of a month take minutes)
    if (process.env.BENCH_DIRECT !== '0')
      for (const p of periods)
        for (const e of ENDPOINTS) {
          const raw = await timed(e, p.args, 'raw');
          const rollup = await timed(e, p.args, 'rollup');
          direct.set(`${e}|${p.label}`, { raw: raw.ms, rollup: rollup.ms, equal: isDeepStrictEqual(raw.result, rollup.result) });
          console.log(
            `direct ${e} ${p.label}: raw ${raw.ms.toFixed(1)} ms, rollup ${rollup.ms.toFixed(1)} ms, equal ${isDeepStrictEqual(raw.result, rollup.result)}`,
          );
        }

    // The overview of the month as the service runs it (one statement and its parameters, taken from
    // the ORM's query log), for the baseline to replay with `pg`.
    const captured: { sql: string; params: unknown[] }[] = [];
    const logOrm = await MikroORM.init({
      ...ormConfig({ clientUrl: db.url, poolMax: 1 }),
      debug: ['query'],
      loggerFactory: (options) =>
        new (class extends DefaultLogger {
          override logQuery(context: LogContext): void {
            captured.push({ sql: String(context.query), params: context.params ?? [] });
          }
        })(options),
    });
    try {
      const em = logOrm.em.fork();
      captured.length = 0; // only what the overview itself runs
      await service.overview({ ...ctx(), em }, periods[1].args, 'rollup');
    } finally {
      await logOrm.close();
    }
    const overview = captured.filter((q) => q.sql.includes('json_agg'));
    if (overview.length !== 1 || captured.length !== 1)
      throw new Error(`expected the overview to run one statement, captured ${captured.length}`);
    // selectRows logs the text it sends ($1, $2 …); instants went as UTC ISO text
    const statement = { sql: overview[0].sql, params: overview[0].params.map((v) => (v instanceof Date ? v.toISOString() : v)) };
    const resultsDir = path.resolve('bench', 'results');
    fs.mkdirSync(resultsDir, { recursive: true });
    const sqlFile = path.join(resultsDir, 'overview-month.json');
    fs.writeFileSync(sqlFile, JSON.stringify(statement));

    const engine = config.graphqlEngine;
    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: db.url, GRAPHQL_ENGINE: engine, LOG_LEVEL: 'warn' };
    for (const k of ['REDIS_URL', 'MAINTENANCE_MODE', 'TRUST_PROXY']) delete env[k];
    const serve = await startServe(env);
    const baseline = await startServer(
      path.join(__dirname, 'baseline.js'),
      [],
      { ...process.env, DATABASE_URL: db.url, BASELINE_OVERVIEW_SQL: sqlFile },
      '/health',
    );
    const rows: string[][] = [];
    const fire = async (server: BenchServer, url: string, c: number, seconds: number) => {
      const cpu0 = server.cpuMs();
      const r = await autocannon({
        url: server.origin + url,
        connections: c,
        headers: { 'x-api-key': BENCH_SERVER_KEY },
        timeout: 10,
        duration: seconds,
      });
      return { r, cpu: (server.cpuMs() - cpu0) / Math.max(1, r['2xx'] + r.non2xx) };
    };
    // GET /ai/metrics/series (issue 22): day and week over a year, hour over a month, UTC and Kolkata
    const ymd = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
    const seriesCase = (metric: string, zone: string, group: string, days: number) => ({
      label: `${metric === 'orders' ? '' : `${metric} `}${group} × ${days + 1} days (${zone})`,
      url: `/v400/en/${BENCH_PROJECT}/ai/metrics/series?metric=${metric}&group_by=${group}&from=${ymd(days)}&to=${ymd(0)}${zone === 'UTC' ? '' : `&timezone=${encodeURIComponent(zone)}`}`,
    });
    const seriesCases = [
      ...(['UTC', ZONE] as const).flatMap((zone) =>
        (
          [
            ['day', 365],
            ['hour', 30],
            ['week', 365],
          ] as const
        ).map(([group, days]) => seriesCase('orders', zone, group, days)),
      ),
      // a conversation metric reads the conversation rollup and its pending deltas (Migration20261125000400_metrics_deltas)
      seriesCase('success_rate', ZONE, 'day', 365),
      seriesCase('success_rate', ZONE, 'hour', 30),
    ];
    const only = process.env.BENCH_ONLY; // `series`: only the series scenarios
    try {
      if (only === 'series' || !only)
        for (const c of connectionSets.filter((x) => only !== 'series' || x === connections))
          for (const sc of seriesCases) {
            const check = await fetch(serve.origin + sc.url, { headers: { 'x-api-key': BENCH_SERVER_KEY } });
            if (check.status !== 200) throw new Error(`series ${sc.label}: ${check.status} ${await check.text()}`);
            await fire(serve, sc.url, c, 1);
            const { r, cpu } = await fire(serve, sc.url, c, duration);
            const bad = r.non2xx + r.errors + r.timeouts;
            rows.push([
              'series',
              sc.label,
              String(c),
              r.requests.average.toFixed(0),
              String(r.latency.p50),
              String(r.latency.p99),
              cpu.toFixed(2),
              '–',
              '–',
              '–',
              '–',
              '–',
              String(bad),
            ]);
            console.log(
              `${engine} c=${c} series ${sc.label}: ${rows[rows.length - 1].slice(3, 7).join(' / ')}${bad ? `, ${bad} bad` : ''}`,
            );
          }
      if (only !== 'series')
        for (const c of connectionSets)
          for (const p of periods)
            for (const e of ENDPOINTS) {
              const url = `/v400/en/${BENCH_PROJECT}/ai/metrics/${e}?${p.query}`;
              // the overview of the month also runs against the baseline, alternating (A B, 3 pairs)
              const paired = e === 'overview' && p === periods[1];
              if (paired) {
                const [a, b] = await Promise.all([
                  fetch(serve.origin + url, { headers: { 'x-api-key': BENCH_SERVER_KEY } }),
                  fetch(baseline.origin + url, { headers: { 'x-api-key': BENCH_SERVER_KEY } }),
                ]);
                const [ta, tb] = [await a.text(), await b.text()];
                if (ta !== tb) throw new Error(`overview: the baseline answers differently\n  serve:    ${ta}\n  baseline: ${tb}`);
              }
              await fire(serve, url, c, 1);
              if (paired) await fire(baseline, url, c, 1);
              type Fired = Awaited<ReturnType<typeof fire>>;
              const runs: (Fired & { base?: Fired })[] = [];
              for (let i = 0; i < (paired ? 3 : 1); i++) {
                const a = await fire(serve, url, c, duration);
                runs.push({ ...a, base: paired ? await fire(baseline, url, c, duration) : undefined });
              }
              const med = (f: (x: (typeof runs)[number]) => number) => median(runs.map(f));
              const d = direct.get(`${e}|${p.label}`);
              const bad = runs.reduce((n, x) => n + x.r.non2xx + x.r.errors + x.r.timeouts, 0);
              const ratio = paired ? med((x) => x.r.requests.average / x.base!.r.requests.average).toFixed(2) : '–';
              rows.push([
                e,
                p.label,
                String(c),
                med((x) => x.r.requests.average).toFixed(0),
                String(med((x) => x.r.latency.p50)),
                String(med((x) => x.r.latency.p99)),
                med((x) => x.cpu).toFixed(2),
                paired ? String(med((x) => x.base!.r.latency.p99)) : '–',
                ratio,
                d ? d.rollup.toFixed(1) : '–',
                d ? d.raw.toFixed(1) : '–',
                d ? (d.equal ? 'yes' : 'NO') : '–',
                String(bad),
              ]);
              console.log(`${engine} c=${c} ${e} ${p.label}: ${rows[rows.length - 1].slice(3, 9).join(' / ')}${bad ? `, ${bad} bad` : ''}`);
            }
      console.log(`serve RSS at the end: ${serve.rssMb().toFixed(0)} MB`);
    } finally {
      await serve.stop();
      await baseline.stop();
    }
    let cpu = os.cpus()[0]?.model ?? 'unknown CPU';
    try {
      const line = fs
        .readFileSync('/proc/cpuinfo', 'utf8')
        .split('\n')
        .find((l) => l.startsWith('model name'));
      if (line) cpu = line.split(':').slice(1).join(':').trim();
    } catch {
      // not Linux
    }
    console.log(
      `\n${seed.orders} AI orders, ${engine}, ${duration}s per run after 1 s warm-up; ${cpu}, nproc ${os.availableParallelism()}, Node ${process.version}`,
    );
    console.log(
      table(
        [
          'endpoint',
          'period',
          'connections',
          'req/s',
          'p50 ms',
          'p99 ms',
          'CPU ms/req',
          'baseline p99 ms',
          'ratio',
          'rollup ms (direct)',
          'raw scan ms (direct)',
          'equal',
          'non-2xx',
        ],
        rows,
      ),
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
