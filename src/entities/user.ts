import { GraphQLSafeInt } from 'graphql-scalars';
import { Entity, type Opt, PrimaryKey, Property } from '@mikro-orm/core';
import { Field, Int, ObjectType } from 'type-graphql';
import { TenantEntity } from './tenant.js';

export const LEVEL = {
  ADMIN: 0,
  CITY_MANAGER: 1,
  BUSINESS_OWNER: 2,
  CUSTOMER: 3,
  DRIVER: 4,
  DRIVER_MANAGER: 5,
  PROFESSIONAL: 8,
  CALL_CENTER: 9,
} as const;

@ObjectType({ simpleResolvers: true, description: 'A user of a project. The password hash is never part of the graph.' })
@Entity({ tableName: 'users' })
export class User extends TenantEntity {
  @Field(() => GraphQLSafeInt)
  @PrimaryKey()
  id!: number;

  @Field(() => String, { nullable: true })
  @Property({ nullable: true })
  name?: string | null;

  @Field(() => String, { nullable: true })
  @Property({ nullable: true })
  lastname?: string | null;

  @Field(() => String, { nullable: true })
  @Property({ nullable: true })
  email?: string | null;

  @Field(() => String, { nullable: true })
  @Property({ nullable: true, length: 20 })
  cellphone?: string | null;

  @Field(() => String, { nullable: true })
  @Property({ nullable: true, length: 8 })
  country_phone_code?: string | null;

  @Property({ nullable: true, hidden: true, lazy: true })
  password_hash?: string | null;

  @Field(() => Int)
  @Property({ type: 'smallint' })
  level: Opt<number> = LEVEL.CUSTOMER;

  @Field(() => Boolean)
  @Property()
  guest: Opt<boolean> = false;

  @Property({ type: 'uuid', nullable: true, hidden: true })
  guest_token?: string | null;

  @Field(() => Boolean)
  @Property()
  enabled: Opt<boolean> = true;

  @Property()
  created_at: Opt<Date> = new Date();

  @Property({ onUpdate: () => new Date() })
  updated_at: Opt<Date> = new Date();
}
