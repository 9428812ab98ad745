import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { importChunk } from '../../src/services/whatsapp/history-import.js';
import { HistoryImporter } from '../../src/workers/history-importer.js';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';
import { startMessageOutboxes } from '../support/message-outboxes.js';
import { until } from '../support/webhook-receiver.js';
import { MetaWebhooks, startWhatsAppFake, type WhatsAppFake } from '../support/whatsapp-fake.js';

/**
 * Issue 67: payloads as Meta documents them that the service handled wrong (CONTRACT §12.2, §13.1,
 * §13.3, §13.5), over a real socket and a real database, under both engines (each engine its own
 * agents). Bodies are signed as Meta signs them; every fixture is written here from Meta's documented shapes.
 */
const base = (e: number) => 700 + e * 20;
const secret = (id: number) => `real-secret-${id}`;
const creds = (id: number) => ({
  waba_id: `waba${id}`,
  phone_number_id: `pn${id}`,
  access_token: `token-${id}`,
  app_secret: secret(id),
  verify_token: `verify-${id}`,
});
/** Agents per engine: 1 the main one; 2–5 the offboarding cases (5 and 6 share one WABA). */
const AGENTS_PER_ENGINE = [1, 2, 3, 4, 5, 6];
const BUSINESS = '15550001111';
let seq = 0;
const wamid = (tag: string) => `wamid.${tag}.${process.pid}.${++seq}`;
const phoneNo = () => `52157${String(Date.now() % 1e6).padStart(6, '0')}${String(++seq).padStart(3, '0')}`;
const now = () => String(Math.floor(Date.now() / 1000));
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

let db: TestDatabase;
let fake: WhatsAppFake;
beforeAll(async () => {
  db = await createTestDatabase();
  fake = await startWhatsAppFake();
  for (const e of [0, 1]) fake.addAccount({ ...creds(base(e) + 1), templates: [] });
  const agents = [0, 1].flatMap((e) =>
    AGENTS_PER_ENGINE.map((n) => {
      const id = base(e) + n;
      // agents 5 and 6 are two numbers of one WABA, under one Meta app (one app secret)
      const c = n === 6 ? { ...creds(id), waba_id: `waba${base(e) + 5}`, app_secret: secret(base(e) + 5) } : creds(id);
      return {
        id,
        business_id: 1,
        name: `WA ${id}`,
        provider: 'whatsapp',
        provider_type: 'chat',
        provider_external_id: `wa-${id}`,
        enabled: true,
        credentials: c,
      };
    }),
  );
  await db.load(baseFixture({ agents }));
});
afterAll(async () => {
  await fake.close();
  await db.orm.close();
});

