import type { EntityManager } from '@mikro-orm/postgresql';
import type { ReferredProduct } from './inbound-types.js';

/**
 * CONTRACT §12.2: an item's `context.referred_product` names §15's product whose `retailer_id` is its
 * `product_retailer_id`, in the agent's business. The message keeps what Meta sent (`referred_product`:
 * `catalog_id` and `product_retailer_id`); the product itself is found from those.
 *
 * NOT DONE YET (issue 67): `products.retailer_id` does not exist on this branch (another change adds it).
 * When it does, this is where the lookup goes, e.g.
 *   select id from products where project_id = ? and business_id = ? and retailer_id = ? limit 1
 * and its callers (the AI's cart and order tools of §15) use it. Until then it finds nothing.
 */
export async function productOfReferral(
  _tx: EntityManager,
  _projectId: number,
  _businessId: number | null,
  referred: ReferredProduct | null,
): Promise<number | null> {
  if (!referred?.product_retailer_id) return null;
  return null; // TODO(products.retailer_id): look the product up by retailer_id once the column exists
}
