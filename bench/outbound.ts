import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import autocannon from 'autocannon';
import { loadConfig } from '../src/config.js';
import { ensureDatabase } from '../src/db/database.js';
import { withDatabase } from '../src/db/embedded.js';
import { initORM, migrate } from '../src/db/orm.js';
import { credentialCipher } from '../src/platform/dev-key.js';
import { sha256 } from '../src/platform/secrets.js';
import { openBenchDatabase } from './database.js';
import { MIX_CONVERSATIONS, mixBody, queueMix, uploadFigures, uploadMixFiles } from './outbound-media.js';
import { startServe, type BenchServer } from './processes.js';

/**
 * `npm run bench:outbound`: WhatsApp replies (CONTRACT §10.1) against a local fake Cloud API that
 * answers each text message in BENCH_PROVIDER_MS (default 20 ms).
 *
 * 1. Drain: BENCH_REPLIES (default 5,000) replies over BENCH_CONVERSATIONS (default 100) conversations
 *    are queued in one transaction, then drained by one `serve` process, then (a fresh batch) by two.
 *    Prints sends/s, duplicates (a body the provider saw twice) and per-conversation order.
 * 2. Latency: one process, replies POSTed at a steady 50/s for 10 s; prints the p99 from the POST
 *    being sent (its commit is inside it) to the provider's request, and from the POST's answer.
 * 3. The POST itself: autocannon, 10 connections, 10 s, assistant replies over the conversations.
 * 4. Issue 42 (bench/outbound-media.ts), one process: the mix of text, interactive, location and
 *    image-by-our-media_id replies over BENCH_MIX_CONVERSATIONS (200): drain, audit, uploads per file,
 *    commit → provider at 50/s; then the upload figures (RSS during a 100 MB POST /ai/media, 20
 *    concurrent 5 MB uploads against the store written directly).
 * BENCH_OUTBOUND_PARTS picks the parts: `text` (1–3), `mix`, `uploads` (default all three).
 *
 * Figures measured while other work loads the machine are floors, not the product's capacity.
 *
 * `npm run bench:outbound -- A B`: the drain only, A/B interleaved (A and B: `current` or a build kept
 * with `npm run bench:snapshot NAME`): BENCH_ROUNDS rounds (default 3), each draining a fresh batch
 * with one process then two, for A and B in an order that flips every round. Prints each drain's
 * sends/s and CPU per send (the `serve` processes', and PostgreSQL's: the bench database's backends), then
 * the medians and the per-round B/A ratios.
 */
const PROVIDER_MS = Number(process.env.BENCH_PROVIDER_MS ?? 20);
const REPLIES = Number(process.env.BENCH_REPLIES ?? 5_000);
const CONVERSATIONS = Number(process.env.BENCH_CONVERSATIONS ?? 100);
/** BENCH_OUTBOUND_PARTS: which parts run (default all): `text` (drains, latency, the POST), `mix` (issue 42's mix), `uploads`. */
const PARTS = new Set((process.env.BENCH_OUTBOUND_PARTS ?? 'text,mix,uploads').split(',').map((x) => x.trim()));
const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
const SERVER_KEY = 'bench-outbound-server-key-0123456789';
const PHONE = 'pn-bench';
const TOKEN = 'EAAG-bench-token';

/** What the fake Cloud API recorded of one message: its arrival, recipient, type, and its tag (text body, button body, location name or caption). */
export interface ProviderRequest {
  at: number;
  to: string;
  type: string;
  body: string;
}

/**
 * The fake Cloud API: records every message request (arrival time, recipient, type, tag), answers after
 * PROVIDER_MS; `POST {phone}/media` (a file upload, CONTRACT §12.4) is read whole, counted in `uploads`
 * and answered with a new id after PROVIDER_MS; an image naming an id it did not give counts in `unknownMedia`.
 */
