import { raw } from '@mikro-orm/postgresql';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { RequestContext } from '../../context/index.js';
import { Product } from '../../entities/product.js';
import { appError, validationError, type Problem } from '../../errors/codes.js';
import { checkQ, containsPattern, readPage, type Page } from '../conversations/conversation.service.js';
import { storedId } from '../conversations/message-rules.js';
import { run } from '../conversations/records.js';
import { writeWithEvents } from '../events/event-log.js';
import { assertAiAdmin, visibleBusinessIds } from '../identity/access.js';
import { parseListQuery, toFilter, type Attributes, type ListInput } from '../shared/list-query.js';
import { refusingDuplicates } from '../shared/unique.js';
import { openCart, refreshCart } from './cart.service.js';
import { checkProduct, type ProductInput } from './input.js';

const DUPLICATE_RETAILER_ID: Problem = { field: 'retailer_id', key: 'duplicate_retailer_id' };

export const PRODUCT_WHERE: Attributes = { id: 'id', business_id: 'id', enabled: 'boolean', retailer_id: 'string' };
export const PRODUCT_ORDER_BY: Attributes = { id: 'id', name: 'string', price: 'int', updated_at: 'timestamp' };
const COLUMNS = 'id, business_id, name, price::float8 as price, enabled, retailer_id, created_at, updated_at';

/**
 * The menu (CONTRACT §15.1): a business's products, which the business changes (a price rises, a dish runs out) and
 * never deletes. A change reprices, in its transaction, the carts of that business that name the product (by id, or
 * by its old or new retailer id), each under a new version with its `cart.updated`.
 */
export class MenuService {
  /** `GET /ai/products`. */
  async list(ctx: RequestContext, input: ListInput, search?: string | null): Promise<Page<Product>> {
    assertAiAdmin(ctx);
    const where = parseListQuery({ ...input, orderBy: null }, PRODUCT_WHERE).where;
    const q = { ...parseListQuery({ ...input, where: null }, PRODUCT_ORDER_BY), where };
    const pattern = search === undefined || search === null ? null : containsPattern(checkQ(search));
    const scope = await visibleBusinessIds(ctx);
    return readPage(ctx, Product, q, () => {
      const filters: Record<string, unknown>[] = [toFilter(q.where)];
      if (scope !== null) filters.push({ business_id: { $in: scope } });
      if (pattern !== null) filters.push({ [raw((a: string) => `${a}.search like og_fold(?)`, [pattern])]: true });
      return { $and: filters.filter((f) => Object.keys(f).length) };
    });
  }

  /** `GET /ai/products/{id}`. */
  async get(ctx: RequestContext, productId: number): Promise<Product> {
    assertAiAdmin(ctx);
    return this.visible(ctx, ctx.em, productId, await visibleBusinessIds(ctx), false);
  }

  /** `POST /ai/products`. */
  async create(ctx: RequestContext, input: ProductInput): Promise<Product> {
    assertAiAdmin(ctx);
    const fields = checkProduct(input, true);
    const scope = await visibleBusinessIds(ctx);
    const [business] = await run(ctx.em, 'select id from businesses where project_id = ? and id = ?', [ctx.project.id, fields.business_id]);
    if (!business || (scope !== null && !scope.includes(fields.business_id!)))
      throw validationError([{ field: 'business_id', rule: 'business' }]);
    return writeWithEvents(
      ctx,
      async (tx) => {
        const [row] = await refusingDuplicates(
          () =>
            run(
              tx,
              `insert into products (project_id, business_id, name, price, enabled, retailer_id) values (?, ?, ?, ?, ?, ?) returning ${COLUMNS}`,
              [ctx.project.id, fields.business_id, fields.name, fields.price, fields.enabled ?? true, fields.retailer_id ?? null],
            ),
          DUPLICATE_RETAILER_ID,
        );
        const inboxed = await repriceCarts(tx, ctx.project.id, row, null);
        return { value: ctx.em.map(Product, row), events: [], inboxed };
      },
      { statementsOnly: true },
    );
  }

  /** `PATCH /ai/products/{id}`: the members given (`retailer_id` null clears it). */
  async update(ctx: RequestContext, productId: number, input: ProductInput): Promise<Product> {
    assertAiAdmin(ctx);
    const fields = checkProduct(input, false);
    // the scope before the transaction: statements only inside it (db/direct-read.ts)
    const scope = await visibleBusinessIds(ctx);
    return writeWithEvents(
      ctx,
      async (tx) => {
        const before = await this.visible(ctx, tx, productId, scope, true);
        const [row] = await refusingDuplicates(
          () =>
            run(
              tx,
              `update products set name = coalesce(?, name), price = coalesce(?, price), enabled = coalesce(?, enabled),
                    retailer_id = case when ?::boolean then ? else retailer_id end, updated_at = now()
              where project_id = ? and id = ? returning ${COLUMNS}`,
              [
                fields.name ?? null,
                fields.price ?? null,
                fields.enabled ?? null,
                fields.retailer_id !== undefined,
                fields.retailer_id ?? null,
                ctx.project.id,
                before.id,
              ],
            ),
          DUPLICATE_RETAILER_ID,
        );
        const inboxed = await repriceCarts(tx, ctx.project.id, row, before.retailer_id ?? null);
        return { value: ctx.em.map(Product, row), events: [], inboxed };
      },
      { statementsOnly: true },
    );
  }

  /** A product of the project (level 2: of their businesses), else 400 ERROR_AI_PRODUCT_NOT_FOUND. */
  private async visible(
    ctx: RequestContext,
    em: EntityManager,
    productId: number,
    scope: number[] | null,
    lock: boolean,
  ): Promise<Product> {
    const id = storedId(productId);
    const [row] = await run(
      em,
      `select ${COLUMNS} from products where project_id = ? and id = ? and (?::bigint[] is null or business_id = any(?::bigint[]))${lock ? ' for update' : ''}`,
      [ctx.project.id, id, scope, scope],
    );
    if (!row) throw appError('ERROR_AI_PRODUCT_NOT_FOUND');
    return ctx.em.map(Product, row);
  }
}

/**
 * The non-empty carts of the product's business that name it, priced again (a new version, with its `cart.updated` in
 * the inbox, where they show something new); whether any was.
 */
async function repriceCarts(
  tx: EntityManager,
  projectId: number,
  product: Record<string, any>,
  oldRetailerId: string | null,
): Promise<boolean> {
  const retailerIds = [product.retailer_id, oldRetailerId].filter((r): r is string => typeof r === 'string');
  const carts = await run(
    tx,
    `select k.conversation_id from ai_carts k
      where k.project_id = ? and k.business_id = ? and k.lines is not null
        and (k.lines @> jsonb_build_array(jsonb_build_object('product_id', ?::bigint))
             or exists (select 1 from jsonb_array_elements(k.lines) l where l->>'retailer_id' = any(?::text[])))
      order by k.conversation_id`,
    [projectId, product.business_id, product.id, retailerIds],
  );
  for (const { conversation_id } of carts) {
    const open = await openCart(tx, projectId, conversation_id as number, null);
    if (open.conversation && open.row?.lines) await refreshCart(tx, projectId, open.conversation, open);
  }
  return carts.length > 0;
}
