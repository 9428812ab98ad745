import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { WhatsAppSender } from '../../src/workers/whatsapp-sender.js';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, testCipher, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';
import { CLOUD_ANSWERS, startWhatsAppFake, type WhatsAppFake } from '../support/whatsapp-fake.js';

/**
 * Replies that are more than text (CONTRACT §12.4) over HTTP, a real database and a local Cloud API,
 * under both engines: every type's Cloud API body as the fake receives it, `context` for reply_to_id,
 * payload validation (the member and the rule, four languages, nothing stored), uploads (POST /ai/media
 * streamed, 413 past the limit, GET /ai/media/{id}) sent by media_id with one upload per file, and the
 * typing indicator (read receipt + typing_indicator for the newest inbound message, at most one provider
 * call per conversation and second).
 */
const base = (e: number) => 500 + e * 10;
const AGENT = { main: 1, disabled: 2, web: 3 };
const TIMEOUT_MS = 1000;
const creds = (id: number) => ({
  waba_id: `waba${id}`,
  phone_number_id: `pn${id}`,
  access_token: `EAAG-rich-token-${id}`,
  app_secret: `app-secret-${id}`,
  verify_token: `verify-${id}`,
});

let db: TestDatabase;
let fake: WhatsAppFake;
let projectId: number;
let contactSeq = 0;
const contact = () => `34700${process.pid % 1000}${String(++contactSeq).padStart(4, '0')}`;

beforeAll(async () => {
  db = await createTestDatabase();
  fake = await startWhatsAppFake();
  const agents: Record<string, unknown>[] = [];
  for (const e of [0, 1]) {
    const b = base(e);
    const agent = (id: number, provider: string, enabled = true) => ({
      id,
      business_id: 1,
      name: `Rich${id}`,
      provider,
      provider_type: 'chat',
      provider_external_id: `rich-${id}`,
      enabled,
      credentials: creds(id),
    });
    agents.push(agent(b + AGENT.main, 'whatsapp'), agent(b + AGENT.disabled, 'whatsapp', false), agent(b + AGENT.web, 'web'));
    fake.addAccount({ ...creds(b + AGENT.main), templates: [] });
  }
  await db.load(baseFixture({ agents }));
  [{ id: projectId }] = await db.sql<{ id: number }>("select id from projects where code = 'acme'");
});
afterAll(async () => {
  await fake.close();
  await db.orm.close();
});

