import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';

/** Every error body at the edges of the service is the error envelope (issue 10, item 4). */
const AGENT = 31;

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(
    baseFixture({
      agents: [
        {
          id: AGENT,
          business_id: 1,
          name: 'Edge',
          provider: 'whatsapp',
          provider_type: 'chat',
          provider_external_id: 'edge',
          enabled: true,
        },
      ] as never,
    }),
  );
});
afterAll(() => db.orm.close());

/** Writes raw bytes to the server and reads the whole answer (the server closes after it). */
function raw(port: number, request: string): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let data = '';
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer')));
    socket.on('data', (d) => (data += String(d)));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head, ...rest] = data.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), headers: head, body: rest.join('\r\n\r\n') });
    });
    socket.write(request);
  });
}

function deep(levels: number): string {
  return `{"translations":{"en":${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}}}`;
}

describe.each(ENGINES)('error envelopes at the edges (%s)', (engine) => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await startApp(engine, db);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as net.AddressInfo).port;
  });
  afterAll(() => t.close());

  const envelope = (body: string, code: string) => {
    const parsed = JSON.parse(body);
    expect(parsed).toMatchObject({ error: true, code });
    expect(Array.isArray(parsed.result)).toBe(true);
    return parsed as { result: string[] };
  };

  it('a JSON body nested 5,000 levels on PUT and PATCH translations is a 400 naming body', async () => {
    for (const method of ['PUT', 'PATCH'] as const) {
      const res = await t.api({
        method,
        path: `/ai/agents/${AGENT}/translations`,
        key: KEYS.server,
        body: deep(5000),
        headers: { 'content-type': 'application/json' },
      });
      expect(res.statusCode, res.body).toBe(400);
      expect(envelope(res.body, 'ERROR_VALIDATION').result.join(' ')).toContain('body');
    }
    // an ordinary nesting still works
    const ok = await t.api({
      method: 'PUT',
      path: `/ai/agents/${AGENT}/translations`,
      key: KEYS.server,
      body: deep(20),
      headers: { 'content-type': 'application/json' },
    });
    expect(ok.statusCode, ok.body).toBe(200);
  });

  it('413 and 415 are envelopes', async () => {
    const big = await t.api({
      method: 'PUT',
      path: `/ai/agents/${AGENT}/translations`,
      key: KEYS.server,
      body: `{"translations":{"en":{"a":"${'x'.repeat(1_100_000)}"}}}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(big.statusCode).toBe(413);
    envelope(big.body, 'ERROR_PAYLOAD_TOO_LARGE');
    const xml = await t.api({
      method: 'PUT',
      path: `/ai/agents/${AGENT}/translations`,
      key: KEYS.server,
      body: '<x/>',
      headers: { 'content-type': 'application/xml' },
    });
    expect(xml.statusCode).toBe(415);
    envelope(xml.body, 'ERROR_UNSUPPORTED_MEDIA_TYPE');
  });

  it('an over-long URL or header (refused by the HTTP parser) is a 431 envelope', async () => {
    const longUrl = await raw(port, `GET /v400/es/acme/configs?x=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(longUrl.status).toBe(431);
    expect(longUrl.headers).toMatch(/content-type: application\/json/i);
    envelope(longUrl.body, 'ERROR_REQUEST_HEADERS_TOO_LARGE');
    const longHeader = await raw(port, `GET /v400/en/acme/configs HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`);
    expect(longHeader.status).toBe(431);
    envelope(longHeader.body, 'ERROR_REQUEST_HEADERS_TOO_LARGE');
    const garbage = await raw(port, 'NOT HTTP AT ALL\r\n\r\n');
    expect(garbage.status).toBe(400);
    envelope(garbage.body, 'ERROR_VALIDATION');
  });

  it('a request arriving while the server closes is a 503 envelope with Retry-After', async () => {
    const other = await startApp(engine, db);
    await other.app.listen({ port: 0, host: '127.0.0.1' });
    const otherPort = (other.app.server.address() as net.AddressInfo).port;
    // request 1 is in flight (half its body sent) when the close starts; request 2 follows it on the same connection
    const body = JSON.stringify({ email: 'nobody@acme.test', password: 'x' });
    const socket = net.connect(otherPort, '127.0.0.1');
    let data = '';
    socket.on('data', (d) => (data += String(d)));
    const closed = new Promise((r) => socket.on('close', r));
    socket.write(
      `POST /v400/en/acme/auth HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
    );
    await new Promise((r) => setTimeout(r, 200));
    const closing = other.app.close();
    await new Promise((r) => setTimeout(r, 200));
    socket.write(`${body.slice(5)}GET /v400/fr/acme/configs HTTP/1.1\r\nHost: x\r\nX-Api-Key: ${KEYS.server}\r\n\r\n`);
    await Promise.race([closed, new Promise((r) => setTimeout(r, 5000))]);
    socket.destroy();
    await closing;
    const answers = data.split(/(?=HTTP\/1\.1 )/);
    expect(answers.map((a) => Number(a.split(' ')[1]))).toEqual([401, 503]);
    const [head, second] = answers[1].split('\r\n\r\n');
    expect(head).toMatch(/retry-after: \d+/i);
    expect(envelope(second, 'ERROR_SERVICE_UNAVAILABLE').result[0]).toMatch(/indisponible/);
  });

  it('a bad version stays an empty 404', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v399/en/acme/configs' });
    expect(res.statusCode).toBe(404);
    expect(res.body).toBe('');
  });
});
