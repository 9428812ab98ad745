import http from 'node:http';
import os from 'node:os';
import { initORM, migrate } from '../src/db/orm.js';
import { loadFixtures } from '../src/fixtures/load.js';
import { CredentialCipher } from '../src/platform/secrets.js';
import { openBenchDatabase } from './database.js';
import { spread } from './events-spread.js';
import { startServe, type BenchServer } from './processes.js';

/**
 * `npm run bench:events`: BENCH_STREAMS (default 1,000) SSE streams open on one `serve` (A, under
 * `npm start`'s V8 flags) while customers open conversations at BENCH_WRITES_PER_S (default 50) —
 * each open commits one conversation.created — for BENCH_DURATION seconds (default 10), first
 * through A itself, then through a second `serve` (B) on the same database (LISTEN/NOTIFY, or Redis
 * with REDIS_URL). Commit→arrival is measured on BENCH_SAMPLED streams (default 50; the others only
 * count bytes, so the bench client does not parse 50,000 events a second on a shared machine)
 * against the event's created_at (taken at insert, before the commit: an upper bound).
 * BENCH_ATTEMPT (default BENCH_STREAMS) streams are attempted: past A's bound (STREAMS_MAX_OPEN,
 * heap) the excess must be refused with 503 while the held streams go on. Reported: RSS and heap
 * used of A (its /metrics) idle and with the streams, per stream; refusals; held streams that ended.
 * BENCH_BUILD: a snapshot (`npm run bench:snapshot NAME`) instead of this tree's build.
 * All streams use one key of one project, so the per-credential and per-project caps are raised to
 * BENCH_ATTEMPT for the run: what is measured is the process, not the caps (tests cover those).
 * BENCH_SCENARIO (default `one,spread,subs`): `one` is the above; `spread` and `subs` are the
 * multi-tenant runs of events-spread.ts (10,000 SSE streams, 5,000 subscriptions over 100 projects).
 */
const STREAMS = Number(process.env.BENCH_STREAMS ?? 1000);
const ATTEMPT = Math.max(STREAMS, Number(process.env.BENCH_ATTEMPT ?? STREAMS));
const SAMPLED = Math.min(STREAMS, Number(process.env.BENCH_SAMPLED ?? 50));
const RATE = Number(process.env.BENCH_WRITES_PER_S ?? 50);
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const KEY = 'evbench-server-key-0123456789';
const CREDENTIALS_KEY = 'bench-credentials-key';
const userKey = (id: number) => `evbench-user-${id}-0123456789`;

async function prepare(url: string, users: number): Promise<void> {
  const orm = await initORM({ clientUrl: url, poolMax: 2 });
  try {
    await migrate(orm);
    const ids = Array.from({ length: users }, (_, i) => 100_001 + i);
    await orm.em.getConnection().execute('delete from ai_conversations where agent_id = 900001');
    await loadFixtures(
      orm,
      {
        projects: [
          { code: 'demo', name: 'Demo' },
          {
            code: 'evbench',
            name: 'Events bench',
            ai_enabled: true,
            businesses: [{ id: 900001, name: 'Bench shop' }],
            agents: [
              {
                id: 900001,
                business_id: 900001,
                name: 'Bench bot',
                provider: 'whatsapp',
                provider_type: 'chat',
                provider_external_id: 'evbench-bot',
                enabled: true,
              },
            ],
            users: ids.map((id) => ({ id, name: `U${id}`, email: `u${id}@evbench.test`, level: 3 })),
            api_keys: [{ key: KEY, server: true }, ...ids.map((id) => ({ key: userKey(id), user_id: id }))],
          },
        ],
      },
      new CredentialCipher(CREDENTIALS_KEY),
    );
  } finally {
    await orm.close();
  }
}

interface Streams {
  latencies: number[];
  events: number;
  open: number;
  /** Answered 503 (the process sheds load), and anything else that was not a stream. */
  refused: number;
  failed: number;
  /** Held streams that ended before the bench closed them. */
  dropped: number;
  close(): void;
}