describe.each(ENGINES.map((engine, e) => [engine, e] as const))('Rich WhatsApp replies (%s)', (engine, e) => {
  const MAIN = base(e) + AGENT.main;
  let t: TestApp;
  let sender: WhatsAppSender;

  beforeAll(async () => {
    t = await startApp(engine, db, { config: { whatsappApiUrl: fake.url, providerTimeoutMs: TIMEOUT_MS } });
    sender = new WhatsAppSender({
      orm: db.orm,
      cipher: testCipher,
      config: { ...loadConfig({}).whatsappSends, retryBaseMs: 40, pollMs: 200 },
      apiUrl: fake.url,
      timeoutMs: TIMEOUT_MS,
      log: { info: () => undefined, warn: () => undefined, error: () => undefined },
      onEvents: (p) => t.services.events.sequence(p),
    }).start();
    t.services.events.onWork((kind) => {
      if (kind === null || kind === 'sends') sender.wake();
    });
  });
  afterAll(async () => {
    await sender.stop();
    await t.close();
  });

  /** A WhatsApp conversation (agent MAIN unless said) with inbound messages `inbound` (external ids, oldest first), the newest `inboundAgoMs` ago. */
  async function conversation(
    opts: { agent?: number; inboundAgoMs?: number | null; contact?: string | null; inbound?: string[] } = {},
  ): Promise<{ id: number; contact: string | null; inbound: string[] }> {
    const to = opts.contact === undefined ? contact() : opts.contact;
    const ago = opts.inboundAgoMs === undefined ? 60_000 : opts.inboundAgoMs;
    const [row] = await db.sql<{ id: number }>(
      `insert into ai_conversations (project_id, agent_id, business_id, contact, status, usage, last_inbound_at)
       values (?, ?, 1, ?, 'active', '{}', ${ago === null ? 'null' : 'now() - make_interval(secs => ?)'}) returning id`,
      ago === null ? [projectId, opts.agent ?? MAIN, to] : [projectId, opts.agent ?? MAIN, to, ago / 1000],
    );
    const inbound = opts.inbound ?? (ago === null ? [] : [`wamid.IN${row.id}.1`, `wamid.IN${row.id}.2`]);
    for (const [i, id] of inbound.entries()) {
      await db.sql(
        `insert into ai_messages (project_id, conversation_id, role, content, public, external_id, created_at)
         values (?, ?, 'user', ?, true, ?, now() - make_interval(secs => ?))`,
        [projectId, row.id, `hola ${i}`, id, (ago ?? 0) / 1000 + (inbound.length - i)],
      );
    }
    return { id: row.id, contact: to, inbound };
  }

  const reply = (conversationId: number, body: Record<string, unknown>, opts: { lang?: string } = {}) =>
    t.api({
      method: 'POST',
      path: `/ai/conversations/${conversationId}/messages`,
      key: KEYS.server,
      body: { role: 'assistant', ...body },
      ...opts,
    });
  const message = async (id: number) => (await db.sql<Record<string, any>>('select * from ai_messages where id = ?', [id]))[0];
  async function settled(id: number): Promise<Record<string, any>> {
    const started = Date.now();
    for (;;) {
      const m = await message(id);
      if (m.delivery_status !== 'pending') return m;
      if (Date.now() - started > 8000) throw new Error(`message ${id} still pending`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }
  const sendsTo = (to: string | null) => fake.requestsTo('send').filter((r) => r.body?.to === to);
  const countOf = async (conversationId: number) =>
    (await db.sql<{ n: number }>('select count(*)::int as n from ai_messages where conversation_id = ?', [conversationId]))[0].n;

  /** Uploads a file through POST /ai/media (multipart, as curl -F sends it). */
  async function upload(bytes: Buffer, type: string, filename = 'file.bin', opts: { key?: string; field?: string } = {}) {
    const boundary = '----vitest' + Math.random().toString(16).slice(2);
    const body = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${opts.field ?? 'file'}"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`,
      ),
      bytes,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    return t.api({
      method: 'POST',
      path: '/ai/media',
      key: opts.key ?? KEYS.server,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: body,
    });
  }

  const BUTTONS = {
    type: 'button',
    header: { type: 'text', text: 'Order #1042' },
    body: { text: 'Confirm your order?' },
    footer: { text: 'Pizzería Sol' },
    action: {
      buttons: [
        { type: 'reply', reply: { id: 'confirm', title: 'Confirm' } },
        { type: 'reply', reply: { id: 'change', title: 'Change' } },
        { type: 'reply', reply: { id: 'cancel', title: 'Cancel' } },
      ],
    },
  };
  const LIST = {
    type: 'list',
    body: { text: "Today's pizzas" },
    action: {
      button: 'Menu',
      sections: [
        { title: 'Classic', rows: [{ id: 'margherita', title: 'Margherita', description: '9.50 €' }] },
        { title: 'Special', rows: [{ id: 'pepperoni', title: 'Pepperoni' }] },
      ],
    },
  };
  const CTA = {
    type: 'cta_url',
    body: { text: 'Follow your order' },
    action: { name: 'cta_url', parameters: { display_text: 'Track', url: 'https://example.com/o/1' } },
  };
  const ASK_LOCATION = { type: 'location_request_message', body: { text: 'Where do we deliver?' }, action: { name: 'send_location' } };

  describe('POST .../messages with type and payload', () => {
    it("sends each type as the Cloud API's message of that type, content computed, with context for reply_to_id", async () => {
      const c = await conversation();
      const [{ id: inboundId }] = await db.sql<{ id: number }>('select id from ai_messages where external_id = ?', [c.inbound[1]]);
      const cases: { body: Record<string, unknown>; content: string; cloud: Record<string, unknown> }[] = [
        {
          body: { type: 'location', payload: { latitude: 40.4168, longitude: -3.7038, name: 'Pizzería Sol', address: 'Sol 1' } },
          content: 'Pizzería Sol, Sol 1',
          cloud: { type: 'location', location: { latitude: 40.4168, longitude: -3.7038, name: 'Pizzería Sol', address: 'Sol 1' } },
        },
        {
          body: { type: 'location', payload: { latitude: -33.5, longitude: 151 } },
          content: '-33.5,151',
          cloud: { type: 'location', location: { latitude: -33.5, longitude: 151 } },
        },
        {
          body: { type: 'interactive', payload: BUTTONS },
          content: 'Confirm your order?',
          cloud: { type: 'interactive', interactive: BUTTONS },
        },
        {
          body: { type: 'interactive', payload: LIST, reply_to_id: inboundId },
          content: "Today's pizzas",
          cloud: { type: 'interactive', interactive: LIST, context: { message_id: c.inbound[1] } },
        },
        {
          body: { type: 'interactive', payload: CTA, content: 'tracking link' },
          content: 'tracking link',
          cloud: { type: 'interactive', interactive: CTA },
        },
        {
          body: { type: 'interactive', payload: ASK_LOCATION },
          content: 'Where do we deliver?',
          cloud: { type: 'interactive', interactive: ASK_LOCATION },
        },
        {
          body: { type: 'image', payload: { link: 'https://example.com/p.jpg', caption: 'Pepperoni' } },
          content: 'Pepperoni',
          cloud: { type: 'image', image: { link: 'https://example.com/p.jpg', caption: 'Pepperoni' } },
        },
        {
          body: { type: 'video', payload: { link: 'https://example.com/v.mp4' } },
          content: '[VIDEO]',
          cloud: { type: 'video', video: { link: 'https://example.com/v.mp4' } },
        },
        {
          body: { type: 'document', payload: { link: 'https://example.com/m.pdf', filename: 'menu.pdf', caption: 'Menu' } },
          content: 'Menu',
          cloud: { type: 'document', document: { link: 'https://example.com/m.pdf', filename: 'menu.pdf', caption: 'Menu' } },
        },
        {
          body: { type: 'audio', payload: { link: 'https://example.com/a.ogg' } },
          content: '[AUDIO]',
          cloud: { type: 'audio', audio: { link: 'https://example.com/a.ogg' } },
        },
        {
          body: { type: 'sticker', payload: { link: 'https://example.com/s.webp' } },
          content: '[STICKER]',
          cloud: { type: 'sticker', sticker: { link: 'https://example.com/s.webp' } },
        },
        {
          body: { type: 'reaction', payload: { message_id: inboundId, emoji: '👍' } },
          content: '👍',
          cloud: { type: 'reaction', reaction: { message_id: c.inbound[1], emoji: '👍' } },
        },
        {
          body: { type: 'reaction', payload: { message_id: inboundId, emoji: '' } },
          content: '[REACTION]',
          cloud: { type: 'reaction', reaction: { message_id: c.inbound[1], emoji: '' } },
        },
        {
          body: { content: 'Yes, we deliver there', reply_to_id: inboundId },
          content: 'Yes, we deliver there',
          cloud: { type: 'text', text: { body: 'Yes, we deliver there', preview_url: false }, context: { message_id: c.inbound[1] } },
        },
      ];
      const ids: number[] = [];
      for (const k of cases) {
        const res = await reply(c.id, k.body);
        expect(res.statusCode, JSON.stringify(res.json())).toBe(200);
        const record = res.json().result;
        expect(record).toMatchObject({
          type: k.body.type ?? 'text',
          content: k.content,
          delivery_status: 'pending',
          reply_to_id: k.body.reply_to_id ?? null,
        });
        ids.push(record.id);
      }
      for (const id of ids) expect((await settled(id)).delivery_status).toBe('accepted');
      const sent = sendsTo(c.contact);
      expect(sent).toHaveLength(cases.length);
      // in the written order, each exactly as the Cloud API takes it
      sent.forEach((r, i) =>
        expect(r.body).toEqual({ messaging_product: 'whatsapp', recipient_type: 'individual', to: c.contact, ...cases[i].cloud }),
      );
      const stored = await message(ids[0]);
      expect(stored.payload).toEqual(cases[0].body.payload);
      const reaction = await message(ids[11]);
      expect(reaction.payload).toEqual({ message_id: inboundId, emoji: '👍', external_id: c.inbound[1] });
    });

    it('refuses a payload that breaks a rule: 400 naming the member and the rule, in four languages, nothing stored', async () => {
      const c = await conversation();
      const other = await conversation();
      const [{ id: otherMessage }] = await db.sql<{ id: number }>('select id from ai_messages where external_id = ?', [other.inbound[0]]);
      const long = (n: number) => 'x'.repeat(n);
      const button = (id: string, title: string) => ({ type: 'reply', reply: { id, title } });
      const bad: [Record<string, unknown>, string, string][] = [
        [
          { type: 'location', payload: { latitude: 91, longitude: 0 } },
          'payload.latitude',
          'The field payload.latitude must be between -90 and 90.',
        ],
        [
          { type: 'location', payload: { latitude: 0, longitude: 0, name: long(1001) } },
          'payload.name',
          'The field payload.name must be at most 1000 characters.',
        ],
        [
          { type: 'location', payload: { latitude: 0, longitude: 0, city: 'Madrid' } },
          'payload.city',
          'The field payload.city is not allowed; the keys allowed are: latitude, longitude, name, address.',
        ],
        [
          { type: 'interactive', payload: { ...BUTTONS, body: { text: long(1025) } } },
          'payload.body.text',
          'The field payload.body.text must be 1 to 1024 characters.',
        ],
        [
          {
            type: 'interactive',
            payload: { ...BUTTONS, action: { buttons: [button('a', 'A'), button('b', 'B'), button('c', 'C'), button('d', 'D')] } },
          },
          'payload.action.buttons',
          'The field payload.action.buttons must have 1 to 3 items.',
        ],
        [
          { type: 'interactive', payload: { ...BUTTONS, action: { buttons: [button('a', long(21))] } } },
          'payload.action.buttons[0].reply.title',
          'The field payload.action.buttons[0].reply.title must be 1 to 20 characters.',
        ],
        [
          { type: 'interactive', payload: { ...BUTTONS, action: { buttons: [button('a', 'A'), button('a', 'B')] } } },
          'payload.action.buttons[1].reply.id',
          'The field payload.action.buttons[1].reply.id must differ from the same member of the other items of its list.',
        ],
        [
          { type: 'interactive', payload: { ...BUTTONS, header: { type: 'image', text: 'x' } } },
          'payload.header.type',
          'The field payload.header.type must be one of: text.',
        ],
        [
          { type: 'interactive', payload: { ...BUTTONS, footer: { text: long(61) } } },
          'payload.footer.text',
          'The field payload.footer.text must be at most 60 characters.',
        ],
        [
          {
            type: 'interactive',
            payload: {
              ...LIST,
              action: { button: 'Menu', sections: [{ rows: [{ id: 'a', title: 'A' }] }, { title: 'B', rows: [{ id: 'b', title: 'B' }] }] },
            },
          },
          'payload.action.sections[0].title',
          'The field payload.action.sections[0].title is required when the list has more than one section.',
        ],
        [
          {
            type: 'interactive',
            payload: {
              ...LIST,
              action: {
                button: 'Menu',
                sections: [
                  { title: 'S', rows: Array.from({ length: 6 }, (_, i) => ({ id: `a${i}`, title: 'A' })) },
                  { title: 'T', rows: Array.from({ length: 5 }, (_, i) => ({ id: `b${i}`, title: 'B' })) },
                ],
              },
            },
          },
          'payload.action.sections',
          'The field payload.action.sections must hold 1 to 10 rows in all.',
        ],
        [
          {
            type: 'interactive',
            payload: {
              ...LIST,
              action: { button: 'Menu', sections: [{ title: 'S', rows: [{ id: 'a', title: 'A', description: long(73) }] }] },
            },
          },
          'payload.action.sections[0].rows[0].description',
          'The field payload.action.sections[0].rows[0].description must be at most 72 characters.',
        ],
        [
          {
            type: 'interactive',
            payload: { ...CTA, action: { name: 'cta_url', parameters: { display_text: 'Go', url: 'http://example.com' } } },
          },
          'payload.action.parameters.url',
          'The field payload.action.parameters.url must be an https URL of at most 2000 characters.',
        ],
        [
          { type: 'interactive', payload: { ...ASK_LOCATION, footer: { text: 'x' } } },
          'payload.footer',
          'The field payload.footer is not allowed; the keys allowed are: type, body, action.',
        ],
        [
          { type: 'interactive', payload: { type: 'carousel' } },
          'payload.type',
          'The field payload.type must be one of: button, list, cta_url, location_request_message.',
        ],
        [
          { type: 'image', payload: { link: 'https://example.com/a.jpg', media_id: 'med_x' } },
          'payload',
          'The field payload must have exactly one of: media_id, link.',
        ],
        [
          { type: 'audio', payload: { link: 'https://example.com/a.ogg', caption: 'hi' } },
          'payload.caption',
          'The field payload.caption is not allowed with type audio.',
        ],
        [
          { type: 'image', payload: { link: 'https://example.com/a.jpg', caption: long(1025) } },
          'payload.caption',
          'The field payload.caption must be at most 1024 characters.',
        ],
        [
          { type: 'reaction', payload: { message_id: otherMessage, emoji: '👍' } },
          'payload.message_id',
          'The field payload.message_id must be the id of a message of this conversation sent or received on WhatsApp.',
        ],
        [
          { type: 'reaction', payload: { message_id: otherMessage, emoji: 'ok' } },
          'payload.emoji',
          'The field payload.emoji must be one emoji, or empty to remove the reaction.',
        ],
        [{ type: 'text', content: 'hi', payload: { a: 1 } }, 'payload', 'The field payload is not allowed with type text.'],
        [{ type: 'image' }, 'payload', 'The field payload is required.'],
        [
          { type: 'order', payload: {} },
          'type',
          'The field type must be one of: text, location, interactive, image, video, document, audio, sticker, reaction.',
        ],
        [
          { content: 'hi', reply_to_id: otherMessage },
          'reply_to_id',
          'The field reply_to_id must be the id of a message of this conversation.',
        ],
        [
          { type: 'image', payload: { media_id: 'med_unknownunknownunknown00' } },
          'payload.media_id',
          'The field payload.media_id must be the id of a stored file of this project that WhatsApp accepts as image: image/jpeg, image/png, at most 5242880 bytes.',
        ],
      ];
      const before = await countOf(c.id);
      for (const [body, field, en] of bad) {
        const res = await reply(c.id, body);
        expect(res.statusCode, `${field}: ${JSON.stringify(res.json())}`).toBe(400);
        expect(res.json().code).toBe('ERROR_VALIDATION');
        expect(res.json().result, field).toContain(en);
      }
      const FIELD_FIRST: Record<string, string> = {
        es: 'El campo payload.latitude',
        fr: 'Le champ payload.latitude',
        ar: 'الحقل payload.latitude',
      };
      for (const [lang, start] of Object.entries(FIELD_FIRST)) {
        const res = await reply(c.id, bad[0][0], { lang });
        expect(res.json().result[0].startsWith(start), res.json().result[0]).toBe(true);
        expect(res.json().result[0]).toContain('90');
      }
      expect(await countOf(c.id)).toBe(before);
      expect(sendsTo(c.contact)).toHaveLength(0);
    });

    it("a reaction's emoji is one of Unicode's list, fully-qualified or a form the list gives, without extra variation selectors", async () => {
      const c = await conversation();
      const [{ id: inboundId }] = await db.sql<{ id: number }>('select id from ai_messages where external_id = ?', [c.inbound[1]]);
      const react = (emoji: string) => reply(c.id, { type: 'reaction', payload: { message_id: inboundId, emoji } });
      const good = ['👍', '❤', '❤️', '👍🏽', '☝🏻', '🇪🇸', '1️⃣', '#️⃣', '🏃‍♀️', '🏃‍♀', '👨‍👩‍👧', '🏴󠁧󠁢󠁥󠁮󠁧󠁿', '☺'];
      for (const emoji of good) expect((await react(emoji)).statusCode, JSON.stringify(emoji)).toBe(200);
      const bad = [
        '👍\uFE0F\uFE0F\uFE0F\uFE0F',
        '👍\uFE0F',
        '❤\uFE0F\uFE0F',
        '❤\uFE0E',
        '1',
        '1\uFE0F',
        '👍👍',
        '👍\u200D',
        '🇪',
        'ok',
        '\uFE0F',
      ];
      for (const emoji of bad) {
        const res = await react(emoji);
        expect([res.statusCode, res.json().result], JSON.stringify(emoji)).toEqual([
          400,
          ['The field payload.emoji must be one emoji, or empty to remove the reaction.'],
        ]);
      }
    });

    it('stores typed messages of other conversations without sending them; the graph takes type, payload and reply_to_id', async () => {
      const web = await conversation({ agent: base(e) + AGENT.web });
      const res = await reply(web.id, { type: 'interactive', payload: BUTTONS });
      expect(res.json().result).toMatchObject({ type: 'interactive', payload: BUTTONS, delivery_status: null });
      const c = await conversation();
      const gql = await t.app.inject({
        method: 'POST',
        url: '/graphql',
        headers: { 'x-api-key': KEYS.server },
        payload: {
          query: `mutation ($id: SafeInt!, $p: JSON) { addAiConversationMessage(conversation_id: $id, role: "assistant", type: "location", payload: $p) { id type payload content delivery_status } }`,
          variables: { id: c.id, p: { latitude: 1.5, longitude: 2.5, name: 'Here' } },
        },
      });
      const added = gql.json().data.addAiConversationMessage;
      expect(added).toMatchObject({ type: 'location', content: 'Here', delivery_status: 'pending' });
      expect((await settled(added.id)).delivery_status).toBe('accepted');
      expect(sendsTo(c.contact)[0].body.location).toEqual({ latitude: 1.5, longitude: 2.5, name: 'Here' });
      const bad = await t.app.inject({
        method: 'POST',
        url: '/graphql',
        headers: { 'x-api-key': KEYS.server },
        payload: {
          query: `mutation ($id: SafeInt!) { addAiConversationMessage(conversation_id: $id, role: "assistant", type: "location", payload: {latitude: 100, longitude: 0}) { id } }`,
          variables: { id: c.id },
        },
      });
      expect(JSON.stringify(bad.json().errors)).toContain('payload.latitude');
    });
  });

  describe('files: POST /ai/media, GET /ai/media/{id}, sent by media_id', () => {
    const png = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(3000, 7)]);

    it('stores an upload streamed, answers its record, and serves it; wrong types and parts are 400 naming file', async () => {
      const res = await upload(png, 'image/png', 'dish.png');
      expect(res.statusCode, res.body).toBe(200);
      const file = res.json().result;
      expect(file).toMatchObject({ mime_type: 'image/png', size: png.length, filename: 'dish.png' });
      expect(file.id).toMatch(/^med_/);
      expect(file.sha256).toBe((await import('node:crypto')).createHash('sha256').update(png).digest('hex'));
      expect(Object.keys(file).sort()).toEqual(['created_at', 'filename', 'id', 'mime_type', 'sha256', 'size']);
      const got = await t.api({ path: `/ai/media/${file.id}`, key: KEYS.server });
      expect(got.statusCode).toBe(200);
      expect(got.headers['content-type']).toBe('image/png');
      expect(got.headers['content-security-policy']).toBe("default-src 'none'; sandbox");
      expect(got.headers['content-disposition']).toBe('inline');
      expect(got.headers.etag).toBe(`"${file.sha256}"`);
      expect(got.rawPayload.equals(png)).toBe(true);
      const range = await t.api({ path: `/ai/media/${file.id}`, key: KEYS.server, headers: { range: 'bytes=0-7' } });
      expect(range.statusCode).toBe(206);
      expect(range.rawPayload.equals(png.subarray(0, 8))).toBe(true);
      expect((await t.api({ path: `/ai/media/${file.id}`, key: KEYS.otherServer, project: 'other' })).json().code).toBe(
        'ERROR_AI_MEDIA_NOT_FOUND',
      );
      expect((await t.api({ path: '/ai/media/med_nope', key: KEYS.server })).json().code).toBe('ERROR_AI_MEDIA_NOT_FOUND');
      const exe = await upload(Buffer.from('MZ'), 'application/x-msdownload', 'x.exe');
      expect(exe.statusCode).toBe(400);
      expect(exe.json().result[0]).toMatch(/^The field file must be a file of one of the types: image\/jpeg/);
      const wrongField = await upload(png, 'image/png', 'a.png', { field: 'attachment' });
      expect(wrongField.json().result).toEqual(['The field file is required.']);
      expect((await upload(png, 'image/png', 'a.png', { key: KEYS.customer })).statusCode).toBe(401);
      const json = await t.api({ method: 'POST', path: '/ai/media', key: KEYS.server, body: { file: 'x' } });
      expect(json.statusCode).toBe(415);
    });

    it('refuses a file over its kind limit with 413 and keeps nothing', async () => {
      const before = (await db.sql<{ n: number }>("select count(*)::int as n from ai_media where origin = 'upload'"))[0].n;
      const webp = Buffer.concat([Buffer.from('RIFF\0\0\0\0WEBPVP8 ', 'latin1'), Buffer.alloc(500 * 1024, 1)]);
      const res = await upload(webp, 'image/webp', 'big.webp');
      expect(res.statusCode).toBe(413);
      expect((await db.sql<{ n: number }>("select count(*)::int as n from ai_media where origin = 'upload'"))[0].n).toBe(before);
    });

    it('sends a file of ours by media_id: uploaded once per phone number across several sends, reused after', async () => {
      const file = (await upload(png, 'image/png', 'dish.png')).json().result;
      const pdf = (await upload(Buffer.from('%PDF-1.4 menu'), 'application/pdf', 'menu.pdf')).json().result;
      const convs = await Promise.all([1, 2, 3].map(() => conversation()));
      const ids: number[] = [];
      for (const c of convs) {
        for (const body of [
          { type: 'image', payload: { media_id: file.id, caption: 'Dish' } },
          { type: 'document', payload: { media_id: pdf.id, filename: 'menu.pdf' } },
          { type: 'sticker', payload: { media_id: file.id } },
        ]) {
          const res = await reply(c.id, body);
          if (body.type === 'sticker') {
            // a PNG is no sticker: refused before anything is stored
            expect(res.json().result[0]).toContain('payload.media_id');
            continue;
          }
          expect(res.statusCode, res.body).toBe(200);
          ids.push(res.json().result.id);
        }
      }
      for (const id of ids) expect((await settled(id)).delivery_status).toBe('accepted');
      const uploads = fake.uploads.filter(
        (u) => u.phone_number_id === `pn${MAIN}` && (u.sha256 === file.sha256 || u.sha256 === pdf.sha256),
      );
      expect(uploads).toHaveLength(2);
      const image = uploads.find((u) => u.sha256 === file.sha256)!;
      expect(image).toMatchObject({
        messaging_product: 'whatsapp',
        type: 'image/png',
        content_type: 'image/png',
        size: png.length,
        phone_number_id: `pn${MAIN}`,
      });
      for (const c of convs) {
        const [img, doc] = sendsTo(c.contact).map((r) => r.body);
        expect(img.image).toEqual({ id: image.id, caption: 'Dish' });
        expect(doc.document).toEqual({ id: uploads.find((u) => u.sha256 === pdf.sha256)!.id, filename: 'menu.pdf' });
      }
      const uploadRequests = fake.requestsTo('upload').length;
      const again = await reply(convs[0].id, { type: 'image', payload: { media_id: file.id } });
      await settled(again.json().result.id);
      expect(fake.requestsTo('upload').length).toBe(uploadRequests);
    });

    it("a business owner's media_id: an upload or a file received in their business, never another business's (§11 third review)", async () => {
      const file = (await upload(Buffer.concat([png, Buffer.from('owner')]), 'image/png', 'o.png')).json().result;
      const mine = await conversation();
      const [theirs] = await db.sql<{ id: number }>(
        `insert into ai_conversations (project_id, agent_id, business_id, contact, status, usage, last_inbound_at)
         values (?, ?, 2, ?, 'active', '{}', now()) returning id`,
        [projectId, MAIN, contact()],
      );
      const ownerReply = (body: Record<string, unknown>) =>
        t.api({ method: 'POST', path: `/ai/conversations/${mine.id}/messages`, key: KEYS.owner, body: { role: 'assistant', ...body } });
      // an upload of the project: the owner may send it
      expect((await ownerReply({ type: 'image', payload: { media_id: file.id } })).statusCode).toBe(200);
      // the same bytes as a file a customer of business 2 sent: refused to the owner of business 1, as an unknown id is
      await db.sql("update ai_media set origin = 'inbound', conversation_id = ? where id = ?", [theirs.id, file.id]);
      const before = await countOf(mine.id);
      for (const mediaId of [file.id, 'med_unknown']) {
        const res = await ownerReply({ type: 'image', payload: { media_id: mediaId } });
        expect(res.statusCode, res.body).toBe(400);
        expect(res.json().code).toBe('ERROR_VALIDATION');
        expect(res.json().result[0]).toContain('payload.media_id');
      }
      expect(await countOf(mine.id)).toBe(before);
      // a server key still may (the whole project is its own)
      expect((await reply(mine.id, { type: 'image', payload: { media_id: file.id } })).statusCode).toBe(200);
      // received in the owner's own business: allowed
      await db.sql('update ai_media set conversation_id = ? where id = ?', [mine.id, file.id]);
      expect((await ownerReply({ type: 'image', payload: { media_id: file.id } })).statusCode).toBe(200);
    });

    it('retries a failed upload as part of the send attempt', async () => {
      const file = (await upload(Buffer.concat([png, Buffer.from('retry')]), 'image/png', 'r.png')).json().result;
      const c = await conversation();
      fake.fail('upload', CLOUD_ANSWERS.serverError, { times: 2 });
      const res = await reply(c.id, { type: 'image', payload: { media_id: file.id } });
      const m = await settled(res.json().result.id);
      expect(m.delivery_status).toBe('accepted');
      const [{ attempts }] = await db.sql<{ attempts: number }>('select attempts from ai_message_sends where message_id = ?', [m.id]);
      expect(attempts).toBe(3);
      expect(fake.uploads.filter((u) => u.phone_number_id === `pn${MAIN}` && u.sha256 === file.sha256)).toHaveLength(1);
    });
  });

  const typing = (conversationId: number, opts: { key?: string; lang?: string } = {}) =>
    t.api({ method: 'POST', path: `/ai/conversations/${conversationId}/typing`, key: opts.key ?? KEYS.server, lang: opts.lang });
  const typingCalls = (messageId: string) => fake.requestsTo('typing').filter((r) => r.body?.message_id === messageId);

  describe('POST .../typing', () => {
    it('marks the newest inbound message read with the typing indicator; one provider call per conversation and second', async () => {
      const c = await conversation();
      const newest = c.inbound.at(-1)!;
      const results = await Promise.all([1, 2, 3, 4, 5].map(() => typing(c.id)));
      for (const res of results) expect(res.json()).toEqual({ error: false, result: true });
      const calls = typingCalls(newest);
      expect(calls).toHaveLength(1);
      expect(calls[0].path).toBe(`/v21.0/pn${MAIN}/messages`);
      expect(calls[0].headers.authorization).toBe(`Bearer ${creds(MAIN).access_token}`);
      expect(calls[0].body).toEqual({
        messaging_product: 'whatsapp',
        status: 'read',
        message_id: newest,
        typing_indicator: { type: 'text' },
      });
      await new Promise((r) => setTimeout(r, 1100));
      expect((await typing(c.id)).json().result).toBe(true);
      expect(typingCalls(newest)).toHaveLength(2);
    });

    it('the graph mutation does the same', async () => {
      const c = await conversation();
      const res = await t.app.inject({
        method: 'POST',
        url: '/graphql',
        headers: { 'x-api-key': KEYS.server },
        payload: { query: `mutation ($id: SafeInt!) { showAiConversationTyping(conversation_id: $id) }`, variables: { id: c.id } },
      });
      expect(res.json()).toEqual({ data: { showAiConversationTyping: true } });
      expect(typingCalls(c.inbound.at(-1)!)).toHaveLength(1);
    });

    it('answers false for other conversations, 400 with a closed window, and the provider errors of §6.1', async () => {
      const web = await conversation({ agent: base(e) + AGENT.web });
      expect((await typing(web.id)).json()).toEqual({ error: false, result: false });
      const contactless = await conversation({ contact: null });
      expect((await typing(contactless.id)).json()).toEqual({ error: false, result: false });
      for (const c of [await conversation({ inboundAgoMs: null }), await conversation({ inboundAgoMs: 25 * 3600_000 })]) {
        for (const lang of ['en', 'es', 'fr', 'ar']) {
          const res = await typing(c.id, { lang });
          expect(res.statusCode).toBe(400);
          expect(res.json().code).toBe('ERROR_WHATSAPP_WINDOW_CLOSED');
        }
      }
      const before = fake.requestsTo('typing').length;
      const rejected = await conversation();
      fake.fail('send', CLOUD_ANSWERS.unauthorized, { times: 1 });
      const res = await typing(rejected.id);
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('ERROR_AI_PROVIDER_REJECTED');
      expect(JSON.stringify(res.json())).not.toContain(creds(MAIN).access_token);
      const down = await conversation();
      fake.fail('send', CLOUD_ANSWERS.serverError, { times: 1 });
      expect((await typing(down.id)).statusCode).toBe(502);
      expect(fake.requestsTo('typing').length - before).toBe(2);
    });

    it("refuses the runtime's typing with 409 while a person handles the conversation, calling nobody; users still may", async () => {
      const c = await conversation();
      await db.sql("update ai_conversations set handler = 'human' where id = ?", [c.id]);
      for (const lang of ['en', 'es']) {
        const res = await typing(c.id, { lang });
        expect(res.statusCode).toBe(409);
        expect(res.json()).toMatchObject({ error: true, code: 'ERROR_AI_CONVERSATION_HANDED_OFF' });
      }
      expect(typingCalls(c.inbound.at(-1)!)).toHaveLength(0);
      const gql = await t.app.inject({
        method: 'POST',
        url: '/graphql',
        headers: { 'x-api-key': KEYS.server },
        payload: { query: `mutation ($id: SafeInt!) { showAiConversationTyping(conversation_id: $id) }`, variables: { id: c.id } },
      });
      expect(gql.json().errors[0].extensions.code).toBe('ERROR_AI_CONVERSATION_HANDED_OFF');
      expect((await typing(c.id, { key: KEYS.admin })).json()).toEqual({ error: false, result: true });
      await db.sql("update ai_conversations set handler = 'ai' where id = ?", [c.id]);
      await new Promise((r) => setTimeout(r, 1100));
      expect((await typing(c.id)).json()).toEqual({ error: false, result: true });
    });

    it('unknown, malformed, closed and other levels', async () => {
      expect((await typing(2_000_000_000)).json().code).toBe('ERROR_AI_CONVERSATION_NOT_FOUND');
      const res = await t.api({ method: 'POST', path: '/ai/conversations/abc/typing', key: KEYS.server });
      expect(res.statusCode).toBe(400);
      const c = await conversation();
      await db.sql("update ai_conversations set status = 'closed' where id = ?", [c.id]);
      expect((await typing(c.id)).json().code).toBe('ERROR_AI_CONVERSATION_CLOSED');
      expect((await typing(c.id, { key: KEYS.customer })).statusCode).toBe(401); // a level-3 user, as every AI_ADMIN route answers it
    });
  });
});
