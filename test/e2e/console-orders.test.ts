import 'reflect-metadata';
import fs from 'node:fs';
import path from 'node:path';
import { type Browser, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppConfig } from '../../src/config.js';
import { seedDemo, type DemoSecrets } from '../../src/fixtures/demo.js';
import { startApp, type TestApp } from '../support/app.js';
import { offlineContext, HAVE_CHROMIUM, launchChromium, warnIfNoChromium } from '../support/chromium.js';
import { createTestDatabase, TEST_CREDENTIALS_KEY, type TestDatabase } from '../support/db.js';

const OUT = path.resolve(__dirname, '..', 'artifacts');
// The docs' screenshots are rewritten only on request (UPDATE_DOCS_SCREENSHOTS=1): a test run leaves the tree clean.
const DOCS = process.env.UPDATE_DOCS_SCREENSHOTS === '1' ? path.resolve(__dirname, '..', '..', 'docs') : OUT;
const HOUR = 3600_000;

warnIfNoChromium('console orders e2e');

type Order = { id: number; status: number; conversation_id: number };

/** CONTRACT §15.7: the Orders page, a thread's cart and orders, in a real browser, offline (issue 68). */
describe.skipIf(!HAVE_CHROMIUM)('/console, the Orders page (CONTRACT §15.7)', () => {
  let db: TestDatabase;
  let t: TestApp;
  let browser: Browser;
  let origin: string;
  let demo: DemoSecrets;
  let projectId: number;
  const product: Record<string, number> = {};
  const conv: Record<string, number> = {};
  const order: Record<string, Order> = {};

  const server = (method: 'GET' | 'POST' | 'PUT', p: string, body?: unknown) =>
    t.api({ method, path: p, project: 'demo', key: demo.serverKey, body });
  async function putCart(conversation: number, business: number, deliveryType: number, lines: unknown[], address?: string) {
    const res = await server('PUT', `/ai/conversations/${conversation}/cart`, {
      business_id: business,
      delivery_type: deliveryType,
      lines,
      ...(address ? { address } : {}),
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().result as { version: number };
  }
  async function place(conversation: number, business: number, deliveryType: number, lines: unknown[], address?: string) {
    const cart = await putCart(conversation, business, deliveryType, lines, address);
    const res = await server('POST', `/ai/conversations/${conversation}/orders`, { cart_version: cart.version, paymethod: 'cash' });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().result as Order;
  }
  async function moveByKey(id: number, status: number) {
    const res = await server('POST', `/ai/orders/${id}/status`, { status });
    expect(res.statusCode, res.body).toBe(200);
  }
  const statusOf = async (id: number) =>
    (await db.sql<{ status: number; history: any }>('select status, history from orders where id = ?', [id]))[0];

  beforeAll(async () => {
    db = await createTestDatabase();
    demo = (await seedDemo(db.orm, { credentialsKey: TEST_CREDENTIALS_KEY } as AppConfig))!;
    [{ id: projectId }] = await db.sql<{ id: number }>("select id from projects where code = 'demo'");
    for (const p of await db.sql<{ id: number; name: string }>('select id, name from products where project_id = ?', [projectId]))
      product[p.name] = p.id;
    // the seeded history is kept off today's page (its latest orders may be today's)
    await db.sql(
      "update orders set created_at = created_at - interval '2 days' where project_id = ? and created_at > now() - interval '2 days'",
      [projectId],
    );
    const open = async (key: string, agent: number, business: number, contact: string, name: string | null, minutesAgo: number) => {
      const at = new Date(Date.now() - minutesAgo * 60_000);
      const [c] = await db.sql<{ id: number }>(
        `insert into ai_conversations (project_id, agent_id, business_id, contact, contact_name, status, usage, last_inbound_at, created_at, last_message_at)
         values (?, ?, ?, ?, ?, 'active', '{}', ?, ?, ?) returning id`,
        [projectId, agent, business, contact, name, at, at, at],
      );
      await db.sql(
        `insert into ai_messages (project_id, conversation_id, role, content, public, external_id, created_at) values (?, ?, 'user', ?, true, ?, ?)`,
        [projectId, c.id, `Hola, quiero pedir (${key})`, `wamid.orders.${key}`, at],
      );
      conv[key] = c.id;
    };
    await open('lucia', 1, 1, '34600111222', 'Lucía Gómez', 40);
    await open('pierre', 1, 1, '33612345678', 'Pierre Martin', 30);
    await open('omar', 1, 1, '971501234567', 'عمر', 20);
    await open('norte', 2, 2, '34600999888', 'Cliente Norte', 15);
    await open('marta', 1, 1, '34611222333', 'Marta', 5);
    await open('late', 1, 1, '34622333444', 'Late', 3);
    await open('live', 1, 1, '34633444555', 'Javier Live', 2);
    await open('live2', 1, 1, '34644555666', 'Ana Live', 1);

    t = await startApp('mercurius', db);
    origin = await t.listen();
    const M = product['Margherita'];
    order.pickup = await place(conv.lucia, 1, 2, [
      { product_id: M, quantity: 2, comment: 'sin albahaca' },
      { product_id: product['Lemonade'], quantity: 1 },
    ]);
    order.delivery = await place(conv.pierre, 1, 1, [{ product_id: product['Pepperoni'], quantity: 1 }], 'Calle Mayor 5, 2º B, Madrid');
    await moveByKey(order.delivery.id, 7);
    order.eatin = await place(conv.omar, 1, 3, [{ product_id: product['Quattro formaggi'], quantity: 2 }]);
    await moveByKey(order.eatin.id, 15);
    order.norte = await place(conv.norte, 2, 2, [{ product_id: product['Diavola'], quantity: 1 }]);
    order.late = await place(conv.late, 1, 2, [{ product_id: M, quantity: 1 }]);
    // yesterday's order (of the owner's business) is not today's
    order.yesterday = await place(conv.marta, 1, 2, [{ product_id: M, quantity: 3 }]);
    await db.sql('update orders set created_at = ? where id = ?', [new Date(Date.now() - 30 * HOUR), order.yesterday.id]);
    // a cart not ordered yet, with a line the menu does not have
    await putCart(conv.marta, 1, 2, [
      { product_id: product['Pepperoni'], quantity: 2 },
      { retailer_id: 'calzone-xl', quantity: 1 },
    ]);

    browser = await launchChromium();
    fs.mkdirSync(OUT, { recursive: true });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await db?.orm.close();
  });

  async function offlinePage(viewport = { width: 1366, height: 900 }, isMobile = false) {
    const { context, blocked } = await offlineContext(browser, viewport, isMobile);
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (err) => pageErrors.push(err.message));
    page.on('console', (m) => {
      if (m.type() === 'error' && /Content Security Policy/i.test(m.text())) pageErrors.push(m.text());
    });
    return { context, page, blocked, pageErrors };
  }
  async function signIn(page: Page, email: string, query = '') {
    await page.goto(`${origin}/console?project=demo${query}`);
    await page.locator('input[name="method"][value="password"]').check();
    await page.locator('#email').fill(email);
    await page.locator('#password').fill(demo.password);
    await page.locator('#signin-form button[type="submit"]').click();
    await expect.poll(() => page.locator('#conversations button[data-id]').count(), { timeout: 15_000 }).toBeGreaterThan(0);
    // the stream is open: live events reach the page
    await expect.poll(() => page.locator('#live-mode').innerText(), { timeout: 10_000 }).not.toBe('');
  }
  const cardIn = (page: Page, group: string, id: number) => page.locator(`#orders-${group} .order-card[data-order="${id}"]`);
  const groupIds = (page: Page, group: string) =>
    page.locator(`#orders-${group} .order-card`).evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-order'))));
  /** innerText with the no-break spaces Intl puts in money (`11,50\u00a0€`) as plain spaces. */
  const text = async (l: Locator) => (await l.innerText()).replace(/[\u00a0\u202f]/g, ' ');
  const noSidewaysScroll = (page: Page) =>
    page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');

  it('English, a level-2 owner at 1366 × 900: today grouped, live with sound and title, accept → ready → picked up, reject with a reason, a 409, the thread', async () => {
    const { context, page, blocked, pageErrors } = await offlinePage();
    try {
      await signIn(page, 'owner@demo.test');
      await page.locator('#page-orders').click();
      await expect.poll(() => groupIds(page, 'pending'), { timeout: 10_000 }).toEqual([order.late.id, order.pickup.id]);
      expect(await groupIds(page, 'progress')).toEqual([order.delivery.id]);
      expect(await groupIds(page, 'done')).toEqual([order.eatin.id]);
      // not the other business's (the API scopes a level-2 owner), not yesterday's
      expect(await page.locator(`.order-card[data-order="${order.norte.id}"]`).count()).toBe(0);
      expect(await page.locator(`.order-card[data-order="${order.yesterday.id}"]`).count()).toBe(0);
      expect(await page.locator('#orders-status').innerText()).toBe('4 orders today');
      expect(await page.title()).toBe('Orders — OrderGraph console');
      // the inbox is another page now
      expect(await page.locator('#inbox').isHidden()).toBe(true);

      const pickup = cardIn(page, 'pending', order.pickup.id);
      await expect.poll(() => pickup.locator('.customer').innerText()).toBe('Lucía Gómez');
      const words = await text(pickup);
      expect(words).toContain('Margherita × 2');
      expect(words).toContain('€19.00');
      expect(words).toContain('sin albahaca');
      expect(words).toContain('Lemonade × 1');
      expect(words).toContain('€22.00');
      expect(words).toContain('Pickup');
      expect(words).toContain('Pending');
      const delivery = cardIn(page, 'progress', order.delivery.id);
      expect(await delivery.innerText()).toContain('Calle Mayor 5, 2º B, Madrid');
      expect(await delivery.innerText()).toContain('Delivery');
      expect(await delivery.locator('.badge.status').innerText()).toBe('Accepted');
      expect(await cardIn(page, 'done', order.eatin.id).locator('.badge.status').innerText()).toBe('Picked up by the customer');
      expect(await page.locator('#orders-done .order-card button[data-move]').count()).toBe(0);

      // a new order placed through the API appears live, with the sound
      expect(await page.evaluate('window.OrderGraphConsole.orders.chimes()')).toBe(0);
      // (the other business's new order never reaches this owner's page)
      order.norte2 = await place(conv.norte, 2, 2, [{ product_id: product['Tiramisu'], quantity: 2 }]);
      order.live = await place(conv.live, 1, 1, [{ product_id: product['Pepperoni'], quantity: 2 }], 'Gran Vía 1');
      await expect.poll(() => groupIds(page, 'pending'), { timeout: 10_000 }).toEqual([order.live.id, order.late.id, order.pickup.id]);
      expect(await cardIn(page, 'pending', order.live.id).locator('.badge.new').count()).toBe(1);
      expect(await page.evaluate('window.OrderGraphConsole.orders.chimes()')).toBe(1);
      expect(await page.locator(`.order-card[data-order="${order.norte2.id}"]`).count()).toBe(0);
      // the chime is the Web Audio API's (the page's first click allowed it), no file was fetched
      await expect.poll(() => page.evaluate('window.OrderGraphConsole.orders.audio()')).toBe('running');
      // looked at already: the title has nothing new to say
      expect(await page.title()).toBe('Orders — OrderGraph console');

      // one placed while the operator is on the inbox: the title and the tab say it until the page is looked at
      await page.locator('#page-inbox').click();
      expect(await page.title()).toMatch(/^(\(\d+\) )?OrderGraph console$/);
      order.live2 = await place(conv.live2, 1, 2, [{ product_id: product['Margherita'], quantity: 1 }]);
      await expect.poll(() => page.title(), { timeout: 10_000 }).toMatch(/^\(1\) Orders — (\(\d+\) )?OrderGraph console$/);
      expect(await page.locator('#orders-badge').innerText()).toBe('1');
      expect(await page.evaluate('window.OrderGraphConsole.orders.chimes()')).toBe(2);
      await page.locator('#page-orders').click();
      expect(await page.title()).toBe('Orders — OrderGraph console');
      expect(await page.locator('#orders-badge').isHidden()).toBe(true);
      await expect.poll(() => cardIn(page, 'pending', order.live2.id).count()).toBe(1);

      // the sound can be turned off, and stays off
      await page.locator('#orders-sound').uncheck();
      expect(await page.evaluate("localStorage.getItem('ordergraph-console:orders-sound')")).toBe('off');

      // accept, then ready, then picked up (a pickup order: 15): the card changes group each time
      await pickup.locator('button[data-action="accept"]').click();
      const moving = page.locator(`.order-card[data-order="${order.pickup.id}"]`);
      await expect.poll(() => cardIn(page, 'progress', order.pickup.id).count(), { timeout: 10_000 }).toBe(1);
      expect(await moving.locator('.badge.status').innerText()).toBe('Accepted');
      expect((await statusOf(order.pickup.id)).status).toBe(7);
      await moving.locator('button[data-action="ready"]').click();
      await expect.poll(() => moving.locator('.badge.status').innerText(), { timeout: 10_000 }).toBe('Ready');
      expect((await statusOf(order.pickup.id)).status).toBe(4);
      expect(await moving.locator('button[data-action="picked_customer"]').innerText()).toBe('Picked up');
      // a delivery order's next step after ready is the driver's
      await delivery.locator('button[data-action="ready"]').click();
      await expect
        .poll(() => page.locator(`.order-card[data-order="${order.delivery.id}"] button[data-move]`).getAttribute('data-move'))
        .toBe('9');
      await moving.locator('button[data-action="picked_customer"]').click();
      await expect.poll(() => cardIn(page, 'done', order.pickup.id).count(), { timeout: 10_000 }).toBe(1);
      expect((await statusOf(order.pickup.id)).status).toBe(15);

      // reject asks for a reason in a small form, and the order lands in done
      const late = cardIn(page, 'pending', order.late.id);
      await late.locator('button[data-action="reject"]').click();
      const reason = page.locator(`#reject-reason-${order.late.id}`);
      await expect.poll(() => reason.isVisible()).toBe(true);
      await reason.fill('Sin masa hasta las 20:00');
      // a live redraw (another order arriving) keeps the reason being typed, and the focus
      order.during = await place(conv.pierre, 1, 2, [{ product_id: product['Lemonade'], quantity: 4 }]);
      await expect.poll(() => cardIn(page, 'pending', order.during.id).count(), { timeout: 10_000 }).toBe(1);
      expect(await page.locator(`#reject-reason-${order.late.id}`).inputValue()).toBe('Sin masa hasta las 20:00');
      expect(await page.evaluate('document.activeElement.id')).toBe(`reject-reason-${order.late.id}`);
      await page.screenshot({ path: path.join(OUT, 'console-orders-reject.png') });
      await page.locator(`.reject-form[data-order="${order.late.id}"] button[type="submit"]`).click();
      await expect.poll(() => cardIn(page, 'done', order.late.id).count(), { timeout: 10_000 }).toBe(1);
      expect(await cardIn(page, 'done', order.late.id).locator('.badge.status').innerText()).toBe('Rejected by the restaurant');
      expect(await cardIn(page, 'done', order.late.id).locator('.order-reason').innerText()).toBe('Reason: Sin masa hasta las 20:00');
      const rejected = await statusOf(order.late.id);
      expect(rejected.status).toBe(5);
      expect(rejected.history.at(-1)).toMatchObject({ status: 5, reason: 'Sin masa hasta las 20:00', by: 2 });

      // an order someone else finished meanwhile (no event reached this page): 409, said in words, shown as it is now
      await db.sql('update orders set status = 16 where id = ?', [order.live2.id]);
      await cardIn(page, 'pending', order.live2.id).locator('button[data-action="accept"]').click();
      await expect.poll(() => cardIn(page, 'done', order.live2.id).count(), { timeout: 10_000 }).toBe(1);
      const finished = cardIn(page, 'done', order.live2.id);
      expect(await finished.locator('.error').innerText()).toBe('This order is already finished; it is shown as it is now.');
      expect(await finished.locator('.badge.status').innerText()).toBe('Cancelled by the customer');

      expect(await noSidewaysScroll(page)).toBeLessThanOrEqual(0);
      await page.evaluate('window.scrollTo(0, 0)');
      await page.screenshot({ path: path.join(DOCS, 'console-orders.png') });

      // the thread: the conversation's cart (with its problem line) and, once placed, its order moving live
      await page.locator('#page-inbox').click();
      await page.locator(`#conversations button[data-id="${conv.marta}"]`).click();
      const cart = page.locator('#thread-cart');
      await expect.poll(() => cart.count(), { timeout: 10_000 }).toBe(1);
      const cartText = await text(cart);
      expect(cartText).toContain('Pepperoni × 2');
      expect(cartText).toContain('€22.00');
      expect(cartText).toContain('calzone-xl × 1');
      expect(cartText).toContain('not on the menu');
      expect(cartText).toContain('Pickup');
      // yesterday's order of this conversation is in the thread too
      await expect.poll(() => page.locator(`#thread-commerce [data-order="${order.yesterday.id}"]`).count()).toBe(1);
      // the customer fixes the cart, the runtime places it: the cart goes, the order comes, its status follows
      order.marta = await place(conv.marta, 1, 2, [{ product_id: product['Pepperoni'], quantity: 2 }]);
      const threadOrder = page.locator(`#thread-commerce [data-order="${order.marta.id}"]`);
      await expect.poll(() => threadOrder.count(), { timeout: 10_000 }).toBe(1);
      await expect.poll(() => cart.count()).toBe(0);
      // announced in the title, without a sound: it was turned off
      await expect.poll(() => page.title()).toMatch(/^\(1\) Orders — /);
      expect(await page.evaluate('window.OrderGraphConsole.orders.chimes()')).toBe(2);
      expect(await threadOrder.locator('.badge.status').innerText()).toBe('Pending');
      expect(await threadOrder.innerText()).toContain('Pepperoni × 2');
      await moveByKey(order.marta.id, 7);
      await expect.poll(() => threadOrder.locator('.badge.status').innerText(), { timeout: 10_000 }).toBe('Accepted');
      // the contact panel's orders carry their status, as it moves
      await page.locator('#contact-panel summary').click();
      const inPanel = page.locator(`#contact-conversations [data-order="${order.yesterday.id}"] .badge.status`);
      await expect.poll(() => inPanel.innerText(), { timeout: 10_000 }).toBe('Pending');
      await moveByKey(order.yesterday.id, 7);
      await expect.poll(() => inPanel.innerText(), { timeout: 10_000 }).toBe('Accepted');
      await page.locator('#thread-commerce').scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(OUT, 'console-orders-thread.png') });

      // "Open conversation" on an order goes to its thread
      await page.locator('#page-orders').click();
      await cardIn(page, 'progress', order.delivery.id).locator('button[data-open]').click();
      expect(await page.locator('#inbox').isVisible()).toBe(true);
      await expect.poll(() => page.locator('#messages-title').innerText(), { timeout: 10_000 }).toContain('Pierre Martin');

      // a reload keeps the page and the sound's choice
      await page.locator('#page-orders').click();
      await page.reload();
      await expect.poll(() => page.locator('#orders-page').isVisible(), { timeout: 15_000 }).toBe(true);
      expect(await page.locator('#orders-sound').isChecked()).toBe(false);
      expect(await page.title()).toBe('Orders — OrderGraph console');

      expect(blocked).toEqual([]);
      expect(pageErrors).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);

  it('Spanish and Arabic at 390 × 844: words, money with its currency, right to left, nothing wider than the phone', async () => {
    const es = await offlinePage({ width: 390, height: 844 }, true);
    try {
      await signIn(es.page, demo.email, '&lang=es');
      await es.page.locator('#page-orders').click();
      await expect
        .poll(() => es.page.locator('.order-group[data-group="pending"] h3').innerText(), { timeout: 10_000 })
        .toMatch(/^Pendientes/);
      expect(await es.page.locator('.order-group[data-group="progress"] h3').innerText()).toMatch(/^En curso/);
      expect(await es.page.locator('.order-group[data-group="done"] h3').innerText()).toMatch(/^Terminados/);
      // the administrator sees the other business's order too
      const norte = es.page.locator(`.order-card[data-order="${order.norte.id}"]`);
      await expect.poll(() => norte.count()).toBe(1);
      expect(await text(norte)).toContain('Diavola × 1');
      expect(await text(norte)).toContain('11,50 €');
      expect(await text(norte)).toContain('Para recoger');
      expect(await norte.locator('.badge.status').innerText()).toBe('Pendiente');
      expect(await es.page.locator(`.order-card[data-order="${order.late.id}"] .badge.status`).innerText()).toBe('Rechazado por el local');
      expect(await es.page.locator(`.order-card[data-order="${order.delivery.id}"]`).innerText()).toContain('A domicilio');
      expect(await es.page.title()).toBe(`Pedidos — ${await baseTitle(es.page)}`);
      expect(await noSidewaysScroll(es.page)).toBeLessThanOrEqual(0);
      await es.page.screenshot({ path: path.join(DOCS, 'console-orders-es-phone.png') });
      expect(es.blocked).toEqual([]);
      expect(es.pageErrors).toEqual([]);
    } finally {
      await es.context.close();
    }
    const ar = await offlinePage({ width: 390, height: 844 }, true);
    try {
      await signIn(ar.page, demo.email, '&lang=ar');
      await ar.page.locator('#page-orders').click();
      expect(await ar.page.evaluate('document.documentElement.dir')).toBe('rtl');
      const norte = ar.page.locator(`.order-card[data-order="${order.norte.id}"]`);
      await expect.poll(() => norte.count(), { timeout: 10_000 }).toBe(1);
      expect(await norte.locator('.badge.status').innerText()).toBe('قيد الانتظار');
      expect(await text(norte)).toContain('استلام');
      expect(await ar.page.locator('.order-group[data-group="done"] h3').innerText()).toMatch(/^منتهية/);
      // money with its currency, in the digits Intl gives Arabic (the same everywhere on the page)
      expect(await text(norte.locator('.order-total .num'))).toMatch(/^\u200f?[0-9٠-٩.,٫]+\s?€$/u);
      expect(await noSidewaysScroll(ar.page)).toBeLessThanOrEqual(0);
      await ar.page.screenshot({ path: path.join(DOCS, 'console-orders-ar-phone.png') });
      // a thread's cart, right to left on the phone: its problem line in words, nothing wider than the screen
      await putCart(
        conv.omar,
        1,
        1,
        [
          { product_id: product['Margherita'], quantity: 1 },
          { retailer_id: 'shawarma', quantity: 2 },
        ],
        'شارع الملك فهد 12',
      );
      await ar.page.locator('#page-inbox').click();
      await ar.page.locator(`#conversations button[data-id="${conv.omar}"]`).click();
      const cart = ar.page.locator('#thread-cart');
      await expect.poll(() => cart.count(), { timeout: 10_000 }).toBe(1);
      expect(await text(cart)).toContain('ليس في القائمة');
      expect(await text(cart)).toContain('شارع الملك فهد 12');
      expect(await cart.locator('[data-problem="unknown"]').count()).toBe(1);
      expect(await noSidewaysScroll(ar.page)).toBeLessThanOrEqual(0);
      await cart.scrollIntoViewIfNeeded();
      await ar.page.screenshot({ path: path.join(OUT, 'console-orders-ar-thread.png') });
      expect(ar.blocked).toEqual([]);
      expect(ar.pageErrors).toEqual([]);
    } finally {
      await ar.context.close();
    }
  }, 120_000);
});

/** The console's own title in the page's language (i18n.js's `title`). */
function baseTitle(page: Page): Promise<string> {
  return page.evaluate<string>("window.OrderGraphI18n.t('title')");
}
