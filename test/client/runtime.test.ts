import { createHmac } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, TEST_CREDENTIALS_KEY, type TestDatabase } from '../support/db.js';
import { ensureBuilt } from '../support/dist.js';
import { baseFixture, KEYS } from '../support/fixtures.js';
import { startServe, stopServe, type ServeProcess } from '../support/serve-process.js';
import { until } from '../support/webhook-receiver.js';
import { startWhatsAppFake, type WhatsAppFake } from '../support/whatsapp-fake.js';

/**
 * The example agent runtime (clients/typescript/example-runtime.ts, written with the generated client and
 * openapi-fetch) against a real `serve` and the fake Cloud API: its replies reach WhatsApp as buttons, a
 * list, a document and text, the conversation ends handed off, and a webhook signature it verifies is ours.
 * Needs openapi-fetch (not a dependency yet): skipped, saying so, without it.
 */
const hasOpenapiFetch = (() => {
  try {
    createRequire(__filename).resolve('openapi-fetch');
    return true;
  } catch {
    return false;
  }
})();
if (!hasOpenapiFetch) console.warn('openapi-fetch is not installed: the example runtime does not run (test/client/runtime.test.ts)');

/** The runtime's module, loaded by path: the root tsconfig does not compile clients/ (it needs openapi-fetch). */
interface Runtime {
  runAgent: (opts: {
    baseUrl: string;
    apiKey: string;
    project: string;
    conversationId: number;
    menu: { bytes: Uint8Array; filename: string; type: string };
  }) => Promise<{ contact: string | null; sent: number[]; uploaded: string; unread: number; handler: string; firstEvent: string | null }>;
  verifyWebhook: (secret: string, headers: Record<string, string | undefined>, rawBody: string) => boolean;
}
const RUNTIME = path.resolve(__dirname, '..', '..', 'clients', 'typescript', 'example-runtime.ts');
const loadRuntime = async (): Promise<Runtime> => (await import(RUNTIME)) as Runtime;

const creds = { waba_id: 'waba-rt', phone_number_id: 'phone-rt', access_token: 'token-rt', app_secret: 'secret-rt' };

describe.skipIf(!hasOpenapiFetch)('the example agent runtime against a real serve', () => {
  let db: TestDatabase;
  let fake: WhatsAppFake;
  let server: ServeProcess;
  let conversationId: number;

  beforeAll(async () => {
    await ensureBuilt();
    db = await createTestDatabase();
    fake = await startWhatsAppFake();
    fake.addAccount({ ...creds, templates: [] });
    const agent = {
      id: 1,
      business_id: 1,
      name: 'Runtime',
      provider: 'whatsapp',
      provider_type: 'chat',
      provider_external_id: 'rt',
      enabled: true,
      credentials: creds,
    };
    await db.load(baseFixture({ agents: [agent] }));
    const [{ id: projectId }] = await db.sql<{ id: number }>("select id from projects where code = 'acme'");
    const [row] = await db.sql<{ id: number }>(
      `insert into ai_conversations (project_id, agent_id, business_id, contact, status, usage, last_inbound_at)
       values (?, 1, 1, '34700000001', 'active', '{}', now() - interval '1 minute') returning id`,
      [projectId],
    );
    conversationId = row.id;
    await db.sql(
      `insert into ai_messages (project_id, conversation_id, role, content, public, external_id, created_at)
       values (?, ?, 'user', 'Do you deliver?', true, 'wamid.RT1', now() - interval '1 minute')`,
      [projectId, conversationId],
    );
    server = await startServe(db.url, { WHATSAPP_API_URL: fake.url, CREDENTIALS_KEY: TEST_CREDENTIALS_KEY });
  }, 180_000);
  afterAll(async () => {
    await stopServe(server ? [server] : []);
    await fake?.close();
    await db?.orm.close();
  });

  it('reads, replies with buttons, a list, a file and text, marks seen, hands off and reads the stream', async () => {
    const { runAgent } = await loadRuntime();
    const report = await runAgent({
      baseUrl: server.base,
      apiKey: KEYS.server,
      project: 'acme',
      conversationId,
      menu: { bytes: new TextEncoder().encode('%PDF-1.4 menu'), filename: 'menu.pdf', type: 'application/pdf' },
    });
    expect(report.contact).toBe('34700000001');
    expect(report.sent).toHaveLength(4);
    expect(report.handler).toBe('human');
    expect(report.firstEvent).toBeTruthy();
    await until(() => fake.requestsTo('send').length >= 4, 20_000, 'four replies sent');
    expect(fake.requestsTo('send').map((r) => (r.body as { type: string }).type)).toEqual([
      'interactive',
      'interactive',
      'document',
      'text',
    ]);
  });

  it('verifies a webhook signature and refuses a forged one', async () => {
    const { verifyWebhook } = await loadRuntime();
    const body = JSON.stringify({ id: 1, type: 'message.created', created_at: new Date().toISOString(), data: {} });
    const timestamp = String(Math.floor(Date.now() / 1000));
    const signature = `sha256=${createHmac('sha256', 'whsec').update(`${timestamp}.${body}`).digest('hex')}`;
    const headers = { 'x-ordergraph-timestamp': timestamp, 'x-ordergraph-signature': signature };
    expect(verifyWebhook('whsec', headers, body)).toBe(true);
    expect(verifyWebhook('whsec', headers, `${body} `)).toBe(false);
    expect(verifyWebhook('other', headers, body)).toBe(false);
  });
});
