import { validationError, type Problem } from '../../errors/codes.js';
import { ID_MAX } from '../conversations/message-rules.js';
import type { CartFields, LineInput } from './pricing.js';

/**
 * What the menu, cart and order writes accept (CONTRACT §15.1–15.4), checked here for REST and the graph alike:
 * every problem names its member (`lines.3.quantity`), then the rule.
 */

export const DELIVERY_TYPES = [1, 2, 3, 4, 5] as const;
export const PAYMETHODS = ['cash', 'card_delivery', 'card_pickup', 'stripe_link', 'other'] as const;
export const LINES_MAX = 100;
export const QUANTITY_MAX = 999;
export const LINE_COMMENT_MAX = 500;
export const ADDRESS_MAX = 500;
export const CART_COMMENT_MAX = 1000;
export const REASON_MAX = 500;
export const NAME_MAX = 255;
export const RETAILER_ID_MAX = 100;
/** numeric(12,2): the largest price a product can hold. */
export const PRICE_MAX = 9_999_999_999.99;
/** The platform's statuses (CONTRACT §15.4), and those an order never moves from. */
export const ORDER_STATUS_MAX = 23;
export const FINAL_STATUSES: ReadonlySet<number> = new Set([1, 2, 5, 6, 10, 11, 12, 15, 16, 17]);
/** Statuses nothing moves to: pending and preorder are where an order starts. */
export const START_STATUSES: ReadonlySet<number> = new Set([0, 13]);
const LINE_MEMBERS = ['product_id', 'retailer_id', 'quantity', 'comment'];

