import { Entity, type Opt, PrimaryKey, Property } from '@mikro-orm/core';
import { Field, Int, ObjectType } from 'type-graphql';
import { TenantEntity } from './tenant.js';

@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'ai_messages' })
export class AiMessage extends TenantEntity {
  @Field(() => Int)
  @PrimaryKey()
  id!: number;

  @Field(() => Int)
  @Property()
  conversation_id!: number;

  @Field(() => String)
  @Property({ length: 16 })
  role!: 'user' | 'assistant' | 'system' | 'tool';

  @Field(() => String)
  @Property({ type: 'text' })
  content: Opt<string> = '';

  @Field(() => Boolean)
  @Property()
  public: Opt<boolean> = true;

  @Field(() => Date)
  @Property()
  created_at: Opt<Date> = new Date();
}
