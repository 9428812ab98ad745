import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { MultipartGuard } from '../../src/rest/multipart-guard.js';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';

/**
 * Findings 2, 3 and 4 of issue 54 (CONTRACT §11, third review): `POST /ai/media` bounds its whole body
 * (MEDIA_MAX_BYTES + 1 MiB, refused with 413 while it arrives, whatever its parts: a preamble alone, a
 * huge text field), takes at most 10 parts of at most 8 KiB of headers each (400 naming `file` and the
 * limit, never "not valid JSON"), and keeps a file only when its first bytes are of its declared type
 * (not empty; text without NUL). Over a socket where arriving matters, under both engines.
 */
const MB = 1024 * 1024;
const MAX_BYTES = MB; // MEDIA_MAX_BYTES for these apps: the body's bound is 2 MiB
const BOUNDARY = 'guard-boundary';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(baseFixture());
});
afterAll(() => db.orm.close());

const hex = (h: string) => Buffer.from(h, 'hex');
/** The smallest start of a file of each type the upload takes, and a body to follow it. */
const GOOD: [string, Buffer][] = [
  ['image/jpeg', hex('ffd8ffe000104a464946')],
  ['image/png', hex('89504e470d0a1a0a0000000d49484452')],
  ['image/webp', Buffer.from('RIFF\x24\0\0\0WEBPVP8 ', 'latin1')],
  ['video/mp4', Buffer.from('\0\0\0\x18ftypmp42', 'latin1')],
  ['video/3gpp', Buffer.from('\0\0\0\x14ftyp3gp4', 'latin1')],
  ['audio/mp4', Buffer.from('\0\0\0\x1cftypM4A ', 'latin1')],
  ['audio/aac', hex('fff15080')],
  ['audio/amr', Buffer.from('#!AMR\n', 'latin1')],
  ['audio/mpeg', Buffer.from('ID3\x04\0\0', 'latin1')],
  ['audio/mpeg', hex('fffb9064')],
  ['audio/ogg', Buffer.from('OggS\0\x02', 'latin1')],
  ['application/pdf', Buffer.from('%PDF-1.7\n', 'latin1')],
  ['application/msword', hex('d0cf11e0a1b11ae1')],
  ['application/vnd.ms-excel', hex('d0cf11e0a1b11ae1')],
  ['application/vnd.ms-powerpoint', hex('d0cf11e0a1b11ae1')],
  ['application/vnd.openxmlformats-officedocument.wordprocessingml.document', hex('504b0304140006000800')],
  ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', hex('504b0304140006000800')],
  ['application/vnd.openxmlformats-officedocument.presentationml.presentation', hex('504b0304140006000800')],
  ['text/plain', Buffer.from('Menú del día: 12 €\n', 'utf8')],
];
const HTML = Buffer.from('<html><script>alert(document.domain)</script></html>');

const part = (headers: string, body: Buffer | string) =>
  Buffer.concat([Buffer.from(`--${BOUNDARY}\r\n${headers}\r\n\r\n`), Buffer.from(body)]);
const filePart = (type: string, bytes: Buffer, name = 'f.bin') =>
  part(`Content-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: ${type}`, bytes);
const field = (name: string, value: string) => part(`Content-Disposition: form-data; name="${name}"`, value);
const form = (...parts: Buffer[]) => Buffer.concat([...parts.flatMap((p) => [p, Buffer.from('\r\n')]), Buffer.from(`--${BOUNDARY}--\r\n`)]);

