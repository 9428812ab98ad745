import { Entity, Index, type Opt, PrimaryKey, Property } from '@mikro-orm/core';
import { Field, ObjectType } from 'type-graphql';
import { GraphQLJSON, GraphQLSafeInt } from 'graphql-scalars';
import { TenantEntity } from './tenant.js';

export interface ConversationUsage {
  cost?: number;
  response_time_ms?: number;
  input_tokens?: number;
  output_tokens?: number;
}

/** A conversation between an AI agent and a user (or a server key: no user). */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'ai_conversations' })
@Index({ properties: ['project', 'id'] })
export class AiConversation extends TenantEntity {
  @Field(() => GraphQLSafeInt)
  @PrimaryKey()
  id!: number;

  @Field(() => GraphQLSafeInt)
  @Property()
  agent_id!: number;

  @Field(() => GraphQLSafeInt, { nullable: true })
  @Property({ nullable: true })
  user_id?: number | null;

  @Field(() => GraphQLSafeInt, { nullable: true })
  @Property({ nullable: true })
  business_id?: number | null;

  @Field(() => String)
  @Property({ length: 16 })
  status: Opt<'active' | 'closed'> = 'active';

  @Field(() => String, { nullable: true })
  @Property({ length: 16, nullable: true })
  status_reason?: 'completed' | 'abandoned' | 'failed' | null;

  @Field(() => GraphQLJSON)
  @Property({ type: 'json' })
  usage: Opt<ConversationUsage> = {};

  @Field(() => Date)
  @Property()
  created_at: Opt<Date> = new Date();

  @Field(() => Date, { nullable: true })
  // The explicit type: the reflected type of `Date | null` is Object, which would hydrate a string.
  @Property({ type: 'datetime', nullable: true })
  closed_at?: Date | null;

  @Field(() => Date)
  @Property({ onUpdate: () => new Date() })
  updated_at: Opt<Date> = new Date();

  @Field(() => String, {
    nullable: true,
    description: "The provider's contact id (a WhatsApp wa_id, else the BSUID); null for conversations opened through the API.",
  })
  @Property({ length: 200, nullable: true })
  contact?: string | null;

  @Field(() => String, {
    nullable: true,
    description: "The contact's business-scoped WhatsApp user id (BSUID), or null.",
  })
  @Property({ type: 'text', nullable: true })
  contact_user_id?: string | null;

  @Field(() => String, {
    nullable: true,
    description:
      "The name the business gave the number in its phone's address book, else the contact's WhatsApp profile name from the newest delivery that carried one.",
  })
  @Property({ type: 'text', nullable: true })
  contact_name?: string | null;

  @Field(() => String, {
    nullable: true,
    description: "The contact's WhatsApp username (profile.username), from the newest delivery that carried one.",
  })
  @Property({ type: 'text', nullable: true })
  contact_username?: string | null;

  /** The newest `profile.name`, what `contact_name` falls back to without a name from the business's address book; not in the graph. */
  @Property({ type: 'text', nullable: true })
  profile_name?: string | null;

  @Field(() => String, { description: "History (imported from the phone's WhatsApp Business app) or live." })
  @Property({ length: 8 })
  source: Opt<ConversationSource> = 'live';

  /** The newest created_at of a message received through the WhatsApp webhook (kept by the inbound service); not in the graph. */
  @Property({ type: 'datetime', nullable: true })
  last_inbound_at?: Date | null;

  @Field(() => String, { description: 'Who answers the conversation: ai (the default) or human.' })
  @Property({ length: 8 })
  handler: Opt<ConversationHandler> = 'ai';

  @Field(() => GraphQLSafeInt, { nullable: true, description: 'The user who took the conversation over, or null.' })
  @Property({ nullable: true })
  assignee_id?: number | null;

  /**
   * CONTRACT §10.5: the created_at of the newest message, else the conversation's own; kept by the database's
   * triggers (Migration20261126000200_inbox), never written here. In the graph through the resolver.
   */
  @Property({ type: 'datetime', nullable: true })
  last_message_at?: Date | null;

  @Field(() => GraphQLJSON, {
    nullable: true,
    description: 'The first referral of the conversation (the Click-to-WhatsApp ad that brought the customer), or null.',
  })
  @Property({ type: 'json', nullable: true })
  referral?: Record<string, unknown> | null;
}

/** CONTRACT §10.2: who answers a conversation. */
export const CONVERSATION_HANDLERS = ['ai', 'human'] as const;
export type ConversationHandler = (typeof CONVERSATION_HANDLERS)[number];

/** Meta's customer service window (CONTRACT §10.1): 24 hours after the contact's newest message. */
export const WHATSAPP_WINDOW_MS = 24 * 3600 * 1000;

/** `window_expires_at`: last_inbound_at + 24 h, null while no inbound message exists (only WhatsApp conversations have one). */
export function windowExpiresAt(lastInboundAt: Date | string | null | undefined): Date | null {
  return lastInboundAt == null ? null : new Date(new Date(lastInboundAt).getTime() + WHATSAPP_WINDOW_MS);
}

/** CONTRACT §13.3: where a conversation comes from. */
export type ConversationSource = 'live' | 'history';
