import { BigIntType, Entity, type Opt, PrimaryKey, Property } from '@mikro-orm/core';
import { TenantEntity } from './tenant.js';

export interface OrderSummary {
  total: number;
  [key: string]: unknown;
}

/** One step of an order's way (CONTRACT §15.4): the status it moved to, when, by whom (a user id; null for a server key). */
export interface OrderStep {
  status: number;
  at: string;
  by: number | null;
  reason: string | null;
}

/**
 * An order. An AI order is one with a conversation. Other parts of the platform write orders too (fixture orders
 * keep their fields and have no cart version); those placed from a cart (CONTRACT §15.3) carry the version they
 * were placed from.
 */
@Entity({ tableName: 'orders' })
export class Order extends TenantEntity {
  @PrimaryKey()
  id!: number;

  @Property({ type: 'uuid', defaultRaw: 'gen_random_uuid()' })
  uuid!: Opt<string>;

  @Property({ nullable: true })
  business_id?: number | null;

  @Property({ nullable: true })
  customer_id?: number | null;

  @Property({ nullable: true })
  conversation_id?: number | null;

  @Property({ type: 'smallint' })
  status: Opt<number> = 0;

  @Property({ type: 'smallint', nullable: true })
  delivery_type?: number | null;

  @Property({ length: 32, nullable: true })
  paymethod?: string | null;

  @Property({ length: 3, nullable: true })
  currency?: string | null;

  @Property({ type: 'json' })
  summary: Opt<OrderSummary> = { total: 0 };

  @Property({ type: 'text', nullable: true })
  address?: string | null;

  @Property({ type: 'json', nullable: true })
  location?: { latitude: number; longitude: number } | null;

  @Property({ type: 'text', nullable: true })
  comment?: string | null;

  @Property({ type: 'json' })
  history: Opt<OrderStep[]> = [];

  @Property({ type: 'json', nullable: true })
  conversion?: Record<string, unknown> | null;

  @Property({ type: new BigIntType('number'), nullable: true })
  cart_version?: number | null;

  @Property()
  created_at: Opt<Date> = new Date();

  @Property({ onUpdate: () => new Date() })
  updated_at: Opt<Date> = new Date();
}
