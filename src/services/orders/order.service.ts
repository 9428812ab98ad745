import type { EntityManager } from '@mikro-orm/postgresql';
import type { RequestContext } from '../../context/index.js';
import { Order } from '../../entities/order.js';
import { appError, validationError } from '../../errors/codes.js';
import { readPage, type Page } from '../conversations/conversation.service.js';
import { storedId } from '../conversations/message-rules.js';
import { isoText, run } from '../conversations/records.js';
import type { WriteResult } from '../conversations/write-batches.js';
import { appendEvents, writeWithEvents, type NewAiEvent, type OutboxKind } from '../events/event-log.js';
import { assertAiAdmin, visibleBusinessIds } from '../identity/access.js';
import { parseListQuery, toFilter, type Attributes, type ListInput } from '../shared/list-query.js';
import { cartWrite, openCart, refreshCart, visibleOf, type CartRecord, type OrderConversation } from './cart.service.js';
import { PENDING_CONVERSION } from './conversions.js';
import { noticeEntry, noticeTarget, targetOf, writeNotice } from './notices.js';
import { checkMove, checkPlace, FINAL_STATUSES, ORDER_STATUS_MAX, START_STATUSES, type PlaceInput } from './input.js';

export const ORDER_WHERE: Attributes = {
  id: 'id',
  uuid: 'string',
  business_id: 'id',
  conversation_id: 'id',
  customer_id: 'id',
  status: 'int',
  delivery_type: 'int',
  created_at: 'timestamp',
};
export const ORDER_ORDER_BY: Attributes = { id: 'id', created_at: 'timestamp', status: 'int', updated_at: 'timestamp' };
const NEWEST_FIRST = '-created_at,-id';

export interface OrderLine {
  product_id: number | null;
  name: string;
  quantity: number;
  price: number;
  total: number;
  comment: string | null;
}

/** The order record (CONTRACT §15.3). */
export interface OrderRecord {
  id: number;
  uuid: string;
  business_id: number | null;
  conversation_id: number | null;
  customer_id: number | null;
  status: number;
  delivery_type: number | null;
  paymethod: string | null;
  currency: string | null;
  summary: { subtotal: number | null; discount: number | null; delivery_price: number | null; tax: number | null; total: number | null };
  products: OrderLine[];
  address: string | null;
  location: { latitude: number; longitude: number } | null;
  comment: string | null;
  history: { status: number; at: Date; by: number | null; reason: string | null }[];
  conversion: { status: string; error: string | null; sent_at: Date | null } | null;
  created_at: Date;
  updated_at: Date;
}

/** Why a place answered no order: the cart changed (its current record), or is not there. */
type Placed = { order: OrderRecord } | { changed: CartRecord };

/**
 * Orders (CONTRACT §15.3–15.4): placed from a conversation's cart exactly once per cart version (the cart row's lock
 * orders concurrent places; the unique (conversation, cart_version) index is the guarantee), read, and moved through
 * the platform's statuses. Every write's event is in its transaction; the metrics follow through the `orders`
 * triggers.
 */
