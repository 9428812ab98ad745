import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS, USERS } from '../support/fixtures.js';
import { MetaWebhooks, startWhatsAppFake, type WhatsAppFake } from '../support/whatsapp-fake.js';

/**
 * CONTRACT §9.3 over a real socket and a real database, under both engines. Each engine has its
 * own agents (ids `base(e) + n`) so the two share one database. Signatures are computed here as
 * Meta computes them: HMAC-SHA256 of the exact bytes sent, keyed with the app secret.
 */
const base = (e: number) => 40 + e * 10;
const AGENT = { main: 1, disabled: 2, second: 3 };
const OTHER_AGENT = (e: number) => 160 + e;
const secret = (id: number) => `app-secret-${id}-never-leaks`;
const verifyToken = (id: number) => `verify-token-${id}`;
const phone = (id: number) => `pn${id}`;
const accessToken = (id: number) => `EAAG-token-${id}`;
const creds = (id: number) => ({
  waba_id: `waba${id}`,
  phone_number_id: phone(id),
  access_token: accessToken(id),
  app_secret: secret(id),
  verify_token: verifyToken(id),
});
const CUSTOMER_WA = '525512345678'; // the fixture customer: country code 52, cellphone 5512345678
const metaSign = (raw: string | Buffer, key: string) => `sha256=${createHmac('sha256', key).update(raw).digest('hex')}`;
let seq = 0;
const wamid = (tag: string) => `wamid.${tag}.${process.pid}.${++seq}`;

let db: TestDatabase;
let fake: WhatsAppFake;
const bodies: string[] = [];

function agent(id: number, business_id: number | null, enabled = true) {
  return {
    id,
    business_id,
    name: `WA ${id}`,
    provider: 'whatsapp',
    provider_type: 'chat',
    provider_external_id: `wa-${id}`,
    enabled,
    credentials: creds(id),
  };
}

beforeAll(async () => {
  db = await createTestDatabase();
  fake = await startWhatsAppFake();
  const agents: Record<string, unknown>[] = [];
  const templates: Record<string, unknown>[] = [];
  const other: Record<string, unknown>[] = [];
  for (const e of [0, 1]) {
    const b = base(e);
    agents.push(agent(b + AGENT.main, 1), agent(b + AGENT.disabled, 1, false), agent(b + AGENT.second, 2));
    const tpl = {
      id: `t${b}`,
      name: 'hello',
      language: 'en',
      category: 'UTILITY',
      status: 'APPROVED',
      components: [{ type: 'BODY', text: 'Hi {{1}}' }],
    };
    templates.push({
      id: (b + AGENT.main) * 10 + 1,
      agent_id: b + AGENT.main,
      external_id: tpl.id,
      name: tpl.name,
      language: tpl.language,
      category: tpl.category,
      status: tpl.status,
      components: tpl.components,
    });
    fake.addAccount({ ...creds(b + AGENT.main), templates: [tpl] });
    other.push(agent(OTHER_AGENT(e), 101));
  }
  const fixture = baseFixture({ agents, templates });
  fixture.projects[1].agents = other;
  fixture.projects.push({ code: 'noai', name: 'No AI', ai_enabled: false, agents: [agent(190, null)] });
  await db.load(fixture);
});
afterAll(async () => {
  await fake.close();
  await db.orm.close();
});

