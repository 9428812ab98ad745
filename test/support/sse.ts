import http from 'node:http';

export interface SseEvent {
  id?: string;
  event: string;
  data: string;
}

/** A Server-Sent Events client over a real socket: parses frames as they arrive. */
export interface SseClient {
  status: number;
  headers: http.IncomingHttpHeaders;
  events: SseEvent[];
  comments: string[];
  /** Body pieces received (`data` events of the response): a server write arrives as one or more of them. */
  reads: number;
  /** The answer's body when it was not a stream (error envelopes). */
  body: () => string;
  ended: boolean;
  closed: Promise<void>;
  close(): void;
  /** Resolves once `predicate` holds (checked on every frame), rejects after `timeoutMs`. */
  until(predicate: (c: SseClient) => boolean, timeoutMs?: number): Promise<void>;
  pause(): void;
  resume(): void;
}

export function openSse(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { accept: 'text/event-stream', ...headers }, agent: false }, (res) => {
      let buffer = '';
      let raw = '';
      const waiters: (() => void)[] = [];
      let endResolve!: () => void;
      const closed = new Promise<void>((r) => (endResolve = r));
      const check = () => waiters.splice(0).forEach((w) => w());
      const client: SseClient = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        events: [],
        comments: [],
        reads: 0,
        body: () => raw,
        ended: false,
        closed,
        close: () => req.destroy(),
        until(predicate, timeoutMs = 10_000) {
          return new Promise((ok, fail) => {
            const timer = setTimeout(
              () => fail(new Error(`SSE wait timed out; ${client.events.length} events, ended=${client.ended}`)),
              timeoutMs,
            );
            const test = () => {
              if (predicate(client)) {
                clearTimeout(timer);
                ok();
              } else if (client.ended) {
                clearTimeout(timer);
                fail(new Error(`SSE stream ended; ${client.events.length} events`));
              } else waiters.push(test);
            };
            test();
          });
        },
        pause: () => res.pause(),
        resume: () => res.resume(),
      };
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        client.reads++;
        raw += chunk.length < 100_000 && raw.length < 100_000 ? chunk : '';
        buffer += chunk;
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const ev: SseEvent = { event: 'message', data: '' };
          let isEvent = false;
          for (const line of frame.split('\n')) {
            if (line.startsWith(':')) client.comments.push(line.slice(1).trim());
            else {
              const i = line.indexOf(':');
              const field = i < 0 ? line : line.slice(0, i);
              const value = i < 0 ? '' : line.slice(i + 1).replace(/^ /, '');
              isEvent = true;
              if (field === 'id') ev.id = value;
              else if (field === 'event') ev.event = value;
              else if (field === 'data') ev.data = ev.data ? `${ev.data}\n${value}` : value;
            }
          }
          if (isEvent) client.events.push(ev);
        }
        check();
      });
      const finish = () => {
        client.ended = true;
        check();
        endResolve();
      };
      res.on('end', finish);
      res.on('close', finish);
      res.on('error', finish);
      resolve(client);
    });
    req.on('error', reject);
  });
}