export class OrderService {
  /** `POST /ai/conversations/{id}/orders`. */
  async place(ctx: RequestContext, conversationId: number, input: PlaceInput): Promise<OrderRecord> {
    assertAiAdmin(ctx);
    const place = checkPlace(input);
    const scope = await visibleBusinessIds(ctx);
    const placed = await cartWrite<Placed>(ctx, async (tx, locked) => {
      // locked: the conversation's lock, then the cart's (as an inbound catalog cart takes them), in one statement; a
      // concurrent place of this conversation waits here, then finds its order below
      const open = await openCart(tx, ctx.project.id, conversationId, null, locked);
      const conversation = visibleOf(open, scope);
      const row = open.row;
      // a version was placed only when the cart moved past it (versions never repeat): looked up in a statement of
      // its own, whose snapshot sees the place that held the lock before us
      if (!row?.lines || row.version !== place.cart_version) {
        const placedBefore = await placedAnswer(tx, ctx.project.id, conversation.id, place.cart_version);
        if (placedBefore) return placedBefore;
      }
      if (conversation.status !== 'active') throw appError('ERROR_AI_CONVERSATION_CLOSED');
      if (conversation.handler === 'human' && ctx.caller.kind === 'server') throw appError('ERROR_AI_CONVERSATION_HANDED_OFF');
      if (!row?.lines) throw appError('ERROR_AI_CART_NOT_FOUND');
      // a cart the menu changed is stored under its new version before the 409 names it
      const refreshed = await refreshCart(tx, ctx.project.id, conversation, open);
      if (!refreshed) return null;
      const { cart } = refreshed;
      if (cart.version !== place.cart_version || cart.problems.length) return { value: { changed: cart }, wrote: refreshed.stored };
      const target = targetOf(open.conversation!);
      // §15.5: a notice of the place is a message of the conversation, written under its lock
      if (!locked && target.notices && noticeEntry(target.notices, 0)) return null;
      // §15.6: the ad's credit queued with the order (its `conversion` pending in the order.created the insert emits)
      const order = await insertOrder(ctx, tx, conversation, cart, place, target.conversion_clid);
      // placed meanwhile after all (the index decided): that order; else the cart moved since the read
      if (!order) return placedAnswer(tx, ctx.project.id, conversation.id, place.cart_version);
      const queued: OutboxKind[] = target.conversion_clid === null ? [] : ['conversions'];
      // §15.5: the notice's message.created after the order.created (each statement puts its own in the inbox)
      if (target.notices) queued.push(...(await writeNotice(tx, ctx.project.id, target.notices, order, 0, null)));
      return { value: { order }, wrote: true, queued };
    });
    if ('changed' in placed) throw cartChanged(placed.changed);
    return placed.order;
  }

  /** `GET /ai/orders/{id}`. */
  async get(ctx: RequestContext, orderId: number): Promise<OrderRecord> {
    assertAiAdmin(ctx);
    const [order] = await orderRecords(ctx.em, ctx.project.id, [storedId(orderId)], await visibleBusinessIds(ctx));
    if (!order) throw appError('ERROR_AI_ORDER_NOT_FOUND');
    return order;
  }

  /** `GET /ai/orders`: the project's orders (level 2: their businesses'), newest first unless ordered otherwise. */
  async list(ctx: RequestContext, input: ListInput): Promise<Page<OrderRecord>> {
    assertAiAdmin(ctx);
    const where = parseListQuery({ ...input, orderBy: null }, ORDER_WHERE).where;
    const q = { ...parseListQuery({ ...input, where: null, orderBy: input.orderBy || NEWEST_FIRST }, ORDER_ORDER_BY), where };
    const scope = await visibleBusinessIds(ctx);
    const page = await readPage(ctx, Order, q, () => {
      const filters = [toFilter(q.where, {}, { uuid: (alias) => ({ sql: `${alias}.uuid::text`, params: [] }) })];
      if (scope !== null) filters.push({ business_id: { $in: scope } });
      return { $and: filters.filter((f) => Object.keys(f).length) };
    });
    const records = await orderRecords(
      ctx.em,
      ctx.project.id,
      page.items.map((o) => o.id),
      scope,
    );
    const byId = new Map(records.map((r) => [r.id, r]));
    return { items: page.items.map((o) => byId.get(o.id)!).filter(Boolean), pagination: page.pagination };
  }