describe.each(ENGINES.map((engine, e) => [engine, e] as const))('WhatsApp webhooks (%s)', (engine, e) => {
  const b = base(e);
  const MAIN = b + AGENT.main;
  const DISABLED = b + AGENT.disabled;
  const SECOND = b + AGENT.second;
  let t: TestApp;
  let origin: string;
  let meta: MetaWebhooks;
  const hook = (project = 'acme') => `${origin}/v400/en/${project}/ai/webhooks/whatsapp`;

  beforeAll(async () => {
    t = await startApp(engine, db, { config: { whatsappApiUrl: fake.url } });
    origin = await t.listen();
    meta = new MetaWebhooks(hook());
  });
  afterAll(() => t.close());

  async function post(raw: string | Buffer, headers: Record<string, string>, url = hook()) {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: raw });
    const text = await res.text();
    bodies.push(text);
    let body: any = text;
    try {
      body = JSON.parse(text);
    } catch {
      /* text */
    }
    return { status: res.status, body, headers: res.headers };
  }
  const signedPost = (raw: string, key = secret(MAIN), url = hook()) => post(raw, { 'x-hub-signature-256': metaSign(raw, key) }, url);
  const textNotification = (id: string, from: string, text: string, phoneId = phone(MAIN), timestamp: unknown = '1763900000') =>
    MetaWebhooks.notification(phoneId, { messages: [{ id, from, text, timestamp: timestamp as string }] });
  const messagesWith = async (externalId: string) =>
    db.sql<{
      id: number;
      conversation_id: number;
      content: string;
      role: string;
      public: boolean;
      created_at: Date;
      type: string;
      payload: any;
    }>('select id, conversation_id, content, role, public, created_at, type, payload from ai_messages where external_id = ? order by id', [
      externalId,
    ]);

  describe('verification (GET)', () => {
    it("answers the challenge as text/plain when the token is an agent's verify_token", async () => {
      const res = await meta.verify(verifyToken(MAIN), 'challenge-1158201444');
      expect(res).toEqual({ status: 200, contentType: expect.stringMatching(/^text\/plain/), body: 'challenge-1158201444' });
      // A disabled agent's token is still the project's agent's token.
      expect((await meta.verify(verifyToken(DISABLED), 'c2')).body).toBe('c2');
    });

    it("403 for a wrong token, another mode, a missing token or another project's token", async () => {
      for (const [token, mode] of [
        ['wrong', 'subscribe'],
        [verifyToken(MAIN), 'unsubscribe'],
        ['', 'subscribe'],
        [verifyToken(OTHER_AGENT(e)), 'subscribe'],
      ]) {
        const res = await meta.verify(token, 'x', mode);
        expect(res.status).toBe(403);
        expect(JSON.parse(res.body)).toMatchObject({ error: true, code: 'ERROR_WEBHOOK_VERIFICATION_FAILED' });
      }
      const bare = await fetch(hook());
      expect(bare.status).toBe(403);
    });

    it('still runs the pipeline: unknown project 401, AI module off 403', async () => {
      expect((await fetch(`${hook('nope')}?hub.mode=subscribe&hub.verify_token=x&hub.challenge=y`)).status).toBe(401);
      const off = await fetch(`${hook('noai')}?hub.mode=subscribe&hub.verify_token=${verifyToken(190)}&hub.challenge=y`);
      expect(off.status).toBe(403);
      expect(await off.json()).toMatchObject({ code: 'ERROR_AI_MODULE_DISABLED' });
    });
  });

  describe('signature (POST)', () => {
    it('missing, malformed, wrong, truncated or over re-serialised bytes: 401 and nothing stored', async () => {
      const id = wamid('sig');
      const body = textNotification(id, CUSTOMER_WA, 'hola');
      const raw = JSON.stringify(body);
      const good = metaSign(raw, secret(MAIN));
      const attempts: [string | Buffer, Record<string, string>][] = [
        [raw, {}],
        [raw, { 'x-hub-signature-256': good.slice('sha256='.length) }], // no scheme
        [raw, { 'x-hub-signature-256': `sha1=${good.slice(7)}` }],
        [raw, { 'x-hub-signature-256': good.slice(0, -2) }], // truncated signature
        [raw, { 'x-hub-signature-256': `${good}00` }],
        [raw, { 'x-hub-signature-256': 'sha256=zz' + good.slice(9) }],
        [raw, { 'x-hub-signature-256': metaSign(raw, secret(SECOND)) }], // another agent's secret
        [raw, { 'x-hub-signature-256': metaSign(raw, 'attacker') }],
        [raw.slice(0, -5), { 'x-hub-signature-256': good }], // truncated body
        [JSON.stringify(body, null, 2), { 'x-hub-signature-256': good }], // same JSON, other bytes
      ];
      for (const [payload, headers] of attempts) {
        const res = await post(payload, headers);
        expect(res.status, JSON.stringify(headers)).toBe(401);
        expect(res.body).toMatchObject({ error: true, code: 'ERROR_WEBHOOK_SIGNATURE' });
      }
      const forged = await meta.forged(body, 'another-app-secret');
      expect(forged.status).toBe(401);
      expect(await messagesWith(id)).toHaveLength(0);
    });

    it('a body naming two agents must be signed with the secret of each (one secret for both: accepted)', async () => {
      const id = wamid('two');
      const body = MetaWebhooks.notification(phone(MAIN), { messages: [{ id, from: '34600000001', text: 'x' }] }) as any;
      body.entry.push({
        id: 'W2',
        changes: [{ field: 'messages', value: { metadata: { phone_number_id: phone(SECOND) }, messages: [] } }],
      });
      const raw = JSON.stringify(body);
      expect((await signedPost(raw, secret(MAIN))).status).toBe(401);
      expect(await messagesWith(id)).toHaveLength(0);
    });

    it('not JSON or not an object: 400 after the signature check (401 when unsigned)', async () => {
      for (const raw of ['not json', '[1,2]', '"text"', '', 'null']) {
        const unsigned = await post(raw, { 'x-hub-signature-256': metaSign(raw, 'nobody') });
        expect(unsigned.status, raw).toBe(401);
        const res = await signedPost(raw);
        expect(res.status, raw).toBe(400);
        expect(res.body).toMatchObject({ error: true, code: 'ERROR_VALIDATION' });
      }
      // Another content type: the raw bytes are what is verified.
      const raw = JSON.stringify(textNotification(wamid('ct'), '34600000002', 'ct'));
      expect((await post(raw, { 'content-type': 'text/plain', 'x-hub-signature-256': metaSign(raw, secret(MAIN)) })).status).toBe(200);
    });

    it('a body over the size limit is refused before anything is stored (413, never 500)', async () => {
      const huge = JSON.stringify({ object: 'whatsapp_business_account', pad: 'x'.repeat(1_200_000) });
      const res = await signedPost(huge);
      expect(res.status).toBe(413);
    });
  });

  describe('messages', () => {
    it('stores a text message in the (agent, contact) conversation with its user, events in the same transaction; a retry stores nothing', async () => {
      const id = wamid('text');
      const delivery = await meta.post(textNotification(id, CUSTOMER_WA, '¿Tienen envío?', phone(MAIN), '1763900000'), secret(MAIN));
      expect(delivery.status).toBe(200);
      expect(delivery.body).toEqual({ error: false, result: { messages: 1, statuses: 0 } });
      const [m] = await messagesWith(id);
      expect(m).toMatchObject({ role: 'user', public: true, content: '¿Tienen envío?' });
      expect(new Date(m.created_at).toISOString()).toBe(new Date(1763900000 * 1000).toISOString());
      const [c] = await db.sql<{ agent_id: number; contact: string; user_id: number; status: string; business_id: number }>(
        'select agent_id, contact, user_id, status, business_id from ai_conversations where id = ?',
        [m.conversation_id],
      );
      expect(c).toEqual({ agent_id: MAIN, contact: CUSTOMER_WA, user_id: USERS.customer, status: 'active', business_id: 1 });
      const events = await db.sql<{ type: string; data: any; conversation_id: number }>(
        `select type, data, conversation_id from ai_events where conversation_id = ? order by id`,
        [m.conversation_id],
      );
      expect(events.map((ev) => ev.type)).toEqual(['conversation.created', 'message.created']);
      expect(events[1].data).toMatchObject({ id: m.id, external_id: id, role: 'user', content: '¿Tienen envío?', public: true });
      expect(events[0].data).toMatchObject({ contact: CUSTOMER_WA, user_id: USERS.customer });

      // Meta retries the very same bytes: nothing twice, no new event.
      const again = await meta.retry(delivery.raw, secret(MAIN));
      expect(again.body).toEqual({ error: false, result: { messages: 0, statuses: 0 } });
      expect(await messagesWith(id)).toHaveLength(1);
      const after = await db.sql('select 1 from ai_events where conversation_id = ?', [m.conversation_id]);
      expect(after).toHaveLength(2);

      // The next message of that contact joins the same conversation (one statement with its
      // event); the event's data is the message record exactly as the REST API shows it.
      const next = wamid('text2');
      expect((await signedPost(JSON.stringify(textNotification(next, CUSTOMER_WA, 'y?')))).body.result.messages).toBe(1);
      const [stored] = await messagesWith(next);
      expect(stored.conversation_id).toBe(m.conversation_id);
      const listed = (await t.api({ path: `/ai/conversations/${m.conversation_id}/messages`, key: KEYS.server })).json().result;
      const record = listed.find((r: { id: number }) => r.id === stored.id);
      const [event] = await db.sql<{ data: unknown; agent_id: number; business_id: number; public: boolean }>(
        `select data, agent_id, business_id, public from ai_events where type = 'message.created' and conversation_id = ? and (data->>'id')::int = ?`,
        [m.conversation_id, stored.id],
      );
      expect(event).toEqual({ data: record, agent_id: MAIN, business_id: 1, public: true });
    });

    it('other types: the caption, else [TYPE] ([UNSUPPORTED] for a type not known, §12.2); an item without id or from, or with a non-Unix timestamp, is skipped and the rest stored', async () => {
      const ids = { image: wamid('img'), sticker: wamid('stk'), weird: wamid('weird'), badTs: wamid('ts'), noFrom: wamid('nofrom') };
      const from = '34600000010';
      const body = MetaWebhooks.notification(phone(MAIN), {
        messages: [
          { id: ids.image, from, type: 'image', extra: { image: { id: 'media1', caption: 'my receipt', mime_type: 'image/jpeg' } } },
          { id: ids.badTs, from, text: 'late', timestamp: 'yesterday' },
          { id: ids.sticker, from, type: 'sticker', extra: { sticker: { id: 'media2' } } },
          { id: '', from, text: 'no id' },
          { id: ids.noFrom, from: '', text: 'no from' },
          { id: ids.weird, from, type: 'weird_new_type' },
        ],
      }) as any;
      delete body.entry[0].changes[0].value.messages[3].id;
      delete body.entry[0].changes[0].value.messages[4].from;
      const res = await signedPost(JSON.stringify(body));
      expect(res.body).toEqual({ error: false, result: { messages: 3, statuses: 0 } });
      expect((await messagesWith(ids.image))[0].content).toBe('my receipt');
      expect((await messagesWith(ids.sticker))[0].content).toBe('[STICKER]');
      expect((await messagesWith(ids.weird))[0]).toMatchObject({
        content: '[UNSUPPORTED]',
        type: 'unsupported',
        payload: { type: 'weird_new_type', errors: null }, // CONTRACT §12.2: null when Meta sent none
      });
      expect(await messagesWith(ids.badTs)).toEqual([]);
      expect(await messagesWith(ids.noFrom)).toEqual([]);
      const [{ n }] = await db.sql<{ n: number }>(
        "select count(*)::int as n from ai_messages where content in ('no id', 'no from', 'late')",
      );
      expect(n).toBe(0);
    });

    it("opens the customer service window: window_expires_at is the newest inbound message's created_at + 24 h", async () => {
      const from = '34600000020';
      const older = Math.floor(Date.now() / 1000) - 3600;
      const newer = older + 600;
      const w1 = wamid('w1');
      await signedPost(JSON.stringify(textNotification(w1, from, 'second', phone(MAIN), String(newer))));
      await signedPost(JSON.stringify(textNotification(wamid('w2'), from, 'first, delivered late', phone(MAIN), String(older))));
      const [m] = await messagesWith(w1);
      const res = await t.api({ path: `/ai/conversations/${m.conversation_id}`, key: KEYS.server });
      expect(res.json().result.window_expires_at).toBe(new Date((newer + 24 * 3600) * 1000).toISOString());
      // a user message posted through the API does not count
      await t.api({
        method: 'POST',
        path: `/ai/conversations/${m.conversation_id}/messages`,
        key: KEYS.server,
        body: { role: 'user', content: 'via API' },
      });
      expect((await t.api({ path: `/ai/conversations/${m.conversation_id}`, key: KEYS.server })).json().result.window_expires_at).toBe(
        new Date((newer + 24 * 3600) * 1000).toISOString(),
      );
    });

    it('non-Meta shapes and unusable items: 200 with what was stored', async () => {
      const id = wamid('partial');
      const body = MetaWebhooks.notification(phone(MAIN), { messages: [{ id, from: '34600000011', text: 'ok' }] }) as any;
      body.entry[0].changes[0].value.messages.push({ id: 42, from: [] }, 'junk', null);
      body.entry.push('junk', { changes: 'no' }, { changes: [{ field: 'account_update', value: {} }, null] });
      const res = await signedPost(JSON.stringify(body));
      expect(res.body).toEqual({ error: false, result: { messages: 1, statuses: 0 } });
      for (const shape of [
        {},
        { object: 'page' },
        { entry: 'x' },
        { entry: [{ changes: [{ value: { messages: 'x', metadata: { phone_number_id: phone(MAIN) } } }] }] },
      ]) {
        const r = await signedPost(JSON.stringify(shape));
        expect(r.status, JSON.stringify(shape)).toBe(200);
        expect(r.body.result).toEqual({ messages: 0, statuses: 0 });
      }
    });

    it("disabled agents' and other projects' changes are ignored", async () => {
      const a = wamid('disabled');
      const r1 = await signedPost(JSON.stringify(textNotification(a, '34600000012', 'x', phone(DISABLED))), secret(DISABLED));
      expect(r1.body).toEqual({ error: false, result: { messages: 0, statuses: 0 } });
      const o = wamid('other');
      // Posted to acme naming other's agent: it names no agent of acme, so any acme agent's secret verifies it; nothing stored.
      const r2 = await signedPost(JSON.stringify(textNotification(o, '34600000013', 'x', phone(OTHER_AGENT(e)))), secret(MAIN));
      expect(r2.body).toEqual({ error: false, result: { messages: 0, statuses: 0 } });
      // ... and signed with other's own secret it does not verify on acme.
      expect(
        (await signedPost(JSON.stringify(textNotification(o, '34600000013', 'x', phone(OTHER_AGENT(e)))), secret(OTHER_AGENT(e)))).status,
      ).toBe(401);
      expect(await messagesWith(a)).toHaveLength(0);
      expect(await messagesWith(o)).toHaveLength(0);
    });

    it('concurrent deliveries of one message id store it once', async () => {
      const id = wamid('race');
      const raw = JSON.stringify(textNotification(id, '34600000020', 'once'));
      const results = await Promise.all(Array.from({ length: 16 }, () => signedPost(raw)));
      expect(results.map((r) => r.status)).toEqual(Array(16).fill(200));
      expect(results.reduce((n, r) => n + r.body.result.messages, 0)).toBe(1);
      expect(await messagesWith(id)).toHaveLength(1);
      const events = await db.sql(`select 1 from ai_events where type = 'message.created' and data->>'external_id' = ?`, [id]);
      expect(events).toHaveLength(1);
    });

    it('many concurrent first messages from one contact open one active conversation', async () => {
      const from = '34600000030';
      const ids = Array.from({ length: 16 }, (_, i) => wamid(`first${i}`));
      const results = await Promise.all(ids.map((id) => signedPost(JSON.stringify(textNotification(id, from, id)))));
      expect(results.reduce((n, r) => n + r.body.result.messages, 0)).toBe(16);
      const convs = await db.sql<{ id: number }>(`select id from ai_conversations where agent_id = ? and contact = ?`, [MAIN, from]);
      expect(convs).toHaveLength(1);
      const [{ n }] = await db.sql<{ n: number }>('select count(*)::int as n from ai_messages where conversation_id = ?', [convs[0].id]);
      expect(n).toBe(16);
      const created = await db.sql(`select 1 from ai_events where type = 'conversation.created' and conversation_id = ?`, [convs[0].id]);
      expect(created).toHaveLength(1);
    });

    it('a crash between two messages keeps the first; the retry stores only the rest', async () => {
      const [first, second] = [wamid('crash1'), wamid('crash2')];
      const from = '34600000040';
      const trigger = `og_crash_${e}`;
      await db.sql(
        `create function ${trigger}() returns trigger language plpgsql as $$ begin if new.content = 'crash-${e}' then raise exception 'simulated crash'; end if; return new; end $$`,
      );
      await db.sql(`create trigger ${trigger} before insert on ai_messages for each row execute function ${trigger}()`);
      const body = MetaWebhooks.notification(phone(MAIN), {
        messages: [
          { id: first, from, text: 'first' },
          { id: second, from, text: `crash-${e}` },
        ],
      });
      const raw = JSON.stringify(body);
      try {
        const crashed = await signedPost(raw);
        expect(crashed.status).toBeGreaterThanOrEqual(500); // Meta will retry it
      } finally {
        await db.sql(`drop trigger ${trigger} on ai_messages`);
        await db.sql(`drop function ${trigger}()`);
      }
      expect(await messagesWith(first)).toHaveLength(1);
      expect(await messagesWith(second)).toHaveLength(0);
      const retry = await signedPost(raw);
      expect(retry.body).toEqual({ error: false, result: { messages: 1, statuses: 0 } });
      expect(await messagesWith(first)).toHaveLength(1);
      expect(await messagesWith(second)).toHaveLength(1);
    });
  });

  describe('template sends and statuses', () => {
    const send = async (to: string) => {
      const res = await t.api({
        method: 'POST',
        path: `/ai/agents/${MAIN}/templates/${MAIN * 10 + 1}/send`,
        key: KEYS.server,
        body: { to, body_parameters: ['Ana'] },
      });
      expect(res.statusCode, res.body).toBe(200);
      return JSON.parse(res.body).result.message_id as string;
    };
    const sendRow = async (messageId: string) =>
      (
        await db.sql<{ status: string; error: string | null; to: string; template_id: number }>(
          'select status, error, "to", template_id from ai_template_sends where message_id = ? and agent_id = ?',
          [messageId, MAIN],
        )
      )[0];
    const statuses = (list: { id: string; status: string; errors?: { code: number; title: string }[] }[]) =>
      signedPost(JSON.stringify(MetaWebhooks.notification(phone(MAIN), { statuses: list })));

    it('a send is logged as accepted with template.sent; statuses move it forward only', async () => {
      const mid = await send('+5215512345678');
      expect(await sendRow(mid)).toEqual({ status: 'accepted', error: null, to: '5215512345678', template_id: MAIN * 10 + 1 });
      const sent = await db.sql<{ data: any }>(`select data from ai_events where type = 'template.sent' and data->>'message_id' = ?`, [
        mid,
      ]);
      expect(sent).toHaveLength(1);
      expect(sent[0].data).toMatchObject({ message_id: mid, status: 'accepted', agent_id: MAIN });

      expect((await statuses([{ id: mid, status: 'delivered' }])).body.result).toEqual({ messages: 0, statuses: 1 });
      expect((await statuses([{ id: mid, status: 'sent' }])).body.result.statuses).toBe(0); // backwards: ignored
      expect((await statuses([{ id: mid, status: 'delivered' }])).body.result.statuses).toBe(0); // no move
      expect((await statuses([{ id: mid, status: 'read' }])).body.result.statuses).toBe(1);
      expect((await statuses([{ id: mid, status: 'failed', errors: [{ code: 131000, title: 'late' }] }])).body.result.statuses).toBe(0);
      expect(await sendRow(mid)).toMatchObject({ status: 'read', error: null });
      const moves = await db.sql<{ data: any }>(
        `select data from ai_events where type = 'template.status' and data->>'message_id' = ? order by id`,
        [mid],
      );
      expect(moves.map((m) => m.data.status)).toEqual(['delivered', 'read']);
    });

    it('failed is final and keeps the first error title; unknown ids and statuses are ignored', async () => {
      const mid = await send('5215512345679');
      const res = await statuses([
        { id: mid, status: 'sent' },
        {
          id: mid,
          status: 'failed',
          errors: [
            { code: 131026, title: 'Message undeliverable' },
            { code: 1, title: 'second' },
          ],
        },
        { id: mid, status: 'read' },
        { id: 'wamid.unknown', status: 'read' },
        { id: mid, status: 'exploded' },
      ]);
      expect(res.body).toEqual({ error: false, result: { messages: 0, statuses: 2 } });
      expect(await sendRow(mid)).toMatchObject({ status: 'failed', error: 'Message undeliverable' });
    });

    it('GET .../templates/sends: newest first, where, orderBy, pagination, levels, isolation', async () => {
      const get = (query: Record<string, string> = {}, key = KEYS.server, agentId = MAIN, project = 'acme') =>
        t.api({ path: `/ai/agents/${agentId}/templates/sends`, key, query, project });
      const all = JSON.parse((await get({ page_size: '100' })).body);
      expect(all.pagination).toMatchObject({ current_page: 1, total: all.result.length });
      expect(all.result.length).toBeGreaterThanOrEqual(2);
      const ids = all.result.map((s: any) => s.id);
      expect(ids).toEqual([...ids].sort((x: number, y: number) => y - x));
      expect(Object.keys(all.result[0]).sort()).toEqual([
        'agent_id',
        'created_at',
        'error',
        'id',
        'message_id',
        'status',
        'template_id',
        'to',
        'updated_at',
      ]);
      const failed = JSON.parse((await get({ where: JSON.stringify({ status: 'failed' }) })).body);
      expect(failed.result.every((s: any) => s.status === 'failed')).toBe(true);
      expect(failed.result.length).toBeGreaterThanOrEqual(1);
      const byTo = JSON.parse((await get({ where: JSON.stringify([{ attribute: 'to', value: '5215512345678' }]) })).body);
      expect(byTo.result.every((s: any) => s.to === '5215512345678')).toBe(true);
      const asc = JSON.parse((await get({ orderBy: 'id', page_size: '1', page: '2' })).body);
      expect(asc.result[0].id).toBe([...ids].sort((x: number, y: number) => x - y)[1]);
      expect(asc.pagination).toMatchObject({ current_page: 2, page_size: 1, from: 2, to: 2 });
      expect((await get({ orderBy: 'message_id' })).statusCode).toBe(400);
      expect((await get({ where: JSON.stringify({ error: 'x' }) })).statusCode).toBe(400);
      expect((await get({}, KEYS.customer)).statusCode).toBe(401);
      expect(JSON.parse((await get({}, KEYS.owner, SECOND)).body).code).toBe('ERROR_AI_AGENT_NOT_FOUND'); // owner of business 1 only
      expect((await get({}, KEYS.owner)).statusCode).toBe(200);
      expect(JSON.parse((await get({}, KEYS.otherServer, MAIN, 'other')).body).code).toBe('ERROR_AI_AGENT_NOT_FOUND'); // another project's agent
      expect((await get({}, KEYS.otherServer)).statusCode).toBe(401); // a key of another project
    });
  });

  it('the graph refuses a notification that did not come through the signed route', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { 'x-api-key': KEYS.server, 'content-type': 'application/json' },
      payload: JSON.stringify({
        query: 'mutation($p: JSON!) { receiveWhatsAppNotification(payload: $p) { messages } }',
        variables: { p: textNotification(wamid('g'), '34600000050', 'x') },
      }),
    });
    expect(res.body).toContain('ERROR_WEBHOOK_SIGNATURE');
  });

  it('no answer ever carries a secret', () => {
    for (const id of [MAIN, DISABLED, SECOND]) {
      for (const body of bodies) {
        expect(body).not.toContain(secret(id));
        expect(body).not.toContain(accessToken(id));
      }
    }
  });
});
