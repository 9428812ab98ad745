/**
 * A cart priced from the menu (CONTRACT §15.2), as pure arithmetic over integer cents: prices come from the
 * products only, never from the caller or a catalog message; each money member is rounded half up to 2 decimals.
 */

/** A line as the caller (or a catalog message) sent it: exactly one of `product_id` and `retailer_id`. */
export interface LineInput {
  product_id: number | null;
  retailer_id: string | null;
  quantity: number;
  comment: string | null;
}

/** What a cart keeps besides its lines. */
export interface CartFields {
  business_id: number;
  delivery_type: number;
  address: string | null;
  location: { latitude: number; longitude: number } | null;
  comment: string | null;
}

/** A product of the cart's business as the pricing reads it: its price in cents. */
export interface MenuProduct {
  id: number;
  retailer_id: string | null;
  name: string;
  price_cents: number;
  enabled: boolean;
}

/** The business's terms: its currency, delivery price (cents) and tax rate (hundredths of a percent). */
export interface BusinessTerms {
  currency: string;
  delivery_cents: number;
  tax_hundredths: number;
}

export interface PricedLine {
  product_id: number | null;
  retailer_id: string | null;
  name: string | null;
  quantity: number;
  price: number | null;
  total: number | null;
  comment: string | null;
}

export interface Summary {
  subtotal: number;
  discount: number;
  delivery_price: number;
  tax: number;
  total: number;
}

export interface Problem {
  line: number;
  product_id: number | null;
  retailer_id: string | null;
  reason: 'unknown' | 'disabled';
}

/** The cart record without `conversation_id`, `version` and `updated_at`: what a version names. */
export interface PricedCart extends CartFields {
  lines: PricedLine[];
  currency: string;
  summary: Summary;
  problems: Problem[];
}

const DELIVERY = 1;

export function priceCart(fields: CartFields, lines: LineInput[], menu: MenuProduct[], terms: BusinessTerms): PricedCart {
  const byId = new Map(menu.map((p) => [p.id, p]));
  const byRetailer = new Map(menu.filter((p) => p.retailer_id !== null).map((p) => [p.retailer_id!, p]));
  const problems: Problem[] = [];
  let subtotal = 0n;
  const priced = lines.map((line, i): PricedLine => {
    const product = line.product_id !== null ? byId.get(line.product_id) : byRetailer.get(line.retailer_id ?? '');
    if (!product) {
      problems.push({ line: i, product_id: line.product_id, retailer_id: line.retailer_id, reason: 'unknown' });
      return { ...line, name: null, price: null, total: null };
    }
    const total = BigInt(product.price_cents) * BigInt(line.quantity);
    if (!product.enabled) problems.push({ line: i, product_id: product.id, retailer_id: product.retailer_id, reason: 'disabled' });
    else subtotal += total;
    return {
      product_id: product.id,
      retailer_id: product.retailer_id,
      name: product.name,
      quantity: line.quantity,
      price: money(BigInt(product.price_cents)),
      total: money(total),
      comment: line.comment,
    };
  });
  const delivery = fields.delivery_type === DELIVERY ? BigInt(terms.delivery_cents) : 0n;
  const tax = divideHalfUp(subtotal * BigInt(terms.tax_hundredths), 10_000n);
  return {
    business_id: fields.business_id,
    delivery_type: fields.delivery_type,
    lines: priced,
    address: fields.address,
    location: fields.location,
    comment: fields.comment,
    currency: terms.currency,
    summary: {
      subtotal: money(subtotal),
      discount: 0,
      delivery_price: money(delivery),
      tax: money(tax),
      total: money(subtotal + delivery + tax),
    },
    problems,
  };
}

/** n / d rounded half up, for n ≥ 0 and d > 0. */
function divideHalfUp(n: bigint, d: bigint): bigint {
  return (2n * n + d) / (2n * d);
}

/** Cents as a JSON number of at most 2 decimals. */
const money = (cents: bigint): number => Number(cents) / 100;

/** Whether two priced carts show the same (a version names one of them); `stored` may come back from jsonb, keys reordered. */
export function samePricedCart(a: unknown, b: unknown): boolean {
  return a != null && b != null && canonical(a) === canonical(b);
}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v);
}
