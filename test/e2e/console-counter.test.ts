import 'reflect-metadata';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DemoSecrets } from '../../src/fixtures/demo.js';
import { startApp, type TestApp } from '../support/app.js';
import { seedConsoleDemo } from '../support/console-demo.js';
import { offlineContext, HAVE_CHROMIUM, launchChromium, warnIfNoChromium } from '../support/chromium.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { startMessageOutboxes } from '../support/message-outboxes.js';
import type { WhatsAppFake } from '../support/whatsapp-fake.js';

const OUT = path.resolve(__dirname, '..', 'artifacts');
const CREDS = {
  waba_id: 'counter-waba',
  phone_number_id: 'counter-phone',
  access_token: 'EAAG-console-counter',
  app_secret: 'console-counter-secret',
  verify_token: 'console-counter-verify',
};
const LUCIA = '34600111222';
const PIERRE = '33612345678';
const HOUR = 3600_000;

/** A real PNG, 120 × 80, so the preview decodes it. */
function png(width = 120, height = 80): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (b: Buffer) => {
    let c = 0xffffffff;
    for (const x of b) c = crcTable[(c ^ x) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([len, body, sum]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const rows: number[] = [];
  for (let y = 0; y < height; y++) {
    rows.push(0);
    for (let x = 0; x < width; x++) rows.push(...(y > 30 && y < 50 ? [30, 110, 200] : [240, 150, 40]));
  }
  const sig = Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]);
  return Buffer.concat([sig, chunk('IHDR', ihdr), chunk('IDAT', zlib.deflateSync(Buffer.from(rows))), chunk('IEND', Buffer.alloc(0))]);
}

warnIfNoChromium('console counter e2e');

