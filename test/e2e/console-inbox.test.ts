import 'reflect-metadata';
import fs from 'node:fs';
import path from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DemoSecrets } from '../../src/fixtures/demo.js';
import { startApp, type TestApp } from '../support/app.js';
import { seedConsoleDemo } from '../support/console-demo.js';
import { offlineContext, browserDay, HAVE_CHROMIUM, launchChromium, warnIfNoChromium } from '../support/chromium.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { MetaWebhooks, type WhatsAppFake } from '../support/whatsapp-fake.js';

const OUT = path.resolve(__dirname, '..', 'artifacts');
// The README's screenshot is rewritten only on request (UPDATE_DOCS_SCREENSHOTS=1): a test run leaves the tree clean.
const DOCS = process.env.UPDATE_DOCS_SCREENSHOTS === '1' ? path.resolve(__dirname, '..', '..', 'docs') : OUT;
const CREDS = {
  waba_id: 'demo-waba',
  phone_number_id: 'demo-phone',
  access_token: 'EAAG-console-inbox',
  app_secret: 'console-inbox-secret',
  verify_token: 'console-inbox-verify',
};
/** What customers of a restaurant write (Spanish, Italian, Arabic, German). */
const TEXTS = [
  '¿Tenéis mesa para cuatro?',
  'Vorrei una pizza margherita',
  'مرحبا، أريد بيتزا بدون جبن',
  'Ist die Lieferung schon unterwegs?',
];
const HOUR = 3600_000;

warnIfNoChromium('console inbox e2e');

