import 'reflect-metadata';
import path from 'node:path';
import { type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppConfig } from '../../src/config.js';
import { seedDemo, type DemoSecrets } from '../../src/fixtures/demo.js';
import { startApp, type TestApp } from '../support/app.js';
import { HAVE_CHROMIUM, launchChromium, warnIfNoChromium } from '../support/chromium.js';
import { createTestDatabase, TEST_CREDENTIALS_KEY, type TestDatabase } from '../support/db.js';
import { startWhatsAppFake, type WhatsAppFake } from '../support/whatsapp-fake.js';

const DOCS = path.resolve(__dirname, '..', '..', 'docs');
const TOKEN = 'EAAG-console-agents-token-never-shown';

warnIfNoChromium('console agents e2e');

/** CONTRACT §10.4: the console's agents page in a real browser, offline, against the demo project and a fake Cloud API. */
describe.skipIf(!HAVE_CHROMIUM)('/console agents page in a real browser', () => {
  let db: TestDatabase;
  let t: TestApp;
  let fake: WhatsAppFake;
  let browser: Browser;
  let origin: string;
  let demo: DemoSecrets;

  beforeAll(async () => {
    db = await createTestDatabase();
    demo = (await seedDemo(db.orm, { credentialsKey: TEST_CREDENTIALS_KEY } as AppConfig))!;
    fake = await startWhatsAppFake();
    fake.addAccount({
      waba_id: 'demo-waba',
      phone_number_id: 'demo-phone',
      access_token: TOKEN,
      templates: [],
      display_phone_number: '+34 600 123 456',
      verified_name: 'Pizzeria Centro',
      quality_rating: 'GREEN',
    });
    t = await startApp('mercurius', db, { config: { whatsappApiUrl: fake.url, providerTimeoutMs: 2000 } });
    origin = await t.listen();
    // the demo's WhatsApp agent gets a token the fake knows; a second one has a token it refuses
    const api = (method: 'PATCH' | 'POST', url: string, body: unknown) =>
      t.api({ method, path: url, project: 'demo', key: demo.serverKey, body });
    expect((await api('PATCH', '/ai/agents/1', { credentials: { access_token: TOKEN } })).statusCode).toBe(200);
    const second = await api('POST', '/ai/agents', {
      name: 'Pizza bot Norte',
      business_id: 2,
      provider: 'whatsapp',
      provider_type: 'chat',
      provider_external_id: 'demo-whatsapp-norte',
      credentials: { waba_id: 'demo-waba', phone_number_id: 'demo-phone-norte', access_token: 'revoked-token' },
    });
    expect(second.statusCode).toBe(200);
    fake.addAccount({ waba_id: 'demo-waba', phone_number_id: 'demo-phone-norte', access_token: 'the-current-token', templates: [] });
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await fake?.close();
    await db?.orm.close();
  });

  it('lists the agents, checks credentials (success and refusal) and disables an agent', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const blocked: string[] = [];
    await context.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (url.hostname !== '127.0.0.1') {
        blocked.push(url.href);
        return route.abort('blockedbyclient');
      }
      return route.continue();
    });
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (err) => pageErrors.push(err.message));
    const answers: string[] = [];
    page.on('response', (res) => {
      if (res.url().includes('/ai/agents'))
        void res.text().then(
          (body) => answers.push(body),
          () => undefined,
        );
    });

    await page.goto(`${origin}/console?project=demo`);
    await page.locator('input[name="method"][value="key"]').check();
    await page.getByLabel('Server key', { exact: true }).fill(demo.serverKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const rows = page.locator('#agents-rows tr');
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(4);
    expect(await page.locator('#agents-status').innerText()).toBe('4 agents');
    const pizza = page.locator('#agents-rows tr[data-id="1"]');
    expect(await pizza.innerText()).toContain('access_token ✓');
    expect(await pizza.innerText()).toContain('app_secret –');

    await page.getByRole('button', { name: 'Check the credentials of Pizza bot', exact: true }).click();
    await expect
      .poll(() => pizza.locator('.check-result').innerText(), { timeout: 10_000 })
      .toBe('OK: +34 600 123 456 · Pizzeria Centro · quality GREEN');
    const norte = page.locator('#agents-rows tr', { hasText: 'demo-whatsapp-norte' });
    await page.getByRole('button', { name: 'Check the credentials of Pizza bot Norte' }).click();
    await expect
      .poll(() => norte.locator('.check-result').innerText(), { timeout: 10_000 })
      .toContain('Failed: The provider rejected the request: Invalid OAuth access token');

    // disabling asks first: Cancel changes nothing, Disable does
    await page.getByRole('button', { name: 'Disable Web helper' }).click();
    const dialog = page.getByRole('dialog', { name: 'Disable Web helper?' });
    await expect.poll(() => dialog.isVisible()).toBe(true);
    expect(await dialog.innerText()).toContain('Its customers will not be answered');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => dialog.isVisible()).toBe(false);
    expect((await t.api({ path: '/ai/agents/2', project: 'demo', key: demo.serverKey })).json().result.enabled).toBe(true);
    await page.getByRole('button', { name: 'Disable Web helper' }).click();
    await dialog.getByRole('button', { name: 'Disable', exact: true }).click();
    await expect.poll(() => page.locator('#agents-rows tr', { hasText: 'Web helper' }).locator('.pill').innerText()).toBe('disabled');
    expect(await page.locator('#agents-status').innerText()).toContain('Web helper is disabled');
    const stored = await t.api({ path: '/ai/agents/2', project: 'demo', key: demo.serverKey });
    expect(stored.json().result.enabled).toBe(false);
    await expect.poll(() => page.getByRole('button', { name: 'Enable Web helper' }).count()).toBe(1);

    await page.locator('#agents').scrollIntoViewIfNeeded();
    await page.locator('#agents').screenshot({ path: path.join(DOCS, 'console-agents.png') });

    expect(blocked).toEqual([]);
    expect(pageErrors).toEqual([]);
    expect(answers.length).toBeGreaterThan(3);
    for (const body of answers) expect(body).not.toContain(TOKEN);
    expect(await page.content()).not.toContain(TOKEN);
    await context.close();
  }, 60_000);
});
