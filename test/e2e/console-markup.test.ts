import 'reflect-metadata';
import fs from 'node:fs';
import path from 'node:path';
import { type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppConfig } from '../../src/config.js';
import { seedDemo, type DemoSecrets } from '../../src/fixtures/demo.js';
import { startApp, type TestApp } from '../support/app.js';
import { HAVE_CHROMIUM, launchChromium, warnIfNoChromium } from '../support/chromium.js';
import { createTestDatabase, TEST_CREDENTIALS_KEY, type TestDatabase } from '../support/db.js';

const OUT = path.resolve(__dirname, '..', 'artifacts');
/**
 * Issue 39 finding 1: an agent name that tries every way out of a text node or an attribute value.
 * The first part is the reviewer's payload (a button stretched over the whole viewport); the rest
 * tries a single quote, an element that would load from another host, a script end tag and an entity.
 */
const EVIL =
  `Menu" onfocus="alert(1)" autofocus="" style="position:fixed;inset:0;width:100vw;height:100vh;z-index:9999" ` +
  `' onmouseover='alert(2)' <img src=//203.0.113.9/x.png onerror=alert(3)></script><b>bold</b> &amp; &lt;`;

warnIfNoChromium('console markup e2e');

/** CONTRACT §11, "pages that cannot be dressed up": values are text wherever the console writes them. */
describe.skipIf(!HAVE_CHROMIUM)('/console renders hostile names as text (issue 39, finding 1)', () => {
  let db: TestDatabase;
  let t: TestApp;
  let browser: Browser;
  let origin: string;
  let demo: DemoSecrets;

  beforeAll(async () => {
    db = await createTestDatabase();
    demo = (await seedDemo(db.orm, { credentialsKey: TEST_CREDENTIALS_KEY } as AppConfig))!;
    t = await startApp('mercurius', db);
    origin = await t.listen();
    // the business owner renames their agent (the reviewer's route), and a customer writes the same text
    const auth = await t.api({
      method: 'POST',
      path: '/auth',
      project: 'demo',
      body: { email: 'owner@demo.test', password: demo.password },
    });
    const token = auth.json().result.session.access_token as string;
    const renamed = await t.api({ method: 'PATCH', path: '/ai/agents/1', project: 'demo', token, body: { name: EVIL } });
    expect(renamed.statusCode, renamed.body).toBe(200);
    await db.sql(
      `insert into ai_messages (project_id, conversation_id, role, content, public, created_at)
       select project_id, id, 'user', ?, true, now() from ai_conversations where status = 'active' order by id limit 1`,
      [EVIL],
    );
    browser = await launchChromium();
    fs.mkdirSync(OUT, { recursive: true });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await db?.orm.close();
  });

  it('the CSP allows no inline style or script', async () => {
    const res = await fetch(`${origin}/console`);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("style-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("frame-ancestors 'none'");
    // the page itself carries no inline style or handler
    const html = await res.text();
    expect(html).not.toMatch(/\sstyle=|\son[a-z]+=|<style/i);
    // blob: for pictures and players only (the inbox's files, fetched with the credential, CONTRACT §12.6)
    const directives = Object.fromEntries(
      csp
        .split(';')
        .map((d) => d.trim().split(/\s+/))
        .map(([name, ...v]) => [name, v]),
    );
    expect(directives['img-src']).toEqual(["'self'", 'data:', 'blob:']);
    expect(directives['media-src']).toEqual(["'self'", 'blob:']);
    expect(
      Object.entries(directives)
        .filter(([, v]) => v.includes('blob:'))
        .map(([k]) => k),
    ).toEqual(['img-src', 'media-src']);
    for (const file of ['console.js', 'inbox.js', 'message-view.js', 'agents.js']) {
      const js = await (await fetch(`${origin}/console/assets/${file}`)).text();
      expect(js, file).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write/);
    }
  });

  it('an agent named with quotes and markup is shown as text, adds no attribute or element, covers nothing', async () => {
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
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await page.goto(`${origin}/console?project=demo`);
    await page.locator('input[name="method"][value="key"]').check();
    await page.getByLabel('Server key', { exact: true }).fill(demo.serverKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const row = page.locator('#agents-rows tr[data-id="1"]');
    await expect.poll(() => row.count(), { timeout: 15_000 }).toBe(1);
    // the name, exactly, as text
    expect(await row.locator('strong').first().textContent()).toBe(EVIL);
    // the toggle button carries its own attributes and nothing else
    const toggle = row.locator('button[data-action="toggle"]');
    const attributes = await toggle.evaluate((b) => b.getAttributeNames().sort());
    expect(attributes).toEqual(['aria-label', 'data-action', 'type']);
    expect(await toggle.getAttribute('aria-label')).toBe(`Disable ${EVIL}`);
    // no element the payload meant to add, anywhere in the page
    // (page-side code as text: the tests are compiled without the DOM's types)
    const injected = await page.evaluate(`({
      img: document.querySelectorAll('img').length,
      bold: document.querySelectorAll('#agents b, #inbox b').length,
      handlers: Array.from(document.querySelectorAll('*')).filter((el) => el.getAttributeNames().some((n) => /^on/i.test(n))).length,
      autofocus: document.querySelectorAll('[autofocus]').length,
      styled: document.querySelectorAll('[style]:not(.plot *):not(.plot)').length,
    })`);
    expect(injected).toEqual({ img: 0, bold: 0, handlers: 0, autofocus: 0, styled: 0 });
    // nothing covers the page: the element at the viewport's centre is not the agent's button
    await row.scrollIntoViewIfNeeded();
    const atCentre = await page.evaluate<{ tag: string; inButton: boolean } | null>(`(() => {
      const el = document.elementFromPoint(innerWidth / 2, innerHeight / 2);
      return el ? { tag: el.tagName, inButton: !!el.closest('button[data-action="toggle"]') } : null;
    })()`);
    expect(atCentre?.inButton).toBe(false);
    const box = await toggle.boundingBox();
    expect(box!.width).toBeLessThan(400);
    expect(box!.height).toBeLessThan(100);
    // the customer's message with the same text is text too
    await expect.poll(() => page.locator('#messages li', { hasText: 'onfocus' }).count(), { timeout: 10_000 }).toBeGreaterThan(0);
    expect(await page.locator('#messages li', { hasText: 'onfocus' }).first().textContent()).toContain(EVIL);
    await page.waitForTimeout(300);
    await page.screenshot({ path: path.join(OUT, 'console-markup.png'), fullPage: true });
    expect(dialogs).toEqual([]);
    expect(blocked).toEqual([]);
    await context.close();
  }, 60_000);
});
