import type { EntityManager } from '@mikro-orm/postgresql';
import type { RequestContext } from '../../context/index.js';
import { appError, validationError } from '../../errors/codes.js';
import { run } from '../conversations/records.js';
import { writeWithEvents, type NewAiEvent } from '../events/event-log.js';
import { assertAiAdmin, visibleBusinessIds } from '../identity/access.js';
import { checkCart, LINES_MAX, QUANTITY_MAX, type CartInput } from './input.js';
import { priceCart, samePricedCart, type CartFields, type LineInput, type MenuProduct, type PricedCart } from './pricing.js';

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

interface CartRow {
  conversation_id: number;
  business_id: number | null;
  delivery_type: number | null;
  lines: LineInput[] | null;
  address: string | null;
  location: CartFields['location'];
  comment: string | null;
  version: string;
  shown: unknown;
  updated_at: Date;
}

const CART_COLUMNS = 'conversation_id, business_id, delivery_type, lines, address, location, comment, version, shown, updated_at';

/**
 * A conversation's cart (CONTRACT §15.2): priced from the menu whenever it is read, under a `version` that changes
 * exactly when what the record shows changes and never repeats in the conversation (the row outlives its carts).
 * Levels 0 and server keys for the whole project, level 2 for their businesses' conversations.
 */
export class CartService {
  /** `GET .../cart`: priced now; a menu change since it was last shown is a change, under a new version. */
  async get(ctx: RequestContext, conversationId: number): Promise<CartRecord> {
    assertAiAdmin(ctx);
    const conversation = await openConversation(ctx, conversationId);
    return writeWithEvents(
      ctx,
      async (tx) => {
        const events: NewAiEvent[] = [];
        const row = await lockCart(tx, ctx.project.id, conversation.id);
        if (!row?.lines) throw appError('ERROR_AI_CART_NOT_FOUND');
        return { value: await refreshCart(tx, ctx.project.id, conversation, row, events), events };
      },
      { statementsOnly: true },
    );
  }

  /** `PUT .../cart`: replaces it; one that shows the same keeps its version and `updated_at`. */
  async put(ctx: RequestContext, conversationId: number, input: CartInput): Promise<CartRecord> {
    assertAiAdmin(ctx);
    const { fields, lines } = checkCart(input);
    const conversation = await openConversation(ctx, conversationId);
    await checkBusiness(ctx, conversation, fields.business_id);
    return writeWithEvents(
      ctx,
      async (tx) => {
        const events: NewAiEvent[] = [];
        const record = await replaceCart(tx, ctx.project.id, conversation, fields, lines, events);
        return { value: record, events };
      },
      { statementsOnly: true },
    );
  }

  /** `DELETE .../cart`: empties it (null); the next cart goes on counting versions. */
  async remove(ctx: RequestContext, conversationId: number): Promise<null> {
    assertAiAdmin(ctx);
    const conversation = await openConversation(ctx, conversationId);
    return writeWithEvents(
      ctx,
      async (tx) => {
        const events: NewAiEvent[] = [];
        const row = await lockCart(tx, ctx.project.id, conversation.id);
        if (row?.lines) await emptyCart(tx, ctx.project.id, conversation, row, events);
        return { value: null, events };
      },
      { statementsOnly: true },
    );
  }
}

/** A visible conversation (another business's for level 2: not found), which must be active for its cart. */
export async function openConversation(ctx: RequestContext, conversationId: number): Promise<OrderConversation> {
  const conversation = await visibleConversation(ctx, conversationId);
  if (conversation.status !== 'active') throw appError('ERROR_AI_CONVERSATION_CLOSED');
  return conversation;
}

export async function visibleConversation(ctx: RequestContext, conversationId: number): Promise<OrderConversation> {
  const id = Number.isSafeInteger(conversationId) && conversationId > 0 && conversationId <= 2_147_483_647 ? conversationId : 0;
  const [row] = await run(
    ctx.em,
    `select id, agent_id, business_id, user_id, status, handler, source from ai_conversations where project_id = ? and id = ?`,
    [ctx.project.id, id],
  );
  const scope = row ? await visibleBusinessIds(ctx) : null;
  if (!row || (scope !== null && !scope.includes(row.business_id ?? -1))) throw appError('ERROR_AI_CONVERSATION_NOT_FOUND');
  return row as OrderConversation;
}

