import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';
import { MetaWebhooks } from '../support/whatsapp-fake.js';

/**
 * CONTRACT §13.4 (the phone's address book) and §13.3 (the phone's history) over a real socket and
 * a real database, under both engines (each engine its own agent). Bodies are signed as Meta signs them.
 */
const base = (e: number) => 560 + e * 10;
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
const phoneNo = () => `52156${String(Date.now() % 1e6).padStart(6, '0')}${String(++seq).padStart(3, '0')}`;
const now = () => String(Math.floor(Date.now() / 1000));

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  const agents = [0, 1].map((e) => ({
    id: base(e) + 1,
    business_id: 1,
    name: `WA ${base(e) + 1}`,
    provider: 'whatsapp',
    provider_type: 'chat',
    provider_external_id: `wa-${base(e) + 1}`,
    enabled: true,
    credentials: creds(base(e) + 1),
  }));
  await db.load(baseFixture({ agents }));
});
afterAll(() => db.orm.close());

describe.each(ENGINES.map((engine, e) => [engine, e] as const))('the phone (%s)', (engine, e) => {
  const AGENT = base(e) + 1;
  let t: TestApp;
  let meta: MetaWebhooks;
  beforeAll(async () => {
    t = await startApp(engine, db);
    meta = new MetaWebhooks(`${await t.listen()}/v400/en/acme/ai/webhooks/whatsapp`);
  });
  afterAll(() => t.close());

  const change = (field: string, value: Record<string, unknown>) => ({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: `waba${AGENT}`,
        changes: [{ field, value: { messaging_product: 'whatsapp', metadata: { phone_number_id: `pn${AGENT}` }, ...value } }],
      },
    ],
  });
  const inbound = (phone: string, profile: string, body = 'hola') =>
    meta.post(
      change('messages', {
        contacts: [{ wa_id: phone, profile: { name: profile } }],
        messages: [{ id: wamid('in'), from: phone, timestamp: now(), type: 'text', text: { body } }],
      }),
      secret(AGENT),
    );
  const book = (items: unknown[]) => meta.post(change('smb_app_state_sync', { state_sync: items }), secret(AGENT));
  const contact = (action: 'add' | 'remove', phone: string, at: number, names: Record<string, string> = {}) => ({
    type: 'contact',
    contact: { phone_number: phone, ...names },
    action,
    metadata: { timestamp: String(at) },
  });
  const namesOf = async (phone: string) =>
    (
      await db.sql<{ contact_name: string | null }>(
        'select contact_name from ai_conversations where agent_id = ? and contact = ? order by id',
        [AGENT, phone],
      )
    ).map((r) => r.contact_name);
  const listed = async (phone: string) =>
    (await t.api({ path: '/ai/conversations', query: { q: phone, orderBy: 'id', page_size: '100' }, key: KEYS.server }))
      .json()
      .result.map((c: { contact_name: string | null }) => c.contact_name);

  describe('§13.4 the address book', () => {
    it("the business's name wins over profile.name, on old and new conversations; remove falls back to the newest profile.name", async () => {
      const phone = phoneNo();
      const t0 = Math.floor(Date.now() / 1000);
      await inbound(phone, 'Lu');
      const [first] = await db.sql<{ id: number }>('select id from ai_conversations where agent_id = ? and contact = ?', [AGENT, phone]);
      await db.sql(`update ai_conversations set status = 'closed', status_reason = 'completed', closed_at = now() where id = ?`, [
        first.id,
      ]);
      await inbound(phone, 'Lucy');
      expect(await namesOf(phone)).toEqual(['Lu', 'Lucy']);

      const added = await book([contact('add', phone, t0, { full_name: 'Lucía Pérez', first_name: 'Lucía' })]);
      expect(added.status).toBe(200);
      expect(await namesOf(phone)).toEqual(['Lucía Pérez', 'Lucía Pérez']);
      expect(await listed(phone)).toEqual(['Lucía Pérez', 'Lucía Pérez']);

      // a delivery keeps the business's name; a new conversation opens with it
      await inbound(phone, 'Lucy Two');
      expect(await namesOf(phone)).toEqual(['Lucía Pérez', 'Lucía Pérez']);
      await db.sql(
        `update ai_conversations set status = 'closed', status_reason = 'completed', closed_at = now() where agent_id = ? and contact = ?`,
        [AGENT, phone],
      );
      await inbound(phone, 'Lucy Three');
      expect(await namesOf(phone)).toEqual(['Lucía Pérez', 'Lucía Pérez', 'Lucía Pérez']);

      // only first_name: recorded
      await book([contact('add', phone, t0 + 1, { first_name: 'Lucía' })]);
      expect(await namesOf(phone)).toEqual(['Lucía', 'Lucía', 'Lucía']);

      // remove: each conversation's newest profile.name
      await book([contact('remove', phone, t0 + 2)]);
      expect(await namesOf(phone)).toEqual(['Lu', 'Lucy Two', 'Lucy Three']);
      await inbound(phone, 'Lucy Four');
      expect(await namesOf(phone)).toEqual(['Lu', 'Lucy Two', 'Lucy Four']);
    });

    it('a change older than the recorded one changes nothing (an add after a newer remove, too)', async () => {
      const phone = phoneNo();
      const t0 = Math.floor(Date.now() / 1000);
      await inbound(phone, 'Pepe');
      await book([contact('add', phone, t0 + 10, { full_name: 'José (viernes)' })]);
      await book([contact('add', phone, t0 + 5, { full_name: 'José viejo' })]);
      expect(await namesOf(phone)).toEqual(['José (viernes)']);
      await book([contact('remove', phone, t0 + 20)]);
      expect(await namesOf(phone)).toEqual(['Pepe']);
      await book([contact('add', phone, t0 + 15, { full_name: 'José otra vez' })]);
      expect(await namesOf(phone)).toEqual(['Pepe']);
      // the same timestamp applies (an edit in the same second)
      await book([contact('add', phone, t0 + 20, { full_name: 'José' })]);
      expect(await namesOf(phone)).toEqual(['José']);
    });

    it('a name recorded before any conversation names the first one; unusable items are skipped, not a 500', async () => {
      const phone = phoneNo();
      const res = await book([
        contact('add', phone, Number(now()), { full_name: 'Marta' }),
        { type: 'contact', contact: { phone_number: 'x' }, action: 'add', metadata: { timestamp: now() } },
        { type: 'contact', contact: { phone_number: phone, full_name: 'Nope' }, action: 'add' },
        'junk',
      ]);
      expect(res.status).toBe(200);
      await inbound(phone, 'marta_99');
      expect(await namesOf(phone)).toEqual(['Marta']);
      const [row] = await db.sql<{ profile_name: string }>('select profile_name from ai_conversations where agent_id = ? and contact = ?', [
        AGENT,
        phone,
      ]);
      expect(row.profile_name).toBe('marta_99');
    });
  });
});