export function startProvider(): Promise<{
  url: string;
  requests: ProviderRequest[];
  uploads: { bytes: number }[];
  unknownMedia: () => number;
  close(): void;
}> {
  const requests: ProviderRequest[] = [];
  const uploads: { bytes: number }[] = [];
  const uploaded = new Set<string>();
  let unknown = 0;
  let n = 0;
  const answer = (res: http.ServerResponse, body: unknown) =>
    setTimeout(() => {
      const text = JSON.stringify(body);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
    }, PROVIDER_MS);
  const server = http.createServer((req, res) => {
    const at = performance.now();
    if (req.url?.endsWith('/media')) {
      let bytes = 0;
      req.on('data', (c: Buffer) => (bytes += c.length));
      req.on('end', () => {
        const id = `up${uploads.push({ bytes })}`;
        uploaded.add(id);
        answer(res, { id });
      });
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const msg = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const tag = msg.text?.body ?? msg.interactive?.body?.text ?? msg.location?.name ?? msg.image?.caption ?? '';
      if (msg.type === 'image' && !uploaded.has(msg.image?.id)) unknown++;
      requests.push({ at, to: msg.to, type: msg.type, body: tag });
      answer(res, { messaging_product: 'whatsapp', contacts: [{ input: msg.to, wa_id: msg.to }], messages: [{ id: `wamid.BENCH${++n}` }] });
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v21.0`,
        requests,
        uploads,
        unknownMedia: () => unknown,
        close: () => {
          server.closeAllConnections();
          server.close();
        },
      }),
    ),
  );
}

const p = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] : NaN;
};

async function main(): Promise<void> {
  const [a, b] = process.argv.slice(2);
  const server = await openBenchDatabase();
  const name = `og_bench_outbound_${randomBytes(3).toString('hex')}`;
  await ensureDatabase(server.url, name);
  const url = withDatabase(server.url, name);
  const orm = await initORM({ clientUrl: url, poolMax: 4 });
  const provider = await startProvider();
  let servers: BenchServer[] = [];
  const sql = <T = Record<string, unknown>>(text: string, params: unknown[] = []) =>
    orm.em.getConnection().execute<T[]>(text, params, 'all');
  try {
    await migrate(orm);
    const seeded = await seed(sql, Math.max(CONVERSATIONS, MIX_CONVERSATIONS));
    const { projectId, contacts } = seeded;
    const conversations = seeded.conversations.slice(0, CONVERSATIONS);
    const env = { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'warn', WHATSAPP_API_URL: provider.url };
    if (a && b) {
      await alternate([a, b], env, (processes, build) =>
        drainWith(processes, build, env, sql, projectId, conversations, contacts, provider.requests),
      );
      return;
    }

    console.log(`bench:outbound, load average ${loadAverage()} (1, 5, 15 min); parts: ${[...PARTS].join(', ')}`);
    for (const processes of PARTS.has('text') ? [1, 2] : []) {
      servers = await Promise.all(Array.from({ length: processes }, () => startServe(env)));
      provider.requests.length = 0;
      const { seconds, sent } = await drain(sql, projectId, conversations, `p${processes}`, servers);
      const { requests, duplicates, outOfOrder } = audit(provider.requests, contacts);
      console.log(
        `drain, ${processes} process(es): ${sent} replies in ${seconds.toFixed(2)} s = ${Math.round(sent / seconds)} sends/s (target ≥ 500/s; more with two)`,
      );
      console.log(`  provider requests ${requests}, duplicates ${duplicates}, conversations out of order ${outOfOrder}`);
      if (duplicates || outOfOrder) process.exitCode = 1;
      if (processes === 1) {
        await latency(servers[0].origin, conversations, provider.requests);
        await postLatency(servers[0].origin, conversations);
      }
      await Promise.all(servers.map((s) => s.stop()));
      servers = [];
    }
    if (PARTS.has('mix') || PARTS.has('uploads')) {
      servers = [await startServe(env)];
      if (PARTS.has('mix')) await mix(sql, projectId, seeded.conversations.slice(0, MIX_CONVERSATIONS), contacts, servers, provider);
      if (PARTS.has('uploads')) await uploadFigures(servers[0], SERVER_KEY, orm, sql, projectId);
      await servers[0].stop();
      servers = [];
    }
    console.log(`load average at the end ${loadAverage()}`);
    console.log("(measured on a shared machine while other work runs: floors, not the product's capacity)");
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    provider.close();
    await orm.close();
    const admin = await initORM({ clientUrl: server.url, poolMax: 1 });
    await admin.em
      .getConnection()
      .execute(`drop database if exists ${name} with (force)`)
      .catch(() => undefined);
    await admin.close();
    await server.stop();
  }
}

/** What the provider saw of a drain: requests, bodies seen twice, conversations whose replies came out of order. */
function audit(requests: { to: string; body: string }[], contacts: string[]): { requests: number; duplicates: number; outOfOrder: number } {
  const bodies = requests.map((r) => r.body);
  const outOfOrder = contacts.filter((to) => {
    const order = requests.filter((r) => r.to === to).map((r) => Number(r.body.split(' m')[1]));
    return order.some((m, k) => k > 0 && m < order[k - 1]);
  }).length;
  return { requests: bodies.length, duplicates: bodies.length - new Set(bodies).size, outOfOrder };
}

interface Drained {
  sendsPerSecond: number;
  /** CPU time per send, in µs: the `serve` processes' and PostgreSQL's (the bench database's backends). */
  serveUs: number;
  pgUs: number;
}

/** `processes` servers of `build` drain a fresh batch; checks duplicates and order as the main run does. */
async function drainWith(
  processes: number,
  build: string,
  env: NodeJS.ProcessEnv,
  sql: Sql,
  projectId: number,
  conversations: number[],
  contacts: string[],
  requests: { to: string; body: string }[],
): Promise<Drained> {
  const servers = await Promise.all(Array.from({ length: processes }, () => startServe(env, undefined, build)));
  try {
    requests.length = 0;
    const postgres = await databaseCpu(sql);
    const pg0 = await postgres.cpu();
    const cpu0 = servers.reduce((t, s) => t + s.cpuMs(), 0);
    const { seconds, sent } = await drain(sql, projectId, conversations, `${build}${processes}x${randomBytes(2).toString('hex')}`, servers);
    const serveMs = servers.reduce((t, s) => t + s.cpuMs(), 0) - cpu0;
    const pgMs = await postgres.since(pg0);
    const seen = audit(requests, contacts);
    if (seen.duplicates || seen.outOfOrder || seen.requests !== sent) {
      process.exitCode = 1;
      console.log(
        `  ${build}: provider requests ${seen.requests} of ${sent}, duplicates ${seen.duplicates}, conversations out of order ${seen.outOfOrder}`,
      );
    }
    return { sendsPerSecond: sent / seconds, serveUs: (serveMs * 1000) / sent, pgUs: (pgMs * 1000) / sent };
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }
}

/** BENCH_ROUNDS rounds of drains by 1 then 2 processes, the builds' order flipping every round; prints medians and B/A. */
async function alternate(
  builds: string[],
  env: NodeJS.ProcessEnv,
  run: (processes: number, build: string) => Promise<Drained>,
): Promise<void> {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const results = new Map<string, Drained[]>();
  const key = (build: string, processes: number) => `${build} ×${processes}`;
  for (let i = 0; i < rounds; i++) {
    for (const processes of [1, 2]) {
      for (const build of i % 2 ? [...builds].reverse() : builds) {
        const r = await run(processes, build);
        results.set(key(build, processes), [...(results.get(key(build, processes)) ?? []), r]);
        console.log(
          `round ${i + 1}, ${key(build, processes)}: ${Math.round(r.sendsPerSecond)} sends/s, CPU per send: serve ${Math.round(r.serveUs)} µs, PostgreSQL ${Math.round(r.pgUs)} µs`,
        );
      }
    }
  }
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor((xs.length - 1) / 2)];
  console.log(
    `\n${REPLIES} replies over ${CONVERSATIONS} conversations per drain, provider ${PROVIDER_MS} ms; medians of ${rounds} alternated rounds; load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  console.log('| build | processes | sends/s | serve CPU µs/send | PostgreSQL CPU µs/send |\n|---|---:|---:|---:|---:|');
  for (const processes of [1, 2]) {
    for (const build of builds) {
      const rs = results.get(key(build, processes))!;
      console.log(
        `| ${build} | ${processes} | ${Math.round(median(rs.map((r) => r.sendsPerSecond)))} | ${Math.round(median(rs.map((r) => r.serveUs)))} | ${Math.round(median(rs.map((r) => r.pgUs)))} |`,
      );
    }
    const [ra, rb] = builds.map((bd) => results.get(key(bd, processes))!);
    console.log(
      `| ${builds[1]}/${builds[0]} | ${processes} | ×${median(ra.map((r, k) => rb[k].sendsPerSecond / r.sendsPerSecond)).toFixed(2)} | ×${median(ra.map((r, k) => rb[k].serveUs / r.serveUs)).toFixed(2)} | ×${median(ra.map((r, k) => rb[k].pgUs / r.pgUs)).toFixed(2)} |`,
    );
  }
}

/**
 * A reader of the CPU time (ms) used by the PostgreSQL backends of the bench's database (Linux /proc,
 * pids from pg_stat_activity), the bench's own connections included: `cpu()` at the start, and
 * `since(start)` at the end sums each backend's growth (a backend opened meanwhile counts whole; one
 * closed meanwhile is missed). Other databases of a shared server (other work's) are not counted.
 */
export async function databaseCpu(
  sql: Sql,
): Promise<{ cpu(): Promise<Map<number, number>>; since(start: Map<number, number>): Promise<number> }> {
  const ticks = (pid: number) => {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return Number(f[11]) + Number(f[12]);
  };
  const cpu = async () => {
    const out = new Map<number, number>();
    for (const { pid } of await sql<{ pid: number }>('select pid from pg_stat_activity where datname = current_database()')) {
      try {
        out.set(pid, ticks(pid));
      } catch {
        // gone meanwhile, or not Linux / PostgreSQL elsewhere
      }
    }
    return out;
  };
  return {
    cpu,
    async since(start) {
      const end = await cpu();
      if (!end.size) return NaN;
      let t = 0;
      for (const [pid, n] of end) t += n - (start.get(pid) ?? 0);
      return (t * 1000) / 100;
    },
  };
}

export type Sql = <T = Record<string, unknown>>(text: string, params?: unknown[]) => Promise<T[]>;

/** A project with a WhatsApp agent, a server key and CONVERSATIONS conversations whose window is open. */
export async function seed(sql: Sql, count = CONVERSATIONS): Promise<{ projectId: number; conversations: number[]; contacts: string[] }> {
  await sql(`insert into projects (code, name, ai_enabled) values ('demo', 'Demo', false), ('bench-outbound', 'Bench outbound', true)`);
  const [{ id: projectId }] = await sql<{ id: number }>(`select id from projects where code = 'bench-outbound'`);
  await sql('insert into api_keys (project_id, server, key_hash, name) values (?, true, ?, ?)', [projectId, sha256(SERVER_KEY), 'bench']);
  const cipher = credentialCipher(loadConfig().credentialsKey);
  const [{ id: agentId }] = await sql<{ id: number }>(
    `insert into ai_agents (project_id, name, provider, provider_type, provider_external_id, enabled, credentials)
     values (?, 'WA bench', 'whatsapp', 'chat', 'wa-bench', true, ?) returning id`,
    [projectId, cipher.encrypt({ waba_id: 'waba-bench', phone_number_id: PHONE, access_token: TOKEN })],
  );
  const contacts = Array.from({ length: count }, (_, i) => `3460080${String(i).padStart(4, '0')}`);
  const rows = await sql<{ id: number }>(
    `insert into ai_conversations (project_id, agent_id, contact, status, usage, last_inbound_at)
     select ?, ?, c, 'active', '{}', now() from unnest(?::text[]) with ordinality as t(c, n) order by n returning id`,
    [projectId, agentId, `{${contacts.join(',')}}`],
  );
  return { projectId, conversations: rows.map((r) => r.id), contacts };
}

/** Queues REPLIES replies in one transaction (round robin over the conversations) and waits until none is pending. */
async function drain(
  sql: Sql,
  projectId: number,
  conversations: number[],
  tag: string,
  servers: BenchServer[],
  queue?: () => Promise<void>,
): Promise<{ seconds: number; sent: number }> {
  if (queue) await queue();
  else
    await sql(
      `with m as (
       insert into ai_messages (project_id, conversation_id, role, content, public, created_at, delivery_status)
       select ?, (?::bigint[])[1 + (i % ?)], 'assistant', ? || ' c' || (i % ?) || ' m' || (i / ?), true, now(), 'pending'
         from generate_series(0, ? - 1) as i order by i
       returning id, project_id, conversation_id)
     insert into ai_message_sends (message_id, project_id, conversation_id) select id, project_id, conversation_id from m order by id`,
      [projectId, `{${conversations.join(',')}}`, conversations.length, tag, conversations.length, conversations.length, REPLIES],
    );
  const started = performance.now();
  for (;;) {
    const [{ n }] = await sql<{ n: number }>(`select count(*)::int as n from ai_message_sends where status = 'pending'`);
    if (n === 0) break;
    const gone = servers.find((s) => s.child.exitCode !== null || s.child.signalCode !== null);
    if (gone)
      throw new Error(`a serve process ended during the drain (${gone.child.exitCode ?? gone.child.signalCode}), ${n} still pending`);
    if (performance.now() - started > 300_000) throw new Error(`${n} still pending after 300 s`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return { seconds: (performance.now() - started) / 1000, sent: REPLIES };
}

/**
 * Issue 42's mix (bench/outbound-media.ts) with one process: files uploaded with POST /ai/media, a
 * drain of REPLIES replies over the mix's conversations (sends/s, duplicates, order, uploads the
 * provider received), then 50 replies/s for 10 s through POST …/messages: commit → provider p99.
 */
async function mix(
  sql: Sql,
  projectId: number,
  conversations: number[],
  contacts: string[],
  servers: BenchServer[],
  provider: Awaited<ReturnType<typeof startProvider>>,
): Promise<void> {
  const files = await uploadMixFiles(servers[0].origin, SERVER_KEY);
  provider.requests.length = 0;
  provider.uploads.length = 0;
  const cpu0 = servers[0].cpuMs();
  const { seconds, sent } = await drain(sql, projectId, conversations, 'mix', servers, () =>
    queueMix(sql, projectId, conversations, files, 'mix', REPLIES),
  );
  const cpuMs = servers[0].cpuMs() - cpu0;
  const { requests, duplicates, outOfOrder } = audit(provider.requests, contacts);
  const types = Object.entries(provider.requests.reduce<Record<string, number>>((t, r) => ((t[r.type] = (t[r.type] ?? 0) + 1), t), {}))
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  console.log(
    `mix drain, 1 process: ${sent} replies (50 % text, 25 % interactive, 15 % location, 10 % image by our media_id) over ${conversations.length} conversations in ${seconds.toFixed(2)} s = ${Math.round(sent / seconds)} sends/s (target ≥ 500/s), serve CPU ${Math.round((cpuMs * 1000) / sent)} µs per send; load average ${loadAverage()}`,
  );
  console.log(
    `  provider requests ${requests} (${types}), duplicates ${duplicates}, conversations out of order ${outOfOrder}; uploads ${provider.uploads.length} for ${files.length} files (target: one per file); images naming an id the provider did not give ${provider.unknownMedia()}`,
  );
  if (duplicates || outOfOrder || requests !== sent || provider.uploads.length !== files.length) process.exitCode = 1;
  await latency(servers[0].origin, conversations, provider.requests, (i, tag) => mixBody(i, tag, files), 'the mix');
}

/** A reply through the API: `content` as a text reply, or the whole body of a reply of another type. */
export const post = (base: string, conversationId: number, content: string | Record<string, unknown>) =>
  fetch(`${base}/v400/en/bench-outbound/ai/conversations/${conversationId}/messages`, {
    method: 'POST',
    headers: { 'x-api-key': SERVER_KEY, 'content-type': 'application/json' },
    body: JSON.stringify(typeof content === 'string' ? { role: 'assistant', content } : content),
  });

/** 50 replies/s for 10 s: from each POST's start (and its answer) to the provider's request for it. */
async function latency(
  base: string,
  conversations: number[],
  requests: { at: number; body: string }[],
  bodyOf: (i: number, tag: string) => Record<string, unknown> = (_, tag) => ({ role: 'assistant', content: tag }),
  what = 'text replies',
): Promise<void> {
  const sent = new Map<string, { start: number; answered: number }>();
  const failed: string[] = [];
  const pending: Promise<void>[] = [];
  const t0 = performance.now();
  for (let i = 0; i < 500; i++) {
    const due = t0 + i * 20;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const body = `steady ${i}`;
    const start = performance.now();
    pending.push(
      post(base, conversations[i % conversations.length], bodyOf(i, body)).then(async (res) => {
        if (res.status !== 200) failed.push(`${res.status} ${(await res.text()).slice(0, 200)}`);
        else await res.arrayBuffer();
        sent.set(body, { start, answered: performance.now() });
      }),
    );
  }
  await Promise.all(pending);
  const deadline = performance.now() + 30_000;
  while (requests.filter((r) => r.body.startsWith('steady ')).length < 500 && performance.now() < deadline)
    await new Promise((r) => setTimeout(r, 50));
  const fromStart: number[] = [];
  const fromAnswer: number[] = [];
  for (const r of requests) {
    const s = sent.get(r.body);
    if (!s) continue;
    fromStart.push(r.at - s.start);
    fromAnswer.push(r.at - s.answered);
  }
  console.log(
    `latency, ${what} at 50 replies/s: ${fromStart.length} of 500 reached the provider${failed.length ? ` (${failed.length} POSTs refused, first: ${failed[0]})` : ''}; POST start → provider request p50 ${p(fromStart, 0.5).toFixed(1)} ms, p99 ${p(fromStart, 0.99).toFixed(1)} ms (target p99 ≤ 200 ms)`,
  );
  console.log(
    `  POST answer → provider request p50 ${p(fromAnswer, 0.5).toFixed(1)} ms, p99 ${p(fromAnswer, 0.99).toFixed(1)} ms (negative: the send began before the answer reached the client)`,
  );
}

/** The POST's own latency at 10 connections (autocannon), over the conversations in turn. */
async function postLatency(base: string, conversations: number[]): Promise<void> {
  let i = 0;
  const result = await autocannon({
    url: base,
    connections: 10,
    duration: 10,
    requests: [
      {
        method: 'POST',
        headers: { 'x-api-key': SERVER_KEY, 'content-type': 'application/json' },
        setupRequest: (req: any) => ({
          ...req,
          path: `/v400/en/bench-outbound/ai/conversations/${conversations[i++ % conversations.length]}/messages`,
          body: JSON.stringify({ role: 'assistant', content: `load ${i}` }),
        }),
      },
    ],
  });
  console.log(
    `POST …/messages at 10 connections: ${Math.round(result.requests.average)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms (target p99 ≤ 25 ms), non-2xx ${result.non2xx}, errors ${result.errors}`,
  );
}

if (require.main === module)
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
