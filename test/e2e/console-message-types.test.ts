import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type AppConfig } from '../../src/config.js';
import { seedDemo, type DemoSecrets } from '../../src/fixtures/demo.js';
import { startApp, type TestApp } from '../support/app.js';
import { BROWSER_ZONE, HAVE_CHROMIUM, launchChromium, warnIfNoChromium } from '../support/chromium.js';
import { startMessageOutboxes } from '../support/message-outboxes.js';
import { createTestDatabase, TEST_CREDENTIALS_KEY, testCipher, type TestDatabase } from '../support/db.js';
import { MetaWebhooks, startWhatsAppFake, type MetaMessage, type WhatsAppFake } from '../support/whatsapp-fake.js';

const OUT = path.resolve(__dirname, '..', 'artifacts');
// The docs' screenshot is rewritten only on request (UPDATE_DOCS_SCREENSHOTS=1): a test run leaves the tree clean.
const DOCS = process.env.UPDATE_DOCS_SCREENSHOTS === '1' ? path.resolve(__dirname, '..', '..', 'docs') : OUT;
const CREDS = {
  waba_id: 'types-waba',
  phone_number_id: 'types-phone',
  access_token: 'EAAG-console-types',
  app_secret: 'console-types-secret',
  verify_token: 'console-types-verify',
};
const CONTACT = '34600123456';

/** A real PNG (so the browser decodes it: naturalWidth > 0): a 240 × 160 orange picture with a darker band. */
function png(width = 240, height = 160): Buffer {
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
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  const rows: number[] = [];
  for (let y = 0; y < height; y++) {
    rows.push(0);
    for (let x = 0; x < width; x++) rows.push(...(y > 60 && y < 100 ? [160, 60, 0] : [240, 150, 40]));
  }
  const sig = Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]);
  return Buffer.concat([sig, chunk('IHDR', ihdr), chunk('IDAT', zlib.deflateSync(Buffer.from(rows))), chunk('IEND', Buffer.alloc(0))]);
}

warnIfNoChromium('console message types e2e');