  /** `POST /ai/orders/{id}/status`: the same status again changes nothing; a final order never moves; nothing moves to 0 or 13. */
  async move(ctx: RequestContext, orderId: number, input: { status?: unknown; reason?: unknown }): Promise<OrderRecord> {
    assertAiAdmin(ctx);
    const { status, reason } = checkMove(input);
    const scope = await visibleBusinessIds(ctx);
    const by = ctx.caller.kind === 'user' ? ctx.caller.user.id : null;
    return writeWithEvents(
      ctx,
      async (tx) => {
        const [row] = await run(
          tx,
          `select o.id, o.status, o.business_id, c.agent_id from orders o left join ai_conversations c on c.id = o.conversation_id
            where o.project_id = ? and o.id = ? and (?::bigint[] is null or o.business_id = any(?::bigint[])) for update of o`,
          [ctx.project.id, storedId(orderId), scope, scope],
        );
        if (!row) throw appError('ERROR_AI_ORDER_NOT_FOUND');
        const same = row.status === status;
        if (!same && FINAL_STATUSES.has(row.status as number)) throw appError('ERROR_AI_ORDER_FINAL');
        if (!same && START_STATUSES.has(status)) throw statusRefused();
        if (!same)
          await run(
            tx,
            `update orders set status = ?, updated_at = now(),
                    history = history || jsonb_build_array(jsonb_build_object('status', ?::int, 'at', ${isoText('now()')}, 'by', ?::bigint, 'reason', ?::text))
              where project_id = ? and id = ?`,
            [status, status, by, reason, ctx.project.id, row.id],
          );
        const [order] = await orderRecords(tx, ctx.project.id, [row.id as number], null);
        if (same) return { value: order, events: [] };
        // order.status first, then the notice (§15.5: once per move; a repeated status is no move)
        await appendEvents(tx, ctx.project.id, [orderEvent('order.status', (row.agent_id as number | null) ?? null, order)]);
        const target = await noticeTarget(tx, ctx.project.id, order.conversation_id);
        const queued = target ? await writeNotice(tx, ctx.project.id, target, order, status, reason) : [];
        return { value: order, events: [], inboxed: true, queued };
      },
      { statementsOnly: true },
    );
  }
}

const statusRefused = () =>
  validationError([
    {
      field: 'status',
      rule: 'enum',
      params: { values: Array.from({ length: ORDER_STATUS_MAX + 1 }, (_, s) => s).filter((s) => !START_STATUSES.has(s)) },
    },
  ]);

/** 409 ERROR_AI_CART_CHANGED: the current cart record is the envelope's `result`. */
function cartChanged(cart: CartRecord) {
  return appError('ERROR_AI_CART_CHANGED', undefined, { result: { ...cart, updated_at: cart.updated_at.toISOString() } });
}

async function placedOrderId(tx: EntityManager, projectId: number, conversationId: number, version: number): Promise<number | null> {
  const [row] = await run(tx, 'select id from orders where project_id = ? and conversation_id = ? and cart_version = ?', [
    projectId,
    conversationId,
    version,
  ]);
  return (row?.id as number | undefined) ?? null;
}

/** A place's answer when the version was placed already: that order (it wrote nothing); null when it was not. */
async function placedAnswer(
  tx: EntityManager,
  projectId: number,
  conversationId: number,
  version: number,
): Promise<WriteResult<Placed> | null> {
  const id = await placedOrderId(tx, projectId, conversationId, version);
  return id === null ? null : { value: { order: await orderOf(tx, projectId, id) }, wrote: false };
}

async function orderOf(tx: EntityManager, projectId: number, id: number): Promise<OrderRecord> {
  return (await orderRecords(tx, projectId, [id], null))[0];
}

/**
 * The order from the cart at its version with its first step and its lines, the cart emptied (as DELETE does) and
 * `order.created`, in one statement; the record is the cart's, as a read of the order would show it. The order is
 * inserted only while the cart is at that version and the conversation active (handled by the AI, for a server key):
 * null when the statement found them moved since the caller read them (it wrote nothing then). Two places of one
 * version meet at the unique (conversation, cart_version) index, which keeps the first: the other answers it.
 */
