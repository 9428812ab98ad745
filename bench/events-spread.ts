import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import WebSocket from 'ws';
import { initORM, migrate } from '../src/db/orm.js';
import { loadFixtures } from '../src/fixtures/load.js';
import { CredentialCipher } from '../src/platform/secrets.js';
import type { FixtureProject } from '../src/fixtures/types.js';
import { openBenchDatabase } from './database.js';
import { startServe, type BenchServer } from './processes.js';

/**
 * Issue 44 items 2–3, the multi-tenant case (`BENCH_SCENARIO=spread` or `subs` of `npm run bench:events`):
 * BENCH_PROJECTS (100) projects on one `serve` (A, `npm start`'s V8 flags), BENCH_SPREAD_STREAMS
 * (10,000) SSE streams spread evenly over them, or BENCH_SUBSCRIPTIONS (5,000) graphql-ws
 * subscriptions; BENCH_WRITES_PER_S (50) message writes a second spread over the projects for
 * BENCH_DURATION seconds; commit→arrival on one sampled stream per project (against the event's
 * created_at, an upper bound). Writes with 10 connections (BENCH_WRITE_CONNECTIONS, each its own
 * customer and project) for BENCH_WRITE_S seconds, first with no stream open, then with all of them:
 * req/s and p99. Reported beside: heap per stream (A's /metrics), A's CPU per delivered event, this
 * client's CPU, refusals.
 */
const PROJECTS = Number(process.env.BENCH_PROJECTS ?? 100);
const SSE_STREAMS = Number(process.env.BENCH_SPREAD_STREAMS ?? 10_000);
const SUBSCRIPTIONS = Number(process.env.BENCH_SUBSCRIPTIONS ?? 5_000);
const RATE = Number(process.env.BENCH_WRITES_PER_S ?? 50);
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_WRITE_CONNECTIONS ?? 10);
const WRITE_S = Number(process.env.BENCH_WRITE_S ?? 5);
/** BENCH_PACED_RATE (0: off): also writes at this fixed rate, with no stream open and with them (paced()). */
const PACED_RATE = Number(process.env.BENCH_PACED_RATE ?? 0);
/**
 * BENCH_PROFILE=writes or trickle, with BENCH_NODE_ARGS='--require dist/bench/profile-signal.js':
 * a CPU profile of A over that phase with the streams open (PROFILE_DIR, default bench/results/prof).
 */
const PROFILE = process.env.BENCH_PROFILE ?? '';
/**
 * BENCH_SSE_CLIENT: how this client reads the streams it does not sample. `net` (default): a raw
 * socket that sends the GET, reads the status line and discards the rest into one shared buffer (the
 * least a reader can cost); `http`: Node's HTTP client (`http.get` + `res.resume()`, chunked decoding
 * per frame), as before. The sampled stream of each project parses its frames through `http.get` either way.
 */
const SSE_CLIENT = process.env.BENCH_SSE_CLIENT ?? 'net';
/** What every raw reader reads into and discards: one buffer for all of them. */
const DISCARD = Buffer.alloc(64 * 1024);
const CREDENTIALS_KEY = 'bench-credentials-key';
const code = (p: number) => `evs${String(p).padStart(3, '0')}`;
const serverKey = (p: number) => `${code(p)}-server-key-0123456789`;
/** Customer `c` of project `p`: 0 trickles, 1.. write in the 10-connection runs. */
const customerKey = (p: number, c: number) => `${code(p)}-customer-${c}-0123456789`;
const messages = (p: number) => `/v400/en/${code(p)}/ai/agents/evs-bot/conversations/current/messages`;

