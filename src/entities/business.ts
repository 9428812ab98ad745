import { GraphQLSafeInt } from 'graphql-scalars';
import { DecimalType, Entity, type Opt, PrimaryKey, Property } from '@mikro-orm/core';
import { Field, Float, ObjectType } from 'type-graphql';
import { TenantEntity } from './tenant.js';

@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'businesses' })
export class Business extends TenantEntity {
  @Field(() => GraphQLSafeInt)
  @PrimaryKey()
  id!: number;

  @Field(() => GraphQLSafeInt, { nullable: true })
  @Property({ nullable: true })
  franchise_id?: number | null;

  @Field(() => String)
  @Property()
  name!: string;

  @Field(() => String, { description: 'ISO 4217: the currency of its menu and orders (CONTRACT §15.1).' })
  @Property({ length: 3 })
  currency: Opt<string> = 'EUR';

  @Field(() => Float, { description: 'Added to a delivery order (delivery_type 1).' })
  @Property({ type: new DecimalType('number'), columnType: 'numeric(12,2)' })
  delivery_price: Opt<number> = 0;

  @Field(() => Float, { description: 'A percentage 0–100 added to the subtotal.' })
  @Property({ type: new DecimalType('number'), columnType: 'numeric(5,2)' })
  tax_rate: Opt<number> = 0;

  @Property()
  created_at: Opt<Date> = new Date();
}
