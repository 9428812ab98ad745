import { GraphQLSafeInt } from 'graphql-scalars';
import { Entity, type Opt, PrimaryKey, Property } from '@mikro-orm/core';
import { Field, ObjectType } from 'type-graphql';
import { TenantEntity } from './tenant.js';

/** A send's status, in the order it moves (CONTRACT §9.3); `failed` is final. */
export const TEMPLATE_SEND_STATUSES = ['accepted', 'sent', 'delivered', 'read', 'failed'] as const;
export type TemplateSendStatus = (typeof TEMPLATE_SEND_STATUSES)[number];

/** One template sent through an agent (the send log of CONTRACT §9.3). */
@ObjectType({ simpleResolvers: true, description: 'A template send and its delivery status.' })
@Entity({ tableName: 'ai_template_sends' })
export class AiTemplateSend extends TenantEntity {
  @Field(() => GraphQLSafeInt)
  @PrimaryKey()
  id!: number;

  @Field(() => GraphQLSafeInt)
  @Property()
  agent_id!: number;

  @Field(() => GraphQLSafeInt, { nullable: true, description: 'The stored template sent (null once it is deleted).' })
  @Property({ nullable: true })
  template_id?: number | null;

  @Field(() => String, { description: "The provider's message id (a WhatsApp wamid)." })
  @Property({ length: 128 })
  message_id!: string;

  @Field(() => String, { description: 'The recipient as sent to the provider (digits).' })
  @Property({ length: 16 })
  to!: string;

  @Field(() => String, { description: 'accepted, sent, delivered, read or failed' })
  @Property({ length: 16 })
  status: Opt<TemplateSendStatus> = 'accepted';

  @Field(() => String, { nullable: true, description: "The first error's title when failed, else null." })
  @Property({ type: 'text', nullable: true })
  error?: string | null;

  @Field(() => Date)
  @Property()
  created_at: Opt<Date> = new Date();

  @Field(() => Date)
  @Property()
  updated_at: Opt<Date> = new Date();
}
