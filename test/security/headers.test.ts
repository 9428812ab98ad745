import net from 'node:net';
import { type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { HAVE_CHROMIUM, launchChromium } from '../support/chromium.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';
import { openSse } from '../support/sse.js';

/**
 * Finding 10 of issue 39 (CONTRACT §11, "pages that cannot be dressed up"): `/graphiql` and `/docs`
 * could be framed (no CSP, no X-Frame-Options), and Meta's `hub.challenge` echo lacked `nosniff`.
 * Every answer now carries `X-Content-Type-Options: nosniff` (one hook, plus the answers made before
 * routing), and the two pages and their assets a CSP with `frame-ancestors 'none'` and
 * `X-Frame-Options: DENY`; both still render offline in Chromium under it.
 */
const VERIFY = 'verify-me';
const waAgent = {
  id: 1,
  business_id: 1,
  name: 'WA',
  provider: 'whatsapp',
  provider_type: 'chat',
  provider_external_id: 'wa-1',
  enabled: true,
  credentials: { waba_id: 'w1', phone_number_id: 'pn1', access_token: 't', app_secret: 's', verify_token: VERIFY },
};

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(baseFixture({ agents: [waAgent] }));
});
afterAll(() => db.orm.close());

describe.each(ENGINES)('security headers (%s)', (engine) => {
  let t: TestApp;
  let origin: string;
  beforeAll(async () => {
    t = await startApp(engine, db, { config: { metricsToken: 'metrics-token-0123456789' } });
    origin = await t.listen();
  });
  afterAll(() => t.close());

  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${origin}${path}`, { headers, redirect: 'manual' });

  it('sends nosniff on every kind of answer', async () => {
    const answers: [string, Response][] = [
      ['configs', await get('/v400/en/acme/configs', { 'x-api-key': KEYS.server })],
      ['401', await get('/v400/en/acme/configs')],
      ['404 envelope', await get('/v400/en/acme/nothing-here')],
      ['404 outside v400', await get('/nothing-here')],
      ['undecodable URL', await get('/v400/en/acme/%E0%A4%A')],
      ['400 NUL', await get('/v400/en/acme/ai/agents?orderBy=%00', { 'x-api-key': KEYS.server })],
      [
        '/graphql',
        await fetch(`${origin}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': KEYS.server },
          body: '{"query":"{ __typename }"}',
        }),
      ],
      [
        '/graphql 400',
        await fetch(`${origin}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': KEYS.server },
          body: '{"query":"{"}',
        }),
      ],
      [
        'hub.challenge',
        await get(`/v400/en/acme/ai/webhooks/whatsapp?hub.mode=subscribe&hub.verify_token=${VERIFY}&hub.challenge=%3Chtml%3E`),
      ],
      ['/metrics', await get('/metrics', { authorization: 'Bearer metrics-token-0123456789' })],
      ['/health/live', await get('/health/live')],
      ['/health/ready', await get('/health/ready')],
      ['/openapi.json', await get('/openapi.json')],
      ['/graphiql', await get('/graphiql')],
    ];
    for (const [name, res] of answers) expect(res.headers.get('x-content-type-options'), name).toBe('nosniff');
    const challenge = answers.find(([n]) => n === 'hub.challenge')![1];
    expect(challenge.status).toBe(200);
    expect(await challenge.text()).toBe('<html>');

    const sse = await openSse(`${origin}/v400/en/acme/ai/events`, { 'x-api-key': KEYS.server });
    try {
      expect(sse.status).toBe(200);
      expect(sse.headers['x-content-type-options']).toBe('nosniff');
    } finally {
      sse.close();
    }
  });

  it('answers a request Node cannot parse with nosniff too', async () => {
    const port = Number(new URL(origin).port);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.write('GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'));
      let text = '';
      socket.on('data', (d) => (text += d.toString()));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1.1 400/);
    expect(raw.toLowerCase()).toContain('x-content-type-options: nosniff');
  });

  it('/graphiql and /docs, and their assets, refuse to be framed', async () => {
    const docs = await get('/docs');
    const index = docs.status >= 300 && docs.status < 400 ? new URL(docs.headers.get('location')!, `${origin}/docs`).pathname : '/docs';
    for (const path of [
      '/graphiql',
      '/graphiql/assets/graphiql.js',
      '/graphiql/assets/page.js',
      '/docs',
      index,
      '/docs/static/swagger-ui.css',
      '/docs/static/swagger-initializer.js',
    ]) {
      const res = await get(path);
      expect(res.status, path).toBeLessThan(400);
      expect(res.headers.get('x-frame-options'), path).toBe('DENY');
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp, path).toContain("frame-ancestors 'none'");
      expect(csp, path).toContain("script-src 'self'");
      expect(csp, path).not.toMatch(/script-src[^;]*unsafe-inline/);
    }
    // the API itself is not a page: no CSP of the pages on it
    expect((await get('/v400/en/acme/configs', { 'x-api-key': KEYS.server })).headers.get('x-frame-options')).toBeNull();
    // GraphiQL's page has no inline script left
    expect(await (await get('/graphiql')).text()).not.toMatch(/<script>(?!<\/script>)/);
  });
});

describe.skipIf(!HAVE_CHROMIUM)('the pages under their policy, in Chromium, offline', () => {
  let t: TestApp;
  let origin: string;
  let browser: Browser;
  beforeAll(async () => {
    t = await startApp('mercurius', db);
    origin = await t.listen();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('renders /docs and /graphiql with no policy violation, and neither page loads inside a frame', async () => {
    const context = await browser.newContext();
    await context.route('**/*', (route) =>
      ['127.0.0.1', 'localhost'].includes(new URL(route.request().url()).hostname) ? route.continue() : route.abort('blockedbyclient'),
    );
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(`${origin}/docs`);
    await page.locator('.swagger-ui .info .title').waitFor({ timeout: 15_000 });
    expect(await page.locator('.swagger-ui .info .title').innerText()).toContain('OrderGraph API');
    await page.goto(`${origin}/graphiql`);
    await page.locator('.graphiql-execute-button').waitFor({ state: 'visible', timeout: 15_000 });
    expect(problems.filter((p) => /Content Security Policy|Refused/i.test(p))).toEqual([]);

    // a page of another origin (localhost is not 127.0.0.1) framing them gets nothing rendered
    const framer = `http://localhost:${new URL(origin).port}/health/live`;
    for (const path of ['/graphiql', '/docs']) {
      await page.goto(framer);
      await page.setContent(`<iframe id="f" src="${origin}${path}" width="800" height="600"></iframe>`);
      await page.waitForTimeout(1500);
      const frame = page.frames().find((f) => f !== page.mainFrame());
      const rendered = frame
        ? await frame
            .locator('body')
            .innerText({ timeout: 2000 })
            .catch(() => '')
        : '';
      expect(rendered, path).not.toMatch(/GraphiQL|OrderGraph API|Loading/);
    }
    await context.close();
  });
});
