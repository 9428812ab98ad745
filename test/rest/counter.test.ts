import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS, USERS } from '../support/fixtures.js';

/**
 * CONTRACT §10.6's API: saved replies (`/ai/replies`), colleagues by name (`GET /ai/operators`), a conversation's
 * orders (`GET /ai/conversations/{id}/orders`) and notes (non-public `system` messages by a user). Both engines
 * share the database: saved replies carry the engine in their shortcut.
 */
const agent = {
  id: 1,
  business_id: 1,
  name: 'WA',
  provider: 'whatsapp',
  provider_type: 'chat',
  provider_external_id: 'wa-counter',
  enabled: true,
  credentials: { waba_id: 'w', phone_number_id: 'pn-counter', access_token: 'token' },
};
const at = (day: number) => `2026-11-${String(day).padStart(2, '0')}T12:00:00.000Z`;

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  const fixture = baseFixture({
    agents: [agent, { ...agent, id: 2, business_id: 2, provider_external_id: 'wa-counter-2', credentials: undefined }],
    conversations: [
      {
        id: 1,
        agent_id: 1,
        business_id: 1,
        contact: '5215500000001',
        status: 'active',
        created_at: at(1),
        last_inbound_at: new Date().toISOString(),
      },
      { id: 2, agent_id: 2, business_id: 2, contact: '5215500000002', status: 'active', created_at: at(1) },
      { id: 3, agent_id: 1, business_id: 1, contact: '5215500000003', status: 'closed', status_reason: 'completed', created_at: at(1) },
    ],
    messages: [{ id: 1, conversation_id: 1, role: 'user', content: 'hola', public: true, created_at: new Date().toISOString() }],
    orders: [
      { id: 1, business_id: 1, conversation_id: 1, status: 0, created_at: at(2), summary: { total: 12.5 } },
      { id: 2, business_id: 1, conversation_id: 1, status: 1, created_at: at(4), summary: { total: 30 } },
      { id: 3, business_id: 1, conversation_id: 1, status: 2, created_at: at(3), summary: {} },
      { id: 4, business_id: 1, conversation_id: 3, status: 0, created_at: at(5), summary: { total: 1 } },
      // platform data that is not a number (CONTRACT §11, fourth review)
      { id: 5, business_id: 1, conversation_id: 3, status: 0, created_at: at(6), summary: { total: ' 23.40 ' } },
      { id: 6, business_id: 1, conversation_id: 3, status: 0, created_at: at(7), summary: { total: 'twelve' } },
      { id: 7, business_id: 1, conversation_id: 3, status: 0, created_at: at(8), summary: { total: { amount: 3 } } },
      { id: 8, business_id: 1, conversation_id: 3, status: 0, created_at: at(9), summary: { total: '1e400' } },
    ],
  });
  await db.load(fixture);
});
afterAll(() => db.orm.close());

