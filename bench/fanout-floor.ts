import http from 'node:http';
import path from 'node:path';
import { rawSse } from './events-spread.js';
import { SERVE_NODE_ARGS, startServer, type BenchServer } from './processes.js';

/**
 * `npm run bench:fanout-floor`: what one delivery of an event to an open SSE stream costs at the
 * least, in a bare Node process (bench/fanout-floor-server.ts: one prepared socket write per
 * delivery, no database, no framework) and in this reader (the raw sockets of
 * `BENCH_SCENARIO=spread npm run bench:events`, on the same host). FANOUT_STREAMS (10,000) streams in
 * FANOUT_GROUPS (100) groups; FANOUT_EMITS_PER_S (300) events a second spread over the groups for
 * BENCH_DURATION (5) seconds, first with no stream open, then with all of them: the difference in
 * CPU, divided by the deliveries, is the cost of a delivery on each side. Issue 44's bound on writes
 * beside open streams follows from it (docs/benchmarks.md).
 */
const STREAMS = Number(process.env.FANOUT_STREAMS ?? 10_000);
const GROUPS = Number(process.env.FANOUT_GROUPS ?? 100);
const RATE = Number(process.env.FANOUT_EMITS_PER_S ?? 300);
const DURATION = Number(process.env.BENCH_DURATION ?? 5);

async function emits(origin: string, agent: http.Agent): Promise<number> {
  let sent = 0;
  const post = (g: number) =>
    new Promise<void>((resolve) => {
      const req = http.request(`${origin}/emit/${g}`, { method: 'POST', agent }, (res) => (res.resume(), res.on('end', resolve)));
      req.on('error', () => resolve());
      req.end();
    });
  const started = Date.now();
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < RATE * DURATION; i++) {
    const due = started + (i * 1000) / RATE;
    if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
    inFlight.push(post(i % GROUPS).then(() => void sent++));
  }
  await Promise.all(inFlight);
  return sent;
}

async function measure(server: BenchServer, agent: http.Agent): Promise<{ serverMs: number; clientMs: number; sent: number }> {
  const server0 = server.cpuMs();
  const client0 = process.cpuUsage();
  const sent = await emits(server.origin, agent);
  await new Promise((r) => setTimeout(r, 500)); // the last deliveries read
  const client = process.cpuUsage(client0);
  return { serverMs: server.cpuMs() - server0, clientMs: (client.user + client.system) / 1000, sent };
}

async function main(): Promise<void> {
  const server = await startServer(path.join(__dirname, 'fanout-floor-server.js'), [], process.env, '/health', SERVE_NODE_ARGS);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  try {
    await measure(server, agent); // warm-up
    const none = await measure(server, agent);
    const held: { destroy(): void }[] = [];
    let open = 0;
    for (let i = 0; i < STREAMS; i += 100) {
      await Promise.all(
        Array.from(
          { length: Math.min(100, STREAMS - i) },
          (_, k) =>
            new Promise<void>((resolve) =>
              rawSse(server.origin, `/s/${(i + k) % GROUPS}`, '-', held, (code) => void (code === 200 && open++), resolve),
            ),
        ),
      );
    }
    const withStreams = await measure(server, agent);
    held.forEach((s) => s.destroy());
    const deliveries = (withStreams.sent * open) / GROUPS;
    const per = (ms: number, base: number, n: number) => (((ms - (base * withStreams.sent) / none.sent) * 1000) / n).toFixed(1);
    console.log(
      `${open} streams in ${GROUPS} groups, ${withStreams.sent} events at ${RATE}/s (${deliveries.toFixed(0)} deliveries):\n` +
        `  bare Node writer: ${((none.serverMs * 1000) / none.sent).toFixed(0)} µs per event with no stream open, ` +
        `${per(withStreams.serverMs, none.serverMs, deliveries)} µs more per delivery with them\n` +
        `  raw-socket reader (this process): ${per(withStreams.clientMs, none.clientMs, deliveries)} µs per delivery`,
    );
  } finally {
    agent.destroy();
    await server.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
