import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, TEST_CREDENTIALS_KEY, type TestDatabase } from '../support/db.js';
import { ensureEmitted } from '../support/dist.js';
import { baseFixture } from '../support/fixtures.js';
import { startServe, stopServe, type ServeProcess } from '../support/serve-process.js';
import { MetaWebhooks } from '../support/whatsapp-fake.js';

/**
 * CONTRACT §9.3 across processes: Meta's retries and a contact's first messages reach two real
 * `serve` processes on one database at once; each message is stored once and the contact has one
 * active conversation.
 */
const AGENT = 71;
const SECRET = 'two-process-app-secret';
const PHONE = 'pn-two-process';

let db: TestDatabase;
let servers: ServeProcess[] = [];
beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(
    baseFixture({
      agents: [
        {
          id: AGENT,
          business_id: 1,
          name: 'WA',
          provider: 'whatsapp',
          provider_type: 'chat',
          provider_external_id: 'wa-two',
          enabled: true,
          credentials: { waba_id: 'w', phone_number_id: PHONE, access_token: 't', app_secret: SECRET, verify_token: 'v' },
        },
      ],
    }),
  );
  await db.load({ projects: [{ code: 'demo', name: 'Demo' }] }); // keeps serve from seeding its demo project
  await ensureEmitted('whatsapp-processes.test');
  const env = { DATABASE_DIRECT_URL: db.directUrl, CREDENTIALS_KEY: TEST_CREDENTIALS_KEY };
  servers = await Promise.all([startServe(db.url, env), startServe(db.url, env)]);
}, 300_000);
afterAll(async () => {
  await stopServe(servers);
  await db.orm.close();
});

const metas = () => servers.map((s) => new MetaWebhooks(`${s.base}/v400/en/acme/ai/webhooks/whatsapp`));

it('one message id delivered to both processes at once is stored once', async () => {
  const id = 'wamid.two-process.same';
  const body = MetaWebhooks.notification(PHONE, { messages: [{ id, from: '34611111111', text: 'hola' }] });
  const results = await Promise.all(Array.from({ length: 12 }, (_, i) => metas()[i % 2].post(body, SECRET)));
  expect(results.map((r) => r.status)).toEqual(Array(12).fill(200));
  expect(results.reduce((n, r) => n + r.body.result.messages, 0)).toBe(1);
  expect(await db.sql('select 1 from ai_messages where external_id = ?', [id])).toHaveLength(1);
});

it("a contact's first messages through both processes at once open one active conversation", async () => {
  const from = '34622222222';
  const results = await Promise.all(
    Array.from({ length: 12 }, (_, i) =>
      metas()[i % 2].post(
        MetaWebhooks.notification(PHONE, { messages: [{ id: `wamid.two-process.first.${i}`, from, text: `m${i}` }] }),
        SECRET,
      ),
    ),
  );
  expect(results.reduce((n, r) => n + r.body.result.messages, 0)).toBe(12);
  const convs = await db.sql<{ id: number }>('select id from ai_conversations where agent_id = ? and contact = ?', [AGENT, from]);
  expect(convs).toHaveLength(1);
  const [{ n }] = await db.sql<{ n: number }>('select count(*)::int as n from ai_messages where conversation_id = ?', [convs[0].id]);
  expect(n).toBe(12);
});

it('a body signed with another secret is refused by both', async () => {
  for (const meta of metas()) {
    const res = await meta.forged(
      MetaWebhooks.notification(PHONE, { messages: [{ id: 'wamid.two-process.forged', from: '34633333333', text: 'x' }] }),
      'not-the-secret',
    );
    expect(res.status).toBe(401);
  }
  expect(await db.sql("select 1 from ai_messages where external_id = 'wamid.two-process.forged'")).toHaveLength(0);
});
