import type { EntityManager } from '@mikro-orm/postgresql';
import type { RequestContext } from '../../context/index.js';
import { appError, validationError } from '../../errors/codes.js';
import { storedId } from '../conversations/message-rules.js';
import { isoText, run } from '../conversations/records.js';
import type { WriteResult } from '../conversations/write-batches.js';
import { eventsCommitted, writeWithEvents } from '../events/event-log.js';
import { assertAiAdmin, visibleBusinessIds } from '../identity/access.js';
import { checkCart, LINES_MAX, QUANTITY_MAX, type CartInput } from './input.js';
import { TARGET_COLUMNS } from './notices.js';
import {
  priceCart,
  samePricedCart,
  type BusinessTerms,
  type CartFields,
  type LineInput,
  type MenuProduct,
  type PricedCart,
} from './pricing.js';

/** A conversation as the cart and order writes read it. */
export interface OrderConversation {
  id: number;
  agent_id: number;
  business_id: number | null;
  user_id: number | null;
  status: string;
  handler: string;
  source: string;
}

/** The cart record (CONTRACT §15.2). */
export interface CartRecord extends PricedCart {
  conversation_id: number;
  version: number;
  updated_at: Date;
}

export interface CartRow {
  conversation_id: number;
  business_id: number | null;
  delivery_type: number | null;
  lines: LineInput[] | null;
  address: string | null;
  location: CartFields['location'];
  comment: string | null;
  version: number;
  shown: unknown;
  updated_at: Date;
}

/**
 * What one statement reads of a conversation's cart: the conversation (locked, with what its notices and the ad's
 * credit need: notices.ts TARGET_COLUMNS), its cart row (locked) and the menu its lines name.
 */
export interface OpenCart {
  conversation: (OrderConversation & Record<string, unknown>) | null;
  row: CartRow | null;
  /** The pricing business's terms; null when it is not a business of the project. */
  terms: BusinessTerms | null;
  menu: MenuProduct[];
}

/**
 * A conversation's cart (CONTRACT §15.2): priced from the menu whenever it is read, under a `version` that changes
 * exactly when what the record shows changes and never repeats in the conversation (the row outlives its carts).
 * Levels 0 and server keys for the whole project, level 2 for their businesses' conversations. Each write reads the
 * conversation, its cart and the menu in one statement and writes the change with its event in another, guarded on the
 * version it read (cartWrite).
 */
export class CartService {
  /** `GET .../cart`: priced now; a menu change since it was last shown is a change, under a new version. */
  async get(ctx: RequestContext, conversationId: number): Promise<CartRecord> {
    assertAiAdmin(ctx);
    const scope = await visibleBusinessIds(ctx);
    return cartWrite(ctx, async (tx, locked) => {
      const open = await openCart(tx, ctx.project.id, conversationId, null, locked);
      const conversation = activeConversation(open, scope);
      if (!open.row?.lines) throw appError('ERROR_AI_CART_NOT_FOUND');
      const refreshed = await refreshCart(tx, ctx.project.id, conversation, open);
      return refreshed && { value: refreshed.cart, wrote: refreshed.stored };
    });
  }

  /** `PUT .../cart`: replaces it; one that shows the same keeps its version and `updated_at`. */
  async put(ctx: RequestContext, conversationId: number, input: CartInput): Promise<CartRecord> {
    assertAiAdmin(ctx);
    const { fields, lines } = checkCart(input);
    const scope = await visibleBusinessIds(ctx);
    return cartWrite(ctx, async (tx, locked) => {
      const open = await openCart(tx, ctx.project.id, conversationId, { lines, business_id: fields.business_id }, locked);
      const conversation = activeConversation(open, scope);
      // the conversation's business when it has one, else a business of the project the caller may use
      const business =
        conversation.business_id ?? (open.terms && (scope === null || scope.includes(fields.business_id)) ? fields.business_id : null);
      if (business !== fields.business_id) throw validationError([{ field: 'business_id', rule: 'business' }]);
      const replaced = await replaceCart(tx, ctx.project.id, conversation, open, fields, lines, locked);
      return replaced && { value: replaced.cart, wrote: replaced.stored };
    });
  }

