import { GraphQLSafeInt } from 'graphql-scalars';
import { DecimalType, Entity, type Opt, PrimaryKey, Property } from '@mikro-orm/core';
import { Field, Float, ObjectType } from 'type-graphql';
import { TenantEntity } from './tenant.js';

/** A dish of a business's menu (CONTRACT §15.1). Never deleted: orders keep their lines. */
@ObjectType({ simpleResolvers: true, description: "A product of a business's menu." })
@Entity({ tableName: 'products' })
export class Product extends TenantEntity {
  @Field(() => GraphQLSafeInt)
  @PrimaryKey()
  id!: number;

  @Field(() => GraphQLSafeInt, { nullable: true })
  @Property({ nullable: true })
  business_id?: number | null;

  @Field(() => String)
  @Property()
  name!: string;

  @Field(() => Float, { description: 'The unit price, ≥ 0, 2 decimals, in the currency of its business.' })
  @Property({ type: new DecimalType('number'), columnType: 'numeric(12,2)' })
  price: Opt<number> = 0;

  @Field(() => Boolean, { description: 'false: it cannot be ordered now (a dish that ran out).' })
  @Property()
  enabled: Opt<boolean> = true;

  @Field(() => String, {
    nullable: true,
    description: "The product_retailer_id of the business's WhatsApp catalog (unique per business), or null.",
  })
  @Property({ length: 100, nullable: true })
  retailer_id?: string | null;

  @Field(() => Date)
  @Property()
  created_at: Opt<Date> = new Date();

  @Field(() => Date)
  @Property()
  updated_at: Opt<Date> = new Date();
}