async function prepare(url: string): Promise<void> {
  const orm = await initORM({ clientUrl: url, poolMax: 2 });
  try {
    await migrate(orm);
    const projects: FixtureProject[] = Array.from({ length: PROJECTS }, (_, p) => {
      const ids = [0, 1].map((c) => 200_000 + p * 10 + c);
      return {
        code: code(p),
        name: `Spread ${p}`,
        ai_enabled: true,
        businesses: [{ id: 300_000 + p, name: 'Shop' }],
        agents: [
          {
            id: 300_000 + p,
            business_id: 300_000 + p,
            name: 'Bot',
            provider: 'whatsapp',
            provider_type: 'chat',
            provider_external_id: 'evs-bot',
            enabled: true,
          },
        ],
        users: ids.map((id) => ({ id, name: `C${id}`, email: `c${id}@${code(p)}.test`, level: 3 })),
        api_keys: [{ key: serverKey(p), server: true }, ...ids.map((id, c) => ({ key: customerKey(p, c), user_id: id }))],
      };
    });
    await loadFixtures(orm, { projects: [{ code: 'demo', name: 'Demo' }, ...projects] }, new CredentialCipher(CREDENTIALS_KEY));
  } finally {
    await orm.close();
  }
}

interface Held {
  latencies: number[];
  open: number;
  refused: number;
  failed: number;
  /** Why streams were refused: status codes, error codes. */
  reasons: Record<string, number>;
  close(): void;
}

/** `n` SSE streams spread over the projects (50 at a time); the first of each project parses created_at. */
async function openSse(origin: string, n: number): Promise<Held> {
  const out: Held = { latencies: [], open: 0, refused: 0, failed: 0, reasons: {}, close: () => held.forEach((r) => r.destroy()) };
  const held: { destroy(): void }[] = [];
  const status = (code: number) => {
    if (code === 200) return void out.open++;
    out.reasons[code] = (out.reasons[code] ?? 0) + 1;
    if (code === 503 || code === 429) out.refused++;
    else out.failed++;
  };
  const one = (i: number) =>
    new Promise<void>((resolve) => {
      const p = i % PROJECTS;
      const path = `/v400/en/${code(p)}/ai/events`;
      if (i >= PROJECTS && SSE_CLIENT === 'net') return rawSse(origin, path, serverKey(p), held, status, resolve);
      const req = http.get(`${origin}${path}`, { headers: { 'x-api-key': serverKey(p) }, agent: false }, (res) => {
        status(res.statusCode ?? 0);
        if (res.statusCode !== 200) {
          res.resume();
          return resolve();
        }
        held.push(req);
        if (i < PROJECTS) sample(res, out.latencies);
        else res.resume();
        res.on('error', () => undefined);
        resolve();
      });
      req.on('error', () => (out.failed++, resolve()));
    });
  for (let i = 0; i < n; i += 50) await Promise.all(Array.from({ length: Math.min(50, n - i) }, (_, k) => one(i + k)));
  return out;
}

/** A stream read on a raw socket: the GET, the status from the first bytes, then every byte discarded into DISCARD. */
export function rawSse(
  origin: string,
  path: string,
  key: string,
  held: { destroy(): void }[],
  status: (code: number) => void,
  done: () => void,
): void {
  const { hostname, port } = new URL(origin);
  let answered = false;
  const socket = net.connect({
    host: hostname,
    port: Number(port),
    onread: {
      buffer: DISCARD,
      callback: (nread: number, buf: Uint8Array) => {
        if (answered) return true;
        answered = true;
        const code = Number(
          /^HTTP\/1\.[01] (\d{3})/.exec(Buffer.from(buf.buffer, buf.byteOffset, Math.min(nread, 64)).toString('latin1'))?.[1] ?? 0,
        );
        status(code);
        if (code === 200) held.push(socket);
        else socket.destroy();
        done();
        return true;
      },
    },
  });
  socket.on('connect', () =>
    socket.write(`GET ${path} HTTP/1.1\r\nhost: ${hostname}:${port}\r\nx-api-key: ${key}\r\naccept: text/event-stream\r\n\r\n`),
  );
  socket.on('error', () => answered || ((answered = true), status(0), done()));
  socket.on('close', () => answered || ((answered = true), status(0), done()));
}