  /** `DELETE .../cart`: empties it (null); the next cart goes on counting versions. */
  async remove(ctx: RequestContext, conversationId: number): Promise<null> {
    assertAiAdmin(ctx);
    const scope = await visibleBusinessIds(ctx);
    return cartWrite(ctx, async (tx, locked) => {
      const open = await openCart(tx, ctx.project.id, conversationId, null, locked);
      const conversation = activeConversation(open, scope);
      if (!open.row?.lines) return { value: null, wrote: false };
      return (await emptyCart(tx, ctx.project.id, conversation, open)) ? { value: null, wrote: true } : null;
    });
  }
}

/**
 * A write of a conversation's cart, first without locks: its read and its write each one statement in autocommit
 * (no BEGIN and COMMIT round trips), the write guarded on what the read saw (the cart's version; a place, the
 * conversation's state too). `work` answers null when that guard held nothing (a write of the same cart came between): it runs
 * once more in a transaction that locks the conversation, then the cart, as it reads them (`locked`), where its
 * guard holds. Either way its events get their ids before it answers.
 */
export async function cartWrite<T>(
  ctx: RequestContext,
  work: (tx: EntityManager, locked: boolean) => Promise<WriteResult<T> | null>,
): Promise<T> {
  const unlocked = await work(ctx.em, false);
  if (unlocked) {
    if (unlocked.wrote || unlocked.queued?.length) await eventsCommitted(ctx, unlocked.queued);
    return unlocked.value;
  }
  return writeWithEvents(
    ctx,
    async (tx) => {
      const done = await work(tx, true);
      if (!done) throw new Error('a cart write under its locks found its guard false');
      return { value: done.value, events: [], inboxed: done.wrote, queued: done.queued };
    },
    { statementsOnly: true },
  );
}

/**
 * One statement: the conversation, its cart row, the pricing business's terms and the products that `price.lines` name
 * (without `price`: the stored cart's lines in its business). `lock` (in the caller's transaction): the conversation
 * locked (`for no key update`, as message writes lock it: a notice of §15.5 is one of its messages), then its cart row
 * (a concurrent write of this cart waits here).
 */
export async function openCart(
  tx: EntityManager,
  projectId: number,
  conversationId: number,
  price: { lines: LineInput[]; business_id: number | null } | null,
  lock = true,
): Promise<OpenCart> {
  const id = storedId(conversationId);
  const [row] = await run(
    tx,
    `with c as (
       select c.id, c.agent_id, c.business_id, c.user_id, c.status, c.handler, c.source, ${TARGET_COLUMNS}
         from ai_conversations c join ai_agents a on a.id = c.agent_id and a.project_id = c.project_id
        where c.project_id = ? and c.id = ?
          ${lock ? 'for no key update of c' : ''}),
     k as (
       select conversation_id, business_id, delivery_type, lines, address, location, comment, version, shown,
              ${isoText('updated_at')} as updated_at
         from ai_carts where project_id = ? and conversation_id = (select id from c) ${lock ? 'for update' : ''}),
     l as (select e from jsonb_array_elements(coalesce(?::jsonb, (select lines from k), '[]'::jsonb)) e),
     b as (
       select id, currency, (delivery_price * 100)::bigint as delivery_cents, (tax_rate * 100)::int as tax_hundredths
         from businesses where project_id = ? and id = coalesce(?::bigint, (select business_id from k)))
     select (select to_jsonb(c) from c) as conversation, (select to_jsonb(k) from k) as cart, (select to_jsonb(b) from b) as business,
            coalesce((select jsonb_agg(jsonb_build_object('id', p.id, 'retailer_id', p.retailer_id, 'name', p.name,
                                'price_cents', (p.price * 100)::bigint, 'enabled', p.enabled))
                        from products p
                       where p.project_id = ? and p.business_id = (select id from b)
                         and (p.id in (select (e->>'product_id')::bigint from l where e->>'product_id' is not null)
                              or p.retailer_id in (select e->>'retailer_id' from l where e->>'retailer_id' is not null))), '[]') as menu`,
    [projectId, id, projectId, price ? JSON.stringify(price.lines) : null, projectId, price?.business_id ?? null, projectId],
  );
  const cart = row.cart as (Omit<CartRow, 'updated_at'> & { updated_at: string }) | null;
  const business = row.business as { currency: string; delivery_cents: number; tax_hundredths: number } | null;
  return {
    conversation: row.conversation as OpenCart['conversation'],
    row: cart && { ...cart, version: Number(cart.version), updated_at: new Date(cart.updated_at) },
    terms: business && {
      currency: business.currency.trim(),
      delivery_cents: Number(business.delivery_cents),
      tax_hundredths: Number(business.tax_hundredths),
    },
    menu: row.menu as MenuProduct[],
  };
}

