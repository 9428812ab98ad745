import path from 'node:path';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, TEST_CREDENTIALS_KEY, type TestDatabase } from '../support/db.js';
import { ensureBuilt } from '../support/dist.js';
import { baseFixture, KEYS } from '../support/fixtures.js';
import { startServe, stopServe, type ServeProcess } from '../support/serve-process.js';

/**
 * The example runtime's order step (clients/typescript/example-order.ts, the generated client) against a real `serve`:
 * it prices a cart, reads it back, and when the menu changes between the customer's "yes" and the place, reads the
 * new cart back and places that one. Needs openapi-fetch: skipped, saying so, without it.
 */
const hasOpenapiFetch = (() => {
  try {
    createRequire(__filename).resolve('openapi-fetch');
    return true;
  } catch {
    return false;
  }
})();
if (!hasOpenapiFetch)
  console.warn('openapi-fetch is not installed: the example order step does not run (test/client/runtime-order.test.ts)');

interface OrderStep {
  takeOrder: (opts: {
    baseUrl: string;
    apiKey: string;
    project: string;
    conversationId: number;
    businessId: number;
    dishes: { product_id: number; quantity: number }[];
    confirm: (summary: string) => Promise<boolean>;
  }) => Promise<{ readBack: string[]; orderId: number | null; uuid: string | null; total: number | null }>;
}
const STEP = path.resolve(__dirname, '..', '..', 'clients', 'typescript', 'example-order.ts');

describe.skipIf(!hasOpenapiFetch)('the example order step against a real serve', () => {
  let db: TestDatabase;
  let server: ServeProcess;

  beforeAll(async () => {
    await ensureBuilt();
    db = await createTestDatabase();
    await db.load(
      baseFixture({
        agents: [
          { id: 1, business_id: 1, name: 'Bot', provider: 'whatsapp', provider_type: 'chat', provider_external_id: 'bot', enabled: true },
        ],
        products: [
          { id: 1, business_id: 1, name: 'Paella', price: 14 },
          { id: 2, business_id: 1, name: 'Sangria', price: 6.5 },
        ],
        conversations: [
          { id: 1, agent_id: 1, business_id: 1, contact: '34700000001', status: 'active', created_at: new Date().toISOString() },
        ],
      }),
    );
    server = await startServe(db.url, { CREDENTIALS_KEY: TEST_CREDENTIALS_KEY });
  }, 180_000);
  afterAll(async () => {
    await stopServe(server ? [server] : []);
    await db?.orm.close();
  });

  it('prices, reads back, and places the cart the customer confirmed last', async () => {
    const { takeOrder } = (await import(STEP)) as OrderStep;
    let asked = 0;
    const report = await takeOrder({
      baseUrl: server.base,
      apiKey: KEYS.server,
      project: 'acme',
      conversationId: 1,
      businessId: 1,
      dishes: [
        { product_id: 1, quantity: 2 },
        { product_id: 2, quantity: 1 },
      ],
      confirm: async () => {
        // the kitchen raises the paella's price while the customer is saying yes
        if (asked++ === 0)
          await fetch(`${server.base}/v400/en/acme/ai/products/1`, {
            method: 'PATCH',
            headers: { 'x-api-key': KEYS.server, 'content-type': 'application/json' },
            body: JSON.stringify({ price: 15 }),
          });
        return true;
      },
    });
    expect(report.readBack).toEqual([
      '2 × Paella 28 EUR, 1 × Sangria 6.5 EUR; total 34.5 EUR',
      '2 × Paella 30 EUR, 1 × Sangria 6.5 EUR; total 36.5 EUR',
    ]);
    expect(report.total).toBe(36.5);
    const rows = await db.sql<{ id: number; uuid: string }>('select id, uuid::text as uuid from orders where conversation_id = 1');
    expect(rows).toEqual([{ id: report.orderId, uuid: report.uuid }]);
  });
});