function sample(res: http.IncomingMessage, latencies: number[]): void {
  res.setEncoding('utf8');
  let buf = '';
  res.on('data', (chunk: string) => {
    const now = Date.now();
    buf += chunk;
    let cut: number;
    while ((cut = buf.indexOf('\n\n')) >= 0) {
      const data = buf
        .slice(0, cut)
        .split('\n')
        .find((l) => l.startsWith('data: '));
      buf = buf.slice(cut + 2);
      if (data) latencies.push(now - Date.parse(JSON.parse(data.slice(6)).created_at));
    }
  });
}

/**
 * `n` graphql-ws subscriptions spread over the projects, 50 at a time from 50 loopback addresses
 * (at most 10 sockets before connection_init per address, CONTRACT §11); the first of each project samples.
 */
async function openSubscriptions(origin: string, n: number): Promise<Held> {
  const sockets: WebSocket[] = [];
  const out: Held = { latencies: [], open: 0, refused: 0, failed: 0, reasons: {}, close: () => sockets.forEach((s) => s.terminate()) };
  const url = origin.replace(/^http/, 'ws') + '/graphql';
  const one = (i: number) =>
    new Promise<void>((resolve) => {
      const p = i % PROJECTS;
      const ws = new WebSocket(url, 'graphql-transport-ws', { localAddress: `127.0.4.${1 + (i % 50)}` });
      sockets.push(ws);
      const done = setTimeout(() => settle(false), 15_000);
      let settled = false;
      const settle = (ok: boolean, refused = false) => {
        if (settled) return;
        settled = true;
        clearTimeout(done);
        if (ok) out.open++;
        else if (refused) out.refused++;
        else out.failed++;
        resolve();
      };
      ws.on('error', () => settle(false));
      ws.on('unexpected-response', (_req, res) => {
        out.reasons[`upgrade ${res.statusCode}`] = (out.reasons[`upgrade ${res.statusCode}`] ?? 0) + 1;
        settle(false, true);
      });
      ws.on('close', (closeCode) => settled || (out.reasons[`close ${closeCode}`] = (out.reasons[`close ${closeCode}`] ?? 0) + 1));
      ws.on('open', () => ws.send(JSON.stringify({ type: 'connection_init', payload: { 'X-Api-Key': serverKey(p) } })));
      ws.on('message', (data) => {
        // a subscription that is not sampled costs this client no parsing once admitted
        if (settled && i >= PROJECTS) return;
        const m = JSON.parse(Buffer.isBuffer(data) ? data.toString('utf8') : '{}');
        if (m.type === 'connection_ack') {
          ws.send(JSON.stringify({ id: 's', type: 'subscribe', payload: { query: 'subscription { aiEvents { id created_at } }' } }));
          // admitted once nothing refuses it for a moment
          setTimeout(() => settle(true), 200);
        } else if (m.type === 'error') {
          out.reasons[m.payload?.[0]?.extensions?.code ?? 'error'] = (out.reasons[m.payload?.[0]?.extensions?.code ?? 'error'] ?? 0) + 1;
          settle(false, true);
        } else if (m.type === 'next' && i < PROJECTS) out.latencies.push(Date.now() - Date.parse(m.payload.data.aiEvents.created_at));
      });
    });
  for (let i = 0; i < n; i += 50) await Promise.all(Array.from({ length: Math.min(50, n - i) }, (_, k) => one(i + k)));
  return out;
}

/** RATE message writes a second, round-robin over the projects, for DURATION seconds. */
async function trickle(origin: string): Promise<{ writes: number; failed: number }> {
  let writes = 0;
  let failed = 0;
  const started = Date.now();
  const pending: Promise<void>[] = [];
  for (let i = 0; i < RATE * DURATION; i++) {
    const wait = started + (i * 1000) / RATE - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const p = i % PROJECTS;
    pending.push(
      post(origin, p, 0, `trickle ${i}`).then(
        (ok) => void (ok ? writes++ : failed++),
        () => void failed++,
      ),
    );
  }
  await Promise.all(pending);
  return { writes, failed };
}

