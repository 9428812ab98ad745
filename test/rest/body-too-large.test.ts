import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DRAIN_MS } from '../../src/rest/body-drain.js';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';

/**
 * CONTRACT §16: a body too large for its route is answered (413) and the client can read the answer: the
 * service reads and discards what the client is still sending (for at least DRAIN_MS after the answer, or
 * 4 MiB) before it closes the connection. Over a real socket, a client that writes its whole body as
 * clients do (not waiting for an early answer), under both engines.
 */
let db: TestDatabase;
let conversationId: number;
beforeAll(async () => {
  db = await createTestDatabase();
  const credentials = { waba_id: 'waba-big', phone_number_id: 'pn-big', access_token: 'token-big', app_secret: 'secret-big' };
  const agent = {
    id: 1,
    business_id: 1,
    name: 'Big',
    provider: 'whatsapp',
    provider_type: 'chat',
    provider_external_id: 'big',
    enabled: true,
    credentials,
  };
  await db.load(baseFixture({ agents: [agent] }));
  const [{ id: projectId }] = await db.sql<{ id: number }>("select id from projects where code = 'acme'");
  const [row] = await db.sql<{ id: number }>(
    `insert into ai_conversations (project_id, agent_id, business_id, contact, status, usage) values (?, 1, 1, '34700000067', 'active', '{}') returning id`,
    [projectId],
  );
  conversationId = row.id;
});
afterAll(() => db.orm.close());

interface Exchange {
  /** Everything the server sent. */
  response: string;
  /** A socket error the client met (EPIPE, ECONNRESET), else null. */
  error: string | null;
  /** Body bytes the client wrote before the connection ended. */
  written: number;
  /** When the answer's first byte and the close came (ms since the request started). */
  answeredAt: number | null;
  closedAt: number;
}

/**
 * One request on a fresh connection: the head, then the body in chunks of `chunk` bytes every `everyMs`
 * until `total` bytes are written (or the connection ends). `contentLength` false sends it chunked.
 */
function send(
  origin: string,
  path: string,
  opts: { total: number; chunk: number; everyMs: number; contentLength: number | false },
): Promise<Exchange> {
  const { hostname, port } = new URL(origin);
  const started = Date.now();
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    const out: Exchange = { response: '', error: null, written: 0, answeredAt: null, closedAt: 0 };
    let open = true;
    socket.on('data', (b) => {
      out.answeredAt ??= Date.now() - started;
      out.response += b.toString('latin1');
    });
    socket.on('error', (err: NodeJS.ErrnoException) => (out.error ??= err.code ?? err.message));
    socket.on('close', () => {
      open = false;
      out.closedAt = Date.now() - started;
      resolve(out);
    });
    socket.on('connect', () => {
      const head = [
        `POST ${path} HTTP/1.1`,
        `Host: ${hostname}:${port}`,
        'Content-Type: application/json',
        `X-Api-Key: ${KEYS.server}`,
        opts.contentLength === false ? 'Transfer-Encoding: chunked' : `Content-Length: ${opts.contentLength}`,
        '',
        '',
      ].join('\r\n');
      socket.write(head);
      const piece = Buffer.alloc(opts.chunk, 'a');
      const tick = () => {
        if (!open || socket.destroyed) return;
        if (out.written >= opts.total) {
          if (opts.contentLength === false) socket.write('0\r\n\r\n');
          return;
        }
        const body =
          opts.contentLength === false
            ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')])
            : piece;
        socket.write(body);
        out.written += piece.length;
        setTimeout(tick, opts.everyMs);
      };
      tick();
    });
  });
}

const envelopeOf = (response: string) => {
  const [head, ...rest] = response.split('\r\n\r\n');
  const text = rest.join('\r\n\r\n');
  const json = head.toLowerCase().includes('transfer-encoding: chunked') ? text.split('\r\n')[1] : text;
  return { status: Number(head.split(' ')[1]), body: JSON.parse(json) as { error: boolean; code: string } };
};

describe.each(ENGINES)('a body too large (%s)', (engine) => {
  let t: TestApp;
  let origin: string;
  beforeAll(async () => {
    t = await startApp(engine, db);
    origin = await t.listen();
  });
  afterAll(() => t.close());
  const path = () => `/v400/en/acme/ai/conversations/${conversationId}/messages`;
  const TWO_MB = 2 * 1000 * 1000;

  it.each([
    ['declared by Content-Length (answered before a byte is read)', TWO_MB],
    ['sent chunked (answered once the limit is passed)', false],
  ] as const)('2 MB %s: the client writes it all and reads the 413 envelope', async (_label, contentLength) => {
    const res = await send(origin, path(), { total: TWO_MB, chunk: 50_000, everyMs: 2, contentLength });
    expect(res.error).toBeNull();
    expect(res.written).toBe(TWO_MB);
    expect(envelopeOf(res.response)).toEqual({
      status: 413,
      body: expect.objectContaining({ error: true, code: 'ERROR_PAYLOAD_TOO_LARGE' }),
    });
  });

  it('a client that never stops sending is read for a bounded time after the answer, then closed', async () => {
    const res = await send(origin, path(), { total: 100 * 1000 * 1000, chunk: 32 * 1024, everyMs: 20, contentLength: 100 * 1000 * 1000 });
    expect(envelopeOf(res.response).status).toBe(413);
    expect(res.answeredAt).not.toBeNull();
    const lingered = res.closedAt - res.answeredAt!;
    expect(lingered).toBeGreaterThanOrEqual(DRAIN_MS - 100);
    expect(lingered).toBeLessThan(DRAIN_MS + 2000);
    expect(res.written).toBeLessThan(100 * 1000 * 1000);
  });

  it('the server answers the next requests as before', async () => {
    const res = await t.api({ path: path().replace('/v400/en/acme', ''), key: KEYS.server });
    expect(res.statusCode).toBe(200);
  });
});
