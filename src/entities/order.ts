import { Entity, type Opt, PrimaryKey, Property } from '@mikro-orm/core';
import { TenantEntity } from './tenant.js';

export interface OrderSummary {
  total: number;
  [key: string]: unknown;
}

/** An order. An AI order is one with a conversation. Other parts of the platform write orders too. */
@Entity({ tableName: 'orders' })
export class Order extends TenantEntity {
  @PrimaryKey()
  id!: number;

  @Property({ nullable: true })
  business_id?: number | null;

  @Property({ nullable: true })
  customer_id?: number | null;

  @Property({ nullable: true })
  conversation_id?: number | null;

  @Property({ type: 'smallint' })
  status: Opt<number> = 0;

  @Property({ type: 'json' })
  summary: Opt<OrderSummary> = { total: 0 };

  @Property()
  created_at: Opt<Date> = new Date();

  @Property({ onUpdate: () => new Date() })
  updated_at: Opt<Date> = new Date();
}