describe.each(ENGINES)('POST /ai/media bounded as a whole, its bytes checked (%s)', (engine) => {
  let t: TestApp;
  let origin: string;
  beforeAll(async () => {
    t = await startApp(engine, db, { config: { media: { ...loadConfig({}).media, maxBytes: MAX_BYTES } } });
    origin = await t.listen();
  });
  afterAll(() => t.close());

  const post = (body: Buffer, lang = 'en') =>
    t.api({
      method: 'POST',
      path: '/ai/media',
      key: KEYS.server,
      lang,
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      body,
    });
  const uploads = async () => (await db.sql<{ n: number }>("select count(*)::int as n from ai_media where origin = 'upload'"))[0].n;

  /**
   * Streams `head`, then `fill` bytes (chunked, no Content-Length) until the answer arrives or 16 MiB
   * went out: the status and how much had been sent when it came.
   */
  function stream(head: Buffer, fill: number): Promise<{ status: number | null; sent: number; body: string }> {
    return new Promise((resolve) => {
      let sent = 0;
      let answered = false;
      const req = http.request(`${origin}/v400/en/acme/ai/media`, {
        method: 'POST',
        headers: { 'x-api-key': KEYS.server, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      });
      req.on('response', (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? null, sent, body: Buffer.concat(chunks).toString() }));
        res.on('error', () => resolve({ status: res.statusCode ?? null, sent, body: Buffer.concat(chunks).toString() }));
      });
      req.on('error', () => {
        if (!answered) resolve({ status: null, sent, body: '' });
      });
      const block = Buffer.alloc(64 * 1024, fill === 0 ? 0 : 0x61);
      const pump = () => {
        while (!answered && !req.destroyed && sent < 16 * MB) {
          const ok = req.write(sent === 0 ? head : block);
          sent += sent === 0 ? head.length : block.length;
          if (!ok) return void req.once('drain', pump);
        }
        if (!answered && !req.destroyed) req.end();
      };
      pump();
    });
  }

  it('a preamble alone, or one huge text field, is refused with 413 while it arrives, and nothing is read to its end', async () => {
    const before = await uploads();
    for (const head of [Buffer.from('preamble '), Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="note"\r\n\r\n`)]) {
      const res = await stream(head, 1);
      expect(res.status, res.body).toBe(413);
      expect(JSON.parse(res.body).code).toBe('ERROR_PAYLOAD_TOO_LARGE');
      // the bound is 2 MiB: the answer came well before the 16 MiB the client would have sent
      expect(res.sent).toBeLessThan(8 * MB);
    }
    // a file whose first bytes are not its type's is refused at them, not after its 16 MiB
    const html = await stream(filePart('image/jpeg', HTML), 1);
    expect([html.status, JSON.parse(html.body).result]).toEqual([
      400,
      ['The field file must hold a file of the type it declares (image/jpeg).'],
    ]);
    expect(html.sent).toBeLessThan(8 * MB);
    // a declared length over the bound: refused before the body
    const declared = await new Promise<number | undefined>((resolve) => {
      const req = http.request(`${origin}/v400/en/acme/ai/media`, {
        method: 'POST',
        headers: { 'x-api-key': KEYS.server, 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'content-length': 3 * MB },
      });
      req.on('response', (res) => resolve(res.statusCode));
      req.on('error', () => resolve(undefined));
      req.write(Buffer.alloc(10)); // and nothing more: only an answer given before the body ends the wait
    });
    expect(declared).toBe(413);
    expect(await uploads()).toBe(before);
  });

  it('more than 10 parts, 20,000 fields, or a part whose headers pass 8 KiB: 400 naming file and the limit', async () => {
    const before = await uploads();
    const png = GOOD[1][1];
    const eleven = await post(form(...Array.from({ length: 10 }, (_, i) => field(`f${i}`, 'x')), filePart('image/png', png)));
    expect([eleven.statusCode, eleven.json().result]).toEqual([400, ['The field file must come in a form of at most 10 parts.']]);
    const many = await post(form(...Array.from({ length: 20_000 }, (_, i) => field(`f${i}`, 'x'))), 'es');
    expect(many.statusCode).toBe(400);
    expect(many.json().result[0]).toMatch(/^El campo file .*10/);
    expect(many.body).not.toMatch(/JSON/);
    const fileAfterFields = await post(form(filePart('image/png', png), ...Array.from({ length: 12 }, (_, i) => field(`f${i}`, 'x'))));
    expect(fileAfterFields.statusCode).toBe(400);
    // a header of 50 KB pushing the part's Content-Type out of busboy's reach
    const pushed = await post(
      form(part(`Content-Disposition: form-data; name="file"; filename="${'a'.repeat(50_000)}"\r\nContent-Type: image/png`, png)),
    );
    expect([pushed.statusCode, pushed.json().result]).toEqual([
      400,
      ['The field file must come in parts whose headers are at most 8192 bytes.'],
    ]);
    // ten parts and headers of 8 KiB less a little are still a form
    const fine = await post(
      form(...Array.from({ length: 9 }, (_, i) => field(`f${i}`, 'x')), filePart('image/png', png, 'b'.repeat(8000))),
    );
    expect(fine.statusCode, fine.body).toBe(200);
    expect(await uploads()).toBe(before + 1);
    // a multipart type without a boundary the guard can count by (none, empty, longer than RFC 2046's 70): 415, never a 500
    for (const type of ['multipart/form-data', 'multipart/form-data; boundary=""', `multipart/form-data; boundary=${'x'.repeat(71)}`]) {
      const res = await t.api({ method: 'POST', path: '/ai/media', key: KEYS.server, headers: { 'content-type': type }, body: 'abc' });
      expect([res.statusCode, res.json().code], type).toEqual([415, 'ERROR_UNSUPPORTED_MEDIA_TYPE']);
    }
  });

  it('a file must be what it says: every type of the list by its first bytes, none empty, text without NUL', async () => {
    const before = await uploads();
    for (const [type, start] of GOOD) {
      const res = await post(form(filePart(type, Buffer.concat([start, Buffer.from('rest of the file')]))));
      expect(res.statusCode, `${type}: ${res.body}`).toBe(200);
      expect(res.json().result.mime_type).toBe(type);
    }
    expect(await uploads()).toBe(before + GOOD.length);
    const refused: [string, Buffer, string][] = [
      ['image/jpeg', HTML, 'The field file must hold a file of the type it declares (image/jpeg).'],
      ['video/mp4', HTML, 'The field file must hold a file of the type it declares (video/mp4).'],
      ['application/pdf', GOOD[0][1], 'The field file must hold a file of the type it declares (application/pdf).'],
      ['image/png', GOOD[1][1].subarray(0, 4), 'The field file must hold a file of the type it declares (image/png).'],
      ['text/plain', Buffer.from('MZ\0\0\x90'), 'The field file must hold a file of the type it declares (text/plain).'],
      ['image/png', Buffer.alloc(0), 'The field file must not be an empty file.'],
      ['text/plain', Buffer.alloc(0), 'The field file must not be an empty file.'],
    ];
    for (const [type, bytes, message] of refused) {
      const res = await post(form(filePart(type, bytes)));
      expect([res.statusCode, res.json().result], type).toEqual([400, [message]]);
    }
    // a NUL far into a text file, past any first bytes
    const late = await post(form(filePart('text/plain', Buffer.concat([Buffer.alloc(300_000, 0x61), Buffer.from([0])]))));
    expect(late.statusCode).toBe(400);
    for (const lang of ['fr', 'ar']) {
      const res = await post(form(filePart('image/jpeg', HTML)), lang);
      expect(res.json().result[0]).toContain('image/jpeg');
    }
    expect(await uploads()).toBe(before + GOOD.length);
    const [{ n: chunks }] = await db.sql<{ n: number }>(
      'select count(*)::int as n from ai_media_chunks c where not exists (select 1 from ai_media a where a.id = c.media_id)',
    );
    expect(chunks).toBe(0);
  });
});

describe('the multipart guard counts the same whatever the chunks', () => {
  const limits = { maxBytes: 10 * MB, maxParts: 10, maxHeaderBytes: 8 * 1024 };
  const feed = (body: Buffer, sizes: () => number) => {
    const guard = new MultipartGuard(BOUNDARY, limits);
    for (let at = 0; at < body.length;) {
      const n = Math.max(1, sizes());
      const broken = guard.push(body.subarray(at, at + n));
      if (broken) return { broken, parts: guard.parts };
      at += n;
    }
    return { broken: null, parts: guard.parts };
  };
  const bodies: [string, Buffer, { broken: string | null; parts: number }][] = [
    ['three parts', form(field('a', 'x'), field('b', ''), filePart('image/png', GOOD[1][1])), { broken: null, parts: 3 }],
    [
      'a preamble and an epilogue',
      Buffer.concat([Buffer.from('pre\r\n'), form(field('a', `--${BOUNDARY}x`)), Buffer.from('epilogue')]),
      { broken: null, parts: 1 },
    ],
    ['eleven parts', form(...Array.from({ length: 11 }, (_, i) => field(`f${i}`, 'v'))), { broken: 'parts', parts: 11 }],
    ['a long header', form(part(`X-Pad: ${'p'.repeat(8200)}`, 'v')), { broken: 'headers', parts: 1 }],
    // a header block is its lines with their CRLFs and the blank line: 8 KiB exactly is still a form, one byte more is not
    ['a header block of 8 KiB exactly', form(part(`X-Pad: ${'p'.repeat(8192 - 'X-Pad: '.length - 4)}`, 'v')), { broken: null, parts: 1 }],
    [
      'a header block of 8 KiB and a byte',
      form(part(`X-Pad: ${'p'.repeat(8193 - 'X-Pad: '.length - 4)}`, 'v')),
      { broken: 'headers', parts: 1 },
    ],
  ];
  it.each(bodies)('%s', (_name, body, expected) => {
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), (seed % 97) + 1);
    for (const sizes of [() => 1, () => 2, () => 3, () => 5, () => body.length, random]) expect(feed(body, sizes)).toEqual(expected);
  });
});
