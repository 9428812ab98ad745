import 'reflect-metadata';
import fs from 'node:fs';
import path from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { HAVE_CHROMIUM, launchChromium, warnIfNoChromium } from '../support/chromium.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppConfig } from '../../src/config.js';
import { seedDemo, type DemoSecrets } from '../../src/fixtures/demo.js';
import { startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, TEST_CREDENTIALS_KEY, type TestDatabase } from '../support/db.js';

const OUT = path.resolve(__dirname, '..', 'artifacts');

warnIfNoChromium('console e2e');

const VIEWPORTS = [
  { name: 'desktop', viewport: { width: 1280, height: 900 }, isMobile: false },
  { name: 'phone', viewport: { width: 390, height: 844 }, isMobile: true },
];

describe.skipIf(!HAVE_CHROMIUM)('/console in a real browser, offline, on the demo project', () => {
  let db: TestDatabase;
  let t: TestApp;
  let browser: Browser;
  let origin: string;
  let demo: DemoSecrets;

  beforeAll(async () => {
    db = await createTestDatabase();
    const t0 = Date.now();
    demo = (await seedDemo(db.orm, { credentialsKey: TEST_CREDENTIALS_KEY } as AppConfig))!;
    console.log(`demo project seeded in ${Date.now() - t0} ms`);
    t = await startApp('mercurius', db);
    origin = await t.listen();
    browser = await launchChromium();
    fs.mkdirSync(OUT, { recursive: true });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await db?.orm.close();
  });

  /** A page whose every non-local request fails the test. */
  async function offlinePage(viewport: (typeof VIEWPORTS)[number]) {
    const context = await browser.newContext({ viewport: viewport.viewport, isMobile: viewport.isMobile, hasTouch: viewport.isMobile, timezoneId: 'Europe/Madrid' });
    const blocked: string[] = [];
    const served: string[] = [];
    await context.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (url.hostname !== '127.0.0.1') {
        blocked.push(url.href);
        return route.abort('blockedbyclient');
      }
      served.push(`${url.pathname}${url.search}`);
      return route.continue();
    });
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (err) => pageErrors.push(err.message));
    page.on('console', (msg) => {
      if (msg.type() === 'error') pageErrors.push(msg.text());
    });
    return { context, page, blocked, served, pageErrors };
  }

  const chartsDrawn = (page: Page, group: string) =>
    expect
      .poll(() => page.locator(`.chart[data-group="${group}"] .plot canvas`).count(), { timeout: 15_000 })
      .toBe(4);

  it.each(VIEWPORTS)('signs in with a server key, draws the charts, switches grouping ($name)', async (vp) => {
    const { context, page, blocked, served, pageErrors } = await offlinePage(vp);
    await page.goto(`${origin}/console?project=demo`);
    await page.getByLabel('Server key', { exact: true }).fill(demo.serverKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await chartsDrawn(page, 'day');
    // a day series over 30 days: 30 points, and the demo's curves are not flat zero
    expect(await page.locator('.chart[data-metric="orders"]').getAttribute('data-points')).toBe('30');
    const label = await page.locator('.chart[data-metric="orders"] .plot').getAttribute('aria-label');
    expect(Number(/total ([\d,.]+)/.exec(label ?? '')?.[1].replace(/,/g, ''))).toBeGreaterThan(50);
    await expect.poll(() => page.locator('#cards .card').count()).toBe(5);
    await expect.poll(() => page.locator('#products tr').count()).toBeGreaterThan(2);
    await expect.poll(() => page.locator('#conversations button').count(), { timeout: 10_000 }).toBeGreaterThan(5);
    await expect.poll(() => page.locator('#messages li').count(), { timeout: 10_000 }).toBeGreaterThan(0);
    await page.screenshot({ path: path.join(OUT, `console-${vp.name}-day.png`), fullPage: true });

    // keyboard: the week switch is reachable and pressed with Enter
    const week = page.getByRole('button', { name: 'Week' });
    await week.focus();
    const weekRequest = page.waitForRequest((r) => r.url().includes('/ai/metrics/series') && r.url().includes('group_by=week'));
    await page.keyboard.press('Enter');
    await weekRequest;
    await chartsDrawn(page, 'week');
    expect(await week.getAttribute('aria-pressed')).toBe('true');
    await page.getByRole('button', { name: 'Month' }).click();
    await chartsDrawn(page, 'month');
    expect(Number(await page.locator('.chart[data-metric="revenue"]').getAttribute('data-points'))).toBe(12);
    await page.screenshot({ path: path.join(OUT, `console-${vp.name}-month.png`), fullPage: true });

    expect(blocked).toEqual([]);
    expect(pageErrors.filter((e) => !e.includes('404'))).toEqual([]);
    expect(served).toEqual(expect.arrayContaining(['/console?project=demo', '/console/assets/uplot.js', '/console/assets/console.js']));
    await context.close();
  });

  it('signs in with an administrator email and password; refuses a wrong password', async () => {
    const { context, page, blocked } = await offlinePage(VIEWPORTS[0]);
    await page.goto(`${origin}/console?project=demo`);
    await page.getByLabel("An administrator's email and password").check();
    await page.getByLabel('Email', { exact: true }).fill(demo.email);
    await page.getByLabel('Password', { exact: true }).fill('wrong password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.locator('#signin-error').innerText()).toContain('Wrong email or password');
    await page.getByLabel('Password', { exact: true }).fill(demo.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await chartsDrawn(page, 'day');
    expect(await page.locator('#who').innerText()).toContain(demo.email);
    // no /ai/events in this branch yet, or it answers: either way the live list shows its mode
    await expect.poll(() => page.locator('#live-mode').innerText(), { timeout: 10_000 }).toMatch(/polling|live/);
    expect(blocked).toEqual([]);
    await context.close();
  });
});