/** CONTRACT §10.6's console in a real browser, offline, against the demo project (issue 57). */
describe.skipIf(!HAVE_CHROMIUM)('/console, what a busy counter needs next (issue 57)', () => {
  let db: TestDatabase;
  let t: TestApp;
  let browser: Browser;
  let origin: string;
  let demo: DemoSecrets;
  let fake: WhatsAppFake;
  let projectId: number;
  let lucia: number;
  let pierre: number;
  let stopWorkers: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    db = await createTestDatabase();
    ({ demo, fake, projectId } = await seedConsoleDemo(db, CREDS));
    const open = async (contact: string, name: string | null, username: string | null, inboundAgo: number, text: string) => {
      const at = new Date(Date.now() - inboundAgo);
      const [c] = await db.sql<{ id: number }>(
        `insert into ai_conversations (project_id, agent_id, business_id, contact, contact_name, contact_username, status, usage, last_inbound_at, created_at)
         values (?, 1, 1, ?, ?, ?, 'active', '{}', ?, ?) returning id`,
        [projectId, contact, name, username, at, at],
      );
      await db.sql(
        `insert into ai_messages (project_id, conversation_id, role, content, public, external_id, created_at) values (?, ?, 'user', ?, true, ?, ?)`,
        [projectId, c.id, text, `wamid.counter.${c.id}`, at],
      );
      return c.id;
    };
    // Lucía: an earlier, closed conversation with two orders, and today's with one
    const [earlier] = await db.sql<{ id: number }>(
      `insert into ai_conversations (project_id, agent_id, business_id, contact, status, status_reason, usage, created_at, closed_at)
       values (?, 1, 1, ?, 'closed', 'completed', '{}', now() - interval '5 days', now() - interval '5 days') returning id`,
      [projectId, LUCIA],
    );
    pierre = await open(PIERRE, 'Pierre', null, 30 * HOUR, 'Bonjour, ma commande ?');
    lucia = await open(LUCIA, 'Lucía Gómez', 'lucia.g', 10 * 60_000, '¿Tenéis mesa para cuatro esta noche?');
    await db.sql(
      `insert into ai_messages (project_id, conversation_id, role, content, public, delivery_status, delivery_error, created_at)
       values (?, ?, 'assistant', 'Sí, a las nueve', true, 'failed', '131047: Re-engagement message', now() - interval '5 minutes')`,
      [projectId, lucia],
    );
    for (const [conversation, total, daysAgo] of [
      [earlier.id, 21.5, 5],
      [earlier.id, 9.5, 5],
      [lucia, 32, 0],
    ] as const) {
      await db.sql(
        `insert into orders (project_id, business_id, conversation_id, status, summary, created_at)
         values (?, 1, ?, 0, ?, now() - make_interval(days => ?))`,
        [projectId, conversation, JSON.stringify({ total }), daysAgo],
      );
    }
    await db.sql(
      "insert into ai_replies (project_id, shortcut, content) values (?, 'hours', 'Abrimos de 12:00 a 23:30, todos los días.')",
      [projectId],
    );
    await db.sql("insert into ai_replies (project_id, shortcut, content) values (?, 'menu', 'Aquí tienes nuestra carta.')", [projectId]);
    t = await startApp('mercurius', db, { config: { whatsappApiUrl: fake.url, providerTimeoutMs: 2000 } });
    origin = await t.listen();
    // the reply sender, as `serve` runs it
    stopWorkers = startMessageOutboxes(t, db, fake.url);
    browser = await launchChromium();
    fs.mkdirSync(OUT, { recursive: true });
  }, 120_000);
  afterAll(async () => {
    await stopWorkers?.();
    await browser?.close();
    await fake?.close();
    await t?.close();
    await db?.orm.close();
  });

  async function offlinePage(viewport = { width: 1366, height: 900 }, isMobile = false) {
    const { context, blocked } = await offlineContext(browser, viewport, isMobile);
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (err) => pageErrors.push(err.message));
    return { context, page, blocked, pageErrors };
  }
  async function signIn(page: Page, query = '') {
    await page.goto(`${origin}/console?project=demo${query}`);
    await page.locator('input[name="method"][value="password"]').check();
    await page.locator('#email').fill(demo.email);
    await page.locator('#password').fill(demo.password);
    await page.locator('#signin-form button[type="submit"]').click();
    await expect.poll(() => page.locator('#conversations button[data-id]').count(), { timeout: 15_000 }).toBeGreaterThan(0);
  }
  const open = async (page: Page, id: number) => {
    await page.locator(`#conversations button[data-id="${id}"]`).click();
    await expect.poll(() => page.locator('#messages li').count(), { timeout: 10_000 }).toBeGreaterThan(0);
  };
  const messagesOf = (id: number) =>
    db.sql<{
      role: string;
      type: string;
      public: boolean;
      content: string;
      payload: any;
      delivery_status: string | null;
      author_id: number | null;
    }>('select role, type, public, content, payload, delivery_status, author_id from ai_messages where conversation_id = ? order by id', [
      id,
    ]);

  it('English, desktop: contact panel, saved replies on "/", a note, assignment by name, a file previewed and cancelled, closing', async () => {
    const { context, page, blocked, pageErrors } = await offlinePage();
    try {
      await signIn(page);
      await open(page, lucia);

      // the contact panel: the phone as a tel: link, the username, the conversations and their orders
      await page.locator('#contact-panel summary').click();
      await expect.poll(() => page.locator('#contact-facts a.tel').getAttribute('href')).toBe(`tel:+${LUCIA}`);
      expect(await page.locator('#contact-facts').innerText()).toContain('@lucia.g');
      await expect.poll(() => page.locator('#contact-conversations [data-order]').count(), { timeout: 10_000 }).toBe(3);
      expect(await page.locator('#contact-conversations').innerText()).toMatch(/Order #\d+: €21\.50/);

      // a failed reply's reason is an isolated run
      expect(await page.locator('#messages .tick.failed bdi.reason').getAttribute('dir')).toBe('ltr');

      // saved replies: "/" offers them, Enter puts the chosen one in the box
      const box = page.locator('#reply-text');
      await box.fill('');
      await box.pressSequentially('/ho');
      await expect
        .poll(() => page.locator('#replies [role="option"]').allInnerTexts())
        .toEqual(['/hours Abrimos de 12:00 a 23:30, todos los días.']);
      await box.press('Enter');
      expect(await box.inputValue()).toBe('Abrimos de 12:00 a 23:30, todos los días.');
      expect(await page.locator('#replies').isHidden()).toBe(true);

      // a note: stored as a non-public system message by the user, never sent
      const sendsBefore = fake.requestsTo('send').length;
      await box.fill('Llamar a las 18:00 para confirmar');
      await page.locator('#add-note').click();
      await expect.poll(() => page.locator('#messages li.note').count()).toBe(1);
      expect(await page.locator('#messages li.note').innerText()).toContain('Note for colleagues');
      const note = (await messagesOf(lucia)).at(-1)!;
      expect(note).toMatchObject({ role: 'system', public: false, delivery_status: null, author_id: 1 });

      // assignment to a colleague by name
      await page.locator('#assign').selectOption({ label: 'Bruno Owner' });
      await expect.poll(() => page.locator('#handler').innerText()).toBe('Handled by Bruno Owner');
      expect((await db.sql<{ assignee_id: number }>('select assignee_id from ai_conversations where id = ?', [lucia]))[0].assignee_id).toBe(
        2,
      );

      // a file: previewed with a caption; Cancel sends nothing; a .webp picture is sent as an image
      const mediaBefore = (await db.sql<{ n: number }>('select count(*)::int as n from ai_media where project_id = ?', [projectId]))[0].n;
      await page.locator('#reply-file').setInputFiles({ name: 'terraza.webp', mimeType: 'image/webp', buffer: png() });
      await expect.poll(() => page.locator('#file-preview').isVisible()).toBe(true);
      expect(await page.locator('#file-name').innerText()).toContain('Picture · terraza.webp');
      expect(await page.locator('#file-sticker-label').isVisible()).toBe(true);
      await expect.poll(() => page.evaluate("document.getElementById('file-thumb').naturalWidth")).toBe(120);
      await page.locator('#file-caption').fill('Nuestra terraza');
      expect(await page.locator('#new-below').isHidden()).toBe(true);
      await page.locator('#messages-title').scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(OUT, 'console-counter-en.png') });
      await page.locator('#file-cancel').click();
      expect(await page.locator('#file-preview').isHidden()).toBe(true);
      expect((await db.sql<{ n: number }>('select count(*)::int as n from ai_media where project_id = ?', [projectId]))[0].n).toBe(
        mediaBefore,
      );
      await page.locator('#reply-file').setInputFiles({ name: 'terraza.webp', mimeType: 'image/webp', buffer: png() });
      await page.locator('#file-caption').fill('Nuestra terraza');
      await page.locator('#file-send').click();
      await expect.poll(async () => (await messagesOf(lucia)).at(-1)!.type, { timeout: 10_000 }).toBe('image');
      expect((await messagesOf(lucia)).at(-1)!.payload).toMatchObject({ caption: 'Nuestra terraza' });
      const [stored] = await db.sql<{ mime_type: string; filename: string }>(
        "select mime_type, filename from ai_media where project_id = ? and origin = 'upload' order by created_at desc limit 1",
        [projectId],
      );
      expect(stored).toEqual({ mime_type: 'image/jpeg', filename: 'terraza.jpg' });
      await expect.poll(() => fake.requestsTo('send').length - sendsBefore, { timeout: 10_000 }).toBe(1); // the picture, not the note

      // closing, after a confirmation: no reply box any more
      await page.locator('#close-conversation').click();
      await page.locator('#close-yes').click();
      await expect.poll(() => page.locator('#reply-off').innerText()).toContain('closed');
      expect(await page.locator('#reply').isHidden()).toBe(true);
      expect((await db.sql<{ status: string }>('select status from ai_conversations where id = ?', [lucia]))[0].status).toBe('closed');

      expect(blocked).toEqual([]);
      expect(pageErrors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('a template sent to a closed window shows in the thread, for this operator and after a reload', async () => {
    const { context, page, pageErrors } = await offlinePage();
    try {
      await signIn(page);
      await open(page, pierre);
      await expect.poll(() => page.locator('#template-pick option').count(), { timeout: 10_000 }).toBe(1);
      await page.locator('#template-param-1').fill('Pierre');
      await page.locator('#template-param-2').fill('A-17');
      await page.getByRole('button', { name: 'Send template' }).click();
      const template = page.locator('#messages li[data-type="template"]');
      await expect.poll(() => template.count(), { timeout: 10_000 }).toBe(1);
      expect(await template.innerText()).toContain('Template order_ready');
      expect(await template.innerText()).toContain('Hi Pierre, your order A-17 is ready.');
      await page.reload();
      await expect.poll(() => page.locator('#conversations button[data-id]').count(), { timeout: 15_000 }).toBeGreaterThan(0);
      await open(page, pierre);
      await expect.poll(() => page.locator('#messages li[data-type="template"]').count(), { timeout: 10_000 }).toBe(1);
      expect(pageErrors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('Arabic at 390 × 844 and French: plurals by the language, the search without accents, the question in the customer language', async () => {
    const ar = await offlinePage({ width: 390, height: 844 }, true);
    try {
      await signIn(ar.page, '&lang=ar');
      await ar.page.locator('#search').fill('lucia');
      await expect.poll(() => ar.page.locator('#more').innerText(), { timeout: 10_000 }).toBe('تم عرض المحادثة الوحيدة.');
      await open(ar.page, lucia);
      await ar.page.locator('#contact-panel summary').click();
      await expect.poll(() => ar.page.locator('#contact-conversations [data-order]').count(), { timeout: 10_000 }).toBe(3);
      expect(await ar.page.locator('#messages .tick.failed').innerText()).toContain('131047: Re-engagement message');
      expect(await ar.page.locator('#new-below').isHidden()).toBe(true);
      expect(await ar.page.locator('#close-confirm').isHidden()).toBe(true);
      await ar.page.locator('#messages-title').scrollIntoViewIfNeeded();
      await ar.page.screenshot({ path: path.join(OUT, 'console-counter-ar.png') });
      await ar.page.screenshot({ path: path.join(OUT, 'console-counter-ar-full.png'), fullPage: true });
      expect(ar.pageErrors).toEqual([]);
    } finally {
      await ar.context.close();
    }
    const fr = await offlinePage();
    try {
      await signIn(fr.page, '&lang=fr');
      await fr.page.locator('#search').fill('LUCIA');
      await expect.poll(() => fr.page.locator('#more').innerText(), { timeout: 10_000 }).toBe('La seule conversation est affichée.');
      await fr.page.locator('#search').fill('');
      await expect
        .poll(() => fr.page.locator('#more').innerText(), { timeout: 10_000 })
        .toMatch(/^Les \d+ conversations sont affichées\.$/);
      // "ask for location" puts an editable question in the box, in the customer's language (a Spanish number)
      const [spanish] = await db.sql<{ id: number }>(
        `insert into ai_conversations (project_id, agent_id, business_id, contact, status, usage, last_inbound_at)
         values (?, 1, 1, '34600999000', 'active', '{}', now()) returning id`,
        [projectId],
      );
      await db.sql(
        `insert into ai_messages (project_id, conversation_id, role, content, public, external_id) values (?, ?, 'user', 'hola', true, 'wamid.counter.es')`,
        [projectId, spanish.id],
      );
      await fr.page.reload();
      await expect.poll(() => fr.page.locator(`#conversations button[data-id="${spanish.id}"]`).count(), { timeout: 15_000 }).toBe(1);
      await open(fr.page, spanish.id);
      const sends = fake.requestsTo('send').length;
      await fr.page.locator('#ask-location').click();
      expect(await fr.page.locator('#reply-text').inputValue()).toBe('¿Nos compartes tu ubicación, por favor?');
      expect(fake.requestsTo('send').length).toBe(sends);
      await fr.page.screenshot({ path: path.join(OUT, 'console-counter-fr.png') });
      await fr.page.locator('#reply button[type="submit"]').click();
      await expect.poll(async () => (await messagesOf(spanish.id)).at(-1)!.type, { timeout: 10_000 }).toBe('interactive');
      expect((await messagesOf(spanish.id)).at(-1)!.payload).toMatchObject({
        type: 'location_request_message',
        body: { text: '¿Nos compartes tu ubicación, por favor?' },
      });
      expect(fr.pageErrors).toEqual([]);
    } finally {
      await fr.context.close();
    }
  });
});