export interface CartInput {
  business_id?: unknown;
  delivery_type?: unknown;
  lines?: unknown;
  address?: unknown;
  location?: unknown;
  comment?: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const given = (v: unknown) => v !== undefined && v !== null;
const length = (s: string) => [...s].length;

/** A text member: absent/null is null; else a string of at most `max` characters without NUL. */
function text(problems: Problem[], field: string, v: unknown, max: number): string | null {
  if (!given(v)) return null;
  if (typeof v !== 'string') problems.push({ field, rule: 'string' });
  else if (length(v) > max) problems.push({ field, rule: 'max_length', params: { max } });
  else if (v.includes('\u0000')) problems.push({ field, rule: 'no_nul' });
  else return v;
  return null;
}

function checkRetailerId(problems: Problem[], field: string, v: unknown): string | null {
  if (typeof v !== 'string' || length(v) < 1 || length(v) > RETAILER_ID_MAX || !/^[^\p{C}]+$/u.test(v) || v.trim() === '') {
    problems.push({ field, rule: 'length', params: { min: 1, max: RETAILER_ID_MAX } });
    return null;
  }
  return v;
}

function integerIn(problems: Problem[], field: string, v: unknown, min: number, max: number): number | null {
  if (typeof v !== 'number' || !Number.isInteger(v)) problems.push({ field, rule: 'integer' });
  else if (v < min || v > max) problems.push({ field, rule: 'range', params: { min, max } });
  else return v;
  return null;
}

/** `PUT .../cart`'s body, checked whole: the first problem of each member. */
export function checkCart(input: CartInput): { fields: Omit<CartFields, 'business_id'> & { business_id: number }; lines: LineInput[] } {
  const problems: Problem[] = [];
  const business_id = given(input.business_id)
    ? integerIn(problems, 'business_id', input.business_id, 1, ID_MAX)
    : (problems.push({ field: 'business_id', rule: 'required' }), null);
  let delivery_type: number | null = null;
  if (!given(input.delivery_type)) problems.push({ field: 'delivery_type', rule: 'required' });
  else if (!(DELIVERY_TYPES as readonly unknown[]).includes(input.delivery_type))
    problems.push({ field: 'delivery_type', rule: 'enum', params: { values: [...DELIVERY_TYPES] } });
  else delivery_type = input.delivery_type as number;
  const lines = checkLines(problems, input.lines);
  const address = text(problems, 'address', input.address, ADDRESS_MAX);
  if (delivery_type === 1 && (address === null || address.trim() === '') && !problems.some((p) => p.field === 'address'))
    problems.push({ field: 'address', rule: 'required' });
  const location = checkLocation(problems, input.location);
  const comment = text(problems, 'comment', input.comment, CART_COMMENT_MAX);
  if (problems.length) throw validationError(problems);
  return { fields: { business_id: business_id!, delivery_type: delivery_type!, address, location, comment }, lines };
}

function checkLines(problems: Problem[], v: unknown): LineInput[] {
  if (!given(v)) return (problems.push({ field: 'lines', rule: 'required' }), []);
  if (!Array.isArray(v)) return (problems.push({ field: 'lines', rule: 'array' }), []);
  if (v.length < 1 || v.length > LINES_MAX)
    return (problems.push({ field: 'lines', rule: 'items_range', params: { min: 1, max: LINES_MAX } }), []);
  return v.map((line, i) => checkLine(problems, `lines.${i}`, line));
}

function checkLine(problems: Problem[], at: string, line: unknown): LineInput {
  const none: LineInput = { product_id: null, retailer_id: null, quantity: 1, comment: null };
  if (!isObject(line)) return (problems.push({ field: at, rule: 'object' }), none);
  // prices are the menu's: a line holds only its four members
  const extra = Object.keys(line).find((k) => !LINE_MEMBERS.includes(k));
  if (extra !== undefined) return (problems.push({ field: `${at}.${extra}`, rule: 'key_enum', params: { values: LINE_MEMBERS } }), none);
  const hasId = given(line.product_id);
  const hasRetailer = given(line.retailer_id);
  if (hasId === hasRetailer) problems.push({ field: at, rule: 'exactly_one', params: { values: ['product_id', 'retailer_id'] } });
  const product_id = hasId ? integerIn(problems, `${at}.product_id`, line.product_id, 1, ID_MAX) : null;
  const retailer_id = hasRetailer ? checkRetailerId(problems, `${at}.retailer_id`, line.retailer_id) : null;
  const quantity = given(line.quantity)
    ? integerIn(problems, `${at}.quantity`, line.quantity, 1, QUANTITY_MAX)
    : (problems.push({ field: `${at}.quantity`, rule: 'required' }), null);
  const comment = text(problems, `${at}.comment`, line.comment, LINE_COMMENT_MAX);
  return { product_id, retailer_id, quantity: quantity ?? 1, comment };
}

function checkLocation(problems: Problem[], v: unknown): { latitude: number; longitude: number } | null {
  if (!given(v)) return null;
  if (!isObject(v)) return (problems.push({ field: 'location', rule: 'object' }), null);
  const extra = Object.keys(v).find((k) => k !== 'latitude' && k !== 'longitude');
  if (extra !== undefined)
    return (problems.push({ field: `location.${extra}`, rule: 'key_enum', params: { values: ['latitude', 'longitude'] } }), null);
  const coordinate = (name: 'latitude' | 'longitude', max: number) => {
    const c = v[name];
    if (typeof c !== 'number' || !Number.isFinite(c)) problems.push({ field: `location.${name}`, rule: 'number' });
    else if (c < -max || c > max) problems.push({ field: `location.${name}`, rule: 'range', params: { min: -max, max } });
    else return c;
    return 0;
  };
  return { latitude: coordinate('latitude', 90), longitude: coordinate('longitude', 180) };
}

export interface PlaceInput {
  cart_version?: unknown;
  paymethod?: unknown;
  comment?: unknown;
}

export function checkPlace(input: PlaceInput): { cart_version: number; paymethod: string; comment: string | null } {
  const problems: Problem[] = [];
  const cart_version = given(input.cart_version)
    ? integerIn(problems, 'cart_version', input.cart_version, 1, Number.MAX_SAFE_INTEGER)
    : (problems.push({ field: 'cart_version', rule: 'required' }), null);
  let paymethod: string | null = null;
  if (!given(input.paymethod)) problems.push({ field: 'paymethod', rule: 'required' });
  else if (!(PAYMETHODS as readonly unknown[]).includes(input.paymethod))
    problems.push({ field: 'paymethod', rule: 'enum', params: { values: [...PAYMETHODS] } });
  else paymethod = input.paymethod as string;
  const comment = text(problems, 'comment', input.comment, CART_COMMENT_MAX);
  if (problems.length) throw validationError(problems);
  return { cart_version: cart_version!, paymethod: paymethod!, comment };
}

/** `POST /ai/orders/{id}/status`'s body: a platform status (0–23) and an optional reason. */
export function checkMove(input: { status?: unknown; reason?: unknown }): { status: number; reason: string | null } {
  const problems: Problem[] = [];
  const status = given(input.status)
    ? integerIn(problems, 'status', input.status, 0, ORDER_STATUS_MAX)
    : (problems.push({ field: 'status', rule: 'required' }), null);
  const reason = text(problems, 'reason', input.reason, REASON_MAX);
  if (problems.length) throw validationError(problems);
  return { status: status!, reason };
}

export interface ProductInput {
  business_id?: unknown;
  name?: unknown;
  price?: unknown;
  enabled?: unknown;
  retailer_id?: unknown;
}

/** `POST /ai/products` (creating: business_id, name and price required) and `PATCH` (any of name, price, enabled, retailer_id). */
export function checkProduct(
  input: ProductInput,
  creating: boolean,
): { business_id?: number; name?: string; price?: number; enabled?: boolean; retailer_id?: string | null } {
  const problems: Problem[] = [];
  const out: ReturnType<typeof checkProduct> = {};
  if (creating) {
    if (!given(input.business_id)) problems.push({ field: 'business_id', rule: 'required' });
    else out.business_id = integerIn(problems, 'business_id', input.business_id, 1, ID_MAX) ?? undefined;
  }
  if (!given(input.name)) {
    if (creating) problems.push({ field: 'name', rule: 'required' });
  } else if (typeof input.name !== 'string' || input.name.trim() === '' || length(input.name) > NAME_MAX)
    problems.push({ field: 'name', rule: 'length', params: { min: 1, max: NAME_MAX } });
  else if (input.name.includes('\u0000')) problems.push({ field: 'name', rule: 'no_nul' });
  else out.name = input.name;
  if (!given(input.price)) {
    if (creating) problems.push({ field: 'price', rule: 'required' });
  } else if (typeof input.price !== 'number' || !Number.isFinite(input.price)) problems.push({ field: 'price', rule: 'number' });
  else if (input.price < 0 || input.price > PRICE_MAX || Math.abs(Math.round(input.price * 100) - input.price * 100) > 1e-6)
    problems.push({ field: 'price', rule: 'range', params: { min: 0, max: PRICE_MAX } });
  else out.price = Math.round(input.price * 100) / 100;
  if (given(input.enabled)) {
    if (typeof input.enabled !== 'boolean') problems.push({ field: 'enabled', rule: 'boolean' });
    else out.enabled = input.enabled;
  }
  if (input.retailer_id === null) out.retailer_id = null;
  else if (input.retailer_id !== undefined) out.retailer_id = checkRetailerId(problems, 'retailer_id', input.retailer_id) ?? undefined;
  if (problems.length) throw validationError(problems);
  return out;
}