/** CONTRACT §12.6 (issue 41 item 4, issue 42 item 5): every message type in a real browser, offline. */
describe.skipIf(!HAVE_CHROMIUM)('/console shows every message type (CONTRACT §12.6)', () => {
  let db: TestDatabase;
  let t: TestApp;
  let browser: Browser;
  let origin: string;
  let demo: DemoSecrets;
  let fake: WhatsAppFake;
  let meta: MetaWebhooks;
  let stopWorkers: () => Promise<void>;
  let conversationId: number;
  const ids: Record<string, number> = {};
  /** The Cloud API's ids of the buttons and the list (what a tap's `context.id` names). */
  let buttonsWamid: string;
  let listWamid: string;
  const picture = png();

  const api = async (p: string, body?: unknown) => {
    const res = await fetch(`${origin}/v400/en/demo${p}`, {
      method: body ? 'POST' : 'GET',
      headers: { 'x-api-key': demo.serverKey, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const json = (await res.json()) as { error: boolean; result: any };
    if (!res.ok) throw new Error(`${p}: ${res.status} ${JSON.stringify(json)}`);
    return json.result;
  };
  const until = async <T>(read: () => Promise<T>, ok: (v: T) => boolean, ms = 20_000): Promise<T> => {
    const end = Date.now() + ms;
    for (;;) {
      const v = await read();
      if (ok(v)) return v;
      if (Date.now() > end) throw new Error(`not reached: ${JSON.stringify(v)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const externalOf = (id: number) =>
    until(
      () => db.sql<{ external_id: string | null }>('select external_id from ai_messages where id = ?', [id]).then((r) => r[0].external_id),
      (x) => x != null,
    ) as Promise<string>;
  const messageIdOf = (external: string) =>
    until(
      () => db.sql<{ id: number }>('select id from ai_messages where external_id = ?', [external]).then((r) => r[0]?.id),
      (x) => x != null,
    );
  const deliver = async (messages: MetaMessage[]) => {
    const res = await meta.post(
      MetaWebhooks.notification(CREDS.phone_number_id, { messages, contacts: [{ wa_id: CONTACT, name: 'Lucía Fernández' }] }),
      CREDS.app_secret,
    );
    expect(res.status).toBe(200);
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    demo = (await seedDemo(db.orm, { credentialsKey: TEST_CREDENTIALS_KEY } as AppConfig))!;
    fake = await startWhatsAppFake();
    fake.addAccount({ ...CREDS, templates: [] });
    const [{ id: projectId }] = await db.sql<{ id: number }>("select id from projects where code = 'demo'");
    await db.sql('update ai_agents set credentials = ? where id = 1 and project_id = ?', [testCipher.encrypt(CREDS), projectId]);
    // the demo's own conversations are older: the customer's below is the newest, opened first
    await db.sql("update ai_conversations set last_message_at = least(last_message_at, now() - interval '3 days') where project_id = ?", [
      projectId,
    ]);
    t = await startApp('mercurius', db, {
      config: { whatsappApiUrl: fake.url, providerTimeoutMs: 2000, media: { ...loadConfig({}).media, retryBaseMs: 50 } },
    });
    origin = await t.listen();
    // the download job and the reply sender, as `serve` runs them
    stopWorkers = startMessageOutboxes(t, db, fake.url);
    meta = new MetaWebhooks(`${origin}/v400/en/demo/ai/webhooks/whatsapp`);

    // the customer writes; the restaurant answers with buttons and a list (drawn as the customer sees them)
    await deliver([{ from: CONTACT, id: 'wamid.types.hello', text: 'Hola, quiero pedir' }]);
    ids.hello = await messageIdOf('wamid.types.hello');
    [{ conversation_id: conversationId }] = await db.sql<{ conversation_id: number }>(
      'select conversation_id from ai_messages where id = ?',
      [ids.hello],
    );
    const buttons = await api(`/ai/conversations/${conversationId}/messages`, {
      role: 'assistant',
      type: 'interactive',
      payload: {
        type: 'button',
        header: { type: 'text', text: 'Your order' },
        body: { text: '2 × Margherita, 1 × Tiramisu. Shall we prepare it?' },
        footer: { text: 'Pizzeria Napoli' },
        action: {
          buttons: [
            { type: 'reply', reply: { id: 'confirm', title: 'Confirm order' } },
            { type: 'reply', reply: { id: 'change', title: 'Change' } },
            { type: 'reply', reply: { id: 'cancel', title: 'Cancel' } },
          ],
        },
      },
    });
    ids.buttons = buttons.id;
    const list = await api(`/ai/conversations/${conversationId}/messages`, {
      role: 'assistant',
      type: 'interactive',
      payload: {
        type: 'list',
        body: { text: 'Today’s pizzas' },
        action: {
          button: 'See pizzas',
          sections: [
            {
              title: 'Pizzas',
              rows: [
                { id: 'marg', title: 'Margherita', description: 'Tomato, mozzarella, basil' },
                { id: 'pep', title: 'Pepperoni', description: 'Large, spicy' },
                { id: 'veg', title: 'Vegetariana' },
              ],
            },
          ],
        },
      },
    });
    ids.list = list.id;
    buttonsWamid = await externalOf(ids.buttons);
    listWamid = await externalOf(ids.list);

    browser = await launchChromium();
    fs.mkdirSync(OUT, { recursive: true });
    fs.mkdirSync(DOCS, { recursive: true });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await stopWorkers?.();
    await fake?.close();
    await t?.close();
    await db?.orm.close();
  });

  /** A page whose every request to another host fails the test. */
  async function offlinePage(query = '') {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, timezoneId: BROWSER_ZONE });
    const blocked: string[] = [];
    await context.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (url.protocol !== 'blob:' && url.hostname !== '127.0.0.1') {
        blocked.push(url.href);
        return route.abort('blockedbyclient');
      }
      return route.continue();
    });
    const page = await context.newPage();
    const pageErrors: string[] = [];
    const cspErrors: string[] = [];
    page.on('pageerror', (err) => pageErrors.push(err.message));
    page.on('console', (msg) => {
      if (/Content Security Policy/i.test(msg.text())) cspErrors.push(msg.text());
    });
    await page.goto(`${origin}/console?project=demo${query}`);
    await page.locator('input[name="method"][value="password"]').check();
    await page.locator('#email').fill(demo.email);
    await page.locator('#password').fill(demo.password);
    await page.locator('#signin-form button[type="submit"]').click();
    const item = page.locator(`#conversations button[data-id="${conversationId}"]`);
    await expect.poll(() => item.count(), { timeout: 15_000 }).toBe(1);
    await item.click();
    await expect.poll(() => page.locator(`#messages li[data-id="${ids.list}"]`).count(), { timeout: 15_000 }).toBe(1);
    await expect.poll(() => page.locator('#live-mode').textContent(), { timeout: 15_000 }).not.toBe('');
    return { context, page, blocked, pageErrors, cspErrors };
  }
  const li = (page: Page, id: number) => page.locator(`#messages li[data-id="${id}"]`);
  /** The decoded width of the picture message (0 until the browser decoded it). */
  const naturalWidth = (page: Page) =>
    page.evaluate(`(document.querySelector('#messages li[data-id="${ids.image}"] img.media') || { naturalWidth: 0 }).naturalWidth`);
  /** The whole thread in one picture (the list scrolls in the page; its height is lifted through the CSSOM). */
  async function shoot(page: Page, file: string) {
    await page.evaluate(
      "(() => { const list = document.getElementById('messages'); list.style.maxHeight = 'none'; list.style.height = 'auto'; })()",
    );
    await page.locator('#thread').screenshot({ path: file });
  }

  it('draws each inbound type (media through the API into blob URLs, updated on message.updated), in English', async () => {
    const { context, page, blocked, pageErrors, cspErrors } = await offlinePage();
    // outbound buttons and list, as the customer sees them
    await expect.poll(() => li(page, ids.buttons).locator('.wa-button').allTextContents()).toEqual(['Confirm order', 'Change', 'Cancel']);
    expect(await li(page, ids.buttons).locator('.wa-header').textContent()).toBe('Your order');
    expect(await li(page, ids.list).locator('.wa-row').count()).toBe(3);

    // the files arrive while the page is open: pending first, then the picture (message.updated)
    const slow = fake.addMedia({
      id: '700001',
      phone_number_id: CREDS.phone_number_id,
      bytes: picture,
      mime_type: 'image/png',
      // about three seconds: the placeholder is seen even when a loaded host delivers message.created to the page late
      bytesPerSecond: Math.ceil(picture.length / 3),
    });
    const voice = fake.addMedia({
      id: '700002',
      phone_number_id: CREDS.phone_number_id,
      bytes: randomBytes(3000),
      mime_type: 'audio/ogg',
    });
    const clip = fake.addMedia({
      id: '700003',
      phone_number_id: CREDS.phone_number_id,
      bytes: randomBytes(4000),
      mime_type: 'video/mp4',
    });
    const menu = fake.addMedia({
      id: '700004',
      phone_number_id: CREDS.phone_number_id,
      bytes: Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(48_000)]),
      mime_type: 'application/pdf',
    });
    await deliver([
      {
        from: CONTACT,
        id: 'wamid.types.image',
        type: 'image',
        extra: { image: { id: slow.id, mime_type: 'image/png', caption: 'Like this one, please' } },
      },
      { from: CONTACT, id: 'wamid.types.audio', type: 'audio', extra: { audio: { id: voice.id, mime_type: 'audio/ogg', voice: true } } },
      { from: CONTACT, id: 'wamid.types.video', type: 'video', extra: { video: { id: clip.id, mime_type: 'video/mp4' } } },
      {
        from: CONTACT,
        id: 'wamid.types.doc',
        type: 'document',
        extra: { document: { id: menu.id, mime_type: 'application/pdf', filename: 'allergies.pdf' } },
      },
      {
        from: CONTACT,
        id: 'wamid.types.location',
        type: 'location',
        extra: { location: { latitude: 40.4168, longitude: -3.7038, name: 'Casa de Lucía', address: 'Gran Vía 1, Madrid' } },
      },
      {
        from: CONTACT,
        id: 'wamid.types.card',
        type: 'contacts',
        extra: {
          contacts: [{ name: { formatted_name: 'Ana López' }, phones: [{ phone: '+34 600 111 222' }], org: { company: 'Oficina' } }],
        },
      },
      {
        from: CONTACT,
        id: 'wamid.types.order',
        type: 'order',
        extra: {
          order: {
            catalog_id: 'cat1',
            text: 'For tonight',
            product_items: [
              { product_retailer_id: 'Margherita', quantity: 2, item_price: 9.5, currency: 'EUR' },
              { product_retailer_id: 'Tiramisu', quantity: 1, item_price: 4.25, currency: 'EUR' },
            ],
          },
        },
      },
      {
        from: CONTACT,
        id: 'wamid.types.tap',
        type: 'interactive',
        extra: {
          context: { from: '15550001111', id: buttonsWamid },
          interactive: { type: 'button_reply', button_reply: { id: 'confirm', title: 'Confirm order' } },
        },
      },
      {
        from: CONTACT,
        id: 'wamid.types.row',
        type: 'interactive',
        extra: {
          context: { from: '15550001111', id: listWamid },
          interactive: { type: 'list_reply', list_reply: { id: 'pep', title: 'Pepperoni', description: 'Large, spicy' } },
        },
      },
      { from: CONTACT, id: 'wamid.types.react', type: 'reaction', extra: { reaction: { message_id: buttonsWamid, emoji: '👍' } } },
    ]);
    for (const k of ['image', 'audio', 'video', 'doc', 'location', 'card', 'order', 'tap', 'row', 'react'])
      ids[k] = await messageIdOf(`wamid.types.${k}`);

    // the picture: a placeholder while the file is downloaded, then decoded from a blob URL
    await expect.poll(() => li(page, ids.image).locator('.media-pending').count(), { timeout: 10_000 }).toBe(1);
    await shoot(page, path.join(OUT, 'console-message-types-pending.png'));
    const img = li(page, ids.image).locator('img.media');
    await expect.poll(() => img.count(), { timeout: 20_000 }).toBe(1);
    await expect.poll(() => naturalWidth(page), { timeout: 10_000 }).toBe(240);
    expect(await img.getAttribute('src')).toMatch(/^blob:/);
    expect(await li(page, ids.image).locator('.content').textContent()).toBe('Like this one, please');
    // players
    await expect.poll(() => li(page, ids.audio).locator('audio[controls]').getAttribute('src'), { timeout: 20_000 }).toMatch(/^blob:/);
    await expect.poll(() => li(page, ids.video).locator('video[controls]').getAttribute('src'), { timeout: 20_000 }).toMatch(/^blob:/);
    // the document: its name and size, downloaded with the credential on a click
    await expect
      .poll(() => li(page, ids.doc).locator('button.document .doc-name').textContent(), { timeout: 20_000 })
      .toBe('allergies.pdf');
    expect(await li(page, ids.doc).locator('.doc-size').textContent()).toBe('48 kB');
    const download = page.waitForEvent('download');
    await li(page, ids.doc).locator('button.document').click();
    expect((await download).suggestedFilename()).toBe('allergies.pdf');
    // the location: name, address, coordinates and an https link to a map (nothing loaded from it)
    const loc = li(page, ids.location);
    expect(await loc.locator('strong').textContent()).toBe('Casa de Lucía');
    expect(await loc.locator('.address').textContent()).toBe('Gran Vía 1, Madrid');
    expect(await loc.locator('.coords').textContent()).toBe('40.4168, -3.7038');
    expect(await loc.locator('a.map-link').getAttribute('href')).toBe(
      'https://www.openstreetmap.org/?mlat=40.4168&mlon=-3.7038#map=17/40.4168/-3.7038',
    );
    expect(await loc.locator('a.map-link').getAttribute('rel')).toBe('noopener noreferrer');
    // the contact card
    expect(await li(page, ids.card).locator('.contact-card').innerText()).toContain('Ana López');
    expect(await li(page, ids.card).locator('.phone').textContent()).toBe('☎ +34 600 111 222');
    // the order: quantities, prices and the total
    const rows = await page.evaluate(
      `Array.from(document.querySelectorAll('#messages li[data-id="${ids.order}"] tbody tr')).map((tr) => tr.innerText.split('\\t'))`,
    );
    expect(rows).toEqual([
      ['Margherita', '2', '€9.50', '€19.00'],
      ['Tiramisu', '1', '€4.25', '€4.25'],
    ]);
    expect(await li(page, ids.order).locator('td.total').textContent()).toBe('€23.25');
    // the reaction sits on the message it reacts to (not a message of its own)
    expect(await li(page, ids.react).count()).toBe(0);
    expect(await li(page, ids.buttons).locator('.reactions').textContent()).toBe('👍');
    // the tapped button and the picked row beside their question
    expect(await li(page, ids.tap).locator('.quote').innerText()).toContain('2 × Margherita, 1 × Tiramisu');
    expect(await li(page, ids.tap).locator('.choice-title').textContent()).toBe('Confirm order');
    expect(await li(page, ids.buttons).locator('.wa-button.chosen').textContent()).toBe('✓ Confirm order');
    expect(await li(page, ids.row).locator('.quote').innerText()).toContain('Today’s pizzas');
    expect(await li(page, ids.list).locator('.wa-row.chosen').innerText()).toContain('Pepperoni');

    await shoot(page, path.join(DOCS, 'console-message-types.png'));
    await shoot(page, path.join(OUT, 'console-message-types-en.png'));
    expect(blocked).toEqual([]);
    expect(pageErrors).toEqual([]);
    expect(cspErrors).toEqual([]);
    await context.close();
  }, 120_000);

  it('reads right to left in Arabic, with its own digits, the same types', async () => {
    const { context, page, blocked, pageErrors, cspErrors } = await offlinePage('&lang=ar');
    expect(await page.evaluate('document.documentElement.dir')).toBe('rtl');
    await expect.poll(() => naturalWidth(page), { timeout: 20_000 }).toBe(240);
    // the total in the page's own number formatting (the digits of every other figure of the page)
    const total = await page.evaluate("new Intl.NumberFormat('ar', { style: 'currency', currency: 'EUR' }).format(23.25)");
    expect(await li(page, ids.order).locator('td.total').textContent()).toBe(total);
    expect(await li(page, ids.order).locator('tbody td.num').first().textContent()).toBe(await page.evaluate('window.OrderGraphI18n.n(2)'));
    expect(await li(page, ids.order).locator('thead').innerText()).toContain('الكمية');
    expect(await li(page, ids.location).locator('a.map-link').textContent()).toBe('فتح الخريطة ↗');
    expect(await li(page, ids.buttons).locator('.reactions').textContent()).toBe('👍');
    expect(await li(page, ids.tap).locator('.quote').innerText()).toContain('2 × Margherita');
    expect(await li(page, ids.doc).locator('.doc-get').textContent()).toBe('تنزيل');
    // the reply box's words
    expect(await page.locator('#ask-location').textContent()).toBe('طلب الموقع');
    expect(await page.locator('label[for="reply-file"]').textContent()).toBe('إرفاق ملف');
    await shoot(page, path.join(OUT, 'console-message-types-ar.png'));
    // nothing wider than the page (right to left, an overflow would push the page sideways)
    expect(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBe(0);
    expect(blocked).toEqual([]);
    expect(pageErrors).toEqual([]);
    expect(cspErrors).toEqual([]);
    await context.close();
  }, 120_000);

  it('asks for the location and attaches a file from the reply box: the Cloud API receives both', async () => {
    const { context, page, blocked, pageErrors, cspErrors } = await offlinePage();
    const sends = () => fake.requestsTo('send').map((r) => r.body as Record<string, any>);
    // §10.6: the question is put in the box, in the customer's language (a Spanish number), and sent when the operator sends it
    await page.locator('#ask-location').click();
    expect(await page.locator('#reply-text').inputValue()).toBe('¿Nos compartes tu ubicación, por favor?');
    expect(sends().some((b) => b.type === 'interactive' && b.interactive?.type === 'location_request_message')).toBe(false);
    await page.locator('#reply button[type="submit"]').click();
    const asked = await until(
      async () => sends().find((b) => b.type === 'interactive' && b.interactive?.type === 'location_request_message'),
      (b) => !!b,
    );
    expect(asked!.interactive).toEqual({
      type: 'location_request_message',
      body: { text: '¿Nos compartes tu ubicación, por favor?' },
      action: { name: 'send_location' },
    });
    await expect.poll(() => page.locator('#messages li.assistant .wa-button').last().textContent()).toBe('Send location');

    const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(2000)]);
    await page.locator('#reply-text').fill('Our menu');
    await page.locator('#reply-file').setInputFiles({ name: 'menu.pdf', mimeType: 'application/pdf', buffer: pdf });
    // previewed first (§10.6): the box's text is the caption offered; nothing leaves before "Send file"
    await expect.poll(() => page.locator('#file-preview').isVisible()).toBe(true);
    expect(await page.locator('#file-caption').inputValue()).toBe('Our menu');
    await page.locator('#file-send').click();
    const sent = await until(
      async () => sends().find((b) => b.type === 'document'),
      (b) => !!b,
    );
    expect(fake.uploads.length).toBe(1);
    expect(fake.uploads[0]).toMatchObject({ content_type: 'application/pdf', size: pdf.length });
    expect(sent!.document).toMatchObject({ id: fake.uploads[0].id, caption: 'Our menu', filename: 'menu.pdf' });
    // the sent document in the thread, by name
    await expect.poll(() => page.locator('#messages li.assistant .doc-name').last().textContent()).toBe('menu.pdf');
    // with its size, as a received one (§10.6), read from the store's Content-Range
    await expect.poll(() => page.locator('#messages li.assistant .doc-size').last().textContent()).toBe('2 kB');
    expect(await page.locator('#reply-text').inputValue()).toBe('');
    await shoot(page, path.join(OUT, 'console-message-types-sent.png'));
    expect(blocked).toEqual([]);
    expect(pageErrors).toEqual([]);
    expect(cspErrors).toEqual([]);
    await context.close();
  }, 120_000);

  it('shows customer names without bidirectional controls, isolated, and downloads under the safe name of Content-Disposition (§11)', async () => {
    const { context, page, blocked, pageErrors, cspErrors } = await offlinePage();
    // the download attribute the console sets, before the browser's own clean-up of the name
    await page.evaluate(`window.__downloads = [];
      const click = HTMLAnchorElement.prototype.click;
      HTMLAnchorElement.prototype.click = function () { window.__downloads.push(this.getAttribute('download')); return click.call(this); };`);
    const spoof = fake.addMedia({
      id: '700099',
      phone_number_id: CREDS.phone_number_id,
      bytes: Buffer.concat([Buffer.from('MZ'), randomBytes(3000)]),
      mime_type: 'application/pdf',
    });
    const filename = '../../etc/"Invoice"\r\nMarch \u202Efdp.exe';
    await deliver([
      {
        from: CONTACT,
        id: 'wamid.types.spoof',
        type: 'document',
        extra: { document: { id: spoof.id, mime_type: 'application/pdf', filename, caption: 'See \u202Etxt.exe\u2066 attached' } },
      },
    ]);
    ids.spoof = await messageIdOf('wamid.types.spoof');
    const label = li(page, ids.spoof).locator('button.document .doc-name');
    await expect.poll(() => label.count(), { timeout: 20_000 }).toBe(1);
    expect(await label.evaluate((el) => [el.tagName, el.getAttribute('dir')])).toEqual(['BDI', 'auto']);
    expect(await label.textContent()).toBe('../../etc/"Invoice"\r\nMarch fdp.exe');
    expect(await li(page, ids.spoof).locator('.content').textContent()).toBe('See txt.exe attached');
    // nothing on the page carries a bidirectional control
    expect(await page.evaluate("/[\\u202A-\\u202E\\u2066-\\u2069]/.test(document.getElementById('thread').textContent)")).toBe(false);
    const download = page.waitForEvent('download');
    await li(page, ids.spoof).locator('button.document').click();
    const got = await download;
    expect(await page.evaluate('window.__downloads')).toEqual(['InvoiceMarch fdp.exe']);
    expect(got.suggestedFilename()).toBe('InvoiceMarch fdp.exe');
    await page.evaluate(`document.querySelector('#messages li[data-id="${ids.spoof}"]').scrollIntoView()`);
    await shoot(page, path.join(OUT, 'console-names-bidi.png'));
    expect(blocked).toEqual([]);
    expect(pageErrors).toEqual([]);
    expect(cspErrors).toEqual([]);
    await context.close();
  }, 120_000);
});