describe.each(ENGINES.map((engine, e) => [engine, e] as const))('payloads as Meta sends them (%s)', (engine, e) => {
  const MAIN = base(e) + 1;
  let t: TestApp;
  let meta: MetaWebhooks;
  let importer: HistoryImporter;
  let stopOutboxes: () => Promise<void>;
  let off: () => void;
  beforeAll(async () => {
    t = await startApp(engine, db, { config: { whatsappApiUrl: fake.url, providerTimeoutMs: 2000 } });
    meta = new MetaWebhooks(`${await t.listen()}/v400/en/acme/ai/webhooks/whatsapp`);
    stopOutboxes = startMessageOutboxes(t, db, fake.url);
    importer = new HistoryImporter({ orm: db.orm, config: { ...loadConfig({}).historyImport, pollMs: 100 }, log: quiet }).start();
    off = t.services.events.onWork((kind) => (kind === null || kind === 'history' ? importer.wake() : undefined));
  });
  afterAll(async () => {
    off();
    await importer.stop();
    await stopOutboxes();
    await t.close();
  });

  const change = (field: string, value: Record<string, unknown>, agent = MAIN) => ({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: `waba${agent}`,
        changes: [
          {
            field,
            value: { messaging_product: 'whatsapp', metadata: { display_phone_number: BUSINESS, phone_number_id: `pn${agent}` }, ...value },
          },
        ],
      },
    ],
  });
  const byExternal = async (id: string) => (await db.sql<Record<string, any>>('select * from ai_messages where external_id = ?', [id]))[0];
  const conversationOf = async (id: number) => (await db.sql<Record<string, any>>('select * from ai_conversations where id = ?', [id]))[0];
  const conversationEvents = (conversationId: number) =>
    db.sql(`select type from ai_events where conversation_id = ? union all select type from ai_event_inbox where conversation_id = ?`, [
      conversationId,
      conversationId,
    ]);

  const agentOf = async (id: number) => (await t.api({ path: `/ai/agents/${id}`, key: KEYS.server })).json().result;
  const agentEvents = async (id: number) =>
    (
      await db.sql<{ data: any }>(
        `select data from ai_events where agent_id = ? and type = 'agent.updated'
         union all select data from ai_event_inbox where agent_id = ? and type = 'agent.updated'`,
        [id, id],
      )
    ).map((x) => x.data);

  const inbound = (items: Record<string, unknown>[], contacts?: unknown[]) =>
    meta.post(change('messages', { ...(contacts ? { contacts } : {}), messages: items }), secret(MAIN));
  const echo = (items: Record<string, unknown>[]) => meta.post(change('smb_message_echoes', { message_echoes: items }), secret(MAIN));
  const text = (id: string, from: string, body: string, extra: Record<string, unknown> = {}) => ({
    from,
    id,
    timestamp: now(),
    type: 'text',
    text: { body },
    ...extra,
  });
  const listed = async (conversationId: number, params: string) =>
    (
      await t.api({
        path: `/ai/conversations/${conversationId}/messages`,
        key: KEYS.server,
        query: { params, page_size: '100', orderBy: 'id' },
      })
    ).json().result as Record<string, unknown>[];

  describe('§13.1 an echo names the customer by BSUID', () => {
    it("an echo's to_user_id is the BSUID of the conversation it opens", async () => {
      const phone = phoneNo();
      const id = wamid('echo-bsuid');
      const res = await echo([
        {
          from: BUSINESS,
          to: phone,
          to_user_id: 'US.13491208655302741918',
          id,
          timestamp: now(),
          type: 'text',
          text: { body: 'Hola, ¿qué se te antoja?' },
        },
      ]);
      expect(res.body.result.messages).toBe(1);
      const c = await conversationOf((await byExternal(id)).conversation_id);
      expect(c).toMatchObject({ contact: phone, contact_user_id: 'US.13491208655302741918', handler: 'human' });
      // the customer, who writes with the same BSUID, is in that conversation
      const back = wamid('back');
      await inbound([text(back, phone, 'una pizza', { from_user_id: 'US.13491208655302741918' })]);
      expect((await byExternal(back)).conversation_id).toBe(c.id);
    });

    it('a conversation the echo matches by phone number learns its BSUID', async () => {
      const phone = phoneNo();
      const first = wamid('in');
      await inbound([text(first, phone, 'hola')]);
      const conversationId = (await byExternal(first)).conversation_id as number;
      expect((await conversationOf(conversationId)).contact_user_id).toBeNull();
      const id = wamid('echo-learns');
      await echo([{ from: BUSINESS, to: phone, to_user_id: 'US.5550001', id, timestamp: now(), type: 'text', text: { body: 'Claro' } }]);
      expect((await byExternal(id)).conversation_id).toBe(conversationId);
      expect(await conversationOf(conversationId)).toMatchObject({ contact: phone, contact_user_id: 'US.5550001' });
    });
  });

  describe('§12.2 what was lost', () => {
    const flow = (response_json: unknown) => ({
      type: 'nfm_reply',
      nfm_reply: { name: 'flow', body: 'Sent', ...(response_json !== undefined && { response_json }) },
    });
    it.each([
      ['missing', undefined, null],
      ['not JSON', '{"flow_token": ', null],
      ['JSON but not an object', '[1,2]', null],
      ['an object', '{"flow_token":"ft-1","size":"large"}', { flow_token: 'ft-1', size: 'large' }],
    ])('a Flow answer whose response_json is %s stays interactive (response %j)', async (_label, json, response) => {
      const phone = phoneNo();
      const id = wamid('flow');
      await inbound([{ from: phone, id, timestamp: now(), type: 'interactive', interactive: flow(json) }]);
      expect(await byExternal(id)).toMatchObject({
        type: 'interactive',
        content: '[INTERACTIVE]',
        payload: { reply_type: 'nfm_reply', name: 'flow', response },
      });
    });

    it('a user_changed_number notice keeps its text as type system; the new number becomes the contact', async () => {
      const [oldPhone, newPhone] = [phoneNo(), phoneNo()];
      const first = wamid('before');
      await inbound([text(first, oldPhone, 'hola')], [{ wa_id: oldPhone, profile: { name: 'Rosa' } }]);
      const conversationId = (await byExternal(first)).conversation_id as number;
      const id = wamid('sys');
      const body = `User A changed from ${oldPhone} to ${newPhone}`;
      // Meta's shape: no contacts[] on a system message
      const res = await inbound([
        { from: oldPhone, id, timestamp: now(), type: 'system', system: { body, wa_id: newPhone, type: 'user_changed_number' } },
      ]);
      expect(res.body.result.messages).toBe(1);
      const m = await byExternal(id);
      expect(m).toMatchObject({
        conversation_id: conversationId,
        type: 'system',
        content: body,
        payload: { type: 'user_changed_number', body, wa_id: newPhone },
      });
      expect((await conversationOf(conversationId)).contact).toBe(newPhone);
      // the customer now writes from the new number: the same conversation
      const after = wamid('after');
      await inbound([text(after, newPhone, 'ya tengo otro número')]);
      expect((await byExternal(after)).conversation_id).toBe(conversationId);
      const [record] = (await listed(conversationId, 'id,type,content,payload')).filter((r) => r.id === m.id);
      expect(record).toEqual({ id: m.id, type: 'system', content: body, payload: { type: 'user_changed_number', body, wa_id: newPhone } });
      const typed = await t.api({
        path: `/ai/conversations/${conversationId}/messages`,
        key: KEYS.server,
        query: { params: 'id', where: JSON.stringify([{ attribute: 'type', value: 'system' }]) },
      });
      expect(typed.json().result).toEqual([{ id: m.id }]);
    });

    it('context.referred_product is kept on the message record (catalog_id, product_retailer_id)', async () => {
      const phone = phoneNo();
      const id = wamid('asks');
      await inbound([
        text(id, phone, '¿Esta pizza lleva cebolla?', {
          context: {
            from: BUSINESS,
            id: wamid('catalog'),
            referred_product: { catalog_id: 'cat-77', product_retailer_id: 'pizza-margarita-l' },
          },
        }),
      ]);
      const m = await byExternal(id);
      expect(m.referred_product).toEqual({ catalog_id: 'cat-77', product_retailer_id: 'pizza-margarita-l' });
      const [record] = await listed(m.conversation_id, 'id,referred_product');
      expect(record).toEqual({ id: m.id, referred_product: { catalog_id: 'cat-77', product_retailer_id: 'pizza-margarita-l' } });
      const full = (await t.api({ path: `/ai/conversations/${m.conversation_id}/messages`, key: KEYS.server })).json().result;
      expect(full[0].referred_product).toEqual({ catalog_id: 'cat-77', product_retailer_id: 'pizza-margarita-l' });
      const created = await db.sql<{ data: any }>(
        `select data from ai_events where conversation_id = ? and type = 'message.created' union all select data from ai_event_inbox where conversation_id = ? and type = 'message.created'`,
        [m.conversation_id, m.conversation_id],
      );
      expect(created.map((x) => x.data.referred_product)).toEqual([{ catalog_id: 'cat-77', product_retailer_id: 'pizza-margarita-l' }]);
      // a message without one: null
      const plainId = wamid('plain');
      await inbound([text(plainId, phone, 'gracias')]);
      expect((await byExternal(plainId)).referred_product).toBeNull();
    });
  });

  describe('§13.3 the phone history', () => {
    const history = (chunks: unknown[]) => meta.post(change('history', { history: chunks }), secret(MAIN));
    /** Meta's later `history` change with the files of earlier `media_placeholder` items: `value.messages`, same ids. */
    const historyMedia = (messages: unknown[]) => meta.post(change('history', { messages }), secret(MAIN));
    const imported = () =>
      until(
        async () =>
          (
            await db.sql<{ n: number }>(`select count(*)::int as n from ai_history_chunks where agent_id = ? and status = 'pending'`, [
              MAIN,
            ])
          )[0].n === 0,
        10_000,
        'the import to finish',
      );
    const hoursAgo = (h: number) => String(Math.floor(Date.now() / 1000) - h * 3600);
    const placeholder = (id: string, from: string, to?: string) => ({
      from,
      ...(to && { to }),
      id,
      timestamp: hoursAgo(30),
      type: 'media_placeholder',
      history_context: { status: 'DELIVERED' },
    });
    const file = (tag: string) => {
      const bytes = Buffer.from(`a photo of the menu ${tag} ${process.pid} ${++seq}`);
      return fake.addMedia({ id: `media-${tag}-${++seq}`, phone_number_id: `pn${MAIN}`, bytes, mime_type: 'image/jpeg' });
    };
    const imageItem = (id: string, from: string, media: { id: string; bytes: Buffer }, caption: string) => ({
      from,
      id,
      timestamp: hoursAgo(30),
      type: 'image',
      image: { mime_type: 'image/jpeg', sha256: createHash('sha256').update(media.bytes).digest('base64'), id: media.id, caption },
    });
    const storedFile = (id: string) =>
      until(async () => (await byExternal(id))?.payload?.media?.status === 'stored', 10_000, `the file of ${id}`);

    it('a history message whose from is the customer is a user message, even with a to; the business its own', async () => {
      const phone = phoneNo();
      const [mine, theirs, noTo] = [wamid('c'), wamid('b'), wamid('n')];
      await history([
        {
          metadata: { phase: 0, chunk_order: 1, progress: 100 },
          threads: [
            {
              id: phone,
              messages: [
                { from: phone, to: BUSINESS, id: mine, timestamp: hoursAgo(3), type: 'text', text: { body: 'una pizza' } },
                {
                  from: BUSINESS,
                  to: phone,
                  id: theirs,
                  timestamp: hoursAgo(2),
                  type: 'text',
                  text: { body: 'va' },
                  history_context: { status: 'READ' },
                },
                {
                  from: BUSINESS,
                  id: noTo,
                  timestamp: hoursAgo(1),
                  type: 'text',
                  text: { body: 'listo' },
                  history_context: { status: 'SENT' },
                },
              ],
            },
          ],
        },
      ]);
      await imported();
      expect([await byExternal(mine), await byExternal(theirs), await byExternal(noTo)].map((m) => [m.role, m.delivery_status])).toEqual([
        ['user', null],
        ['assistant', 'read'],
        ['assistant', 'sent'],
      ]);
    });

    it("a media_placeholder's file, in a later history change, gives the imported message its type, payload, content and file; no event", async () => {
      const phone = phoneNo();
      const [img, ours] = [wamid('ph'), wamid('ph-b')];
      await history([
        {
          metadata: { phase: 0, chunk_order: 1, progress: 50 },
          threads: [{ id: phone, messages: [placeholder(img, phone), placeholder(ours, BUSINESS, phone)] }],
        },
      ]);
      await imported();
      expect(await byExternal(img)).toMatchObject({ type: 'unsupported', content: '[UNSUPPORTED]', role: 'user' });
      const [a, b] = [file('a'), file('b')];
      const res = await historyMedia([imageItem(img, phone, a, 'la carta'), { ...imageItem(ours, BUSINESS, b, ''), to: phone }]);
      expect(res.body).toEqual({ error: false, result: { messages: 0, statuses: 0 } });
      await imported();
      await storedFile(img);
      await storedFile(ours);
      const m = await byExternal(img);
      expect(m).toMatchObject({ type: 'image', content: 'la carta', role: 'user', source: 'history' });
      expect(m.payload).toMatchObject({ caption: 'la carta', media: { status: 'stored', mime_type: 'image/jpeg', size: a.bytes.length } });
      expect(await byExternal(ours)).toMatchObject({ type: 'image', content: '[IMAGE]', role: 'assistant' });
      const served = await t.api({ path: `/ai/conversations/${m.conversation_id}/messages/${m.id}/media`, key: KEYS.server });
      expect(served.statusCode).toBe(200);
      expect(served.rawPayload.equals(a.bytes)).toBe(true);
      expect(await conversationEvents(m.conversation_id)).toEqual([]);
      expect(await conversationOf(m.conversation_id)).toMatchObject({ source: 'history', last_inbound_at: null });
      // delivered twice: one file
      await historyMedia([imageItem(img, phone, a, 'la carta')]);
      await imported();
      expect(await db.sql('select id from ai_media where message_id = ?', [m.id])).toHaveLength(1);
    });

    it('a file that comes before its placeholder is imported waits for it', async () => {
      const phone = phoneNo();
      const img = wamid('early');
      const a = file('early');
      await historyMedia([imageItem(img, phone, a, 'antes')]);
      await imported();
      expect(await byExternal(img)).toBeUndefined();
      await history([
        { metadata: { phase: 0, chunk_order: 2, progress: 60 }, threads: [{ id: phone, messages: [placeholder(img, phone)] }] },
      ]);
      await imported();
      await storedFile(img);
      expect(await byExternal(img)).toMatchObject({ type: 'image', content: 'antes', role: 'user' });
      expect(await db.sql('select 1 from ai_history_media where external_id = ?', [img])).toEqual([]);
    });
  });

  describe('§13.4 an address-book name and the history import of the same number', () => {
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const book = (phone: string, name: string) =>
      meta.post(
        change('smb_app_state_sync', {
          state_sync: [
            { type: 'contact', contact: { phone_number: phone, full_name: name }, action: 'add', metadata: { timestamp: now() } },
          ],
        }),
        secret(MAIN),
      );
    /** A history chunk of one thread stored as the webhook stores it, but not due (the importer leaves it to the test). */
    const storedChunk = async (phone: string) => {
      const [row] = await db.sql<{ id: string }>(
        `insert into ai_history_chunks (project_id, agent_id, business_number, value, next_attempt_at)
         values ((select project_id from ai_agents where id = ?), ?, ?, ?::json, now() + interval '1 hour') returning id`,
        [
          MAIN,
          MAIN,
          BUSINESS,
          JSON.stringify({
            metadata: { phase: 1, chunk_order: 1, progress: 10 },
            threads: [
              {
                id: phone,
                messages: [
                  { from: phone, id: wamid('hist'), timestamp: String(Number(now()) - 86_400), type: 'text', text: { body: 'hola' } },
                ],
              },
            ],
          }),
        ],
      );
      return String(row.id);
    };
    const historyName = async (phone: string) =>
      (
        await db.sql<{ contact_name: string | null }>(
          `select contact_name from ai_conversations where agent_id = ? and contact = ? and source = 'history'`,
          [MAIN, phone],
        )
      ).map((r) => r.contact_name);

    it('a name that arrives while the import is creating the conversation is not lost', async () => {
      const phone = phoneNo();
      const chunk = await storedChunk(phone);
      let sync: Promise<unknown> | null = null;
      await db.orm.em.fork().transactional(async (tx) => {
        expect((await importChunk(tx, chunk, 0))?.messages).toBe(1);
        sync = book(phone, 'Lucía (import)'); // the book's change is received while the import is not committed
        await sleep(300);
      });
      expect((await sync!) as { status: number }).toMatchObject({ status: 200 });
      expect(await historyName(phone)).toEqual(['Lucía (import)']);
    });

    it('a name committed before the import names the conversation it creates', async () => {
      const phone = phoneNo();
      await book(phone, 'Mara');
      const chunk = await storedChunk(phone);
      await db.orm.em.fork().transactional((tx) => importChunk(tx, chunk, 0));
      expect(await historyName(phone)).toEqual(['Mara']);
    });

    it('in either order, at any interleaving, the conversation ends with the name', async () => {
      for (let round = 0; round < 6; round++) {
        const phone = phoneNo();
        const chunk = await storedChunk(phone);
        const jitter = () => sleep(Math.floor(Math.random() * 30));
        await Promise.all([
          jitter().then(() => book(phone, `Name ${round}`)),
          jitter().then(() =>
            db.orm.em.fork().transactional(async (tx) => {
              await importChunk(tx, chunk, 0);
              await jitter();
            }),
          ),
        ]);
        expect(await historyName(phone)).toEqual([`Name ${round}`]);
      }
    });
  });

  describe('§13.5 a number that leaves', () => {
    /** Meta's `PARTNER_REMOVED`: `entry[].id` is the partner's business, the WABA is in `value.waba_info`. */
    const partnerRemoved = (agent: number, disconnection: boolean) => ({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: '1029384756', // the partner's (solution provider's) business id
          time: Number(now()),
          changes: [
            {
              field: 'account_update',
              value: {
                event: 'PARTNER_REMOVED',
                waba_info: { waba_id: `waba${agent}`, owner_business_id: '5647382910' },
                ...(disconnection && {
                  disconnection_info: { reason: 'The business removed the partner', initiated_by: 'BUSINESS', date: now() },
                }),
              },
            },
          ],
        },
      ],
    });

    it.each([
      ['with', true, 2],
      ['without', false, 3],
    ] as const)('PARTNER_REMOVED %s disconnection_info disables the agent of value.waba_info.waba_id', async (_label, disconnection, n) => {
      const agent = base(e) + n;
      const res = await meta.post(partnerRemoved(agent, disconnection), secret(agent));
      expect(res.body).toEqual({ error: false, result: { messages: 0, statuses: 0 } });
      expect(await agentOf(agent)).toMatchObject({ enabled: false, disabled_reason: 'offboarded' });
      expect(await agentEvents(agent)).toEqual([expect.objectContaining({ id: agent, enabled: false, disabled_reason: 'offboarded' })]);
      // the main agent is untouched
      expect(await agentOf(MAIN)).toMatchObject({ enabled: true, disabled_reason: null });
    });

    it('ACCOUNT_DELETED disables the agent; enabling it again clears the reason', async () => {
      const agent = base(e) + 4;
      const body = {
        object: 'whatsapp_business_account',
        entry: [
          {
            id: `waba${agent}`,
            time: Number(now()),
            changes: [{ field: 'account_update', value: { phone_number: '15550004444', event: 'ACCOUNT_DELETED' } }],
          },
        ],
      };
      expect((await meta.post(body, secret(agent))).status).toBe(200);
      expect(await agentOf(agent)).toMatchObject({ enabled: false, disabled_reason: 'offboarded' });
      const patched = await t.api({ method: 'PATCH', path: `/ai/agents/${agent}`, key: KEYS.server, body: { enabled: true } });
      expect(patched.json().result).toMatchObject({ enabled: true, disabled_reason: null });
    });

    it('PARTNER_REMOVED of a WABA with two numbers disables both; a body signed with another secret changes nothing', async () => {
      const [a, b] = [base(e) + 5, base(e) + 6];
      const body = partnerRemoved(a, false);
      expect((await meta.post(body, secret(MAIN))).status).toBe(401);
      expect(await agentOf(a)).toMatchObject({ enabled: true });
      expect((await meta.post(body, secret(a))).status).toBe(200);
      expect([await agentOf(a), await agentOf(b)]).toEqual([
        expect.objectContaining({ enabled: false, disabled_reason: 'offboarded' }),
        expect.objectContaining({ enabled: false, disabled_reason: 'offboarded' }),
      ]);
    });
  });
});