async function insertOrder(
  ctx: RequestContext,
  tx: EntityManager,
  conversation: OrderConversation,
  cart: CartRecord,
  place: { cart_version: number; paymethod: string; comment: string | null },
  conversionClid: string | null,
): Promise<OrderRecord | null> {
  const by = ctx.caller.kind === 'user' ? ctx.caller.user.id : null;
  const comment = place.comment ?? cart.comment;
  // the record's members the cart decides: the event's data is these and those the insert makes (id, uuid, history, times)
  const decided = {
    business_id: cart.business_id,
    conversation_id: conversation.id,
    customer_id: conversation.user_id,
    status: 0,
    delivery_type: cart.delivery_type,
    paymethod: place.paymethod,
    currency: cart.currency,
    summary: cart.summary,
    products: cart.lines.map((l) => ({
      product_id: l.product_id,
      name: l.name,
      quantity: l.quantity,
      price: l.price,
      total: l.total,
      comment: l.comment,
    })),
    address: cart.address,
    location: cart.location,
    comment,
    conversion: conversionClid === null ? null : { ...PENDING_CONVERSION },
  };
  const [row] = await run(
    tx,
    `with g as (
       select 1 from ai_carts k join ai_conversations c on c.project_id = k.project_id and c.id = k.conversation_id
        where k.project_id = ? and k.conversation_id = ? and k.version = ? and k.lines is not null
          and c.status = 'active' and (c.handler <> 'human' or not ?::boolean)),
     o as (
       insert into orders (project_id, business_id, customer_id, conversation_id, status, summary, delivery_type, paymethod, currency,
                           address, location, comment, conversion, history, cart_version)
       select ?::bigint, ?::bigint, ?::bigint, ?::bigint, 0, ?::jsonb, ?::int, ?::text, ?::text, ?::text, ?::jsonb, ?::text, ?::jsonb,
               jsonb_build_array(jsonb_build_object('status', 0, 'at', ${isoText('now()')}, 'by', ?::bigint, 'reason', null)),
               ?::bigint
        where exists (select 1 from g)
       on conflict (conversation_id, cart_version) where cart_version is not null do nothing
       returning id, project_id, uuid::text as uuid, history, created_at, updated_at),
     lines as (
       insert into order_products (project_id, order_id, product_id, retailer_id, name, quantity, price, comment)
       select o.project_id, o.id, l.product_id, l.retailer_id, l.name, l.quantity, l.price, l.comment
         from o cross join rows from (jsonb_to_recordset(?::jsonb)
                as (product_id bigint, retailer_id text, name text, quantity int, price numeric, comment text))
              with ordinality as l(product_id, retailer_id, name, quantity, price, comment, n)
        order by l.n
       returning 1),
     conversion as (
       insert into ai_conversion_sends (order_id, project_id, agent_id, ctwa_clid)
       select o.id, o.project_id, ?::bigint, ?::text from o where ?::text is not null
       returning 1),
     emptied as (
       update ai_carts set lines = null, shown = null, version = version + 1, updated_at = now()
        where project_id = ? and conversation_id = ? and version = ? and exists (select 1 from o)
       returning 1),
     ev as (
       insert into ai_event_inbox (project_id, type, agent_id, business_id, conversation_id, public, data, created_at)
       select o.project_id, 'order.created', ?::bigint, ?::bigint, ?::bigint, true,
              jsonb_build_object('id', o.id, 'uuid', o.uuid, 'history', o.history,
                                 'created_at', ${isoText('o.created_at')},
                                 'updated_at', ${isoText('o.updated_at')}) || ?::jsonb,
              clock_timestamp()
         from o
       returning 1)
     select o.id, o.uuid, o.history, o.created_at, o.updated_at, (select count(*) from emptied) as e, (select count(*) from ev) as ev,
            (select count(*) from conversion) as c
       from o`,
    [
      ctx.project.id,
      conversation.id,
      place.cart_version,
      ctx.caller.kind === 'server',
      ctx.project.id,
      cart.business_id,
      conversation.user_id,
      conversation.id,
      JSON.stringify(cart.summary),
      cart.delivery_type,
      place.paymethod,
      cart.currency,
      cart.address,
      cart.location === null ? null : JSON.stringify(cart.location),
      comment,
      decided.conversion === null ? null : JSON.stringify(decided.conversion),
      by,
      place.cart_version,
      JSON.stringify(cart.lines),
      conversation.agent_id,
      conversionClid,
      conversionClid,
      ctx.project.id,
      conversation.id,
      place.cart_version,
      conversation.agent_id,
      cart.business_id,
      conversation.id,
      JSON.stringify(decided),
    ],
  );
  return row ? orderRecord({ ...row, ...decided }) : null;
}

