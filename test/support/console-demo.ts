import type { AppConfig } from '../../src/config.js';
import { seedDemo, type DemoSecrets } from '../../src/fixtures/demo.js';
import { TEST_CREDENTIALS_KEY, testCipher, type TestDatabase } from './db.js';
import { startWhatsAppFake, type WhatsAppFake } from './whatsapp-fake.js';

/**
 * The demo project the console tests drive: seeded, its agent 1 on a WhatsApp fake (`creds`) holding an APPROVED
 * `order_ready` template, and the demo's own live conversations moved three days back (so those a test writes are
 * the newest).
 */
export async function seedConsoleDemo(
  db: TestDatabase,
  creds: { waba_id: string; phone_number_id: string; access_token: string } & Record<string, string>,
  templateId = '2001',
): Promise<{ demo: DemoSecrets; fake: WhatsAppFake; projectId: number }> {
  const demo = (await seedDemo(db.orm, { credentialsKey: TEST_CREDENTIALS_KEY } as AppConfig))!;
  const fake = await startWhatsAppFake();
  fake.addAccount({
    ...creds,
    templates: [
      {
        id: templateId,
        name: 'order_ready',
        language: 'en',
        category: 'UTILITY',
        status: 'APPROVED',
        components: [{ type: 'BODY', text: 'Hi {{1}}, your order {{2}} is ready.' }],
      },
    ],
  });
  const [{ id: projectId }] = await db.sql<{ id: number }>("select id from projects where code = 'demo'");
  await db.sql('update ai_agents set credentials = ? where id = 1 and project_id = ?', [testCipher.encrypt(creds), projectId]);
  await db.sql(
    "update ai_conversations set last_message_at = least(last_message_at, now() - interval '3 days') where project_id = ? and status = 'active'",
    [projectId],
  );
  return { demo, fake, projectId };
}