/** The cart's business: the conversation's when it has one, else a business of the project the caller may use. */
async function checkBusiness(ctx: RequestContext, conversation: OrderConversation, businessId: number): Promise<void> {
  const wrong = () => validationError([{ field: 'business_id', rule: 'business' }]);
  if (conversation.business_id !== null) {
    if (businessId !== conversation.business_id) throw wrong();
    return;
  }
  const scope = await visibleBusinessIds(ctx);
  if (scope !== null && !scope.includes(businessId)) throw wrong();
  const [found] = await run(ctx.em, 'select 1 from businesses where project_id = ? and id = ?', [ctx.project.id, businessId]);
  if (!found) throw wrong();
}

/** The conversation's cart row, locked. */
export async function lockCart(tx: EntityManager, projectId: number, conversationId: number): Promise<CartRow | null> {
  const [row] = await run(tx, `select ${CART_COLUMNS} from ai_carts where project_id = ? and conversation_id = ? for update`, [
    projectId,
    conversationId,
  ]);
  return (row as CartRow | undefined) ?? null;
}

/** Prices lines in a business: its terms and the products the lines name (by id or retailer id), in one statement. */
export async function priceLines(
  tx: EntityManager,
  projectId: number,
  fields: CartFields & { business_id: number | null },
  lines: LineInput[],
): Promise<PricedCart> {
  const ids = lines.flatMap((l) => (l.product_id === null ? [] : [l.product_id]));
  const retailerIds = lines.flatMap((l) => (l.retailer_id === null ? [] : [l.retailer_id]));
  const [row] = await run(
    tx,
    `select b.currency, (b.delivery_price * 100)::bigint::text as delivery_cents, (b.tax_rate * 100)::int as tax_hundredths,
            coalesce((select jsonb_agg(jsonb_build_object('id', p.id, 'retailer_id', p.retailer_id, 'name', p.name,
                        'price_cents', (p.price * 100)::bigint, 'enabled', p.enabled))
                        from products p
                       where p.project_id = b.project_id and p.business_id = b.id
                         and (p.id = any(?::int[]) or p.retailer_id = any(?::text[]))), '[]') as menu
       from (select 1) one left join businesses b on b.project_id = ? and b.id = ?`,
    [ids, retailerIds, projectId, fields.business_id ?? 0],
  );
  const terms = {
    currency: (row.currency as string | null)?.trim() ?? 'EUR',
    delivery_cents: Number(row.delivery_cents ?? 0),
    tax_hundredths: Number(row.tax_hundredths ?? 0),
  };
  return priceCart(fields, lines, row.menu as MenuProduct[], terms);
}

/** The record of a stored, non-empty cart, priced now: a new version (and `cart.updated`) when it shows something new. */
export async function refreshCart(
  tx: EntityManager,
  projectId: number,
  conversation: OrderConversation,
  row: CartRow,
  events: NewAiEvent[],
): Promise<CartRecord> {
  const fields = fieldsOf(row);
  const priced = await priceLines(tx, projectId, fields, row.lines ?? []);
  if (samePricedCart(priced, row.shown)) return record(conversation.id, priced, Number(row.version), row.updated_at);
  return storeCart(tx, projectId, conversation, priced, row.lines ?? [], events);
}

