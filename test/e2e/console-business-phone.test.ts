import 'reflect-metadata';
import fs from 'node:fs';
import path from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppConfig } from '../../src/config.js';
import { seedDemo, type DemoSecrets } from '../../src/fixtures/demo.js';
import { startApp, type TestApp } from '../support/app.js';
import { BROWSER_ZONE, HAVE_CHROMIUM, launchChromium, warnIfNoChromium } from '../support/chromium.js';
import { createTestDatabase, TEST_CREDENTIALS_KEY, testCipher, type TestDatabase } from '../support/db.js';
import { MetaWebhooks } from '../support/whatsapp-fake.js';

const OUT = path.resolve(__dirname, '..', 'artifacts');
const CREDS = {
  waba_id: 'bp-waba',
  phone_number_id: 'bp-phone',
  access_token: 'EAAG-bp',
  app_secret: 'bp-secret',
  verify_token: 'bp-verify',
};
const CONTACT = '34600999111';

warnIfNoChromium('console business phone e2e');

/** CONTRACT §13.7 in a real browser: an echo from the phone, an edited message, a deleted one, the ad's card; English and Arabic at 390 px. */
describe.skipIf(!HAVE_CHROMIUM)('/console shows the business phone, edits, deletions and ads (CONTRACT §13.7)', () => {
  let db: TestDatabase;
  let t: TestApp;
  let browser: Browser;
  let origin: string;
  let demo: DemoSecrets;
  let meta: MetaWebhooks;
  let conversationId: number;
  const ids: Record<string, number> = {};
  const t0 = Math.floor(Date.now() / 1000) - 600;

  const change = (field: string, value: Record<string, unknown>) => ({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: CREDS.waba_id,
        changes: [{ field, value: { messaging_product: 'whatsapp', metadata: { phone_number_id: CREDS.phone_number_id }, ...value } }],
      },
    ],
  });
  const customer = (items: Record<string, unknown>[]) =>
    meta.post(
      change('messages', { contacts: [{ wa_id: CONTACT, profile: { name: 'Lucía Fernández' } }], messages: items }),
      CREDS.app_secret,
    );
  const idOf = async (external: string) =>
    (await db.sql<{ id: number }>('select id from ai_messages where external_id = ?', [external]))[0].id;

  beforeAll(async () => {
    db = await createTestDatabase();
    demo = (await seedDemo(db.orm, { credentialsKey: TEST_CREDENTIALS_KEY } as AppConfig))!;
    const [{ id: projectId }] = await db.sql<{ id: number }>("select id from projects where code = 'demo'");
    await db.sql('update ai_agents set credentials = ? where id = 1 and project_id = ?', [testCipher.encrypt(CREDS), projectId]);
    await db.sql("update ai_conversations set last_message_at = least(last_message_at, now() - interval '3 days') where project_id = ?", [
      projectId,
    ]);
    t = await startApp('mercurius', db);
    origin = await t.listen();
    meta = new MetaWebhooks(`${origin}/v400/en/demo/ai/webhooks/whatsapp`);
    const text = (id: string, body: string, at: number, extra: Record<string, unknown> = {}) => ({
      id,
      from: CONTACT,
      timestamp: String(at),
      type: 'text',
      text: { body },
      ...extra,
    });
    const referral = {
      source_url: 'https://fb.me/2x1-pizza',
      source_id: 'ad-2x1',
      source_type: 'ad',
      headline: '2×1 pizza on Tuesdays',
      body: 'Order on WhatsApp and get a second pizza free',
      ctwa_clid: 'clid-abc',
    };
    await customer([text('wamid.bp.ad', 'Hola, vi el anuncio', t0, { referral })]);
    await customer([text('wamid.bp.order', '2 pizzas margarita', t0 + 10)]);
    await customer([
      {
        id: 'wamid.bp.edit',
        from: CONTACT,
        timestamp: String(t0 + 40),
        type: 'edit',
        edit: { original_message_id: 'wamid.bp.order', message: { type: 'text', text: { body: '3 pizzas margarita' } } },
      },
    ]);
    await customer([text('wamid.bp.oops', 'mi tarjeta es 4111…', t0 + 50)]);
    await customer([
      {
        id: 'wamid.bp.revoke',
        from: CONTACT,
        timestamp: String(t0 + 60),
        type: 'revoke',
        revoke: { original_message_id: 'wamid.bp.oops' },
      },
    ]);
    await meta.post(
      change('smb_message_echoes', {
        message_echoes: [
          {
            from: '15550001111',
            to: CONTACT,
            id: 'wamid.bp.echo',
            timestamp: String(t0 + 70),
            type: 'text',
            text: { body: 'Marchando, en 30 minutos' },
          },
        ],
      }),
      CREDS.app_secret,
    );
    for (const k of ['ad', 'order', 'oops', 'echo']) ids[k] = await idOf(`wamid.bp.${k}`);
    [{ conversation_id: conversationId }] = await db.sql<{ conversation_id: number }>(
      'select conversation_id from ai_messages where id = ?',
      [ids.ad],
    );
    browser = await launchChromium();
    fs.mkdirSync(OUT, { recursive: true });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await db?.orm.close();
  });

  async function open(query: string, width: number) {
    const context = await browser.newContext({ viewport: { width, height: 900 }, timezoneId: BROWSER_ZONE });
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (err) => pageErrors.push(err.message));
    await page.goto(`${origin}/console?project=demo${query}`);
    await page.locator('input[name="method"][value="password"]').check();
    await page.locator('#email').fill(demo.email);
    await page.locator('#password').fill(demo.password);
    await page.locator('#signin-form button[type="submit"]').click();
    const item = page.locator(`#conversations button[data-id="${conversationId}"]`);
    await expect.poll(() => item.count(), { timeout: 15_000 }).toBe(1);
    await item.click();
    await expect.poll(() => page.locator(`#messages li[data-id="${ids.echo}"]`).count(), { timeout: 15_000 }).toBe(1);
    return { context, page, pageErrors };
  }
  const li = (page: Page, id: number) => page.locator(`#messages li[data-id="${id}"]`);
  async function shoot(page: Page, file: string) {
    await page.evaluate("document.getElementById('messages').style.maxHeight = 'none'");
    await page.locator('#thread').screenshot({ path: file });
  }

  it('in English: the echo marked as sent from the phone, "edited" with the earlier version on demand, the deleted message, the ad', async () => {
    const { context, page, pageErrors } = await open('&lang=en', 1280);
    expect(await li(page, ids.echo).locator('.from-phone').textContent()).toBe('Sent from the WhatsApp Business app');
    expect(await li(page, ids.order).locator('.content').textContent()).toBe('3 pizzas margarita');
    const edited = li(page, ids.order).locator('details.edited');
    expect(await edited.locator('summary').textContent()).toBe('edited · Earlier versions (1)');
    expect(await edited.locator('ol.edits').isVisible()).toBe(false);
    await edited.locator('summary').click();
    expect(await edited.locator('ol.edits li').innerText()).toContain('2 pizzas margarita');
    expect(await li(page, ids.oops).innerText()).toContain('This message was deleted');
    expect(await li(page, ids.oops).innerText()).not.toContain('4111');
    const ad = li(page, ids.ad).locator('.ad-card');
    expect(await ad.locator('.ad-headline').textContent()).toBe('2×1 pizza on Tuesdays');
    expect(await ad.locator('.ad-body').textContent()).toBe('Order on WhatsApp and get a second pizza free');
    expect(await ad.locator('a.ad-link').getAttribute('href')).toBe('https://fb.me/2x1-pizza');
    // the handoff the echo caused: a person handles the conversation, and the mark says why
    expect(await page.locator('#handler').textContent()).toBe('Handled by a person');
    expect(await li(page, ids.echo).locator('.from-phone').getAttribute('title')).toBe(
      'A person answered from the phone: the AI stopped answering this conversation',
    );
    await shoot(page, path.join(OUT, 'console-business-phone-en.png'));
    expect(pageErrors).toEqual([]);
    await context.close();
  }, 60_000);

  it('in Arabic at 390 px: the same marks in Arabic, nothing wider than the screen', async () => {
    const { context, page, pageErrors } = await open('&lang=ar', 390);
    expect(await page.evaluate('document.documentElement.dir')).toBe('rtl');
    expect(await li(page, ids.echo).locator('.from-phone').textContent()).toBe('أُرسلت من تطبيق واتساب للأعمال');
    expect(await li(page, ids.oops).innerText()).toContain('تم حذف هذه الرسالة');
    await li(page, ids.order).locator('details.edited summary').click();
    expect(await li(page, ids.order).locator('details.edited summary').textContent()).toContain('معدّلة');
    expect(await li(page, ids.ad).locator('a.ad-link').textContent()).toBe('فتح الإعلان ↗');
    await shoot(page, path.join(OUT, 'console-business-phone-ar-390.png'));
    expect(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBe(0);
    expect(pageErrors).toEqual([]);
    await context.close();
  }, 60_000);

  it("the agents page shows how far the phone's history import got", async () => {
    const history = {
      object: 'whatsapp_business_account',
      entry: [
        {
          id: CREDS.waba_id,
          changes: [
            {
              field: 'history',
              value: {
                metadata: { phone_number_id: CREDS.phone_number_id },
                history: [{ metadata: { phase: '0', chunk_order: '1', progress: '40' } }],
              },
            },
          ],
        },
      ],
    };
    expect((await meta.post(history, CREDS.app_secret)).status).toBe(200);
    const { context, page, pageErrors } = await open('&lang=es', 1280);
    const row = page.locator('#agents-rows tr[data-id="1"]');
    await expect.poll(() => row.locator('.history').count(), { timeout: 15_000 }).toBe(1);
    expect(await row.locator('.history').textContent()).toBe('Historial del teléfono: 40% · 0 mensajes importados');
    expect(pageErrors).toEqual([]);
    await context.close();
  }, 60_000);

  it('the agents page says why an offboarded agent is disabled', async () => {
    const offboard = {
      object: 'whatsapp_business_account',
      entry: [
        { id: CREDS.waba_id, changes: [{ field: 'account_update', value: { phone_number: '15550001111', event: 'ACCOUNT_OFFBOARDED' } }] },
      ],
    };
    expect((await meta.post(offboard, CREDS.app_secret)).status).toBe(200);
    const { context, page, pageErrors } = await open('&lang=en', 1280);
    const row = page.locator('#agents-rows tr[data-id="1"]');
    await expect.poll(() => row.locator('.offboarded').count(), { timeout: 15_000 }).toBe(1);
    expect(await row.locator('.offboarded').textContent()).toBe(' The number left the WhatsApp Cloud API (offboarded)');
    expect(pageErrors).toEqual([]);
    await context.close();
  }, 60_000);
});
