// Abusive graphql-ws clients in a process of their own, so that the server's event loop (in the
// test process) carries only the server's work while /health/live is measured.
// Usage: node ws-abuser.mjs '<json>'; prints one JSON line with what happened.
//   {"mode":"idle","url":…,"sockets":N,"batch":B,"pauseMs":P}: opens N sockets (B at a time, P ms apart) that never send
//   connection_init and waits for them to close; with "perAddress":K, from loopback addresses 127.0.1.1, 127.0.1.2, …, K each.
//   {"mode":"big","url":…,"key":…,"messages":N,"bytes":B}: one acknowledged socket sends N subscribe documents of B bytes.
import WebSocket from 'ws';

const opts = JSON.parse(process.argv[2]);

function open(url, localAddress) {
  const startedAt = Date.now();
  const ws = new WebSocket(url, 'graphql-transport-ws', localAddress ? { localAddress } : {});
  const messages = [];
  ws.on('message', (data) => messages.push(JSON.parse(String(data))));
  ws.on('ping', () => messages.push({ type: '(ping frame)' }));
  ws.on('error', () => undefined);
  const closed = new Promise((resolve) => ws.on('close', (code) => resolve({ code, lifetime: Date.now() - startedAt })));
  const opened = new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade answered ${res.statusCode}`)));
  });
  return { ws, messages, closed, opened };
}

async function idle() {
  const peers = [];
  const size = opts.batch ?? 100;
  for (let i = 0; i < opts.sockets; i += size) {
    const from = (j) => (opts.perAddress ? `127.0.1.${1 + Math.floor(j / opts.perAddress)}` : undefined);
    const batch = Array.from({ length: Math.min(size, opts.sockets - i) }, (_, k) => open(opts.url, from(i + k)));
    await Promise.all(batch.map((p) => p.opened));
    peers.push(...batch);
    await new Promise((r) => setTimeout(r, opts.pauseMs ?? 0));
  }
  process.stdout.write(JSON.stringify({ opened: peers.length }) + '\n');
  const closes = await Promise.all(peers.map((p) => p.closed));
  const codes = {};
  for (const c of closes) codes[c.code] = (codes[c.code] ?? 0) + 1;
  return {
    codes,
    minLifetime: Math.min(...closes.map((c) => c.lifetime)),
    maxLifetime: Math.max(...closes.map((c) => c.lifetime)),
    messages: peers.reduce((n, p) => n + p.messages.length, 0),
  };
}

async function big() {
  const p = open(opts.url);
  await p.opened;
  p.ws.send(JSON.stringify({ type: 'connection_init', payload: { 'X-Api-Key': opts.key } }));
  while (!p.messages.some((m) => m.type === 'connection_ack')) await new Promise((r) => setTimeout(r, 10));
  const field = 'aiEvents { id type created_at data } ';
  const query = `subscription { ${field.repeat(Math.ceil(opts.bytes / field.length))}}`;
  const frame = JSON.stringify({ id: 'big', type: 'subscribe', payload: { query } });
  for (let i = 0; i < opts.messages; i++) p.ws.send(frame.replace('"big"', `"big${i}"`));
  const answered = () => p.messages.filter((m) => typeof m.id === 'string' && m.id.startsWith('big'));
  const until = Date.now() + 30_000;
  while (answered().length < opts.messages && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  const open_ = p.ws.readyState === WebSocket.OPEN;
  p.ws.close();
  return { bytes: query.length, open: open_, answers: answered().map((m) => ({ type: m.type, message: m.payload?.[0]?.message })) };
}

const result = opts.mode === 'idle' ? await idle() : await big();
process.stdout.write(JSON.stringify(result) + '\n');