/** Attempts `n` SSE streams on `origin` (50 at a time); the first `sampled` held ones parse each event's created_at. */
async function openStreams(origin: string, n: number, sampled: number): Promise<Streams> {
  let closing = false;
  const out: Streams = {
    latencies: [],
    events: 0,
    open: 0,
    refused: 0,
    failed: 0,
    dropped: 0,
    close: () => ((closing = true), reqs.forEach((r) => r.destroy())),
  };
  const reqs: http.ClientRequest[] = [];
  const openOne = () =>
    new Promise<void>((resolve) => {
      const req = http.get(`${origin}/v400/en/evbench/ai/events`, { headers: { 'x-api-key': KEY }, agent: false }, (res) => {
        if (res.statusCode !== 200) {
          if (res.statusCode === 503) out.refused++;
          else out.failed++;
          res.resume();
          res.on('end', () => req.destroy());
          return resolve();
        }
        const parse = out.open++ < sampled;
        reqs.push(req);
        res.setEncoding('utf8');
        let buf = '';
        res.on('data', (chunk: string) => {
          if (!parse) return;
          const now = Date.now();
          buf += chunk;
          let cut: number;
          while ((cut = buf.indexOf('\n\n')) >= 0) {
            const frame = buf.slice(0, cut);
            buf = buf.slice(cut + 2);
            const data = frame.split('\n').find((l) => l.startsWith('data: '));
            if (!data) continue;
            out.events++;
            out.latencies.push(now - Date.parse(JSON.parse(data.slice(6)).created_at));
          }
        });
        res.on('close', () => void (closing || out.dropped++));
        res.on('error', () => undefined);
        resolve();
      });
      req.on('error', () => {
        out.failed++;
        resolve();
      });
    });
  for (let i = 0; i < n; i += 50) {
    await Promise.all(Array.from({ length: Math.min(50, n - i) }, () => openOne()));
    if ((i + 50) % 2000 === 0)
      console.log(`  ${i + 50} attempted: ${out.open} open, ${out.refused} refused, ${out.failed} failed, ${out.dropped} ended`);
  }
  return out;
}

