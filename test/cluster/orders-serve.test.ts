import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, TEST_CREDENTIALS_KEY, type TestDatabase } from '../support/db.js';
import { ensureEmitted } from '../support/dist.js';
import { baseFixture, KEYS, USERS } from '../support/fixtures.js';
import { startServe, stopServe, type ServeProcess } from '../support/serve-process.js';

/**
 * CONTRACT §15.3 across real `serve` processes on one database: 20 places of one cart version, sent at once to two
 * processes by a server key and an administrator (some with an Idempotency-Key each), make exactly one order, and
 * every answer is that order.
 */
let db: TestDatabase;
const servers: ServeProcess[] = [];
beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(
    baseFixture({
      agents: [
        { id: 1, business_id: 1, name: 'A', provider: 'whatsapp', provider_type: 'chat', provider_external_id: 'bot', enabled: true },
      ],
      products: [{ id: 1, business_id: 1, name: 'Margarita', price: 9.5 }],
      conversations: Array.from({ length: 5 }, (_, i) => ({
        id: i + 1,
        agent_id: 1,
        business_id: 1,
        user_id: USERS.customer,
        contact: `3460000000${i}`,
        status: 'active',
        created_at: new Date().toISOString(),
      })),
    }),
  );
  await ensureEmitted('orders-serve.test');
  servers.push(
    ...(await Promise.all(
      [0, 1].map(() => startServe(db.url, { DATABASE_DIRECT_URL: db.directUrl, CREDENTIALS_KEY: TEST_CREDENTIALS_KEY })),
    )),
  );
}, 300_000);
afterAll(async () => {
  await stopServe(servers);
  await db.orm.close();
});

const api = (s: ServeProcess, method: string, path: string, body: unknown, key: string, headers: Record<string, string> = {}) =>
  fetch(`${s.base}/v400/en/acme${path}`, {
    method,
    headers: { 'x-api-key': key, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

describe('placing across two serve processes', () => {
  it.each([1, 2, 3, 4, 5])('20 concurrent places of one cart version make one order (conversation %i)', async (conversation) => {
    const cart = await api(
      servers[0],
      'PUT',
      `/ai/conversations/${conversation}/cart`,
      {
        business_id: 1,
        delivery_type: 2,
        lines: [{ product_id: 1, quantity: conversation }],
      },
      KEYS.server,
    );
    expect(cart.status).toBe(200);
    const { version } = ((await cart.json()) as { result: { version: number } }).result;
    const answers = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const res = await api(
          servers[i % 2],
          'POST',
          `/ai/conversations/${conversation}/orders`,
          { cart_version: version, paymethod: 'cash' },
          i % 4 < 2 ? KEYS.server : KEYS.admin,
          i % 5 === 0 ? { 'idempotency-key': `place-${conversation}-${i}` } : {},
        );
        return { status: res.status, body: (await res.json()) as { result: { id: number; summary: { total: number } } } };
      }),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    expect(new Set(answers.map((a) => JSON.stringify(a.body.result))).size).toBe(1);
    const rows = await db.sql<{ id: number; n: number }>(
      'select o.id, (select count(*)::int from order_products p where p.order_id = o.id) as n from orders o where o.conversation_id = ?',
      [conversation],
    );
    expect(rows).toEqual([{ id: answers[0].body.result.id, n: 1 }]);
    expect(answers[0].body.result.summary.total).toBe(9.5 * conversation);
  });
});
