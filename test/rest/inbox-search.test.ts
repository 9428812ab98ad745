import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';
import { MetaWebhooks } from '../support/whatsapp-fake.js';

/**
 * CONTRACT §10.5, second pass: `last_message_at` of a conversation opened by a late delivery, `q` ignoring case and
 * accents (names, usernames, message content), `contact_username` on the record, `where` on the contact's identifiers.
 * Both engines share the database: each has its own WhatsApp agent and customers.
 */
const base = (e: number) => 300 + e * 10;
const secret = (id: number) => `app-secret-${id}`;
const agent = (id: number) => ({
  id,
  business_id: 1,
  name: `WA ${id}`,
  provider: 'whatsapp',
  provider_type: 'chat',
  provider_external_id: `wa-search-${id}`,
  enabled: true,
  credentials: { waba_id: `waba${id}`, phone_number_id: `pn${id}`, access_token: `token-${id}`, app_secret: secret(id) },
});
const DAY = 24 * 3600;
let seq = 0;

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(baseFixture({ agents: ENGINES.map((_, e) => agent(base(e))) }));
});
afterAll(() => db.orm.close());

describe.each(ENGINES.map((engine, e) => [engine, e] as const))('inbox search and late deliveries (%s)', (engine, e) => {
  const AGENT = base(e);
  const phone = (n: number) => `5255${AGENT}000${n}`;
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(engine, db);
  });
  afterAll(() => t?.close());

  /** One inbound text from `from`, dated `timestamp` (Unix seconds), with the profile given. */
  async function deliver(from: string, text: string, timestamp: number, profile: { name?: string; username?: string } = {}) {
    const body = MetaWebhooks.notification(`pn${AGENT}`, {
      messages: [{ from, id: `wamid.search.${process.pid}.${++seq}`, timestamp: String(timestamp), text }],
      contacts: [{ wa_id: from, ...profile }],
    });
    const raw = JSON.stringify(body);
    const res = await t.app.inject({
      method: 'POST',
      url: '/v400/en/acme/ai/webhooks/whatsapp',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': MetaWebhooks.signature(raw, secret(AGENT)) },
      payload: raw,
    });
    expect(res.statusCode, res.body).toBe(200);
  }
  const list = async (query: Record<string, string>) => {
    const res = await t.api({ path: '/ai/conversations', key: KEYS.server, query: { page_size: '100', ...query } });
    expect(res.statusCode, res.body).toBe(200);
    return (res.json().result as Record<string, any>[]).filter((c) => c.agent_id === AGENT);
  };
  const mine = { where: JSON.stringify({ agent_id: AGENT }) };
  const now = Math.floor(Date.now() / 1000);

  it('a conversation opened by a late delivery has its message time as last_message_at, and sorts by it', async () => {
    await deliver(phone(1), 'recent', now - 3600);
    await deliver(phone(2), 'sent yesterday, delivered now', now - DAY);
    const rows = await list({ ...mine, orderBy: '-last_message_at' });
    const late = rows.find((c) => c.contact === phone(2))!;
    expect(late.last_message_at).toBe(new Date((now - DAY) * 1000).toISOString());
    expect(new Date(late.created_at).getTime()).toBeGreaterThan(new Date(late.last_message_at).getTime());
    expect(rows.map((c) => c.contact)).toEqual([phone(1), phone(2)]);
    // an even later delivery of an older message does not move it back; a newer one moves it forward
    await deliver(phone(2), 'older still', now - 2 * DAY);
    expect((await list({ ...mine, where: JSON.stringify({ contact: phone(2) }) }))[0].last_message_at).toBe(late.last_message_at);
    await deliver(phone(2), 'now', now - 60);
    const after = await list({ ...mine, orderBy: '-last_message_at' });
    expect(after.map((c) => [c.contact, c.last_message_at])).toEqual([
      [phone(2), new Date((now - 60) * 1000).toISOString()],
      [phone(1), new Date((now - 3600) * 1000).toISOString()],
    ]);
  });

  it('q ignores case and accents, in names, usernames and messages; contact_username is on the record', async () => {
    await deliver(phone(3), 'Quiero un CAFÉ con leche', now - 30, { name: 'Lucía Muñoz', username: `ana.${engine}` });
    const contacts = async (q: string) => (await list({ q })).map((c) => c.contact);
    expect(await contacts('lucia')).toEqual([phone(3)]);
    expect(await contacts('LUCÍA')).toEqual([phone(3)]);
    expect(await contacts('munoz')).toEqual([phone(3)]);
    expect(await contacts('café con')).toEqual([phone(3)]);
    expect(await contacts('cafe CON')).toEqual([phone(3)]);
    expect(await contacts(`ANA.${engine}`)).toEqual([phone(3)]);
    expect(await contacts('lucio')).toEqual([]);
    const [row] = await list({ q: 'lucia' });
    expect(row).toMatchObject({ contact_name: 'Lucía Muñoz', contact_username: `ana.${engine}` });
    // a later delivery without a username keeps it; one with another replaces it
    await deliver(phone(3), 'gracias', now - 20, { name: 'Lucía Muñoz' });
    expect((await list({ q: 'lucia' }))[0].contact_username).toBe(`ana.${engine}`);
    await deliver(phone(3), 'hola', now - 10, { name: 'Lucía Muñoz', username: `lucia.${engine}` });
    expect((await list({ q: 'lucia' }))[0].contact_username).toBe(`lucia.${engine}`);
  });

  it('where takes contact, contact_user_id and contact_username (exact values)', async () => {
    const ids = async (where: unknown) => (await list({ where: JSON.stringify(where) })).map((c) => c.contact);
    expect(await ids({ contact: phone(3) })).toEqual([phone(3)]);
    expect(await ids({ contact_username: `lucia.${engine}` })).toEqual([phone(3)]);
    expect(await ids({ contact_username: 'lucia' })).toEqual([]);
    expect(await ids({ contact_user_id: 'US.nobody' })).toEqual([]);
    expect(await ids([{ attribute: 'contact', value: { condition: 'in', value: [phone(1), phone(2)] } }])).toEqual([phone(1), phone(2)]);
    // params selects contact_username
    const res = await t.api({
      path: '/ai/conversations',
      key: KEYS.server,
      query: { params: 'contact_username', where: JSON.stringify({ contact: phone(3) }) },
    });
    expect(res.json().result).toEqual([{ id: expect.any(Number), contact_username: `lucia.${engine}`, messages_count: 3 }]);
  });
});