/** The conversation when the caller may see it (another business's for level 2: not found). */
export function visibleOf(open: OpenCart, scope: number[] | null): OrderConversation {
  const c = open.conversation;
  if (!c || (scope !== null && !scope.includes(c.business_id ?? -1))) throw appError('ERROR_AI_CONVERSATION_NOT_FOUND');
  return c;
}

/** A visible conversation, which must be active for its cart. */
function activeConversation(open: OpenCart, scope: number[] | null): OrderConversation {
  const conversation = visibleOf(open, scope);
  if (conversation.status !== 'active') throw appError('ERROR_AI_CONVERSATION_CLOSED');
  return conversation;
}

const NO_TERMS: BusinessTerms = { currency: 'EUR', delivery_cents: 0, tax_hundredths: 0 };

/** A cart record, and whether this write stored it (a new version, its `cart.updated` in the inbox). */
export interface CartStored {
  cart: CartRecord;
  stored: boolean;
}

/**
 * The record of a stored, non-empty cart, priced now (`open` read its stored lines): a new version when it shows
 * something new; null when the cart moved since `open` read it (storeCart).
 */
export async function refreshCart(
  tx: EntityManager,
  projectId: number,
  conversation: OrderConversation,
  open: OpenCart,
): Promise<CartStored | null> {
  const row = open.row!;
  const priced = priceCart(fieldsOf(row), row.lines ?? [], open.menu, open.terms ?? NO_TERMS);
  if (samePricedCart(priced, row.shown)) return { cart: record(conversation.id, priced, row.version, row.updated_at), stored: false };
  const cart = await storeCart(tx, projectId, conversation, priced, row.lines ?? [], row.version);
  return cart && { cart, stored: true };
}

/**
 * Replaces the conversation's cart (creating its row on first use); unchanged when it shows the same; null when the
 * cart moved since `open` read it.
 */
async function replaceCart(
  tx: EntityManager,
  projectId: number,
  conversation: OrderConversation,
  open: OpenCart,
  fields: CartFields & { business_id: number | null },
  lines: LineInput[],
  locked: boolean,
): Promise<CartStored | null> {
  let row = open.row;
  if (!row) {
    // the conversation's first cart: its row, kept from now on (a concurrent first PUT may have made it)
    await run(tx, 'insert into ai_carts (conversation_id, project_id) values (?, ?) on conflict do nothing', [conversation.id, projectId]);
    row = (await openCart(tx, projectId, conversation.id, null, locked)).row!;
  }
  const priced = priceCart(fields, lines, open.menu, open.terms ?? NO_TERMS);
  if (row.lines && samePricedCart(priced, row.shown))
    return { cart: record(conversation.id, priced, row.version, row.updated_at), stored: false };
  const cart = await storeCart(tx, projectId, conversation, priced, lines, row.version);
  return cart && { cart, stored: true };
}

/**
 * The cart's row at `version`, the one its write read (cartGuardParams). Nothing but cart writes changes a cart, and a
 * close or handoff reads none, so a cart write that meets its conversation closed after its read is the write before it.
 */
const CART_GUARD = 'project_id = ? and conversation_id = ? and version = ?';
const cartGuardParams = (projectId: number, conversationId: number, version: number) => [projectId, conversationId, version];

/**
 * The cart's new lines and record under the next version, and its `cart.updated`, in one statement; null when the
 * cart is no longer at `version` (the one its write read).
 */
async function storeCart(
  tx: EntityManager,
  projectId: number,
  conversation: OrderConversation,
  priced: PricedCart,
  lines: LineInput[],
  version: number,
): Promise<CartRecord | null> {
  const [saved] = await run(
    tx,
    `with saved as (
       update ai_carts set business_id = ?, delivery_type = ?, lines = ?::jsonb, address = ?, location = ?::jsonb, comment = ?,
              shown = ?::jsonb, version = version + 1, updated_at = now()
        where ${CART_GUARD} returning version, updated_at)
     ${CART_EVENT}
     select version, updated_at from saved`,
    [
      priced.business_id,
      priced.delivery_type,
      JSON.stringify(lines),
      priced.address,
      priced.location === null ? null : JSON.stringify(priced.location),
      priced.comment,
      JSON.stringify(priced),
      ...cartGuardParams(projectId, conversation.id, version),
      ...cartEventParams(projectId, conversation, priced),
    ],
  );
  return saved ? record(conversation.id, priced, Number(saved.version), saved.updated_at as Date) : null;
}