describe.each(ENGINES)('what a counter needs next, §10.6 (%s)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(engine, db);
  });
  afterAll(() => t?.close());

  describe('saved replies', () => {
    const shortcut = `hours-${engine}`;
    const create = (body: unknown, key = KEYS.admin, lang = 'en') =>
      t.api({ method: 'POST', path: '/ai/replies', key, body, lang, project: key === KEYS.otherServer ? 'other' : 'acme' });
    const list = (query: Record<string, string>, key = KEYS.server) => t.api({ path: '/ai/replies', key, query });

    it('CRUD with the record of the contract; q over shortcut and content, case and accents ignored', async () => {
      const created = await create({ shortcut, content: 'Abrimos a las 9. El CAFÉ es gratis.' });
      expect(created.statusCode, created.body).toBe(200);
      const reply = created.json().result;
      expect(Object.keys(reply).sort()).toEqual(['content', 'created_at', 'id', 'shortcut', 'updated_at']);
      expect(reply).toMatchObject({ shortcut, content: 'Abrimos a las 9. El CAFÉ es gratis.' });

      const found = async (q: string) => (await list({ q, page_size: '100' })).json().result.map((r: { id: number }) => r.id);
      expect(await found('cafe es')).toContain(reply.id);
      expect(await found(`HOURS-${engine}`)).toContain(reply.id);
      expect(await found('te')).not.toContain(reply.id);
      const page = (await list({ where: JSON.stringify({ shortcut }) })).json();
      expect(page.pagination).toMatchObject({ total: 1, current_page: 1 });
      // level 2 reads them
      expect((await list({ q: shortcut }, KEYS.owner)).json().result.map((r: { id: number }) => r.id)).toEqual([reply.id]);

      const patched = await t.api({
        method: 'PATCH',
        path: `/ai/replies/${reply.id}`,
        key: KEYS.server,
        body: { content: 'Abrimos a las 10.' },
      });
      expect(patched.statusCode, patched.body).toBe(200);
      expect(patched.json().result).toMatchObject({ id: reply.id, shortcut, content: 'Abrimos a las 10.' });

      const removed = await t.api({ method: 'DELETE', path: `/ai/replies/${reply.id}`, key: KEYS.admin });
      expect(removed.json().result).toMatchObject({ id: reply.id, content: 'Abrimos a las 10.' });
      const again = await t.api({ method: 'DELETE', path: `/ai/replies/${reply.id}`, key: KEYS.admin, lang: 'fr' });
      expect([again.statusCode, again.json().code, again.json().result]).toEqual([
        400,
        'ERROR_AI_REPLY_NOT_FOUND',
        ['La réponse enregistrée est introuvable.'],
      ]);
    });

    it('shortcut unique in the project, its pattern, content bounds; errors in the language asked', async () => {
      expect((await create({ shortcut: `dup-${engine}`, content: 'a' })).statusCode).toBe(200);
      const dup = await create({ shortcut: `dup-${engine}`, content: 'b' }, KEYS.server, 'es');
      expect([dup.statusCode, dup.json().code, dup.json().result]).toEqual([
        400,
        'ERROR_VALIDATION',
        ['El valor de shortcut ya lo usa otra respuesta guardada del proyecto.'],
      ]);
      const ar = await create({ shortcut: `dup-${engine}`, content: 'b' }, KEYS.server, 'ar');
      expect(ar.json().result[0]).toContain('shortcut');
      for (const body of [
        { shortcut: 'Hours', content: 'x' },
        { shortcut: 'a'.repeat(33), content: 'x' },
        { shortcut: 'a b', content: 'x' },
        { shortcut: `ok-${engine}`, content: '' },
        { shortcut: `ok-${engine}`, content: 'x'.repeat(4097) },
        { shortcut: `ok-${engine}` },
        { shortcut: 1, content: 'x' },
      ]) {
        const res = await create(body);
        expect([res.statusCode, res.json().code], JSON.stringify(body)).toEqual([400, 'ERROR_VALIDATION']);
      }
      // another project has its own shortcuts
      expect((await create({ shortcut: `dup-${engine}`, content: 'c' }, KEYS.otherServer)).statusCode).toBe(200);
      const foreign = await t.api({
        path: '/ai/replies',
        key: KEYS.otherServer,
        project: 'other',
        query: { where: JSON.stringify({ shortcut: `dup-${engine}` }) },
      });
      expect(foreign.json().result.map((r: { content: string }) => r.content)).toEqual(['c']);
      // another project's reply is not found here
      const otherId = foreign.json().result[0].id;
      const patch = await t.api({ method: 'PATCH', path: `/ai/replies/${otherId}`, key: KEYS.server, body: { content: 'x' } });
      expect(patch.json().code).toBe('ERROR_AI_REPLY_NOT_FOUND');
      // renaming onto a taken shortcut
      const mine = (
        await t.api({ path: '/ai/replies', key: KEYS.server, query: { where: JSON.stringify({ shortcut: `dup-${engine}` }) } })
      ).json().result[0];
      const other = (await create({ shortcut: `two-${engine}`, content: 'x' })).json().result;
      const clash = await t.api({ method: 'PATCH', path: `/ai/replies/${other.id}`, key: KEYS.server, body: { shortcut: mine.shortcut } });
      expect([clash.statusCode, clash.json().code]).toEqual([400, 'ERROR_VALIDATION']);
    });

    it('writes: level 0 and server keys; reads: levels 0/2 and server keys', async () => {
      expect((await create({ shortcut: `own-${engine}`, content: 'x' }, KEYS.owner)).statusCode).toBe(401);
      expect((await list({}, KEYS.customer)).statusCode).toBe(401);
      expect((await list({ q: '' })).statusCode).toBe(400);
    });
  });

  it('GET /ai/operators: levels 0 and 2 by name; a business owner sees the administrators and those who share a business', async () => {
    const all = await t.api({ path: '/ai/operators', key: KEYS.server });
    expect(all.statusCode, all.body).toBe(200);
    expect(all.json().result).toEqual([
      { id: USERS.admin, name: 'Ada', level: 0, business_ids: [] },
      { id: USERS.owner, name: 'Olga', level: 2, business_ids: [1] },
      { id: USERS.owner2, name: 'Otto', level: 2, business_ids: [2] },
    ]);
    expect((await t.api({ path: '/ai/operators', key: KEYS.owner })).json().result).toEqual([
      { id: USERS.admin, name: 'Ada', level: 0, business_ids: [] },
      { id: USERS.owner, name: 'Olga', level: 2, business_ids: [1] },
    ]);
    // and can assign a conversation to one (§10.2 allows it): the list offers whom the handoff takes
    const assigned = await t.api({
      method: 'POST',
      path: '/ai/conversations/1/handoff',
      key: KEYS.owner,
      body: { handler: 'human', assignee_id: USERS.admin },
    });
    expect(assigned.statusCode, assigned.body).toBe(200);
    expect(assigned.json().result).toMatchObject({ handler: 'human', assignee_id: USERS.admin });
    await t.api({ method: 'POST', path: '/ai/conversations/1/handoff', key: KEYS.server, body: { handler: 'ai' } });
    expect(
      (await t.api({ path: '/ai/operators', key: KEYS.otherServer, project: 'other' })).json().result.map((o: { id: number }) => o.id),
    ).toEqual([USERS.otherAdmin]);
    expect((await t.api({ path: '/ai/operators', key: KEYS.customer })).statusCode).toBe(401);
  });

  it('GET /ai/businesses: the businesses the caller may see by name, with their currency; a business owner sees theirs', async () => {
    const all = await t.api({ path: '/ai/businesses', key: KEYS.server });
    expect(all.statusCode, all.body).toBe(200);
    expect(all.json().result).toEqual([
      { id: 1, name: 'Acme Centro', currency: 'EUR' },
      { id: 2, name: 'Acme Norte', currency: 'EUR' },
      { id: 3, name: 'Acme Sur', currency: 'EUR' },
    ]);
    expect((await t.api({ path: '/ai/businesses', key: KEYS.owner })).json().result).toEqual([
      { id: 1, name: 'Acme Centro', currency: 'EUR' },
    ]);
    expect((await t.api({ path: '/ai/businesses', key: KEYS.otherServer, project: 'other' })).json().result).toEqual([
      { id: 101, name: 'Other Shop', currency: 'EUR' },
    ]);
    expect((await t.api({ path: '/ai/businesses', key: KEYS.customer })).statusCode).toBe(401);
  });

  it("GET /ai/conversations/{id}/orders: the conversation's orders, newest first, paginated; scoped like the conversation", async () => {
    const res = await t.api({ path: '/ai/conversations/1/orders', key: KEYS.owner });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      error: false,
      result: [
        { id: 2, status: 1, total: 30, business_id: 1, created_at: at(4) },
        { id: 3, status: 2, total: null, business_id: 1, created_at: at(3) },
        { id: 1, status: 0, total: 12.5, business_id: 1, created_at: at(2) },
      ],
      pagination: { current_page: 1, page_size: 10, total_pages: 1, total: 3, from: 1, to: 3 },
    });
    const second = (await t.api({ path: '/ai/conversations/1/orders', key: KEYS.server, query: { page: '2', page_size: '2' } })).json();
    expect([second.result.map((o: { id: number }) => o.id), second.pagination.total]).toEqual([[1], 3]);
    const past = (await t.api({ path: '/ai/conversations/1/orders', key: KEYS.server, query: { page: '9' } })).json();
    expect([past.result, past.pagination.total]).toEqual([[], 3]);
    for (const [path, key] of [
      ['/ai/conversations/2/orders', KEYS.owner],
      ['/ai/conversations/999/orders', KEYS.server],
      ['/ai/conversations/1/orders', KEYS.otherServer],
    ] as const) {
      const denied = await t.api({ path, key, project: key === KEYS.otherServer ? 'other' : 'acme' });
      expect([denied.statusCode, denied.json().code], path).toEqual([400, 'ERROR_AI_CONVERSATION_NOT_FOUND']);
    }
  });

  it('an order whose summary.total is not a number answers total null, never a 5xx; a decimal string is its number', async () => {
    const res = await t.api({ path: '/ai/conversations/3/orders', key: KEYS.server });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().result.map((o: { id: number; total: unknown }) => [o.id, o.total])).toEqual([
      [8, null],
      [7, null],
      [6, null],
      [5, 23.4],
      [4, 1],
    ]);
    const full = await t.api({ path: '/ai/orders/6', key: KEYS.server });
    expect([full.statusCode, full.json().result.summary.total]).toEqual([200, null]);
  });

  it('GET /favicon.ico answers with an icon (no 404 on every console load)', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/favicon.ico' });
    expect([res.statusCode, res.headers['content-type']]).toEqual([200, 'image/svg+xml']);
    expect(res.body).toContain('<svg');
  });

  it('a note (a non-public system message by a user) is never sent and never unread', async () => {
    const before = (await t.api({ path: '/ai/conversations/1', key: KEYS.server, query: { params: 'unread_count' } })).json().result
      .unread_count;
    const note = await t.api({
      method: 'POST',
      path: '/ai/conversations/1/messages',
      key: KEYS.admin,
      body: { role: 'system', content: `Customer prefers a call (${engine})`, public: false },
    });
    expect(note.statusCode, note.body).toBe(200);
    expect(note.json().result).toMatchObject({ role: 'system', public: false, author_id: USERS.admin, delivery_status: null });
    expect(await db.sql('select 1 from ai_message_sends where message_id = ?', [note.json().result.id])).toEqual([]);
    for (const key of [KEYS.server, KEYS.owner]) {
      const after = (await t.api({ path: '/ai/conversations/1', key, query: { params: 'unread_count' } })).json().result.unread_count;
      if (key === KEYS.server) expect(after).toBe(before);
      else expect(after).toBeLessThanOrEqual(1);
    }
  });
});
