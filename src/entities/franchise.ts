import { GraphQLSafeInt } from 'graphql-scalars';
import { Entity, type Opt, PrimaryKey, Property } from '@mikro-orm/core';
import { Field, ObjectType } from 'type-graphql';
import { TenantEntity } from './tenant.js';

@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'franchises' })
export class Franchise extends TenantEntity {
  @Field(() => GraphQLSafeInt)
  @PrimaryKey()
  id!: number;

  @Field(() => String)
  @Property()
  name!: string;

  @Property()
  created_at: Opt<Date> = new Date();
}