/** Order records by id, in no particular order; `scope`: only those of these businesses (null: all). */
export async function orderRecords(em: EntityManager, projectId: number, ids: number[], scope: number[] | null): Promise<OrderRecord[]> {
  if (ids.length === 0) return [];
  const rows = await run(
    em,
    `select o.id, o.uuid::text as uuid, o.business_id, o.conversation_id, o.customer_id, o.status, o.delivery_type, o.paymethod,
            coalesce(o.currency, b.currency) as currency, o.summary, o.address, o.location, o.comment, o.history, o.conversion,
            o.created_at, o.updated_at,
            coalesce((select jsonb_agg(jsonb_build_object('product_id', p.product_id, 'name', p.name, 'quantity', p.quantity,
                                 'price', p.price, 'total', p.price * p.quantity, 'comment', p.comment) order by p.id)
                        from order_products p where p.project_id = o.project_id and p.order_id = o.id), '[]') as products
       from orders o left join businesses b on b.project_id = o.project_id and b.id = o.business_id
      where o.project_id = ? and o.id = any(?::bigint[]) and (?::bigint[] is null or o.business_id = any(?::bigint[]))`,
    [projectId, ids, scope, scope],
  );
  return rows.map(orderRecord);
}

/** A money member of the platform's `summary`: a JSON number, or a string holding a decimal number; else null. */
export function amount(v: unknown): number | null {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && /^\s*-?\d{1,20}(\.\d{1,20})?\s*$/.test(v)) return Number(v);
  return null;
}

function orderRecord(row: Record<string, any>): OrderRecord {
  const s = (row.summary ?? {}) as Record<string, unknown>;
  const conversion = row.conversion as Record<string, unknown> | null;
  return {
    id: row.id,
    uuid: row.uuid,
    business_id: row.business_id ?? null,
    conversation_id: row.conversation_id ?? null,
    customer_id: row.customer_id ?? null,
    status: row.status,
    delivery_type: row.delivery_type ?? null,
    paymethod: row.paymethod ?? null,
    currency: (row.currency as string | null)?.trim() ?? null,
    summary: {
      subtotal: amount(s.subtotal),
      discount: amount(s.discount),
      delivery_price: amount(s.delivery_price),
      tax: amount(s.tax),
      total: amount(s.total),
    },
    products: (row.products as OrderLine[]).map((p) => ({ ...p, price: Number(p.price), total: Number(p.total) })),
    address: row.address ?? null,
    location: row.location ?? null,
    comment: row.comment ?? null,
    history: ((row.history ?? []) as { status: number; at: string; by: number | null; reason: string | null }[]).map((h) => ({
      status: h.status,
      at: new Date(h.at),
      by: h.by ?? null,
      reason: h.reason ?? null,
    })),
    conversion: conversion
      ? {
          status: String(conversion.status),
          error: (conversion.error as string | null) ?? null,
          sent_at: conversion.sent_at ? new Date(conversion.sent_at as string) : null,
        }
      : null,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** An order event: its data is the order record (dates as ISO text), seen by its business's owners. */
export function orderEvent(
  type: 'order.created' | 'order.status' | 'order.updated',
  agentId: number | null,
  order: OrderRecord,
): NewAiEvent {
  return {
    type,
    data: JSON.parse(JSON.stringify(order)) as Record<string, unknown>,
    agent_id: agentId,
    business_id: order.business_id,
    conversation_id: order.conversation_id,
    public: true,
  };
}