/** Replaces the conversation's cart (creating its row on first use); unchanged when it shows the same. */
export async function replaceCart(
  tx: EntityManager,
  projectId: number,
  conversation: OrderConversation,
  fields: CartFields & { business_id: number | null },
  lines: LineInput[],
  events: NewAiEvent[],
): Promise<CartRecord> {
  let row = await lockCart(tx, projectId, conversation.id);
  if (!row) {
    // the conversation's first cart: its row, kept from now on (a concurrent first PUT may have made it)
    await run(tx, 'insert into ai_carts (conversation_id, project_id) values (?, ?) on conflict do nothing', [conversation.id, projectId]);
    row = (await lockCart(tx, projectId, conversation.id))!;
  }
  const priced = await priceLines(tx, projectId, fields, lines);
  if (row.lines && samePricedCart(priced, row.shown)) return record(conversation.id, priced, Number(row.version), row.updated_at);
  return storeCart(tx, projectId, conversation, priced, lines, events);
}

async function storeCart(
  tx: EntityManager,
  projectId: number,
  conversation: OrderConversation,
  priced: PricedCart,
  lines: LineInput[],
  events: NewAiEvent[],
): Promise<CartRecord> {
  const [saved] = await run(
    tx,
    `update ai_carts set business_id = ?, delivery_type = ?, lines = ?::jsonb, address = ?, location = ?::jsonb, comment = ?,
            shown = ?::jsonb, version = version + 1, updated_at = now()
      where project_id = ? and conversation_id = ? returning version, updated_at`,
    [
      priced.business_id,
      priced.delivery_type,
      JSON.stringify(lines),
      priced.address,
      priced.location === null ? null : JSON.stringify(priced.location),
      priced.comment,
      JSON.stringify(priced),
      projectId,
      conversation.id,
    ],
  );
  const cart = record(conversation.id, priced, Number(saved.version), saved.updated_at as Date);
  events.push(cartEvent(conversation, cart));
  return cart;
}

/** Empties a stored cart (DELETE, and a place): its record shows no lines under a new version. */
export async function emptyCart(
  tx: EntityManager,
  projectId: number,
  conversation: OrderConversation,
  row: CartRow,
  events: NewAiEvent[] | null,
): Promise<void> {
  const [saved] = await run(
    tx,
    `update ai_carts set lines = null, shown = null, version = version + 1, updated_at = now()
      where project_id = ? and conversation_id = ? returning version, updated_at`,
    [projectId, conversation.id],
  );
  if (!events) return;
  const priced = await priceLines(tx, projectId, fieldsOf(row), []);
  events.push(cartEvent(conversation, record(conversation.id, priced, Number(saved.version), saved.updated_at as Date)));
}

/**
 * A customer's catalog cart (an inbound `order` message, CONTRACT §15.2) replaces the conversation's cart, in the
 * webhook's transaction: its items as retailer-id lines of the agent's business (an agent without one: the business
 * of the project's lowest product id with one of those retailer ids); the replaced cart's delivery type (else 1),
 * address, location and comment kept. `item_price` is never read: prices are the menu's.
 */
export async function cartFromCatalog(
  tx: EntityManager,
  projectId: number,
  agent: { id: number; business_id: number | null },
  conversation: OrderConversation,
  items: { product_retailer_id: string | null; quantity: number | null }[],
  events: NewAiEvent[],
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
  const [prior] = await run(tx, `select ${CART_COLUMNS} from ai_carts where project_id = ? and conversation_id = ?`, [
    projectId,
    conversation.id,
  ]);
  const businessId = agent.business_id ?? conversation.business_id ?? (await businessOfRetailerIds(tx, projectId, lines));
  const kept = prior as CartRow | undefined;
  const fields = {
    business_id: businessId,
    delivery_type: kept?.delivery_type ?? 1,
    address: kept?.address ?? null,
    location: kept?.location ?? null,
    comment: kept?.comment ?? null,
  };
  await replaceCart(tx, projectId, conversation, fields as CartFields, lines, events);
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

export function cartEvent(conversation: OrderConversation, cart: CartRecord): NewAiEvent {
  return {
    type: 'cart.updated',
    data: { ...cart, updated_at: cart.updated_at.toISOString() },
    agent_id: conversation.agent_id,
    business_id: cart.business_id ?? conversation.business_id,
    conversation_id: conversation.id,
    public: true,
  };
}
