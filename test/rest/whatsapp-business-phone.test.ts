import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';
import { MetaWebhooks } from '../support/whatsapp-fake.js';

/**
 * CONTRACT §12.1/§12.2 fixes and §13.1, §13.2, §13.5, §13.6 over a real socket and a real database,
 * under both engines (each engine its own agents). Bodies are signed as Meta signs them. No sender
 * runs here: a reply stays `pending`, so what an echo does to it is seen (the race with a running
 * sender is test/cluster/business-phone-serve.test.ts).
 */
const base = (e: number) => 240 + e * 10;
const secret = (id: number) => `app-secret-${id}`;
const creds = (id: number) => ({
  waba_id: `waba${id}`,
  phone_number_id: `pn${id}`,
  access_token: `token-${id}`,
  app_secret: secret(id),
  verify_token: `verify-${id}`,
});
let seq = 0;
const wamid = (tag: string) => `wamid.${tag}.${process.pid}.${++seq}`;
const phoneNo = () => `52155${String(Date.now() % 1e6).padStart(6, '0')}${String(++seq).padStart(3, '0')}`;
const now = () => String(Math.floor(Date.now() / 1000));
/** A wamid as Meta builds one: the peer (a phone number or a BSUID), then the message's token; `direction` the perspective byte. */
const wamidOf = (peer: string, token: string, direction = 0x11) =>
  'wamid.' +
  Buffer.concat([
    Buffer.from([0x1c, 0x18, peer.length]),
    Buffer.from(peer),
    Buffer.from([0x15, 0x02, 0x00, direction, 0x18, token.length]),
    Buffer.from(token),
    Buffer.from([0]),
  ]).toString('base64');

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  const agents = [0, 1].flatMap((e) =>
    [1, 2].map((n) => ({
      id: base(e) + n,
      business_id: 1,
      name: `WA ${base(e) + n}`,
      provider: 'whatsapp',
      provider_type: 'chat',
      provider_external_id: `wa-${base(e) + n}`,
      enabled: true,
      credentials: creds(base(e) + n),
    })),
  );
  await db.load(baseFixture({ agents }));
});
afterAll(() => db.orm.close());

