import 'reflect-metadata';
import fs from 'node:fs';
import path from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { BROWSER_ZONE, browserDay, HAVE_CHROMIUM, launchChromium, warnIfNoChromium } from '../support/chromium.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type AppConfig } from '../../src/config.js';
import { seedDemo, type DemoSecrets } from '../../src/fixtures/demo.js';
import { WhatsAppSender } from '../../src/workers/whatsapp-sender.js';
import { startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, TEST_CREDENTIALS_KEY, testCipher, type TestDatabase } from '../support/db.js';
import { CLOUD_ANSWERS, MetaWebhooks, startWhatsAppFake, type WhatsAppFake } from '../support/whatsapp-fake.js';

const OUT = path.resolve(__dirname, '..', 'artifacts');
// The README's screenshots are rewritten only on request (UPDATE_DOCS_SCREENSHOTS=1): a test run leaves the tree clean.
const DOCS = process.env.UPDATE_DOCS_SCREENSHOTS === '1' ? path.resolve(__dirname, '..', '..', 'docs') : OUT;
/** The demo's WhatsApp agent, pointed at the local Cloud API of this test. */
const CREDS = {
  waba_id: 'demo-waba',
  phone_number_id: 'demo-phone',
  access_token: 'EAAG-console-e2e',
  app_secret: 'console-app-secret',
  verify_token: 'console-verify',
};

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
  let fake: WhatsAppFake;
  let sender: WhatsAppSender;

  beforeAll(async () => {
    db = await createTestDatabase();
    const t0 = Date.now();
    demo = (await seedDemo(db.orm, { credentialsKey: TEST_CREDENTIALS_KEY } as AppConfig))!;
    console.log(`demo project seeded in ${Date.now() - t0} ms`);
    fake = await startWhatsAppFake();
    fake.addAccount({ ...CREDS, templates: [] });
    await db.sql("update ai_agents set credentials = ? where id = 1 and project_id = (select id from projects where code = 'demo')", [
      testCipher.encrypt(CREDS),
    ]);
    t = await startApp('mercurius', db, { config: { whatsappApiUrl: fake.url, providerTimeoutMs: 2000 } });
    origin = await t.listen();
    // the sender as `serve` wires it: woken by every commit
    sender = new WhatsAppSender({
      orm: db.orm,
      cipher: testCipher,
      config: { ...loadConfig({}).whatsappSends, retryBaseMs: 50, pollMs: 200 },
      apiUrl: fake.url,
      timeoutMs: 2000,
      log: { info: () => undefined, warn: () => undefined, error: () => undefined },
      onEvents: (p) => t.services.events.sequence(p),
    }).start();
    t.services.events.onWork((kind) => {
      if (kind === null || kind === 'sends') sender.kick();
    });
    browser = await launchChromium();
    fs.mkdirSync(OUT, { recursive: true });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await sender?.stop();
    await fake?.close();
    await t?.close();
    await db?.orm.close();
  });

  /** A page whose every non-local request fails the test. */
  async function offlinePage(viewport: (typeof VIEWPORTS)[number]) {
    const context = await browser.newContext({
      viewport: viewport.viewport,
      isMobile: viewport.isMobile,
      hasTouch: viewport.isMobile,
      timezoneId: BROWSER_ZONE,
    });
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
      // a conversation without a cart answers its cart route 400 ERROR_AI_CART_NOT_FOUND (CONTRACT §15.2): the console
      // reads that as "no cart", but Chromium logs every 4xx it fetched
      const noCart = msg.text().includes('status of 400') && /\/ai\/conversations\/\d+\/cart$/.test(msg.location().url);
      if (msg.type() === 'error' && !noCart) pageErrors.push(msg.text());
    });
    return { context, page, blocked, served, pageErrors };
  }

  const chartsDrawn = (page: Page, group: string) =>
    expect.poll(() => page.locator(`.chart[data-group="${group}"] .plot canvas`).count(), { timeout: 15_000 }).toBe(4);

  it.each(VIEWPORTS)('signs in with a server key, draws the charts, switches grouping ($name)', async (vp) => {
    const { context, page, blocked, served, pageErrors } = await offlinePage(vp);
    await page.goto(`${origin}/console?project=demo`);
    await page.locator('input[name="method"][value="key"]').check();
    await page.getByLabel('Server key', { exact: true }).fill(demo.serverKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await chartsDrawn(page, 'day');
    // a day series over 30 days: 30 points, and the demo's curves are not flat zero
    expect(await page.locator('.chart[data-metric="orders"]').getAttribute('data-points')).toBe('30');
    const label = await page.locator('.chart[data-metric="orders"] .plot').getAttribute('aria-label');
    expect(Number(/total ([\d,.]+)/.exec(label ?? '')?.[1].replace(/,/g, ''))).toBeGreaterThan(50);
    await expect.poll(() => page.locator('#cards .card').count()).toBe(5);
    await expect.poll(() => page.locator('#products tr').count()).toBeGreaterThan(2);
    // the inbox lists the live (active) conversations
    await expect.poll(() => page.locator('#conversations button').count(), { timeout: 10_000 }).toBeGreaterThan(0);
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
    await page.getByLabel("An administrator's or business owner's email and password").check();
    await page.getByLabel('Email', { exact: true }).fill(demo.email);
    await page.getByLabel('Password', { exact: true }).fill('wrong password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.locator('#signin-error').innerText()).toContain('Wrong email or password');
    await page.getByLabel('Password', { exact: true }).fill(demo.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await chartsDrawn(page, 'day');
    expect(await page.locator('#who').innerText()).toContain('Ada Admin');
    // no /ai/events in this branch yet, or it answers: either way the live list shows its mode
    await expect.poll(() => page.locator('#live-mode').innerText(), { timeout: 10_000 }).toMatch(/polling|live/);
    expect(blocked).toEqual([]);
    await context.close();
  });

  it('overview: the month so far against the same days of last month; the current chart point marked partial', async () => {
    const { context, page, blocked, served } = await offlinePage(VIEWPORTS[0]);
    await page.goto(`${origin}/console?project=demo`);
    await page.locator('input[name="method"][value="key"]').check();
    await page.getByLabel('Server key', { exact: true }).fill(demo.serverKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await chartsDrawn(page, 'day');
    await expect.poll(() => page.locator('#cards .card').count()).toBe(5);
    // the two spans, read from the series by month. Today is today in the browser's zone (BROWSER_ZONE), which
    // differs from this process's own date for an hour or two around midnight. Calendar days as UTC dates, so that
    // this process's zone plays no part.
    const [y, m, d] = browserDay().split('-').map(Number);
    const day = (month0: number, date: number) => new Date(Date.UTC(y, month0, date)).toISOString().slice(0, 10);
    const last = new Date(Date.UTC(y, m - 1, 0)).getUTCDate();
    const spanQuery = (from: string, to: string) => `/ai/metrics/series?metric=orders&group_by=month&from=${from}&to=${to}`;
    expect(served.some((u) => u.includes(spanQuery(day(m - 1, 1), day(m - 1, d))))).toBe(true);
    expect(served.some((u) => u.includes(spanQuery(day(m - 2, 1), day(m - 2, Math.min(d, last)))))).toBe(true);
    const span = await page.locator('#overview-span').innerText();
    expect(span).toContain('same days of last month');
    // the previous span ends on today's day of the month (or the month's last day)
    const previousMonth = new Date(Date.UTC(y, m - 2, 1)).toLocaleDateString('en', { month: 'short', timeZone: 'UTC' });
    const previousSpan = `${previousMonth} 1${d === 1 ? '' : `–${Math.min(d, last)}`}`;
    expect(span).toContain(`(${previousSpan})`);
    expect(await page.locator('#cards').innerText()).toContain(`in ${previousSpan}`);
    // the series were asked for two spans of equal length, by month (the API's contract unchanged)
    const partial = await page.locator('.chart[data-metric="orders"]').getAttribute('data-partial');
    expect(partial).toBeTruthy();
    expect(await page.locator('#range').innerText()).toContain('dashed');
    fs.mkdirSync(DOCS, { recursive: true });
    await page.screenshot({ path: path.join(DOCS, 'console-overview.png') });
    expect(blocked).toEqual([]);
    await context.close();
  });

  it('inbox: take over, reply with its delivery ticks from the stream, a failed reply, resume, the closed window in words, hand back', async () => {
    const [{ id: projectId }] = await db.sql<{ id: number }>("select id from projects where code = 'demo'");
    const open = async (contact: string, agoHours: number, text: string) => {
      const [c] = await db.sql<{ id: number }>(
        `insert into ai_conversations (project_id, agent_id, business_id, contact, status, usage, last_inbound_at, created_at)
         values (?, 1, 1, ?, 'active', '{}', now() - make_interval(hours => ?), now() - make_interval(hours => ?)) returning id`,
        [projectId, contact, agoHours, agoHours],
      );
      await db.sql(
        `insert into ai_messages (project_id, conversation_id, role, content, public, external_id, created_at)
         values (?, ?, 'user', ?, true, ?, now() - make_interval(hours => ?))`,
        [projectId, c.id, text, `wamid.in.${contact}`, agoHours],
      );
      return c.id;
    };
    const live = await open('34600111222', 1, '¿Tenéis pizza sin gluten?');
    const expired = await open('34600999888', 25, 'Hola, ¿seguís abiertos?');
    const messages = async (id: number) =>
      db.sql<{ id: number; content: string; delivery_status: string | null; external_id: string | null; author_id: number | null }>(
        'select id, content, delivery_status, external_id, author_id from ai_messages where conversation_id = ? order by id',
        [id],
      );

    const { context, page, blocked, served, pageErrors } = await offlinePage(VIEWPORTS[0]);
    const streams: string[] = [];
    page.on('request', async (r) => {
      if (!r.url().includes('/ai/events')) return;
      const h = await r.allHeaders().catch(() => r.headers());
      streams.push(`${h['last-event-id'] ?? ''}|${new URL(r.url()).searchParams.get('last_event_id') ?? ''}`);
    });
    await page.goto(`${origin}/console?project=demo`);
    await page.getByLabel("An administrator's or business owner's email and password").check();
    await page.getByLabel('Email', { exact: true }).fill(demo.email);
    await page.getByLabel('Password', { exact: true }).fill(demo.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.locator('#live-mode').innerText(), { timeout: 10_000 }).toBe('live (events)');

    // the live conversation: its window, its handler, take over
    await page.locator(`#conversations button[data-id="${live}"]`).click();
    await expect.poll(() => page.locator('#messages li[data-id]').count()).toBe(1);
    expect(await page.locator('#window').innerText()).toMatch(/^Window: 2[23] h \d+ min left$/);
    expect(await page.locator('#handler').innerText()).toBe('Handled by the AI');
    await page.getByRole('button', { name: 'Take over' }).click();
    await expect.poll(() => page.locator('#handler').innerText()).toBe('Handled by you');
    expect(await db.sql('select handler, assignee_id from ai_conversations where id = ?', [live])).toEqual([
      { handler: 'human', assignee_id: 1 },
    ]);
    expect(await page.locator(`#conversations button[data-id="${live}"] .badge`).innerText()).toBe('person');

    // a reply: pending at once, accepted when the Cloud API answers, delivered when Meta says so
    await page.getByLabel('Reply to the customer').fill('Sí, la base sin gluten cuesta 2 € más.');
    const replied = page.waitForResponse((r) => r.url().includes(`/ai/conversations/${live}/messages`) && r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Send reply' }).click();
    const answer = await replied;
    expect(answer.status()).toBe(200);
    expect(answer.request().headers()['idempotency-key']).toMatch(/^[\x21-\x7e]{8,255}$/);
    const reply = (await answer.json()).result;
    expect(reply).toMatchObject({ role: 'assistant', delivery_status: 'pending', author_id: 1 });
    const replyTick = page.locator(`#messages li[data-id="${reply.id}"] .tick`);
    await expect.poll(() => replyTick.getAttribute('data-status'), { timeout: 10_000 }).toBe('accepted');
    expect(fake.requestsTo('send').filter((r) => r.body?.to === '34600111222')).toHaveLength(1);
    const [stored] = (await messages(live)).filter((m) => m.id === reply.id);
    expect(stored.external_id).toBeTruthy();
    const meta = new MetaWebhooks(`${origin}/v400/en/demo/ai/webhooks/whatsapp`);
    const delivered = await meta.post(
      MetaWebhooks.notification(CREDS.phone_number_id, { statuses: [{ id: stored.external_id!, status: 'delivered' }] }),
      CREDS.app_secret,
    );
    expect(delivered.status).toBe(200);
    await expect.poll(() => replyTick.innerText(), { timeout: 10_000 }).toBe('✓✓ delivered');
    expect(await page.locator(`#messages li[data-id="${reply.id}"]`).count()).toBe(1);
    expect(await page.locator('#messages li[data-id]').count()).toBe(2);
    fs.mkdirSync(DOCS, { recursive: true });
    await page.locator('#inbox').screenshot({ path: path.join(OUT, 'console-inbox-reply.png') }); // docs/console-inbox.png: console-inbox.test.ts

    // a reply the provider refuses for good: failed, with its reason
    fake.fail('send', CLOUD_ANSWERS.reEngagement, { times: 1 });
    await page.getByLabel('Reply to the customer').fill('¿Algo más?');
    await page.getByRole('button', { name: 'Send reply' }).click();
    await expect
      .poll(() => page.locator('#messages li .tick.failed').innerText(), { timeout: 10_000 })
      .toBe('✗ failed: 131047: Re-engagement message');
    // the list shows the newest message's first words (the reply's answer and its event are one message)
    await expect.poll(() => page.locator(`#conversations button[data-id="${live}"] .preview`).innerText()).toBe('¿Algo más?');
    await page.locator('#inbox').screenshot({ path: path.join(DOCS, 'console-reply-failed.png') });

    // the stream drops (every connection closed by the server): the browser resumes from the last
    // event it saw, and a message written meanwhile is shown once
    const before = streams.length;
    t.app.server.closeAllConnections();
    const note = await t.api({
      method: 'POST',
      path: `/ai/conversations/${live}/messages`,
      project: 'demo',
      key: demo.serverKey,
      body: { role: 'system', content: 'Written while the stream was down' },
    });
    expect(note.statusCode, note.body).toBe(200);
    await expect
      .poll(() => page.locator('#messages li', { hasText: 'Written while the stream was down' }).count(), { timeout: 15_000 })
      .toBe(1);
    const resumed = streams.slice(before);
    expect(resumed.length).toBeGreaterThan(0);
    // every stream opened after the drop resumes from the last event id the page saw
    expect(
      resumed.filter((r) => !/\|\d+$/.test(r)),
      JSON.stringify(resumed),
    ).toEqual([]);
    await page.waitForTimeout(500);
    expect(await page.locator('#messages li[data-id]').count()).toBe(4);

    // the agent runtime is refused while a person handles it (nothing shown, nothing stored)
    const runtime = await t.api({
      method: 'POST',
      path: `/ai/conversations/${live}/messages`,
      project: 'demo',
      key: demo.serverKey,
      body: { role: 'assistant', content: 'AI answer' },
    });
    expect([runtime.statusCode, runtime.json().code]).toEqual([409, 'ERROR_AI_CONVERSATION_HANDED_OFF']);

    // the expired conversation: the window is closed, in words; no reply box, the agent's approved templates instead
    await page.locator(`#conversations button[data-id="${expired}"]`).click();
    await expect.poll(() => page.locator('#window').innerText()).toBe('Window closed');
    await expect.poll(() => page.locator('#templates').isVisible()).toBe(true);
    expect(await page.locator('#reply').isVisible()).toBe(false);
    expect(await messages(expired)).toHaveLength(1);

    // hand the live conversation back
    await page.locator(`#conversations button[data-id="${live}"]`).click();
    await page.getByRole('button', { name: 'Hand back to the AI' }).click();
    await expect.poll(() => page.locator('#handler').innerText()).toBe('Handled by the AI');
    expect(await db.sql('select handler, assignee_id from ai_conversations where id = ?', [live])).toEqual([
      { handler: 'ai', assignee_id: null },
    ]);
    const events = await db.sql<{ type: string }>(
      "select type from ai_events where conversation_id = ? and type = 'conversation.handoff'",
      [live],
    );
    expect(events).toHaveLength(2);

    expect(blocked).toEqual([]);
    expect(served.every((u) => !u.startsWith('http'))).toBe(true);
    // the refused reply (400, the closed window) is the one failed load the browser reports
    expect(pageErrors.filter((e) => !/status of 400|ERR_CONNECTION|net::|EventSource/i.test(e))).toEqual([]);
    await context.close();
  }, 90_000);
});
