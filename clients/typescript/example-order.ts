/**
 * The step an agent takes once the customer has chosen (CONTRACT §15.2–15.3), written with the generated client (no
 * casts): price a cart from the menu, read it back to the customer, and place exactly that version. A menu change in
 * between answers 409 ERROR_AI_CART_CHANGED with the new cart: the agent reads that one back and asks again.
 * test/client/runtime-order.test.ts runs it against a real `serve`.
 */
import { createOrderGraphClient } from './client';

export interface OrderOptions {
  baseUrl: string;
  apiKey: string;
  project: string;
  conversationId: number;
  businessId: number;
  /** The dishes the customer chose, by the product ids of the menu. */
  dishes: { product_id: number; quantity: number }[];
  /** Asks the customer; resolves to true on a "yes". */
  confirm: (summary: string) => Promise<boolean>;
}

export interface OrderReport {
  readBack: string[];
  orderId: number | null;
  uuid: string | null;
  total: number | null;
}

export async function takeOrder(opts: OrderOptions): Promise<OrderReport> {
  const client = createOrderGraphClient(opts.baseUrl, { apiKey: opts.apiKey });
  const path = { lang: 'en', project: opts.project, conversation_id: opts.conversationId };
  const readBack: string[] = [];

  const priced = await client.PUT('/v400/{lang}/{project}/ai/conversations/{conversation_id}/cart', {
    params: { path },
    body: { business_id: opts.businessId, delivery_type: 2, lines: opts.dishes },
  });
  if (!priced.data) throw new Error(`cart: ${priced.error?.code ?? priced.response.status}`);
  let cart = priced.data.result;

  for (let attempt = 0; attempt < 3; attempt++) {
    if (cart.problems.length) throw new Error(`cart: ${cart.problems.length} line(s) cannot be ordered now`);
    const lines = cart.lines.map((l) => `${l.quantity} × ${l.name ?? '?'} ${l.total ?? 0} ${cart.currency}`);
    const summary = `${lines.join(', ')}; total ${cart.summary.total} ${cart.currency}`;
    readBack.push(summary);
    if (!(await opts.confirm(summary))) return { readBack, orderId: null, uuid: null, total: null };

    const placed = await client.POST('/v400/{lang}/{project}/ai/conversations/{conversation_id}/orders', {
      params: { path, header: { 'Idempotency-Key': `order-${opts.conversationId}-${cart.version}` } },
      body: { cart_version: cart.version, paymethod: 'cash' },
    });
    if (placed.data)
      return { readBack, orderId: placed.data.result.id, uuid: placed.data.result.uuid, total: placed.data.result.summary.total };
    const error = placed.error;
    // the menu changed since the customer's "yes": the current cart comes back, to be read to them again
    if (error?.code === 'ERROR_AI_CART_CHANGED' && !Array.isArray(error.result)) {
      cart = error.result;
      continue;
    }
    throw new Error(`place: ${error?.code ?? placed.response.status}`);
  }
  throw new Error('place: the cart kept changing');
}
