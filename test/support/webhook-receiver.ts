import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One request a receiver got: headers and the raw body, as a receiver would see them. */
export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The status it was answered with (null: not answered, e.g. hung). */
  status: number | null;
}

/** What to do with the n-th request (0-based): a status, a status with headers, or 'hang' (never answer). */
export type Behaviour = (req: Received, n: number) => number | { status: number; headers?: Record<string, string> } | 'hang';

/** A real HTTP receiver on 127.0.0.1 (a free port). */
export interface Receiver {
  url: string;
  received: Received[];
  behaviour: Behaviour;
  close(): Promise<void>;
  /** Drops hung requests' sockets. */
  dropHung(): void;
}

export async function startReceiver(behaviour: Behaviour = () => 200): Promise<Receiver> {
  const received: Received[] = [];
  const hung = new Set<Socket>();
  const sockets = new Set<Socket>();
  const receiver: Receiver = {
    url: '',
    received,
    behaviour,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
    dropHung: () => {
      for (const s of hung) s.destroy();
      hung.clear();
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const entry: Received = { path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), status: null };
      const n = received.length;
      received.push(entry);
      const answer = receiver.behaviour(entry, n);
      if (answer === 'hang') {
        hung.add(req.socket);
        return;
      }
      const { status, headers = {} } = typeof answer === 'number' ? { status: answer } : answer;
      entry.status = status;
      res.writeHead(status, { 'content-type': 'text/plain', ...headers });
      res.end('ok');
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return receiver;
}

/** Verifies X-OrderGraph-Signature as a receiver would (the docs/webhooks.md example). */
export function verifySignature(secret: string, headers: http.IncomingHttpHeaders, rawBody: string): boolean {
  const timestamp = String(headers['x-ordergraph-timestamp'] ?? '');
  const given = String(headers['x-ordergraph-signature'] ?? '');
  const expected = 'sha256=' + createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex');
  return given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected));
}

/** Polls `check` until it returns true or `ms` pass (a bound for hangs, not a timing assertion). */
export async function until(check: () => boolean | Promise<boolean>, ms = 20_000, what = 'condition'): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
