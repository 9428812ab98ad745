import { DecimalType, Entity, type Opt, PrimaryKey, Property } from '@mikro-orm/core';
import { TenantEntity } from './tenant.js';

/** A line of an order: the product as it was sold. */
@Entity({ tableName: 'order_products' })
export class OrderProduct extends TenantEntity {
  @PrimaryKey()
  id!: number;

  @Property()
  order_id!: number;

  @Property({ nullable: true })
  product_id?: number | null;

  @Property()
  name!: string;

  @Property()
  quantity: Opt<number> = 1;

  @Property({ type: new DecimalType('number'), columnType: 'numeric(12,2)' })
  price: Opt<number> = 0;

  @Property({ length: 100, nullable: true })
  retailer_id?: string | null;

  @Property({ type: 'text', nullable: true })
  comment?: string | null;
}
