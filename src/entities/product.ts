import { DecimalType, Entity, type Opt, PrimaryKey, Property } from '@mikro-orm/core';
import { TenantEntity } from './tenant.js';

@Entity({ tableName: 'products' })
export class Product extends TenantEntity {
  @PrimaryKey()
  id!: number;

  @Property({ nullable: true })
  business_id?: number | null;

  @Property()
  name!: string;

  @Property({ type: new DecimalType('number'), columnType: 'numeric(12,2)' })
  price: Opt<number> = 0;
}
