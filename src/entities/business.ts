import { Entity, type Opt, PrimaryKey, Property } from '@mikro-orm/core';
import { Field, Int, ObjectType } from 'type-graphql';
import { TenantEntity } from './tenant.js';

@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'businesses' })
export class Business extends TenantEntity {
  @Field(() => Int)
  @PrimaryKey()
  id!: number;

  @Field(() => Int, { nullable: true })
  @Property({ nullable: true })
  franchise_id?: number | null;

  @Field(() => String)
  @Property()
  name!: string;

  @Property()
  created_at: Opt<Date> = new Date();
}