describe.each(ENGINES.map((engine, e) => [engine, e] as const))('the business phone (%s)', (engine, e) => {
  const MAIN = base(e) + 1;
  const OFFBOARDED = base(e) + 2;
  let t: TestApp;
  let meta: MetaWebhooks;
  beforeAll(async () => {
    t = await startApp(engine, db);
    meta = new MetaWebhooks(`${await t.listen()}/v400/en/acme/ai/webhooks/whatsapp`);
  });
  afterAll(() => t.close());

  const change = (field: string, value: Record<string, unknown>, agent = MAIN) => ({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: `waba${agent}`,
        changes: [{ field, value: { messaging_product: 'whatsapp', metadata: { phone_number_id: `pn${agent}` }, ...value } }],
      },
    ],
  });
  const inbound = (items: Record<string, unknown>[], contacts?: unknown[]) =>
    meta.post(change('messages', { ...(contacts ? { contacts } : {}), messages: items }), secret(MAIN));
  const echo = (items: Record<string, unknown>[]) => meta.post(change('smb_message_echoes', { message_echoes: items }), secret(MAIN));
  const text = (id: string, from: string, body: string, extra: Record<string, unknown> = {}) => ({
    id,
    from,
    timestamp: now(),
    type: 'text',
    text: { body },
    ...extra,
  });
  const byExternal = async (id: string) => (await db.sql<Record<string, any>>('select * from ai_messages where external_id = ?', [id]))[0];
  const conversationOf = async (id: number) => (await db.sql<Record<string, any>>('select * from ai_conversations where id = ?', [id]))[0];
  const events = async (conversationId: number, type: string) =>
    db.sql<{ data: any }>(
      `select data from ai_events where conversation_id = ? and type = ?
       union all select data from ai_event_inbox where conversation_id = ? and type = ?`,
      [conversationId, type, conversationId, type],
    );
  const reply = (conversationId: number, content: string) =>
    t.api({ method: 'POST', path: `/ai/conversations/${conversationId}/messages`, key: KEYS.server, body: { role: 'assistant', content } });

  describe('§12.1 and §12.2', () => {
    it('a different BSUID on the same phone number is another person: another conversation', async () => {
      const phone = phoneNo();
      const a = wamid('a');
      const b = wamid('b');
      expect((await inbound([text(a, phone, 'hola', { from_user_id: 'US.1111' })])).body).toEqual({
        error: false,
        result: { messages: 1, statuses: 0 },
      });
      expect((await inbound([text(b, phone, 'otra persona', { from_user_id: 'US.2222' })])).body.result.messages).toBe(1);
      const [ma, mb] = [await byExternal(a), await byExternal(b)];
      expect(ma.conversation_id).not.toBe(mb.conversation_id);
      expect((await conversationOf(mb.conversation_id)).contact_user_id).toBe('US.2222');
      // the same BSUID again joins its own conversation
      const c = wamid('c');
      await inbound([text(c, phone, 'soy la primera', { from_user_id: 'US.1111' })]);
      expect((await byExternal(c)).conversation_id).toBe(ma.conversation_id);
    });

    it('contacts[].user_id is the BSUID when the item lacks from_user_id; an unsupported item without errors keeps errors null', async () => {
      const phone = phoneNo();
      const id = wamid('u');
      await inbound([text(id, phone, 'hi')], [{ wa_id: phone, user_id: 'US.777001', profile: { name: 'Ana' } }]);
      const m = await byExternal(id);
      expect(await conversationOf(m.conversation_id)).toMatchObject({ contact: phone, contact_user_id: 'US.777001', contact_name: 'Ana' });
      const weird = wamid('w');
      await inbound([{ id: weird, from: phone, timestamp: now(), type: 'unsupported', unsupported: { type: 'poll' } }]);
      expect((await byExternal(weird)).payload).toEqual({ type: 'poll', errors: null });
    });
  });

  describe('§13.1 echoes', () => {
    it('stores an echo once in the customer conversation, takes it from the AI, supersedes pending AI replies; the window is unchanged', async () => {
      const phone = phoneNo();
      const first = wamid('in');
      await inbound([text(first, phone, '¿Tienen pizza?')]);
      const conversationId = (await byExternal(first)).conversation_id as number;
      const before = await conversationOf(conversationId);
      // three AI replies: one waiting, one waiting for a retry, one whose send is in flight
      const waiting = (await reply(conversationId, 'Sí, tenemos')).json().result;
      const retrying = (await reply(conversationId, 'Margarita y pepperoni')).json().result;
      const inFlight = (await reply(conversationId, '¿Cuál quieres?')).json().result;
      await db.sql(
        `update ai_message_sends set attempts = 1, next_attempt_at = now() + interval '1 minute', last_error = 'HTTP 503' where message_id = ?`,
        [retrying.id],
      );
      await db.sql(
        `update ai_message_sends set attempts = 1, next_attempt_at = now() + interval '1 minute', claimed_by = gen_random_uuid() where message_id = ?`,
        [inFlight.id],
      );

      const id = wamid('echo');
      const ts = Math.floor(Date.now() / 1000) - 5;
      const res = await echo([
        {
          from: '15550001111',
          to: phone,
          id,
          timestamp: String(ts),
          type: 'text',
          text: { body: 'Te llamo ahora' },
          context: { id: first },
        },
      ]);
      expect(res.body).toEqual({ error: false, result: { messages: 1, statuses: 0 } });
      const stored = await byExternal(id);
      expect(stored).toMatchObject({
        conversation_id: conversationId,
        role: 'assistant',
        public: true,
        source: 'business_app',
        delivery_status: 'sent',
        author_id: null,
        content: 'Te llamo ahora',
        type: 'text',
        reply_to_id: (await byExternal(first)).id,
      });
      expect(new Date(stored.created_at).getTime()).toBe(ts * 1000);
      const after = await conversationOf(conversationId);
      expect(after).toMatchObject({ handler: 'human', assignee_id: null });
      expect(after.last_inbound_at).toEqual(before.last_inbound_at);
      expect(await events(conversationId, 'conversation.handoff')).toHaveLength(1);
      const row = async (mid: number) => (await db.sql<Record<string, any>>('select * from ai_messages where id = ?', [mid]))[0];
      for (const m of [waiting, retrying]) {
        expect(await row(m.id)).toMatchObject({ delivery_status: 'failed', delivery_error: 'superseded by the business app' });
      }
      expect((await row(inFlight.id)).delivery_status).toBe('pending');
      const statuses = await events(conversationId, 'message.status');
      expect(statuses.map((s) => s.data.id).sort()).toEqual([waiting.id, retrying.id].sort());

      // the runtime is refused from now on; Meta's redelivery stores nothing; its statuses move it
      expect((await reply(conversationId, 'too late')).statusCode).toBe(409);
      expect(
        (await echo([{ from: '15550001111', to: phone, id, timestamp: String(ts), type: 'text', text: { body: 'Te llamo ahora' } }])).body
          .result.messages,
      ).toBe(0);
      expect((await db.sql('select 1 from ai_messages where external_id = ?', [id])).length).toBe(1);
      await meta.post(change('messages', { statuses: [{ id, status: 'delivered', timestamp: now(), recipient_id: phone }] }), secret(MAIN));
      expect((await byExternal(id)).delivery_status).toBe('delivered');
      // the messages list filters by source and selects it
      const list = await t.api({
        path: `/ai/conversations/${conversationId}/messages`,
        key: KEYS.server,
        query: { params: 'id,source', where: JSON.stringify([{ attribute: 'source', value: 'business_app' }]) },
      });
      expect(list.json().result).toEqual([{ id: stored.id, source: 'business_app' }]);
    });

    it('an echo to a number without a conversation opens one handled by a person, with no window', async () => {
      const phone = phoneNo();
      const id = wamid('first-echo');
      expect(
        (await echo([{ from: '1555', to: phone, id, timestamp: now(), type: 'text', text: { body: 'Tu pedido salió' } }])).body.result
          .messages,
      ).toBe(1);
      const c = await conversationOf((await byExternal(id)).conversation_id);
      expect(c).toMatchObject({ contact: phone, handler: 'human', status: 'active', last_inbound_at: null });
    });

    it("the business's own edit and revoke, as echoes, change its earlier echo and count in neither messages nor statuses", async () => {
      const phone = phoneNo();
      const id = wamid('mine');
      const t0 = Math.floor(Date.now() / 1000) - 60;
      await echo([{ from: '1555', to: phone, id, timestamp: String(t0), type: 'text', text: { body: 'Llega en 20 min' } }]);
      const edited = await echo([
        {
          from: '1555',
          to: phone,
          id: wamid('ed'),
          timestamp: String(t0 + 5),
          type: 'edit',
          edit: { original_message_id: id, message: { type: 'text', text: { body: 'Llega en 30 min' } } },
        },
      ]);
      expect(edited.body.result).toEqual({ messages: 0, statuses: 0 });
      expect(await byExternal(id)).toMatchObject({
        content: 'Llega en 30 min',
        source: 'business_app',
        edits: [{ content: 'Llega en 20 min' }],
      });
      await echo([
        { from: '1555', to: phone, id: wamid('rv'), timestamp: String(t0 + 9), type: 'revoke', revoke: { original_message_id: id } },
      ]);
      expect(await byExternal(id)).toMatchObject({ content: '', edits: [] });
      expect((await db.sql('select 1 from ai_messages where conversation_id = ?', [(await byExternal(id)).conversation_id])).length).toBe(
        1,
      );
    });

    it('an echo of a message the service sent changes nothing', async () => {
      const phone = phoneNo();
      const first = wamid('in');
      await inbound([text(first, phone, 'hola')]);
      const conversationId = (await byExternal(first)).conversation_id as number;
      const ours = (
        await t.api({
          method: 'POST',
          path: `/ai/conversations/${conversationId}/messages`,
          key: KEYS.admin,
          body: { role: 'assistant', content: 'Hola' },
        })
      ).json().result;
      const sentId = wamid('ours');
      await db.sql(`update ai_messages set external_id = ?, delivery_status = 'accepted' where id = ?`, [sentId, ours.id]);
      expect(
        (await echo([{ from: '1555', to: phone, id: sentId, timestamp: now(), type: 'text', text: { body: 'Hola' } }])).body.result
          .messages,
      ).toBe(0);
      expect(await db.sql('select id from ai_messages where external_id = ?', [sentId])).toEqual([{ id: ours.id }]);
      expect((await conversationOf(conversationId)).handler).toBe('ai');
    });
  });

  describe('§13.2 edits and revokes', () => {
    it('an edit changes the message and keeps the earlier version; an older edit is ignored; a revoke empties it; an edit of a revoked one is ignored', async () => {
      const phone = phoneNo();
      const id = wamid('orig');
      const t0 = Math.floor(Date.now() / 1000) - 60;
      await inbound([text(id, phone, '2 pizzas', { timestamp: String(t0) })]);
      const edit = (eid: string, body: string, at: number) => ({
        id: eid,
        from: phone,
        timestamp: String(at),
        type: 'edit',
        edit: { original_message_id: id, message: { type: 'text', text: { body } } },
      });
      const res = await inbound([edit(wamid('e1'), '3 pizzas', t0 + 30)]);
      expect(res.body.result).toEqual({ messages: 0, statuses: 0 });
      let m = await byExternal(id);
      expect(m).toMatchObject({ content: '3 pizzas', edits: [{ content: '2 pizzas', payload: null, edited_at: null }] });
      expect(new Date(m.edited_at).getTime()).toBe((t0 + 30) * 1000);
      expect(await events(m.conversation_id, 'message.updated')).toHaveLength(1);
      await inbound([edit(wamid('e0'), '1 pizza', t0 + 10)]); // older than the last edit
      expect((await byExternal(id)).content).toBe('3 pizzas');
      expect(await db.sql("select 1 from ai_messages where type = 'unsupported' and conversation_id = ?", [m.conversation_id])).toEqual([]);
      await inbound([{ id: wamid('r'), from: phone, timestamp: String(t0 + 40), type: 'revoke', revoke: { original_message_id: id } }]);
      m = await byExternal(id);
      expect(m).toMatchObject({ content: '', payload: null, edits: [] });
      expect(new Date(m.revoked_at).getTime()).toBe((t0 + 40) * 1000);
      await inbound([edit(wamid('e2'), '4 pizzas', t0 + 50)]);
      expect((await byExternal(id)).content).toBe('');
    });

    it("a revoke deletes the message's stored file", async () => {
      const phone = phoneNo();
      const id = wamid('img');
      await inbound([
        { id, from: phone, timestamp: now(), type: 'image', image: { id: `media-${seq}`, mime_type: 'image/jpeg', caption: 'mi DNI' } },
      ]);
      const m = await byExternal(id);
      const [file] = await db.sql<{ id: string }>('select id from ai_media where message_id = ?', [m.id]);
      expect(file.id).toBe(m.payload.media.id);
      await db.sql(`insert into ai_media_chunks (media_id, seq, data) values (?, 0, '\\x01')`, [file.id]);
      await inbound([{ id: wamid('rv'), from: phone, timestamp: now(), type: 'revoke', revoke: { original_message_id: id } }]);
      expect(await byExternal(id)).toMatchObject({ content: '', payload: null, type: 'image' });
      expect(await db.sql('select 1 from ai_media where id = ?', [file.id])).toEqual([]);
      expect(await db.sql('select 1 from ai_media_chunks where media_id = ?', [file.id])).toEqual([]);
      const media = await t.api({ path: `/ai/conversations/${m.conversation_id}/messages/${m.id}/media`, key: KEYS.server });
      expect(media.statusCode).toBe(400);
      expect(media.json().code).toBe('ERROR_AI_MESSAGE_NOT_FOUND');
    });

    it('an edit that arrives before its original is applied when the original comes', async () => {
      const phone = phoneNo();
      const id = wamid('late');
      const t0 = Math.floor(Date.now() / 1000) - 60;
      await inbound([
        {
          id: wamid('early'),
          from: phone,
          timestamp: String(t0 + 5),
          type: 'edit',
          edit: { original_message_id: id, message: { type: 'text', text: { body: 'corrected' } } },
        },
      ]);
      expect(await byExternal(id)).toBeUndefined();
      await inbound([text(id, phone, 'typo', { timestamp: String(t0) })]);
      expect(await byExternal(id)).toMatchObject({ content: 'corrected', edits: [{ content: 'typo', edited_at: null }] });
    });
  });

  describe('§13.2 either id form', () => {
    it('a reply, an edit and a revoke find a message by the other form Meta gives its id', async () => {
      const phone = phoneNo();
      const token = `3EB0${e}${++seq}A1B2C3D4E5F6`;
      const byPhone = wamidOf(phone, token);
      const byUser = wamidOf('US.13491208655302741918', token, 0x12);
      expect(byPhone).not.toBe(byUser);
      const t0 = Math.floor(Date.now() / 1000) - 60;
      await inbound([text(byPhone, phone, 'una pizza', { timestamp: String(t0) })]);
      const original = await byExternal(byPhone);
      const answer = wamidOf(phone, `ANS${e}${++seq}`);
      await inbound([text(answer, phone, 'esa', { context: { id: byUser } })]);
      expect((await byExternal(answer)).reply_to_id).toBe(original.id);
      await inbound([
        {
          id: wamid('e'),
          from: phone,
          timestamp: String(t0 + 5),
          type: 'edit',
          edit: { original_message_id: byUser, message: { type: 'text', text: { body: 'dos pizzas' } } },
        },
      ]);
      expect((await byExternal(byPhone)).content).toBe('dos pizzas');
      // an echo's id, answered by the customer in the other form
      const echoToken = `ECHO${e}${++seq}`;
      const echoId = wamidOf(phone, echoToken, 0x12);
      await echo([{ from: '1555', to: phone, id: echoId, timestamp: String(t0 + 6), type: 'text', text: { body: '¿Algo más?' } }]);
      const quoting = wamid('q');
      await inbound([text(quoting, phone, 'no, gracias', { context: { id: wamidOf('US.13491208655302741918', echoToken) } })]);
      expect((await byExternal(quoting)).reply_to_id).toBe((await byExternal(echoId)).id);
      await inbound([{ id: wamid('r'), from: phone, timestamp: String(t0 + 7), type: 'revoke', revoke: { original_message_id: byUser } }]);
      expect((await byExternal(byPhone)).content).toBe('');
    });
  });

  describe('§13.6 referral', () => {
    it('keeps the ad on the message and the first one on the conversation; where referral_source_id finds it', async () => {
      const phone = phoneNo();
      const source = `ad-${e}-${++seq}`;
      const referral = {
        source_url: 'https://fb.me/ad',
        source_id: source,
        source_type: 'ad',
        headline: '2x1 pizza',
        body: 'Hoy',
        ctwa_clid: 'clid-1',
      };
      const a = wamid('ref');
      await inbound([text(a, phone, 'vi el anuncio', { referral })]);
      await inbound([text(wamid('ref2'), phone, 'otro', { referral: { ...referral, source_id: 'later' } })]);
      const m = await byExternal(a);
      expect(m.referral).toEqual({
        ...referral,
        media_type: null,
        image_url: null,
        video_url: null,
        thumbnail_url: null,
        welcome_message: null,
      });
      expect((await conversationOf(m.conversation_id)).referral.source_id).toBe(source);
      const list = await t.api({
        path: '/ai/conversations',
        key: KEYS.server,
        query: { params: 'id,referral', where: JSON.stringify([{ attribute: 'referral_source_id', value: source }]) },
      });
      expect(list.statusCode).toBe(200);
      expect(list.json().result).toEqual([{ id: m.conversation_id, referral: m.referral, messages_count: 2 }]);
    });
  });

  describe('§13.5 offboarding', () => {
    it('ACCOUNT_OFFBOARDED (named by the WABA id) disables the agent with disabled_reason offboarded and emits agent.updated; enabling clears it', async () => {
      const body = {
        object: 'whatsapp_business_account',
        entry: [
          {
            id: `waba${OFFBOARDED}`,
            changes: [{ field: 'account_update', value: { phone_number: '15550001111', event: 'ACCOUNT_OFFBOARDED' } }],
          },
        ],
      };
      expect((await meta.post(body, secret(OFFBOARDED))).body).toEqual({ error: false, result: { messages: 0, statuses: 0 } });
      const agent = await t.api({ path: `/ai/agents/${OFFBOARDED}`, key: KEYS.server });
      expect(agent.json().result).toMatchObject({ enabled: false, disabled_reason: 'offboarded' });
      const evs = await db.sql<{ data: any }>(
        `select data from ai_events where agent_id = ? and type = 'agent.updated' union all select data from ai_event_inbox where agent_id = ? and type = 'agent.updated'`,
        [OFFBOARDED, OFFBOARDED],
      );
      expect(evs.map((x) => x.data)).toEqual([expect.objectContaining({ id: OFFBOARDED, enabled: false, disabled_reason: 'offboarded' })]);
      const patched = await t.api({ method: 'PATCH', path: `/ai/agents/${OFFBOARDED}`, key: KEYS.server, body: { enabled: true } });
      expect(patched.json().result).toMatchObject({ enabled: true, disabled_reason: null });
    });
  });
});
