import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { startMessageOutboxes } from '../support/message-outboxes.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';
import { startS3Server, type LocalS3 } from '../support/s3-server.js';
import { MetaWebhooks, startWhatsAppFake, type MetaMessage, type WhatsAppFake } from '../support/whatsapp-fake.js';

/**
 * CONTRACT §12.1–12.3 over HTTP under both engines: every inbound type kept, contacts known only by
 * their BSUID, and inbound files downloaded by the service (against the local Cloud API) and served
 * by `GET .../messages/{id}/media`; the S3 store against a real S3-protocol server (s3rver).
 */

const base = (e: number) => 300 + e * 10;
const secret = (id: number) => `media-secret-${id}`;
const phone = (id: number) => `pnm${id}`;
const token = (id: number) => `EAAG-media-${id}`;
const creds = (id: number) => ({
  waba_id: `wabam${id}`,
  phone_number_id: phone(id),
  access_token: token(id),
  app_secret: secret(id),
  verify_token: `verify-m-${id}`,
});
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

let db: TestDatabase;
let fake: WhatsAppFake;
let s3: LocalS3 | { skip: string };
let seq = 0;
const wamid = (tag: string) => `wamid.${tag}.${process.pid}.${++seq}`;
const contact = () => `3470${process.pid % 1000}${String(++seq).padStart(5, '0')}`;
const bsuid = () => `US.${process.pid}${String(++seq).padStart(12, '0')}`;

beforeAll(async () => {
  db = await createTestDatabase();
  fake = await startWhatsAppFake();
  const agents = [0, 1, 2].map((e) => {
    const id = base(e);
    fake.addAccount({ ...creds(id), templates: [] });
    return {
      id,
      business_id: 1,
      name: `M${id}`,
      provider: 'whatsapp',
      provider_type: 'chat',
      provider_external_id: `media-${id}`,
      enabled: true,
      credentials: creds(id),
    };
  });
  await db.load(baseFixture({ agents }));
  s3 = await startS3Server();
  if ('skip' in s3) console.log(`S3 media tests skipped: ${s3.skip}`);
});
afterAll(async () => {
  if (s3 && !('skip' in s3)) await s3.close();
  await fake.close();
  await db.orm.close();
});

async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 8000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out; last: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 40));
  }
}

interface Harness {
  t: TestApp;
  meta: MetaWebhooks;
  agent: number;
  stop(): Promise<void>;
}

/** An app on a socket with the downloader and the reply sender running, as `serve` runs them. */
async function harness(engine: (typeof ENGINES)[number], agent: number, media: Record<string, unknown> = {}): Promise<Harness> {
  const t = await startApp(engine, db, {
    config: { whatsappApiUrl: fake.url, providerTimeoutMs: 2000, media: { ...loadConfig({}).media, retryBaseMs: 50, ...media } },
  });
  const origin = await t.listen();
  const stopOutboxes = startMessageOutboxes(t, db, fake.url);
  return {
    t,
    agent,
    meta: new MetaWebhooks(`${origin}/v400/en/acme/ai/webhooks/whatsapp`),
    stop: async () => {
      await stopOutboxes();
      await t.close();
    },
  };
}