/**
 * `cart.updated` of the row `saved` (its version and updated_at) in the events inbox: the data is the cart record,
 * the priced members sent as JSON (CARTS_EVENT_PARAMS' order).
 */
const CART_EVENT = `, ev as (
       insert into ai_event_inbox (project_id, type, agent_id, business_id, conversation_id, public, data, created_at)
       select ?::bigint, 'cart.updated', ?::bigint, ?::bigint, ?::bigint, true,
              jsonb_build_object('conversation_id', ?::bigint) || ?::jsonb
                || jsonb_build_object('version', saved.version, 'updated_at', ${isoText('saved.updated_at')}),
              clock_timestamp()
         from saved)`;

const cartEventParams = (projectId: number, conversation: OrderConversation, priced: PricedCart) => [
  projectId,
  conversation.agent_id,
  priced.business_id ?? conversation.business_id,
  conversation.id,
  conversation.id,
  JSON.stringify(priced),
];

/**
 * Empties a stored cart (DELETE): its record shows no lines under a new version, with its `cart.updated`; false when the
 * cart moved since `open` read it.
 */
async function emptyCart(tx: EntityManager, projectId: number, conversation: OrderConversation, open: OpenCart): Promise<boolean> {
  const priced = priceCart(fieldsOf(open.row!), [], [], open.terms ?? NO_TERMS);
  const rows = await run(
    tx,
    `with saved as (
       update ai_carts set lines = null, shown = null, version = version + 1, updated_at = now()
        where ${CART_GUARD} returning version, updated_at)
     ${CART_EVENT}
     select 1 from saved`,
    [...cartGuardParams(projectId, conversation.id, open.row!.version), ...cartEventParams(projectId, conversation, priced)],
  );
  return rows.length > 0;
}

/**
 * A customer's catalog cart (an inbound `order` message, CONTRACT §15.2) replaces the conversation's cart, in the
 * webhook's transaction: its items as retailer-id lines of the agent's business (an agent without one: the
 * conversation's, else the business of the project's lowest product id with one of those retailer ids); the replaced
 * cart's delivery type (else 1), address, location and comment kept. `item_price` is never read: prices are the menu's.
 */
export async function cartFromCatalog(
  tx: EntityManager,
  projectId: number,
  agent: { id: number; business_id: number | null },
  conversation: OrderConversation,
  items: { product_retailer_id: string | null; quantity: number | null }[],
): Promise<void> {
  const lines: LineInput[] = items
    .filter((i) => typeof i.product_retailer_id === 'string' && i.product_retailer_id !== '')
    .slice(0, LINES_MAX)
    .map((i) => ({
      product_id: null,
      retailer_id: i.product_retailer_id!.slice(0, 100),
      quantity: Math.min(QUANTITY_MAX, Math.max(1, Math.round(Number(i.quantity) || 1))),
      comment: null,
    }));
  if (lines.length === 0) return;
  const businessId = agent.business_id ?? conversation.business_id ?? (await businessOfRetailerIds(tx, projectId, lines));
  const open = await openCart(tx, projectId, conversation.id, { lines, business_id: businessId });
  const kept = open.row;
  const fields = {
    business_id: businessId,
    delivery_type: kept?.delivery_type ?? 1,
    address: kept?.address ?? null,
    location: kept?.location ?? null,
    comment: kept?.comment ?? null,
  };
  // under the webhook's locks (openCart's), its guard holds
  await replaceCart(tx, projectId, conversation, open, fields as CartFields, lines, true);
}

async function businessOfRetailerIds(tx: EntityManager, projectId: number, lines: LineInput[]): Promise<number | null> {
  const [row] = await run(
    tx,
    'select business_id from products where project_id = ? and retailer_id = any(?::text[]) and business_id is not null order by id limit 1',
    [projectId, lines.map((l) => l.retailer_id)],
  );
  return (row?.business_id as number | undefined) ?? null;
}

const fieldsOf = (row: CartRow): CartFields => ({
  business_id: row.business_id as number,
  delivery_type: row.delivery_type ?? 1,
  address: row.address,
  location: row.location,
  comment: row.comment,
});

function record(conversationId: number, priced: PricedCart, version: number, updatedAt: Date): CartRecord {
  return { conversation_id: conversationId, ...priced, version, updated_at: new Date(updatedAt) };
}
