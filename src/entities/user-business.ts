import { Entity, PrimaryKey, Property, Unique } from '@mikro-orm/core';
import { TenantEntity } from './tenant.js';

/** Ownership: a business owner (level 2) owns the businesses listed here. */
@Entity({ tableName: 'user_businesses' })
@Unique({ properties: ['user_id', 'business_id'] })
export class UserBusiness extends TenantEntity {
  @PrimaryKey()
  id!: number;

  @Property()
  user_id!: number;

  @Property()
  business_id!: number;
}