/** Heap used by `origin`'s process (its /metrics), the least of a few reads (garbage not yet collected inflates single reads). */
async function heapMb(origin: string): Promise<number> {
  let least = Infinity;
  for (let i = 0; i < 5; i++) {
    const text = await (await fetch(`${origin}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith('nodejs_heap_size_used_bytes'));
    if (line) least = Math.min(least, Number(line.split(' ').pop()) / 1048576);
    await new Promise((r) => setTimeout(r, 400));
  }
  return least;
}

/** Garbage collection of `origin`'s process so far (its /metrics): seconds spent by kind, and pauses over 100 ms. */
async function gcTotals(origin: string): Promise<{ major: number; minor: number; over100ms: number }> {
  const text = await (await fetch(`${origin}/metrics`)).text();
  const value = (prefix: string) =>
    text
      .split('\n')
      .filter((l) => l.startsWith(prefix))
      .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);
  const count = (kind: string) => value(`nodejs_gc_duration_seconds_count{kind="${kind}"}`);
  const under = (kind: string) => value(`nodejs_gc_duration_seconds_bucket{le="0.1",kind="${kind}"}`);
  return {
    major: value('nodejs_gc_duration_seconds_sum{kind="major"}'),
    minor: value('nodejs_gc_duration_seconds_sum{kind="minor"}'),
    over100ms: ['major', 'minor', 'incremental', 'weakcb'].reduce((n, k) => n + count(k) - under(k), 0),
  };
}

/** How long /health/live takes to answer (ms), the worst of a few. */
async function liveMs(origin: string): Promise<number> {
  let worst = 0;
  for (let i = 0; i < 5; i++) {
    const t0 = Date.now();
    await (await fetch(`${origin}/health/live`)).arrayBuffer();
    worst = Math.max(worst, Date.now() - t0);
  }
  return worst;
}

/** RATE conversation opens a second through `origin` for DURATION seconds; each commits one event. */
async function write(origin: string, firstUser: number): Promise<{ writes: number; failed: number }> {
  let writes = 0;
  let failed = 0;
  const total = RATE * DURATION;
  const started = Date.now();
  const pending: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / RATE;
    const wait = due - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    pending.push(
      fetch(`${origin}/v400/en/evbench/ai/agents/evbench-bot/conversations/current`, {
        headers: { 'x-api-key': userKey(firstUser + i) },
      }).then(
        async (res) => {
          await res.arrayBuffer();
          if (res.ok) writes++;
          else failed++;
        },
        () => void failed++,
      ),
    );
  }
  await Promise.all(pending);
  return { writes, failed };
}

function pct(values: number[], p: number): number {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function main(): Promise<void> {
  const scenarios = (process.env.BENCH_SCENARIO ?? 'one,spread,subs').split(',');
  if (scenarios.includes('one')) {
    console.log(`— one project: ${ATTEMPT} SSE streams (uptime: ${loadAverage()})`);
    await one();
  }
  const kinds = (['sse', 'subs'] as const).filter((k) => scenarios.includes(k === 'sse' ? 'spread' : 'subs'));
  if (kinds.length) {
    console.log(`— spread over projects: ${kinds.join(', ')} (load average: ${loadAverage()})`);
    await spread([...kinds]);
  }
  console.log(`load average at the end: ${loadAverage()}`);
}

function loadAverage(): string {
  return os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
}

async function one(): Promise<void> {
  const db = await openBenchDatabase('ordergraph_bench_events');
  const servers: BenchServer[] = [];
  try {
    await prepare(db.url, RATE * DURATION * 2 + 10);
    const env = {
      ...process.env,
      DATABASE_URL: db.url,
      CREDENTIALS_KEY,
      LOG_LEVEL: 'warn',
      STREAMS_PER_CREDENTIAL: String(ATTEMPT),
      STREAMS_PER_PROJECT: String(ATTEMPT),
    };
    const build = process.env.BENCH_BUILD ?? 'current';
    const [a, b] = await Promise.all([startServe(env, undefined, build), startServe(env, undefined, build)]);
    servers.push(a, b);
    await new Promise((r) => setTimeout(r, 2000));
    const idle = { rss: a.rssMb(), heap: await heapMb(a.origin) };
    const t0 = Date.now();
    const streams = await openStreams(a.origin, ATTEMPT, SAMPLED);
    const openS = (Date.now() - t0) / 1000;
    await new Promise((r) => setTimeout(r, 1000));
    const held = { rss: a.rssMb(), heap: await heapMb(a.origin) };
    const live = liveMs(a.origin);
    const ready = (await fetch(`${a.origin}/health/ready`)).status;
    console.log(
      `${ATTEMPT} SSE streams attempted on A in ${openS.toFixed(0)} s: ${streams.open} open, ${streams.refused} refused with 503, ${streams.failed} other failures; /health/ready ${ready}, /health/live worst ${await live} ms`,
    );
    const per = (mb: number) => ((mb * 1024) / Math.max(1, streams.open)).toFixed(1);
    console.log(
      `A idle: RSS ${idle.rss.toFixed(1)} MB, heap ${idle.heap.toFixed(1)} MB; with the streams: RSS ${held.rss.toFixed(1)} MB (+${(held.rss - idle.rss).toFixed(1)}, ${per(held.rss - idle.rss)} KB per stream), heap ${held.heap.toFixed(1)} MB (+${(held.heap - idle.heap).toFixed(1)}, ${per(held.heap - idle.heap)} KB per stream)`,
    );
    console.log(
      `${SAMPLED} streams sampled; writes ${RATE}/s for ${DURATION} s; bus: ${process.env.REDIS_URL ? 'Redis' : 'PostgreSQL LISTEN/NOTIFY'}`,
    );

    const rows: string[] = [];
    for (const [label, origin, first] of [
      ['same process (writes through A)', a.origin, 100_001],
      ['across processes (writes through B)', b.origin, 100_001 + RATE * DURATION],
    ] as const) {
      streams.latencies = [];
      streams.events = 0;
      const gc0 = await gcTotals(a.origin);
      const cpu0 = a.cpuMs();
      const own0 = process.cpuUsage();
      const wall0 = Date.now();
      const { writes, failed } = await write(origin, first);
      await new Promise((r) => setTimeout(r, 1500));
      // this client reads every stream on the same cores: when it is near one core, the latencies are its own queue
      const own = process.cpuUsage(own0);
      const clientCpu = (own.user + own.system) / 1000 / (Date.now() - wall0);
      // A's CPU per event sent to one stream: the fan-out's cost, less sensitive to other work on the host than the latencies
      const perDelivery = writes ? (((a.cpuMs() - cpu0) * 1000) / (writes * streams.open)).toFixed(1) : 'n/a';
      const gc1 = await gcTotals(a.origin);
      const gc = `A's GC ${((gc1.major - gc0.major) * 1000).toFixed(0)} ms major, ${((gc1.minor - gc0.minor) * 1000).toFixed(0)} ms minor, ${gc1.over100ms - gc0.over100ms} pauses > 100 ms`;
      const expected = writes * Math.min(SAMPLED, streams.open);
      rows.push(
        `${label.padEnd(36)} writes ${writes} (failed ${failed})  arrivals ${streams.events}/${expected}  p50 ${pct(streams.latencies, 50)} ms  p99 ${pct(streams.latencies, 99)} ms  max ${pct(streams.latencies, 100)} ms  A's CPU ${perDelivery} µs per event and stream, ${gc}; this client's CPU ${(clientCpu * 100).toFixed(0)} % of a core`,
      );
    }
    console.log(rows.join('\n'));
    console.log(
      `RSS of A after the writes ${a.rssMb().toFixed(1)} MB; held streams that ended before the bench closed them: ${streams.dropped}; A ${a.child.exitCode === null ? 'still running' : `exited ${a.child.exitCode}`}`,
    );
    console.log('(runs on a shared 2-core machine: other processes disturb the figures)');
    streams.close();
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    await db.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