describe.each(ENGINES.map((engine, e) => [engine, e] as const))('WhatsApp: every type, BSUID contacts, media (%s)', (engine, e) => {
  const AGENT = base(e);
  let h: Harness;
  beforeAll(async () => {
    h = await harness(engine, AGENT);
  });
  afterAll(async () => h?.stop());

  const deliver = async (messages: MetaMessage[], contacts?: { wa_id?: string; user_id?: string; name?: string }[]) => {
    const res = await h.meta.post(MetaWebhooks.notification(phone(AGENT), { messages, contacts }), secret(AGENT));
    expect(res.status).toBe(200);
    return res.body.result as { messages: number };
  };
  const byExternal = async (externalId: string) =>
    (await db.sql<Record<string, any>>('select * from ai_messages where external_id = ?', [externalId]))[0];
  const list = (conversationId: number, query: Record<string, string> = {}) =>
    h.t.api({ path: `/ai/conversations/${conversationId}/messages`, key: KEYS.server, query: { page_size: '100', ...query } });
  const media = (conversationId: number, messageId: number, headers: Record<string, string> = {}) =>
    h.t.api({ path: `/ai/conversations/${conversationId}/messages/${messageId}/media`, key: KEYS.server, headers });
  const stored = (c: number, m: number) =>
    until(
      () => media(c, m),
      (r) => r.statusCode !== 409 || r.json().code !== 'ERROR_AI_MEDIA_PENDING',
    );

  it('keeps every type with its payload, reply_to_id and readable content; malformed items are unsupported; where type; never a 5xx', async () => {
    const from = contact();
    const first = wamid('q');
    await deliver([{ id: first, from, text: 'hola' }]);
    const { conversation_id: c, id: questionId } = await byExternal(first);
    // an outbound message the customer answers (its wamid as Meta knows it)
    const posted = await h.t.api({
      method: 'POST',
      path: `/ai/conversations/${c}/messages`,
      key: KEYS.server,
      body: { role: 'assistant', content: 'Confirm?' },
    });
    const outId: number = posted.json().result.id;
    const out = await until(
      () => db.sql<Record<string, any>>('select * from ai_messages where id = ?', [outId]).then((r) => r[0]),
      (m) => m.external_id != null,
    );
    const OUT: string = out.external_id;
    const ids = Object.fromEntries(
      ['loc', 'btn', 'list', 'flow', 'tpl', 'order', 'react', 'unreact', 'card', 'badloc', 'nomedia', 'unsup', 'huge'].map((k) => [
        k,
        wamid(k),
      ]),
    );
    const ctx = { context: { from: '15550001111', id: OUT } };
    const result = await deliver([
      {
        id: ids.loc,
        from,
        type: 'location',
        extra: { location: { latitude: 40.4168, longitude: -3.7038, name: 'Casa', address: 'Gran Vía 1' } },
      },
      {
        id: ids.btn,
        from,
        type: 'interactive',
        extra: { ...ctx, interactive: { type: 'button_reply', button_reply: { id: 'confirm', title: 'Confirm order' } } },
      },
      {
        id: ids.list,
        from,
        type: 'interactive',
        extra: { interactive: { type: 'list_reply', list_reply: { id: 'pep', title: 'Pepperoni', description: 'Large' } } },
      },
      {
        id: ids.flow,
        from,
        type: 'interactive',
        extra: { interactive: { type: 'nfm_reply', nfm_reply: { name: 'flow', response_json: '{"size":"L"}' } } },
      },
      { id: ids.tpl, from, type: 'button', extra: { ...ctx, button: { payload: 'STOP', text: 'Stop promotions' } } },
      {
        id: ids.order,
        from,
        type: 'order',
        extra: {
          order: {
            catalog_id: 'cat1',
            text: '',
            product_items: [{ product_retailer_id: 'sku1', quantity: 2, item_price: 9.5, currency: 'EUR' }],
          },
        },
      },
      { id: ids.react, from, type: 'reaction', extra: { reaction: { message_id: OUT, emoji: '👍' } } },
      { id: ids.unreact, from, type: 'reaction', extra: { reaction: { message_id: 'wamid.UNKNOWN', emoji: '' } } },
      {
        id: ids.card,
        from,
        type: 'contacts',
        extra: { contacts: [{ name: { formatted_name: 'Ana López' }, phones: [{ phone: '+34 600' }] }] },
      },
      { id: ids.badloc, from, type: 'location', extra: { location: { latitude: '40', longitude: -3 } } },
      { id: ids.nomedia, from, type: 'image', extra: { image: { caption: 'no id' } } },
      {
        id: ids.unsup,
        from,
        type: 'unsupported',
        extra: { unsupported: { type: 'edit' }, errors: [{ code: 131051, title: 'Message type unknown' }] },
      },
      { id: ids.huge, from, type: 'contacts', extra: { contacts: [{ name: { formatted_name: 'x'.repeat(70 * 1024) } }] } },
    ]);
    expect(result.messages).toBe(13);
    const res = await list(c);
    expect(res.statusCode).toBe(200);
    const by = new Map<string, any>((res.json().result as Record<string, any>[]).map((m) => [m.external_id, m]));
    const pick = (k: string) => {
      const m = by.get(ids[k]);
      return { type: m.type, content: m.content, payload: m.payload, reply_to_id: m.reply_to_id };
    };
    expect(by.get(first)).toMatchObject({ type: 'text', payload: null, reply_to_id: null, content: 'hola' });
    expect(pick('loc')).toEqual({
      type: 'location',
      content: 'Casa, Gran Vía 1',
      payload: { latitude: 40.4168, longitude: -3.7038, name: 'Casa', address: 'Gran Vía 1', url: null },
      reply_to_id: null,
    });
    expect(pick('btn')).toEqual({
      type: 'interactive',
      content: 'Confirm order',
      payload: { reply_type: 'button_reply', id: 'confirm', title: 'Confirm order', description: null },
      reply_to_id: outId,
    });
    expect(pick('list')).toMatchObject({ content: 'Pepperoni', payload: { reply_type: 'list_reply', id: 'pep', description: 'Large' } });
    expect(pick('flow')).toMatchObject({
      content: '[INTERACTIVE]',
      payload: { reply_type: 'nfm_reply', name: 'flow', response: { size: 'L' } },
    });
    expect(pick('tpl')).toEqual({
      type: 'button',
      content: 'Stop promotions',
      payload: { payload: 'STOP', text: 'Stop promotions' },
      reply_to_id: outId,
    });
    expect(pick('order')).toMatchObject({
      type: 'order',
      content: '[ORDER]',
      payload: { catalog_id: 'cat1', text: '', items: [{ product_retailer_id: 'sku1', quantity: 2, item_price: 9.5, currency: 'EUR' }] },
    });
    expect(pick('react')).toMatchObject({ type: 'reaction', content: '👍', payload: { external_id: OUT, message_id: outId, emoji: '👍' } });
    expect(pick('unreact')).toMatchObject({
      content: '[REACTION]',
      payload: { external_id: 'wamid.UNKNOWN', message_id: null, emoji: null },
    });
    expect(pick('card')).toMatchObject({ type: 'contacts', content: 'Ana López' });
    expect(pick('badloc')).toMatchObject({ type: 'unsupported', content: '[UNSUPPORTED]', payload: { type: 'location', errors: null } });
    expect(pick('nomedia')).toMatchObject({ type: 'unsupported', payload: { type: 'image' } });
    expect(pick('unsup')).toMatchObject({
      type: 'unsupported',
      payload: { type: 'edit', errors: [{ code: 131051, title: 'Message type unknown' }] },
    });
    expect(pick('huge')).toMatchObject({ type: 'unsupported', payload: { type: 'contacts' } });
    expect(questionId).toBeGreaterThan(0);

    const onlyLocations = await list(c, { where: JSON.stringify({ type: 'location' }) });
    expect(onlyLocations.json().result.map((m: any) => m.external_id)).toEqual([ids.loc]);
    const selected = await list(c, { params: 'id,type,payload,reply_to_id', where: JSON.stringify({ reply_to_id: outId }) });
    expect(selected.json().result).toEqual([
      { id: by.get(ids.btn).id, type: 'interactive', payload: pick('btn').payload, reply_to_id: outId },
      { id: by.get(ids.tpl).id, type: 'button', payload: pick('tpl').payload, reply_to_id: outId },
    ]);
    // the events carry the full record
    const [event] = await db.sql<{ data: any }>(`select data from ai_events where type = 'message.created' and (data->>'id')::int = ?`, [
      by.get(ids.loc).id,
    ]);
    expect(event.data).toEqual(by.get(ids.loc));
  });

  it('a contact known only by its BSUID: stored, one conversation per person under concurrency, the phone learned later, replies sent with recipient', async () => {
    const user = bsuid();
    const ids = Array.from({ length: 8 }, () => wamid('bs'));
    const results = await Promise.all(
      ids.map((id) => deliver([{ id, from: '', from_user_id: user, text: `hi ${id}` }], [{ user_id: user, name: 'Ana' }])),
    );
    expect(results.reduce((n, r) => n + r.messages, 0)).toBe(8);
    const conversations = await db.sql<Record<string, any>>('select * from ai_conversations where agent_id = ? and contact_user_id = ?', [
      AGENT,
      user,
    ]);
    expect(conversations).toHaveLength(1);
    const c = conversations[0];
    const rec = (await h.t.api({ path: `/ai/conversations/${c.id}`, key: KEYS.server })).json().result;
    expect(rec).toMatchObject({ contact: user, contact_user_id: user, contact_name: 'Ana' });

    // a reply to a contact without a phone number goes with `recipient`
    const reply = await h.t.api({
      method: 'POST',
      path: `/ai/conversations/${c.id}/messages`,
      key: KEYS.server,
      body: { role: 'assistant', content: 'Hola Ana' },
    });
    expect(reply.statusCode).toBe(200);
    const sent = await until(
      () => Promise.resolve(fake.requestsTo('send').filter((r) => r.body?.recipient === user)),
      (r) => r.length === 1,
    );
    expect(sent[0].body).toMatchObject({ recipient: user, type: 'text', text: { body: 'Hola Ana' } });
    expect(sent[0].body.to).toBeUndefined();

    // the phone number arrives with the same BSUID: same conversation, the number becomes the contact
    const number = contact();
    await deliver(
      [{ id: wamid('ph'), from: number, from_user_id: user, text: 'now with my number' }],
      [{ wa_id: number, user_id: user, name: 'Ana L.' }],
    );
    const after = (await h.t.api({ path: `/ai/conversations/${c.id}`, key: KEYS.server })).json().result;
    expect(after).toMatchObject({ contact: number, contact_user_id: user, contact_name: 'Ana L.', messages_count: 10 });
    // neither identifier: skipped
    const none = await deliver([{ id: wamid('none'), from: '', text: 'nobody' }]);
    expect(none.messages).toBe(0);
  });

  it('downloads an inbound file, emits message.updated, and serves it with ETag, Range, 304, nosniff and a safe Content-Disposition', async () => {
    const from = contact();
    const photo = fake.addMedia({
      id: `mp${AGENT}.${++seq}`,
      phone_number_id: phone(AGENT),
      bytes: randomBytes(300_000),
      mime_type: 'image/jpeg',
    });
    const doc = fake.addMedia({
      id: `md${AGENT}.${++seq}`,
      phone_number_id: phone(AGENT),
      bytes: randomBytes(5000),
      mime_type: 'application/pdf',
    });
    const [p, d] = [wamid('img'), wamid('doc')];
    fake.fail('bytes', { status: 404, body: { error: { message: 'URL expired', code: 190 } } }, { times: 1 }); // the first URL has expired
    await deliver([
      {
        id: p,
        from,
        type: 'image',
        extra: { image: { id: photo.id, mime_type: 'image/jpeg', sha256: sha(photo.bytes), caption: 'this one' } },
      },
      {
        id: d,
        from,
        type: 'document',
        extra: { document: { id: doc.id, mime_type: 'application/pdf', filename: '../../etc/"menu"\r\n.pdf' } },
      },
    ]);
    const pm = await byExternal(p);
    const dm = await byExternal(d);
    expect(pm.payload.media).toMatchObject({ status: 'pending', mime_type: 'image/jpeg', size: null });
    expect(pm.content).toBe('this one');

    const ok = await stored(pm.conversation_id, pm.id);
    expect(ok.statusCode).toBe(200);
    expect(ok.rawPayload.equals(photo.bytes)).toBe(true);
    expect(ok.headers).toMatchObject({
      'content-type': 'image/jpeg',
      'content-length': String(photo.bytes.length),
      etag: `"${sha(photo.bytes)}"`,
      'cache-control': 'private, max-age=86400',
      'content-disposition': 'inline',
      'x-content-type-options': 'nosniff',
    });
    const record = (await list(pm.conversation_id, { where: JSON.stringify({ id: pm.id }) })).json().result[0];
    expect(record.payload.media).toEqual({
      id: pm.payload.media.id,
      status: 'stored',
      mime_type: 'image/jpeg',
      size: photo.bytes.length,
      sha256: sha(photo.bytes),
      error: null,
    });
    const [updated] = await db.sql<{ data: any }>(`select data from ai_events where type = 'message.updated' and (data->>'id')::int = ?`, [
      pm.id,
    ]);
    expect(updated.data).toEqual(record);

    const tail = await media(pm.conversation_id, pm.id, { range: 'bytes=-65536' });
    expect(tail.statusCode).toBe(206);
    expect(tail.headers['content-range']).toBe(`bytes ${photo.bytes.length - 65536}-${photo.bytes.length - 1}/${photo.bytes.length}`);
    expect(tail.rawPayload.equals(photo.bytes.subarray(photo.bytes.length - 65536))).toBe(true);
    const mid = await media(pm.conversation_id, pm.id, { range: 'bytes=262140-262150' });
    expect(mid.statusCode).toBe(206);
    expect(mid.rawPayload.equals(photo.bytes.subarray(262140, 262151))).toBe(true);
    expect((await media(pm.conversation_id, pm.id, { range: 'bytes=999999999-' })).statusCode).toBe(416);
    const cached = await media(pm.conversation_id, pm.id, { 'if-none-match': `"${sha(photo.bytes)}"` });
    expect([cached.statusCode, cached.rawPayload.length]).toEqual([304, 0]);

    const pdf = await stored(dm.conversation_id, dm.id);
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['content-disposition']).toMatch(/^attachment; filename="menu_?.pdf"; filename\*=UTF-8''/);
    expect(pdf.headers['content-disposition']).not.toMatch(/[\r\n/\\]|\.\./);
    // the expired URL, then a new one
    expect(fake.requests.filter((r) => r.path === `/media-bytes/${photo.id}`).length).toBe(2);
    expect(fake.downloads.get(photo.id)).toBe(1);
    expect(fake.downloads.get(doc.id)).toBe(1);

    // a message without a file, or of another conversation: 400 ERROR_AI_MESSAGE_NOT_FOUND
    const [{ id: textId }] = await db
      .sql<{ id: number }>(`select id from ai_messages where conversation_id = ? and type = 'text' limit 1`, [pm.conversation_id])
      .then((r) => (r.length ? r : db.sql<{ id: number }>(`select id from ai_messages where type = 'text' limit 1`)));
    for (const [cid, mid2] of [
      [pm.conversation_id, textId],
      [pm.conversation_id + 100000, pm.id],
      [pm.conversation_id, 2147483647],
    ]) {
      const res = await media(cid, mid2);
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toMatch(/ERROR_AI_MESSAGE_NOT_FOUND|ERROR_AI_CONVERSATION_NOT_FOUND/);
    }
    expect((await h.t.api({ path: `/ai/conversations/${pm.conversation_id}/messages/${pm.id}/media` })).statusCode).toBe(401);
  });

  it('a voice note is served as stored and inline; only the listed types are inline; every file answer is sandboxed (§11, §12.7)', async () => {
    const from = contact();
    const files = [
      { type: 'audio', mime: 'audio/ogg; codecs=opus', served: 'audio/ogg; codecs=opus', disposition: 'inline' },
      { type: 'video', mime: 'video/html', served: 'video/html', disposition: 'attachment' },
      { type: 'image', mime: 'image/gif', served: 'image/gif', disposition: 'attachment' },
      { type: 'sticker', mime: 'image/webp', served: 'image/webp', disposition: 'inline' },
    ].map((f) => ({
      ...f,
      wamid: wamid(f.type),
      file: fake.addMedia({ id: `mv${AGENT}.${++seq}`, phone_number_id: phone(AGENT), bytes: randomBytes(2000), mime_type: f.mime }),
    }));
    await deliver(
      files.map((f) => ({
        id: f.wamid,
        from,
        type: f.type,
        extra: { [f.type]: { id: f.file.id, mime_type: f.mime, sha256: sha(f.file.bytes), ...(f.type === 'audio' && { voice: true }) } },
      })),
    );
    for (const f of files) {
      const m = await byExternal(f.wamid);
      const res = await stored(m.conversation_id, m.id);
      expect(res.statusCode, `${f.mime}: ${res.body}`).toBe(200);
      expect(res.headers['content-type'], f.mime).toBe(f.served);
      expect(String(res.headers['content-disposition']).split(';')[0], f.mime).toBe(f.disposition);
      expect(res.headers['content-security-policy']).toBe("default-src 'none'; sandbox");
      expect(res.rawPayload.equals(f.file.bytes)).toBe(true);
      const others: [Record<string, string>, number][] = [
        [{ range: 'bytes=0-9' }, 206],
        [{ range: 'bytes=5000-' }, 416],
        [{ 'if-none-match': `"${sha(f.file.bytes)}"` }, 304],
      ];
      for (const [headers, status] of others) {
        const other = await media(m.conversation_id, m.id, headers);
        expect([other.statusCode, other.headers['content-security-policy']]).toEqual([status, "default-src 'none'; sandbox"]);
      }
    }
  });

  it('a media id that cannot be a URL segment fails at once, asking Meta nothing (no 24 hours of retries)', async () => {
    const before = fake.requests.length;
    const m = wamid('dots');
    await deliver([{ id: m, from: contact(), type: 'image', extra: { image: { id: '..' } } }]);
    const im = await byExternal(m);
    const failed = await stored(im.conversation_id, im.id);
    expect(failed.statusCode).toBe(409);
    expect(failed.json()).toMatchObject({ error: true, code: 'ERROR_AI_MEDIA_FAILED' });
    const [row] = await db.sql<Record<string, any>>('select status, attempts, error from ai_media where id = ?', [im.payload.media.id]);
    expect(row).toMatchObject({ status: 'failed', attempts: 1 });
    expect(row.error).toContain("Meta's media id");
    expect(fake.requests.slice(before).filter((r) => r.path.includes('..'))).toEqual([]);
  });

  it('too large for its kind: failed naming the limit, nothing kept; a wrong hash is never stored and is retried', async () => {
    const from = contact();
    const big = fake.addMedia({
      id: `mb${AGENT}.${++seq}`,
      phone_number_id: phone(AGENT),
      bytes: randomBytes(600 * 1024),
      mime_type: 'image/webp',
    });
    const lying = fake.addMedia({
      id: `ml${AGENT}.${++seq}`,
      phone_number_id: phone(AGENT),
      bytes: randomBytes(100),
      mime_type: 'image/jpeg',
      sha256: sha(Buffer.from('other')),
    });
    const [s, l] = [wamid('stk'), wamid('lie')];
    await deliver([
      { id: s, from, type: 'sticker', extra: { sticker: { id: big.id, mime_type: 'image/webp', animated: false } } },
      { id: l, from, type: 'image', extra: { image: { id: lying.id } } },
    ]);
    const sm = await byExternal(s);
    const failed = await stored(sm.conversation_id, sm.id);
    expect(failed.statusCode).toBe(409);
    expect(failed.json()).toMatchObject({ error: true, code: 'ERROR_AI_MEDIA_FAILED' });
    expect(failed.json().result[0]).toContain('sticker limit of 500 KB');
    const es = await h.t.api({ path: `/ai/conversations/${sm.conversation_id}/messages/${sm.id}/media`, key: KEYS.server, lang: 'es' });
    expect(es.json().result[0]).toMatch(/^No se pudo guardar el archivo: .*500 KB/);
    const [row] = await db.sql<Record<string, any>>('select * from ai_media where id = ?', [sm.payload.media.id]);
    expect(row).toMatchObject({ status: 'failed', size: null });
    expect((await db.sql('select 1 from ai_media_chunks where media_id = ?', [row.id])).length).toBe(0);
    expect((await byExternal(s)).payload).toMatchObject({ animated: false, media: { status: 'failed', error: row.error } });

    const lm = await byExternal(l);
    const retried = await until(
      () => db.sql<Record<string, any>>('select * from ai_media where id = ?', [lm.payload.media.id]).then((r) => r[0]),
      (r) => r.attempts >= 3,
    );
    expect(retried).toMatchObject({ status: 'pending', last_error: expect.stringContaining('SHA-256') });
    expect((await db.sql('select 1 from ai_media_chunks where media_id = ?', [retried.id])).length).toBe(0);
    const pending = await media(lm.conversation_id, lm.id);
    expect([pending.statusCode, pending.json().code, pending.headers['retry-after']]).toEqual([409, 'ERROR_AI_MEDIA_PENDING', '2']);
    await db.sql(`update ai_media set status = 'failed', error = 'test over' where id = ?`, [retried.id]); // stop its retries
  });
});

