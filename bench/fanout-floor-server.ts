import http from 'node:http';
import type { Socket } from 'node:net';

/**
 * The least a Node process can do to deliver one event to many SSE streams (bench/fanout-floor.ts):
 * `GET /s/<group>` holds a chunked event stream; `POST /emit/<group>` writes one prepared chunk of
 * FANOUT_FRAME_BYTES (default 600, about a message.created event) on each socket of that group, as
 * `serve` does (rest/sse.ts: one socket write of a prepared string per delivery), and answers 204.
 */
const FRAME = 'x'.repeat(Number(process.env.FANOUT_FRAME_BYTES ?? 600) - 14);
const CHUNK = `${(FRAME.length + 14).toString(16)}\r\nid: 1\ndata: ${FRAME}\n\n\r\n`;
const groups = new Map<string, Socket[]>();

const server = http.createServer((req, res) => {
  const [, kind, group = ''] = (req.url ?? '').split('/');
  if (kind === 's') {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.flushHeaders();
    const list = groups.get(group) ?? [];
    groups.set(group, list);
    list.push(req.socket);
    req.socket.on('close', () => list.splice(list.indexOf(req.socket), 1));
    return;
  }
  if (kind === 'emit') {
    for (const socket of groups.get(group) ?? []) socket.write(CHUNK);
    res.writeHead(204).end();
    return;
  }
  res.writeHead(kind === 'health' ? 200 : 404).end();
});
server.listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1');