async function post(origin: string, p: number, customer: number, content: string): Promise<boolean> {
  const res = await fetch(origin + messages(p), {
    method: 'POST',
    headers: { 'x-api-key': customerKey(p, customer), 'content-type': 'application/json' },
    body: JSON.stringify({ content }),
  });
  await res.arrayBuffer();
  return res.ok;
}

/** CONNECTIONS loops of message writes for WRITE_S seconds, each its own customer and project: req/s, p99, failures. */
async function writes(a: BenchServer): Promise<{ rps: number; p99: number; failed: number; cpu: string }> {
  const usage = cpuSnapshot(a);
  const latencies: number[] = [];
  let failed = 0;
  const until = Date.now() + WRITE_S * 1000;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async (_, c) => {
      const p = (c * 7) % PROJECTS;
      for (let i = 0; Date.now() < until; i++) {
        const t0 = performance.now();
        const ok = await post(a.origin, p, 1, `write ${i}`).catch(() => false);
        if (ok) latencies.push(performance.now() - t0);
        else failed++;
      }
    }),
  );
  return { rps: latencies.length / WRITE_S, p99: pct(latencies, 99), failed, cpu: usage.line(latencies.length) };
}

/**
 * BENCH_PACED_RATE writes a second for WRITE_S seconds, sent on schedule (not each after the last
 * answer) to the projects of the 10-connection writes in turn: the CPU each write costs at a given
 * rate per project, whatever the host lets the closed loop reach (a diagnostic beside the scenario).
 */
async function paced(a: BenchServer, rate: number): Promise<string> {
  const usage = cpuSnapshot(a);
  const latencies: number[] = [];
  let failed = 0;
  const pending: Promise<void>[] = [];
  const started = Date.now();
  for (let i = 0; i < rate * WRITE_S; i++) {
    const wait = started + (i * 1000) / rate - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const t0 = performance.now();
    const p = ((i % CONNECTIONS) * 7) % PROJECTS;
    pending.push(
      post(a.origin, p, 1, `paced ${i}`).then(
        (ok) => void (ok ? latencies.push(performance.now() - t0) : failed++),
        () => void failed++,
      ),
    );
  }
  await Promise.all(pending);
  const seconds = (Date.now() - started) / 1000;
  return `${rate} writes/s offered over ${CONNECTIONS} projects: ${(latencies.length / seconds).toFixed(0)}/s answered, p99 ${pct(latencies, 99)} ms, ${failed} failed; ${usage.line(latencies.length)}`;
}

/** CPU counters now; `line(n)`: A's CPU per answered write since then, its kernel share, this client's and the host's. */
function cpuSnapshot(a: BenchServer): { line(n: number): string } {
  const cpu0 = a.cpuMs();
  const own0 = process.cpuUsage();
  const host0 = hostTicks();
  const sys0 = systemMs(a);
  const wall0 = Date.now();
  return {
    line(n: number): string {
      const own = process.cpuUsage(own0);
      const aMs = a.cpuMs() - cpu0;
      const wall = (Date.now() - wall0) / 1000;
      // where the two cores go: A's CPU per answered write, and this client's (it reads every stream)
      return `A's CPU ${((aMs * 1000) / Math.max(1, n)).toFixed(0)} µs per write (${(aMs / wall / 10).toFixed(0)} % of a core, ${(((systemMs(a) - sys0) * 100) / Math.max(1, aMs)).toFixed(0)} % of it in the kernel), this client's ${((own.user + own.system) / 1000 / wall / 10).toFixed(0)} % (${((own.user + own.system) / Math.max(1, n)).toFixed(0)} µs per write), the host's cores ${hostBusy(host0)} % busy`;
    },
  };
}

