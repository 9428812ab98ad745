import { GraphQLSafeInt } from 'graphql-scalars';
import { Entity, type Opt, PrimaryKey, Property } from '@mikro-orm/core';
import { Field, ObjectType } from 'type-graphql';
import { TenantEntity } from './tenant.js';

/** CONTRACT §10.6: a project's saved reply, an answer an operator reuses (typing `/` in the console's reply box). */
@ObjectType({ simpleResolvers: true, description: 'A saved reply.' })
@Entity({ tableName: 'ai_replies' })
export class AiReply extends TenantEntity {
  @Field(() => GraphQLSafeInt)
  @PrimaryKey()
  id!: number;

  @Field(() => String, { description: '1–32 characters of a-z, 0-9, _ and -; unique in the project.' })
  @Property({ length: 32 })
  shortcut!: string;

  @Field(() => String)
  @Property({ type: 'text' })
  content!: string;

  @Field(() => Date)
  @Property()
  created_at: Opt<Date> = new Date();

  @Field(() => Date)
  @Property()
  updated_at: Opt<Date> = new Date();
}
