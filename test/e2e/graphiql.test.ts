import 'reflect-metadata';
import fs from 'node:fs';
import path from 'node:path';
import { type Browser } from 'playwright-core';
import { HAVE_CHROMIUM, launchChromium, warnIfNoChromium } from '../support/chromium.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';

const SCREENSHOT = path.resolve(__dirname, '..', 'artifacts', 'graphiql.png');

warnIfNoChromium('graphiql e2e');

describe.skipIf(!HAVE_CHROMIUM)('/graphiql in a real browser, offline', () => {
  let db: TestDatabase;
  let t: TestApp;
  let browser: Browser;
  let origin: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    await db.load(baseFixture());
    t = await startApp('mercurius', db);
    origin = await t.listen();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await db?.orm.close();
  });

  it('runs a query with the API key from ?headers= and shows the project', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const blocked: string[] = [];
    const served: string[] = [];
    await context.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (url.hostname !== '127.0.0.1') {
        blocked.push(url.href);
        return route.abort('blockedbyclient');
      }
      served.push(url.pathname);
      return route.continue();
    });
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (err) => pageErrors.push(err.message));

    const headers = JSON.stringify({ 'X-Api-Key': KEYS.server }, null, 2);
    const query = '{ project { code name } }';
    await page.goto(`${origin}/graphiql?headers=${encodeURIComponent(headers)}&query=${encodeURIComponent(query)}`);

    const run = page.locator('.graphiql-execute-button');
    await run.waitFor({ state: 'visible', timeout: 15_000 });
    const graphqlAnswer = page.waitForResponse((res) => new URL(res.url()).pathname === '/graphql' && res.request().method() === 'POST');
    await run.click();
    const answer = await graphqlAnswer;
    expect(answer.status()).toBe(200);

    const result = page.locator('.graphiql-response');
    await expect.poll(() => result.innerText(), { timeout: 10_000 }).toContain('"code": "acme"');
    expect(await result.innerText()).toContain('"name": "Acme"');

    fs.mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });

    expect(blocked).toEqual([]);
    expect(pageErrors).toEqual([]);
    expect(served).toEqual(
      expect.arrayContaining(['/graphiql', '/graphiql/assets/graphiql.js', '/graphiql/assets/graphiql.css', '/graphql']),
    );
    await context.close();
  });
});