/** A's system (kernel) CPU time in ms (Linux /proc; NaN elsewhere). */
function systemMs(a: BenchServer): number {
  try {
    const fields = fs.readFileSync(`/proc/${a.child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[12]) * 1000) / 100;
  } catch {
    return NaN;
  }
}

/** /proc/stat's busy and total ticks of all cores (zeros elsewhere). */
function hostTicks(): { busy: number; total: number } {
  try {
    const v = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const total = v.reduce((x, y) => x + y, 0);
    return { busy: total - v[3] - v[4], total };
  } catch {
    return { busy: 0, total: 0 };
  }
}

function hostBusy(t0: { busy: number; total: number }): string {
  const t = hostTicks();
  return t.total > t0.total ? ((100 * (t.busy - t0.busy)) / (t.total - t0.total)).toFixed(0) : 'n/a';
}

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

function pct(values: number[], p: number): number {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]);
}

/** One run: open `what` on a fresh A, trickle writes, 10-connection writes; prints the figures. */
async function run(
  a: BenchServer,
  kind: 'sse' | 'subs',
  n: number,
  before: { rps: number; p99: number; trickleCpuMs: number },
): Promise<{ label: string; rps: number; p99: number }> {
  const idleHeap = await heapMb(a.origin);
  const t0 = Date.now();
  const held = kind === 'sse' ? await openSse(a.origin, n) : await openSubscriptions(a.origin, n);
  const ready = await fetch(`${a.origin}/health/ready`);
  const readyBody = await ready.text();
  const heap = await heapMb(a.origin);
  const label = kind === 'sse' ? 'SSE streams' : 'subscriptions';
  console.log(
    `${n} ${label} over ${PROJECTS} projects on A in ${((Date.now() - t0) / 1000).toFixed(0)} s: ${held.open} open, ${held.refused} refused, ${held.failed} failed ${JSON.stringify(held.reasons)}; heap ${idleHeap.toFixed(0)} → ${heap.toFixed(0)} MB (${(((heap - idleHeap) * 1024) / Math.max(1, held.open)).toFixed(1)} KB each); /health/ready ${ready.status} ${readyBody}`,
  );
  const cpu0 = a.cpuMs();
  const own0 = process.cpuUsage();
  const wall0 = Date.now();
  if (PROFILE === 'trickle') a.child.kill('SIGWINCH');
  const { writes: done, failed } = await trickle(a.origin);
  if (PROFILE === 'trickle') a.child.kill('SIGWINCH');
  await new Promise((r) => setTimeout(r, 1500));
  const own = process.cpuUsage(own0);
  const perProject = held.open / PROJECTS;
  const cpu = a.cpuMs() - cpu0;
  const perDelivery = done ? ((cpu * 1000) / (done * perProject)).toFixed(1) : 'n/a';
  // as bench:fanout-floor counts its floor: the CPU beyond what the same writes cost with no stream open
  const beyond = done ? (((cpu - done * before.trickleCpuMs) * 1000) / (done * perProject)).toFixed(1) : 'n/a';
  console.log(
    `  ${RATE} writes/s for ${DURATION} s spread over the projects: ${done} written (${failed} failed); arrival on ${PROJECTS} sampled ${label}: ${held.latencies.length} events, p50 ${pct(held.latencies, 50)} ms, p99 ${pct(held.latencies, 99)} ms, max ${pct(held.latencies, 100)} ms; A's CPU ${perDelivery} µs per delivered event, ${beyond} µs beyond the writes' own (the floor's measure); this client's CPU ${(((own.user + own.system) / 1000 / (Date.now() - wall0)) * 100).toFixed(0)} % of a core`,
  );
  if (PROFILE === 'writes') a.child.kill('SIGWINCH');
  const w = await writes(a);
  if (PROFILE === 'writes') a.child.kill('SIGWINCH');
  console.log(
    `  ${CONNECTIONS}-connection writes with the ${label} open: ${w.rps.toFixed(0)} req/s (${(w.rps / before.rps).toFixed(2)}× of none open), p99 ${w.p99} ms (${(w.p99 / before.p99).toFixed(2)}×), ${w.failed} failed; ${w.cpu}`,
  );
  if (PACED_RATE > 0) console.log(`  paced, with the ${label} open: ${await paced(a, PACED_RATE)}`);
  held.close();
  await new Promise((r) => setTimeout(r, 2000));
  return { label, rps: w.rps, p99: w.p99 };
}

export async function spread(kinds: ('sse' | 'subs')[]): Promise<void> {
  const db = await openBenchDatabase('ordergraph_bench_events_spread');
  let a: BenchServer | null = null;
  let stopping = false;
  try {
    await prepare(db.url);
    const env = {
      ...process.env,
      DATABASE_URL: db.url,
      CREDENTIALS_KEY,
      LOG_LEVEL: 'warn',
      STREAMS_PER_CREDENTIAL: String(Math.max(SSE_STREAMS, SUBSCRIPTIONS)),
    };
    // BENCH_BUILD: a snapshot (`npm run bench:snapshot NAME`) instead of this tree's build, for A/B in the same minutes
    a = await startServe(env, undefined, process.env.BENCH_BUILD ?? 'current');
    const server = a;
    server.child.once('exit', (exitCode, signal) => {
      if (!stopping) console.log(`A exited (${exitCode ?? signal}) before the end; its last output:\n${server.output().slice(-3000)}`);
    });
    await new Promise((r) => setTimeout(r, 2000));
    await writes(a); // warm-up: plans, pools, each customer's conversation
    const before = await writes(a);
    console.log(
      `${CONNECTIONS}-connection message writes for ${WRITE_S} s, no stream open: ${before.rps.toFixed(0)} req/s, p99 ${before.p99} ms, ${before.failed} failed; ${before.cpu}`,
    );
    if (PACED_RATE > 0) console.log(`paced, no stream open: ${await paced(a, PACED_RATE)}`);
    // the trickle with no stream open: what its writes cost A by themselves
    const cpu0 = a.cpuMs();
    const alone = await trickle(a.origin);
    await new Promise((r) => setTimeout(r, 1500));
    const trickleCpuMs = alone.writes ? (a.cpuMs() - cpu0) / alone.writes : 0;
    console.log(`${RATE} writes/s for ${DURATION} s, no stream open: A's CPU ${(trickleCpuMs * 1000).toFixed(0)} µs per write`);
    const baseline = { ...before, trickleCpuMs };
    const open = [];
    if (kinds.includes('sse')) open.push(await run(a, 'sse', SSE_STREAMS, baseline));
    if (kinds.includes('subs')) open.push(await run(a, 'subs', SUBSCRIPTIONS, baseline));
    // the same writes once the streams are closed: what the database grew by since `before`, without any stream
    const after = await writes(a);
    console.log(
      `${CONNECTIONS}-connection message writes, the streams closed again: ${after.rps.toFixed(0)} req/s (${(after.rps / before.rps).toFixed(2)}×), p99 ${after.p99} ms (${(after.p99 / before.p99).toFixed(2)}×), ${after.failed} failed; ${after.cpu}`,
    );
    // on a shared host the two runs without streams differ: the ratios against their mean as well
    const rps = (before.rps + after.rps) / 2;
    const p99 = (before.p99 + after.p99) / 2;
    for (const o of open) {
      console.log(
        `  with the ${o.label} open, against the mean of the two runs with none: ${(o.rps / rps).toFixed(2)}× the req/s, ${(o.p99 / p99).toFixed(2)}× the p99`,
      );
    }
    console.log(
      `A ${a.child.exitCode === null ? 'still running' : `exited ${a.child.exitCode}`}; (a shared 2-core machine: other processes disturb the figures)`,
    );
  } finally {
    stopping = true;
    await a?.stop();
    await db.stop();
  }
}