describe('WhatsApp media in an S3 bucket', () => {
  it('downloads into the bucket and serves from it (ranges included)', async (t) => {
    if ('skip' in s3) return t.skip();
    const AGENT = base(2);
    const h = await harness('mercurius', AGENT, { s3: { bucket: s3.bucket, endpoint: s3.endpoint, region: 'us-east-1' } });
    try {
      const file = fake.addMedia({
        id: `ms${++seq}`,
        phone_number_id: phone(AGENT),
        bytes: randomBytes(6 * 1024 * 1024 + 7),
        mime_type: 'video/mp4',
      });
      const id = wamid('vid');
      const res = await h.meta.post(
        MetaWebhooks.notification(phone(AGENT), {
          messages: [
            {
              id,
              from: contact(),
              type: 'video',
              extra: { video: { id: file.id, sha256: createHash('sha256').update(file.bytes).digest('base64') } },
            },
          ],
        }),
        secret(AGENT),
      );
      expect(res.status).toBe(200);
      const [m] = await db.sql<Record<string, any>>('select * from ai_messages where external_id = ?', [id]);
      const get = (headers: Record<string, string> = {}) =>
        h.t.api({ path: `/ai/conversations/${m.conversation_id}/messages/${m.id}/media`, key: KEYS.server, headers });
      const ok = await until(get, (r) => r.statusCode !== 409, 15_000);
      expect(ok.statusCode).toBe(200);
      expect(ok.rawPayload.equals(file.bytes)).toBe(true);
      const [row] = await db.sql<Record<string, any>>('select storage, status from ai_media where id = ?', [m.payload.media.id]);
      expect(row).toEqual({ storage: 's3', status: 'stored' });
      expect((await db.sql('select 1 from ai_media_chunks where media_id = ?', [m.payload.media.id])).length).toBe(0);
      const tail = await get({ range: 'bytes=-10' });
      expect(tail.statusCode).toBe(206);
      expect(tail.rawPayload.equals(file.bytes.subarray(file.bytes.length - 10))).toBe(true);
    } finally {
      await h.stop();
    }
  });
});
