import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, testCipher, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';

/**
 * Webhook registration (CONTRACT §9.4): CRUD, levels, validation, the 20-per-project cap, the
 * private-network refusal, isolation between projects; and the outbox row written with the event.
 * Deliveries themselves: test/rest/webhook-delivery.test.ts.
 */
const agent = (id: number, ext: string, business_id: number | null = 1) => ({
  id,
  business_id,
  name: `Agent ${ext}`,
  provider: 'whatsapp',
  provider_type: 'chat',
  provider_external_id: ext,
  enabled: true,
});

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  const fixture = baseFixture({ agents: ENGINES.map((e, i) => agent(10 + i, `hook-${e}`)) });
  fixture.projects[1].agents = [agent(101, 'other-hook-bot', 101)];
  fixture.projects.push({
    code: 'noai',
    name: 'No AI',
    ai_enabled: false,
    api_keys: [{ key: 'noai-server-key-0123456789', server: true }],
  });
  await db.load(fixture);
});
afterAll(() => db.orm.close());

const webhookConfig = (allowPrivateNetworks: boolean) => ({ webhooks: { ...loadConfig({}).webhooks, allowPrivateNetworks } });
const PUBLIC_URL = 'https://93.184.216.34/ordergraph';

describe.each(ENGINES)('webhooks (%s)', (engine) => {
  let t: TestApp;
  let strict: TestApp;
  beforeAll(async () => {
    t = await startApp(engine, db, { config: webhookConfig(true) });
    strict = await startApp(engine, db, { config: webhookConfig(false) });
  });
  afterAll(async () => {
    await t.close();
    await strict.close();
  });

  const create = (body: unknown, key = KEYS.server, app = t, project = 'acme') =>
    app.api({ method: 'POST', path: '/ai/webhooks', key, body, project });

  it('creates, lists without the secret, and deletes; the secret is only in the creation answer and encrypted at rest', async () => {
    const res = await create({ url: `http://127.0.0.1:9/${engine}`, events: ['message.created', 'conversation.created'] });
    expect(res.statusCode, res.body).toBe(200);
    const created = res.json().result;
    expect(Object.keys(created).sort()).toEqual(['created_at', 'enabled', 'events', 'id', 'secret', 'url']);
    expect(created).toMatchObject({
      url: `http://127.0.0.1:9/${engine}`,
      events: ['message.created', 'conversation.created'],
      enabled: true,
    });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(new Date(created.created_at).toISOString()).toBe(created.created_at);

    const [stored] = await db.sql<{ secret: string }>('select secret from ai_webhooks where id = ?', [created.id]);
    expect(stored.secret).not.toContain(created.secret);
    expect(testCipher.decrypt(stored.secret)).toBe(created.secret);

    const list = await t.api({ path: '/ai/webhooks', key: KEYS.admin });
    expect(list.statusCode).toBe(200);
    const mine = list.json().result.find((w: { id: number }) => w.id === created.id);
    expect(mine).toEqual({ id: created.id, url: created.url, events: created.events, enabled: true, created_at: created.created_at });
    expect(list.body).not.toContain(created.secret);

    const del = await t.api({ method: 'DELETE', path: `/ai/webhooks/${created.id}`, key: KEYS.admin });
    expect(del.statusCode, del.body).toBe(200);
    expect(del.json().result).toEqual(mine);
    const again = await t.api({ method: 'DELETE', path: `/ai/webhooks/${created.id}`, key: KEYS.admin });
    expect(again.statusCode).toBe(400);
    expect(again.json().code).toBe('ERROR_WEBHOOK_NOT_FOUND');
  });

  it('enabled false is kept; ["*"] is accepted', async () => {
    const res = await create({ url: `https://93.184.216.34/all-${engine}`, events: ['*'], enabled: false });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().result).toMatchObject({ events: ['*'], enabled: false });
    await t.api({ method: 'DELETE', path: `/ai/webhooks/${res.json().result.id}`, key: KEYS.server });
  });

  it('levels 0 and server keys only: level 2 and customers get 401, anonymous 401; AI module off: 403', async () => {
    for (const key of [KEYS.owner, KEYS.customer]) {
      for (const req of [
        t.api({ path: '/ai/webhooks', key }),
        create({ url: PUBLIC_URL, events: ['*'] }, key),
        t.api({ method: 'DELETE', path: '/ai/webhooks/1', key }),
        t.api({ path: '/ai/webhooks/1/deliveries', key }),
      ]) {
        const res = await req;
        expect(res.statusCode, res.body).toBe(401);
        expect(res.json().code).toBe('ERROR_UNAUTHORIZED');
      }
    }
    expect((await t.api({ path: '/ai/webhooks' })).statusCode).toBe(401);
    const off = await t.api({ path: '/ai/webhooks', key: 'noai-server-key-0123456789', project: 'noai' });
    expect(off.statusCode).toBe(403);
    expect(off.json().code).toBe('ERROR_AI_MODULE_DISABLED');
  });

  it('bad input is a 400 ERROR_VALIDATION naming the field', async () => {
    const cases: [unknown, string][] = [
      [{ url: 'ftp://example.com/x', events: ['*'] }, 'url'],
      [{ url: 'javascript:alert(1)', events: ['*'] }, 'url'],
      [{ url: 'not a url', events: ['*'] }, 'url'],
      [{ url: `https://93.184.216.34/${'a'.repeat(2049)}`, events: ['*'] }, 'url'],
      [{ url: 42, events: ['*'] }, 'url'],
      [{ events: ['*'] }, 'url'],
      [{ url: PUBLIC_URL, events: [] }, 'events'],
      [{ url: PUBLIC_URL, events: ['order.deleted'] }, 'events'],
      [{ url: PUBLIC_URL, events: ['*', 'message.created'] }, 'events'],
      [{ url: PUBLIC_URL, events: 'message.created' }, 'events'],
      [{ url: PUBLIC_URL }, 'events'],
      [{ url: PUBLIC_URL, events: ['*'], enabled: 1 }, 'enabled'],
    ];
    for (const [body, field] of cases) {
      const res = await create(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().code).toBe('ERROR_VALIDATION');
      expect(res.json().result.join(' '), JSON.stringify(body)).toContain(field);
    }
    const exactly = await create({ url: `https://93.184.216.34/${'a'.repeat(2048 - 'https://93.184.216.34/'.length)}`, events: ['*'] });
    expect(exactly.statusCode, exactly.body).toBe(200);
    await t.api({ method: 'DELETE', path: `/ai/webhooks/${exactly.json().result.id}`, key: KEYS.server });

    for (const path of [
      '/ai/webhooks/abc',
      '/ai/webhooks/-1/deliveries',
      '/ai/webhooks/1/deliveries?page=0',
      '/ai/webhooks/1/deliveries?page_size=101',
    ]) {
      const [p, q] = path.split('?');
      const res = await t.api({
        method: p.endsWith('deliveries') ? 'GET' : 'DELETE',
        path: p,
        key: KEYS.server,
        query: q ? Object.fromEntries(new URLSearchParams(q)) : undefined,
      });
      expect(res.statusCode, path).toBe(400);
      expect(res.json().code).toBe('ERROR_VALIDATION');
    }
  });

  it('refuses loopback, private and link-local hosts (v4 and v6) unless WEBHOOK_ALLOW_PRIVATE_NETWORKS=1', async () => {
    const refused = [
      'http://127.0.0.1:8080/x',
      'http://localhost/x',
      'http://[::1]/x',
      'http://10.1.2.3/x',
      'http://172.16.0.5/x',
      'http://192.168.1.10/x',
      'http://169.254.169.254/latest/meta-data',
      'http://[fe80::1]/x',
      'http://[fd00::1]/x',
      'http://[::ffff:127.0.0.1]/x',
      'http://0.0.0.0/x',
      'http://2130706433/x',
    ];
    for (const url of refused) {
      const res = await create({ url, events: ['*'] }, KEYS.server, strict);
      expect(res.statusCode, url).toBe(400);
      expect(res.json().code).toBe('ERROR_VALIDATION');
      expect(res.json().result.join(' '), url).toContain('url');
    }
    const es = await strict.api({
      method: 'POST',
      path: '/ai/webhooks',
      key: KEYS.server,
      lang: 'es',
      body: { url: 'http://127.0.0.1/x', events: ['*'] },
    });
    expect(es.json().result[0]).toMatch(/^El campo url apunta/);
    // a public address literal needs no DNS
    const ok = await create({ url: PUBLIC_URL, events: ['*'] }, KEYS.server, strict);
    expect(ok.statusCode, ok.body).toBe(200);
    await t.api({ method: 'DELETE', path: `/ai/webhooks/${ok.json().result.id}`, key: KEYS.server });
    // allowed: the same loopback URL registers
    const allowed = await create({ url: 'http://127.0.0.1:8080/x', events: ['*'] });
    expect(allowed.statusCode).toBe(200);
    await t.api({ method: 'DELETE', path: `/ai/webhooks/${allowed.json().result.id}`, key: KEYS.server });
  });

  it('at most 20 per project: the 21st is a 400 ERROR_VALIDATION; other projects are not counted', async () => {
    await db.sql("delete from ai_webhooks where project_id = (select id from projects where code = 'acme')");
    const made = await Promise.all(Array.from({ length: 20 }, (_, i) => create({ url: `${PUBLIC_URL}/${i}`, events: ['*'] })));
    expect(made.map((r) => r.statusCode)).toEqual(Array(20).fill(200));
    const over = await create({ url: `${PUBLIC_URL}/21`, events: ['*'] });
    expect(over.statusCode).toBe(400);
    expect(over.json().code).toBe('ERROR_VALIDATION');
    expect(over.json().result[0]).toContain('20');
    const other = await create({ url: `${PUBLIC_URL}/other`, events: ['*'] }, KEYS.otherServer, t, 'other');
    expect(other.statusCode).toBe(200);
    expect((await t.api({ path: '/ai/webhooks', key: KEYS.server })).json().result).toHaveLength(20);
    await db.sql('delete from ai_webhooks');
  });

  it("another project's webhook is not found, not listed, not deletable", async () => {
    const mine = (await create({ url: `${PUBLIC_URL}/iso-${engine}`, events: ['*'] })).json().result;
    const list = await t.api({ path: '/ai/webhooks', key: KEYS.otherAdmin, project: 'other' });
    expect(list.statusCode).toBe(200);
    expect(list.json().result.map((w: { id: number }) => w.id)).not.toContain(mine.id);
    for (const req of [
      t.api({ method: 'DELETE', path: `/ai/webhooks/${mine.id}`, key: KEYS.otherServer, project: 'other' }),
      t.api({ path: `/ai/webhooks/${mine.id}/deliveries`, key: KEYS.otherServer, project: 'other' }),
      t.api({ path: '/ai/webhooks/999999/deliveries', key: KEYS.server }),
    ]) {
      const res = await req;
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('ERROR_WEBHOOK_NOT_FOUND');
    }
    // acme's key on other's project: 401
    expect((await t.api({ path: '/ai/webhooks', key: KEYS.server, project: 'other' })).statusCode).toBe(401);
    expect((await t.api({ path: '/ai/webhooks', key: KEYS.server })).json().result.map((w: { id: number }) => w.id)).toContain(mine.id);
    await t.api({ method: 'DELETE', path: `/ai/webhooks/${mine.id}`, key: KEYS.server });
  });

  it('an event enqueues one pending delivery per matching enabled webhook of its project, in its transaction', async () => {
    await db.sql('delete from ai_webhooks');
    const ids = async (body: Record<string, unknown>, key = KEYS.server, project = 'acme') =>
      (await create({ url: PUBLIC_URL, ...body }, key, t, project)).json().result.id as number;
    const all = await ids({ events: ['*'] });
    const wanted = await ids({ events: ['conversation.created'] });
    const unwanted = await ids({ events: ['message.created'] });
    const disabled = await ids({ events: ['*'], enabled: false });
    const foreign = await ids({ events: ['*'] }, KEYS.otherServer, 'other');

    const opened = await t.api({ path: `/ai/agents/hook-${engine}/conversations/current`, key: KEYS.admin });
    expect(opened.statusCode, opened.body).toBe(200);
    const [event] = await db.sql<{ id: string }>("select id from ai_events where type = 'conversation.created' and conversation_id = ?", [
      opened.json().result.id,
    ]);
    const rows = await db.sql<{ webhook_id: number; event_type: string; status: string; attempts: number }>(
      'select webhook_id, event_type, status, attempts from ai_webhook_deliveries where event_id = ? order by webhook_id',
      [event.id],
    );
    expect(rows).toEqual(
      [all, wanted].map((webhook_id) => ({ webhook_id, event_type: 'conversation.created', status: 'pending', attempts: 0 })),
    );
    expect([unwanted, disabled, foreign].some((id) => rows.some((r) => r.webhook_id === id))).toBe(false);

    const page = await t.api({ path: `/ai/webhooks/${all}/deliveries`, key: KEYS.admin });
    expect(page.statusCode, page.body).toBe(200);
    expect(page.json().pagination).toEqual({ current_page: 1, page_size: 10, total_pages: 1, total: 1, from: 1, to: 1 });
    const [delivery] = page.json().result;
    expect(delivery).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      event_id: Number(event.id),
      event_type: 'conversation.created',
      status: 'pending',
      attempts: 0,
      last_status_code: null,
      last_error: null,
      next_attempt_at: expect.any(String),
      delivered_at: null,
    });
    await db.sql('delete from ai_webhooks');
  });

  it('deliveries are paginated newest first', async () => {
    const id = (await create({ url: PUBLIC_URL, events: ['*'] })).json().result.id;
    const [{ pid }] = await db.sql<{ pid: number }>("select id as pid from projects where code = 'acme'");
    await db.sql(
      `insert into ai_webhook_deliveries (project_id, webhook_id, event_id, event_type) select ?, ?, g, 'message.created' from generate_series(1, 25) g`,
      [pid, id],
    );
    const second = await t.api({ path: `/ai/webhooks/${id}/deliveries`, key: KEYS.server, query: { page: '2', page_size: '10' } });
    expect(second.statusCode).toBe(200);
    expect(second.json().result.map((d: { event_id: number }) => d.event_id)).toEqual([15, 14, 13, 12, 11, 10, 9, 8, 7, 6]);
    expect(second.json().pagination).toEqual({ current_page: 2, page_size: 10, total_pages: 3, total: 25, from: 11, to: 20 });
    const past = await t.api({ path: `/ai/webhooks/${id}/deliveries`, key: KEYS.server, query: { page: '9' } });
    expect(past.json().result).toEqual([]);
    expect(past.json().pagination.total).toBe(25);
    // deleting the webhook deletes its log
    await t.api({ method: 'DELETE', path: `/ai/webhooks/${id}`, key: KEYS.server });
    expect(await db.sql('select 1 from ai_webhook_deliveries where webhook_id = ?', [id])).toEqual([]);
  });
});
