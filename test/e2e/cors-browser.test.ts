import 'reflect-metadata';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Browser, type Page } from 'playwright-core';
import { HAVE_CHROMIUM, launchChromium, warnIfNoChromium } from '../support/chromium.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, PASSWORD } from '../support/fixtures.js';

warnIfNoChromium('CORS browser e2e');

/**
 * A dashboard page served from a second local origin calls the API from script, as the
 * platform's web clients do (CONTRACT §1): every call with a JSON body or a credential header
 * makes Chromium send a preflight first.
 */
describe.skipIf(!HAVE_CHROMIUM)('CORS in a real browser', () => {
  let db: TestDatabase;
  let open: TestApp;
  let closed: TestApp;
  let api: string;
  let closedApi: string;
  let pageServer: http.Server;
  let pageOrigin: string;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    db = await createTestDatabase();
    const fixture = baseFixture({
      agents: [
        { id: 1, business_id: 1, name: 'Bot', provider: 'whatsapp', provider_type: 'chat', provider_external_id: 'bot', enabled: true },
      ],
      conversations: [{ id: 1, agent_id: 1, business_id: 1, user_id: 3, status: 'active' }],
    });
    fixture.projects.push({ code: 'limited', name: 'Limited', rate_limits: [{ scope: 'project', points: 1, duration_s: 600 }] });
    await db.load(fixture);
    open = await startApp('mercurius', db);
    closed = await startApp('mercurius', db, { config: { corsOrigins: ['http://admin.example.com'] } });
    api = await open.listen();
    closedApi = await closed.listen();
    pageServer = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>dashboard</title><p>dashboard</p>');
    });
    await new Promise<void>((resolve) => pageServer.listen(0, '127.0.0.1', resolve));
    pageOrigin = `http://localhost:${(pageServer.address() as AddressInfo).port}`;
    browser = await launchChromium();
    page = await browser.newPage();
    await page.goto(`${pageOrigin}/`);
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => pageServer?.close(resolve));
    await open?.close();
    await closed?.close();
    await db?.orm.close();
  });

  it("signs in, reads the configs and the conversations with the token, and reads a 429's headers", async () => {
    const seen = await page.evaluate(
      async ({ api, email, password }) => {
        const base = `${api}/v400/en/acme`;
        const common = { 'Content-Type': 'application/json', 'X-APP-X': 'dashboard', 'X-Socket-Id-X': 'sock-1', 'X-Country-Code-X': 'MX' };
        const auth = await fetch(`${base}/auth`, { method: 'POST', headers: common, body: JSON.stringify({ email, password }) });
        const authBody: any = await auth.json();
        const token = authBody.result.session.access_token as string;
        const headers = { ...common, Authorization: `Bearer ${token}` };
        const configs = await fetch(`${base}/configs?mode=dictionary`, { headers });
        const conversations = await fetch(`${base}/ai/conversations?params=id,status`, { headers });
        const limited = [];
        for (let i = 0; i < 2; i++) {
          const res = await fetch(`${api}/v400/en/limited/configs`, { headers });
          limited.push({
            status: res.status,
            remaining: res.headers.get('X-RateLimit-Remaining'),
            retryAfter: res.headers.get('Retry-After'),
            scope: res.headers.get('X-RateLimit-Scope'),
          });
        }
        return {
          auth: auth.status,
          level: authBody.result.level,
          requestId: auth.headers.get('X-Request-Id'),
          configs: { status: configs.status, body: (await configs.json()) as any },
          conversations: { status: conversations.status, body: (await conversations.json()) as any },
          limited,
        };
      },
      { api, email: 'admin@acme.test', password: PASSWORD },
    );

    expect(seen.auth).toBe(200);
    expect(seen.level).toBe(0);
    expect(seen.requestId).toBeTruthy();
    expect(seen.configs.status).toBe(200);
    expect(seen.configs.body.result.project_code.value).toBe('acme');
    expect(seen.conversations.status).toBe(200);
    expect(seen.conversations.body.result).toEqual([{ id: 1, status: 'active', messages_count: 0 }]);
    expect(seen.limited[0].status).toBe(401);
    expect(seen.limited[1]).toMatchObject({ status: 429, remaining: '0', scope: 'project' });
    expect(Number(seen.limited[1].retryAfter)).toBeGreaterThan(0);
  });

  it('refuses a page whose origin CORS_ORIGINS does not name', async () => {
    const seen = await page.evaluate(
      async ({ api, email, password }) => {
        try {
          const res = await fetch(`${api}/v400/en/acme/auth`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify({ email, password }),
          });
          return { status: res.status };
        } catch (err) {
          return { refused: String(err) };
        }
      },
      { api: closedApi, email: 'admin@acme.test', password: PASSWORD },
    );
    expect(seen).toEqual({ refused: expect.stringContaining('Failed to fetch') });
  });
});