/** CONTRACT §10.5 / issue 43: a busy counter's inbox in a real browser, offline, against the demo project. */
describe.skipIf(!HAVE_CHROMIUM)('/console inbox for a busy counter (issue 43)', () => {
  let db: TestDatabase;
  let t: TestApp;
  let browser: Browser;
  let origin: string;
  let demo: DemoSecrets;
  let fake: WhatsAppFake;
  let meta: MetaWebhooks;
  let projectId: number;
  /** The 41 conversations, newest first: ids[40] is the oldest (30 h), ids[39] 26 h: both windows closed. */
  const ids: number[] = [];
  /** When the newest of them was written (a minute before the seed). */
  let newestAt = 0;
  const contactOf = (i: number) => `3460050${String(i).padStart(4, '0')}`;

  beforeAll(async () => {
    db = await createTestDatabase();
    ({ demo, fake, projectId } = await seedConsoleDemo(db, CREDS, '1001'));
    for (let i = 0; i < 41; i++) {
      const ago = i === 40 ? 30 * HOUR : i === 39 ? 26 * HOUR : i * 20 * 60_000 + 60_000;
      const at = new Date(Date.now() - ago);
      if (i === 0) newestAt = at.getTime();
      const [c] = await db.sql<{ id: number }>(
        `insert into ai_conversations (project_id, agent_id, business_id, contact, status, usage, last_inbound_at, created_at)
         values (?, 1, 1, ?, 'active', '{}', ?, ?) returning id`,
        [projectId, contactOf(i), at, at],
      );
      await db.sql(
        `insert into ai_messages (project_id, conversation_id, role, content, public, external_id, created_at)
         values (?, ?, 'user', ?, true, ?, ?)`,
        [projectId, c.id, `${TEXTS[i % 4]} (${i})`, `wamid.seed.${i}`, at],
      );
      ids.push(c.id);
    }
    t = await startApp('mercurius', db, { config: { whatsappApiUrl: fake.url, providerTimeoutMs: 2000 } });
    origin = await t.listen();
    meta = new MetaWebhooks(`${origin}/v400/en/demo/ai/webhooks/whatsapp`);
    browser = await launchChromium();
    fs.mkdirSync(OUT, { recursive: true });
    fs.mkdirSync(DOCS, { recursive: true });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await fake?.close();
    await t?.close();
    await db?.orm.close();
  });

  /** A page whose every request to another host fails the test; Notification recorded (granted). */
  async function offlinePage(viewport = { width: 1280, height: 900 }, isMobile = false) {
    const { context, blocked } = await offlineContext(browser, viewport, isMobile);
    // the browser's notifications, granted and recorded (headless Chromium shows none)
    await context.addInitScript(`
      window.__notes = [];
      window.Notification = function (title, opts) { window.__notes.push({ title: title, body: opts && opts.body }); };
      window.Notification.permission = 'granted';
      window.Notification.requestPermission = function () { return Promise.resolve('granted'); };
    `);
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (err) => pageErrors.push(err.message));
    return { context, page, blocked, pageErrors };
  }
  async function signIn(page: Page, as: 'key' | 'admin' | 'owner', query = '') {
    await page.goto(`${origin}/console?project=demo${query}`);
    if (as === 'key') {
      await page.locator('input[name="method"][value="key"]').check();
      await page.locator('#key').fill(demo.serverKey);
    } else {
      await page.locator('input[name="method"][value="password"]').check();
      await page.locator('#email').fill(as === 'admin' ? demo.email : 'owner@demo.test');
      await page.locator('#password').fill(demo.password);
    }
    await page.locator('#signin-form button[type="submit"]').click();
    await expect.poll(() => page.locator('#conversations button[data-id]').count(), { timeout: 15_000 }).toBeGreaterThan(0);
  }
  const item = (page: Page, id: number) => page.locator(`#conversations button[data-id="${id}"]`);
  const firstId = async (page: Page) => Number(await page.locator('#conversations button[data-id]').first().getAttribute('data-id'));
  const inbound = (contact: string, id: string, text: string, timestamp?: number) =>
    meta.post(MetaWebhooks.notification(CREDS.phone_number_id, { messages: [{ from: contact, id, text, timestamp }] }), CREDS.app_secret);
  const activeCount = async () =>
    (await db.sql<{ n: number }>("select count(*)::int n from ai_conversations where project_id = ? and status = 'active'", [projectId]))[0]
      .n;

  it('a 390 × 844 phone: the inbox first, nothing wider than the screen, the agents as cards', async () => {
    const { context, page, blocked, pageErrors } = await offlinePage({ width: 390, height: 844 }, true);
    await signIn(page, 'key');
    await expect.poll(() => page.locator('#agents-rows tr').count(), { timeout: 10_000 }).toBe(3);
    const inboxBox = await page.locator('#inbox').boundingBox();
    const overviewBox = await page.locator('#overview-title').boundingBox();
    expect(inboxBox!.y).toBeLessThan(overviewBox!.y);
    expect(inboxBox!.y).toBeLessThan(200);
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    for (const b of await page.locator('#agents-rows button').all()) {
      const box = await b.boundingBox();
      expect(box!.x).toBeGreaterThanOrEqual(0);
      expect(box!.x + box!.width).toBeLessThanOrEqual(390);
    }
    await page.screenshot({ path: path.join(OUT, 'console-inbox-phone.png') });
    await page.screenshot({ path: path.join(OUT, 'console-inbox-phone-full.png'), fullPage: true });
    expect(blocked).toEqual([]);
    expect(pageErrors).toEqual([]);
    await context.close();
  }, 60_000);

  it('Arabic: right to left, the words and numbers in Arabic, customer text in its own direction', async () => {
    const { context, page, blocked, pageErrors } = await offlinePage();
    await signIn(page, 'key', '&lang=ar');
    expect(await page.evaluate('[document.documentElement.lang, document.documentElement.dir]')).toEqual(['ar', 'rtl']);
    expect(await page.locator('#tab-all').innerText()).toBe('الكل');
    // nothing pushes a right-to-left page sideways
    await expect.poll(() => page.locator('#cards .card').count(), { timeout: 10_000 }).toBe(5);
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(1280);
    expect(await page.evaluate('window.scrollX')).toBe(0);
    expect(await page.locator('#inbox-title').innerText()).toBe('صندوق الوارد');
    // an Arabic message is laid out right to left, a German one left to right, in the same list
    const direction = (id: number) =>
      page.evaluate(`getComputedStyle(document.querySelector('#conversations button[data-id="${id}"] .preview')).direction`);
    expect(await direction(ids[2])).toBe('rtl');
    expect(await direction(ids[3])).toBe('ltr');
    // the unread count is written with the language's own digits, as Intl writes them
    const count = await item(page, ids[0]).locator('.count').innerText();
    expect(count).toBe(await page.evaluate(`new Intl.NumberFormat('ar').format(1)`));
    // API errors in the same language: the base path carries it
    expect(await page.locator('#agents-title').innerText()).toBe('الوكلاء');
    await page.screenshot({ path: path.join(OUT, 'console-inbox-ar.png') });
    expect(blocked).toEqual([]);
    expect(pageErrors).toEqual([]);
    await context.close();
  }, 60_000);

  it('a level-2 owner signs in and sees only their business', async () => {
    // a conversation of business 2 (Pizzeria Norte, agent 2), which Bruno does not own
    const [norte] = await db.sql<{ id: number }>(
      `insert into ai_conversations (project_id, agent_id, business_id, status, usage, created_at)
       values (?, 2, 2, 'active', '{}', now() - interval '2 hours') returning id`,
      [projectId],
    );
    await db.sql(
      `insert into ai_messages (project_id, conversation_id, role, content, public, created_at) values (?, ?, 'user', ?, true, now() - interval '2 hours')`,
      [projectId, norte.id, 'Norte only'],
    );
    const { context, page, blocked, pageErrors } = await offlinePage();
    await signIn(page, 'owner');
    await expect.poll(() => page.locator('#who').innerText()).toContain('Bruno Owner');
    await page.locator('#conversations').evaluate((el) => ((el as { scrollTop: number }).scrollTop = 1e6));
    await expect.poll(() => page.locator('#more').innerText(), { timeout: 10_000 }).toMatch(/^All \d+ conversations shown\.$/);
    const shown = await page
      .locator('#conversations button[data-id]')
      .evaluateAll((els) => els.map((e) => Number((e as never as { dataset: { id: string } }).dataset.id)));
    const business1 = (
      await db.sql<{ id: number }>("select id from ai_conversations where project_id = ? and status = 'active' and business_id = 1", [
        projectId,
      ])
    ).map((r) => r.id);
    expect(shown.sort((a, b) => a - b)).toEqual(business1.sort((a, b) => a - b));
    expect(shown).not.toContain(norte.id);
    // the agents of business 1 only
    await expect.poll(() => page.locator('#agents-rows tr').count(), { timeout: 10_000 }).toBe(2);
    expect(await page.locator('#agents-rows').innerText()).not.toContain('Web helper');
    // and they may reply (a password session)
    await item(page, ids[0]).click();
    await expect.poll(() => page.locator('#reply').isVisible()).toBe(true);
    await page.screenshot({ path: path.join(OUT, 'console-inbox-owner.png') });
    expect(blocked).toEqual([]);
    expect(pageErrors).toEqual([]);
    await context.close();
  }, 60_000);

  it('sign-out ends the session on the server (CONTRACT §11); the next operator in the same tab sees no draft', async () => {
    const { context, page, blocked, pageErrors } = await offlinePage();
    const box = page.getByLabel('Reply to the customer');
    await signIn(page, 'admin');
    await item(page, ids[0]).click();
    await expect.poll(() => page.locator('#reply').isVisible()).toBe(true);
    await box.fill('Borrador de Ada');
    const token = await page.evaluate<string>("JSON.parse(sessionStorage.getItem('ordergraph-console')).token");
    expect((await t.api({ path: '/ai/operators', project: 'demo', token })).statusCode).toBe(200);
    const ended = page.waitForResponse((r) => r.url().endsWith('/auth/session') && r.request().method() === 'DELETE');
    await page.locator('#signout').click();
    expect((await ended).status()).toBe(200);
    expect((await t.api({ path: '/ai/operators', project: 'demo', token })).statusCode).toBe(401);
    // the next person in the same tab: no draft of Ada's
    await signIn(page, 'owner');
    await item(page, ids[0]).click();
    await expect.poll(() => page.locator('#reply').isVisible()).toBe(true);
    expect(await box.inputValue()).toBe('');
    await page.locator('#signout').click();
    // Ada's own draft is still hers
    await signIn(page, 'admin');
    await item(page, ids[0]).click();
    await expect.poll(() => box.inputValue()).toBe('Borrador de Ada');
    await box.fill('');
    expect(blocked).toEqual([]);
    expect(pageErrors).toEqual([]);
    await context.close();
  }, 60_000);

  it('41 conversations: pages on scroll, the oldest writes again and rises with its unread count; dates, drafts, templates, new conversations, disabling', async () => {
    const { context, page, blocked, pageErrors } = await offlinePage();
    await signIn(page, 'admin');
    const total = await activeCount();
    expect(total).toBeGreaterThanOrEqual(41);
    // the first page of 30 says how many there are; the rest loads on scroll, never a silent cut
    await expect.poll(() => page.locator('#conversations button[data-id]').count()).toBe(30);
    expect(await page.locator('#more').innerText()).toContain(`30 of ${total} shown`);
    expect(await firstId(page)).toBe(ids[0]);
    await page.locator('#conversations').evaluate((el) => ((el as { scrollTop: number }).scrollTop = 1e6));
    await expect.poll(() => page.locator('#conversations button[data-id]').count(), { timeout: 10_000 }).toBe(total);
    expect(await page.locator('#more').innerText()).toBe(`All ${total} conversations shown.`);
    // unread counts, announced in the title
    expect(await item(page, ids[40]).locator('.count').innerText()).toBe('1');
    await expect.poll(() => page.title()).toMatch(/^\(\d+\) OrderGraph console$/);
    // a 30-hour-old message has its date; today's only the time (today in the browser's zone: written in the
    // minute before midnight there, the newest is yesterday's)
    expect(await item(page, ids[40]).locator('.when').innerText()).toMatch(/2026|2027/);
    expect(await item(page, ids[0]).locator('.when').innerText()).toMatch(
      browserDay(newestAt) === browserDay() ? /^\d{1,2}:\d{2}( [AP]M)?$/ : /2026|2027/,
    );

    // a closed window offers the agent's approved templates instead of a reply box
    await item(page, ids[39]).click();
    await expect.poll(() => page.locator('#window').innerText()).toBe('Window closed');
    await expect.poll(() => page.locator('#templates').isVisible()).toBe(true);
    expect(await page.locator('#reply').isVisible()).toBe(false);
    expect(await page.locator('#messages li .role').first().innerText()).toMatch(/2026|2027/);
    await expect.poll(() => page.locator('#template-pick option').count()).toBe(1);
    expect(await page.locator('#template-preview').innerText()).toBe('Hi {{1}}, your order {{2}} is ready.');
    await page.getByLabel('Value 1').fill('Lucía');
    await page.getByLabel('Value 2').fill('#1042');
    await page.getByRole('button', { name: 'Send template' }).click();
    await expect
      .poll(() => page.locator('#template-hint').innerText(), { timeout: 10_000 })
      .toBe(`Template “order_ready” sent to +${contactOf(39)}.`);
    const sent = fake.requestsTo('send').filter((r) => r.body?.type === 'template');
    expect(
      sent.map((r) => [r.body.to, r.body.template.name, r.body.template.components[0].parameters.map((p: { text: string }) => p.text)]),
    ).toEqual([[contactOf(39), 'order_ready', ['Lucía', '#1042']]]);
    // seen: its unread count is gone, for this user
    await expect.poll(() => item(page, ids[39]).locator('.count').count()).toBe(0);
    // the template is a message of the conversation (CONTRACT §10.6): in the thread, and its last activity
    await expect.poll(() => page.locator('#messages li[data-type="template"]').count(), { timeout: 10_000 }).toBe(1);
    await expect.poll(() => firstId(page), { timeout: 10_000 }).toBe(ids[39]);

    // the oldest customer writes again: it rises to the top with its unread count, announced; the window is open again
    const before = await page.evaluate<number>('window.__notes.length');
    // (Meta dates it in whole seconds: a second on, so that it is newer than the template just sent)
    const later = Math.floor(Date.now() / 1000) + 1;
    expect((await inbound(contactOf(40), 'wamid.again.40', 'The rider is at the wrong door!!', later)).status).toBe(200);
    await expect.poll(() => firstId(page), { timeout: 10_000 }).toBe(ids[40]);
    expect(await item(page, ids[40]).locator('.count').innerText()).toBe('2');
    expect(await item(page, ids[40]).locator('.preview').innerText()).toBe('The rider is at the wrong door!!');
    await expect.poll(() => page.evaluate('window.__notes.length')).toBe(before + 1);
    expect(await page.evaluate('window.__notes[window.__notes.length - 1]')).toEqual({
      title: `New message from +${contactOf(40)}`,
      body: 'The rider is at the wrong door!!',
    });
    await page.locator('#conversations').evaluate((el) => ((el as { scrollTop: number }).scrollTop = 0));
    await page.locator('#inbox').screenshot({ path: path.join(DOCS, 'console-inbox.png') });
    await item(page, ids[40]).click();
    await expect.poll(() => page.locator('#window').innerText()).toMatch(/^Window: 2[34] h \d+ min left$/);
    await expect.poll(() => page.locator('#reply').isVisible()).toBe(true);

    // after a reload it is still found first, and by search
    await page.reload();
    await expect.poll(() => page.locator('#conversations button[data-id]').count(), { timeout: 15_000 }).toBe(30);
    expect(await firstId(page)).toBe(ids[40]);
    await page.locator('#search').fill('WRONG door');
    await expect.poll(() => page.locator('#conversations button[data-id]').count(), { timeout: 10_000 }).toBe(1);
    expect(await firstId(page)).toBe(ids[40]);
    await page.locator('#search').fill('');
    await expect.poll(() => page.locator('#conversations button[data-id]').count(), { timeout: 10_000 }).toBe(30);

    // a draft stays with its conversation, never carried to another (and survives a reload)
    const box = page.getByLabel('Reply to the customer');
    await item(page, ids[0]).click();
    await box.fill('Para Lucía: llega en 10 minutos');
    await item(page, ids[1]).click();
    expect(await box.inputValue()).toBe('');
    await box.fill('Per Giulia: arriva subito');
    await item(page, ids[2]).click();
    expect(await box.inputValue()).toBe('');
    await item(page, ids[0]).click();
    expect(await box.inputValue()).toBe('Para Lucía: llega en 10 minutos');
    await item(page, ids[1]).click();
    expect(await box.inputValue()).toBe('Per Giulia: arriva subito');
    await page.reload();
    await expect.poll(() => page.locator('#conversations button[data-id]').count(), { timeout: 15_000 }).toBe(30);
    await item(page, ids[0]).click();
    expect(await box.inputValue()).toBe('Para Lucía: llega en 10 minutos');

    // tabs: Mine after taking one over; Unassigned
    await page.getByRole('button', { name: 'Take over' }).click();
    await expect.poll(() => page.locator('#handler').innerText()).toBe('Handled by you');
    await page.getByRole('tab', { name: 'Mine' }).click();
    await expect.poll(() => page.locator('#conversations button[data-id]').count(), { timeout: 10_000 }).toBe(1);
    expect(await firstId(page)).toBe(ids[0]);
    await page.getByRole('tab', { name: 'Unassigned' }).click();
    await expect.poll(() => page.locator('#more').innerText(), { timeout: 10_000 }).toBe('No conversations here.');
    await page.getByRole('tab', { name: 'All' }).click();
    await expect.poll(() => page.locator('#conversations button[data-id]').count(), { timeout: 10_000 }).toBe(30);

    // a brand-new conversation: listed at once, with its window open, without a reload
    expect((await inbound('34699000111', 'wamid.new.1', 'Hallo, habt ihr noch offen?')).status).toBe(200);
    const [fresh] = await db.sql<{ id: number }>('select id from ai_conversations where project_id = ? and contact = ?', [
      projectId,
      '34699000111',
    ]);
    await expect.poll(() => item(page, fresh.id).count(), { timeout: 10_000 }).toBe(1);
    expect(await firstId(page)).toBe(fresh.id);
    await item(page, fresh.id).click();
    await expect.poll(() => page.locator('#window').innerText()).toMatch(/^Window: 2[34] h \d+ min left$/);
    await expect.poll(() => page.locator('#reply').isVisible()).toBe(true);

    // disabling asks for confirmation; the agent's conversations then say so
    await page.getByRole('button', { name: 'Disable Pizza bot', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Disable Pizza bot?' });
    await expect.poll(() => dialog.isVisible()).toBe(true);
    await dialog.getByRole('button', { name: 'Disable', exact: true }).click();
    await expect.poll(() => item(page, fresh.id).locator('.badge.off').count(), { timeout: 10_000 }).toBe(1);
    expect(await page.locator('#agent-off').innerText()).toContain('The agent Pizza bot is disabled');
    await page.locator('#inbox').screenshot({ path: path.join(OUT, 'console-inbox-agent-disabled.png') });
    // after a reload too (the list reads agent.enabled)
    await page.reload();
    await expect.poll(() => item(page, fresh.id).locator('.badge.off').count(), { timeout: 15_000 }).toBe(1);

    expect(blocked).toEqual([]);
    expect(pageErrors).toEqual([]);
    await context.close();
  }, 120_000);
});
