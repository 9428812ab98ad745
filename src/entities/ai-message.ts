import { Entity, type Opt, PrimaryKey, Property } from '@mikro-orm/core';
import { GraphQLJSON } from 'graphql-scalars';
import { Field, Int, ObjectType } from 'type-graphql';
import type { ConversationUsage } from './ai-conversation.js';
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

  @Field(() => GraphQLJSON, { nullable: true, description: 'What producing this message cost (CONTRACT §9.1); members not given are absent; null when none.' })
  @Property({ type: 'json', nullable: true })
  usage?: ConversationUsage | null;

  @Field(() => String, { nullable: true, description: "The provider's message id (a WhatsApp wamid), or null." })
  @Property({ length: 128, nullable: true })
  external_id?: string | null;
}
