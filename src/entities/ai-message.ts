import { Entity, type Opt, PrimaryKey, Property } from '@mikro-orm/core';
import { GraphQLJSON, GraphQLSafeInt } from 'graphql-scalars';
import { Field, ObjectType } from 'type-graphql';
import type { ConversationUsage } from './ai-conversation.js';
import { TenantEntity } from './tenant.js';

@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'ai_messages' })
export class AiMessage extends TenantEntity {
  @Field(() => GraphQLSafeInt)
  @PrimaryKey()
  id!: number;

  @Field(() => GraphQLSafeInt)
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

  @Field(() => GraphQLJSON, {
    nullable: true,
    description: 'What producing this message cost; members not given are absent; null when none.',
  })
  @Property({ type: 'json', nullable: true })
  usage?: ConversationUsage | null;

  @Field(() => String, { nullable: true, description: "The provider's message id (a WhatsApp wamid), or null." })
  @Property({ length: 128, nullable: true })
  external_id?: string | null;

  @Field(() => String, {
    nullable: true,
    description: 'Pending, accepted, sent, delivered, read or failed for a reply sent on WhatsApp; null for a message sent nowhere.',
  })
  @Property({ length: 16, nullable: true })
  delivery_status?: DeliveryStatus | null;

  @Field(() => String, {
    nullable: true,
    description: 'Why a failed message failed ("CODE: TEXT", "timeout", "HTTP 503", "agent disabled"); else null.',
  })
  @Property({ length: 1000, nullable: true })
  delivery_error?: string | null;

  @Field(() => GraphQLSafeInt, {
    nullable: true,
    description: 'The user who added the message through the API; null for server keys and inbound WhatsApp messages.',
  })
  @Property({ nullable: true })
  author_id?: number | null;

  @Field(() => String, {
    description:
      'Text, image, audio, video, document, sticker, location, contacts, interactive, button, order, reaction, template, system (a notice of WhatsApp: the customer changed their number) or unsupported.',
  })
  @Property({ type: 'text' })
  type: Opt<MessageType> = 'text';

  @Field(() => GraphQLJSON, {
    nullable: true,
    description: "The typed content under Meta's names (a file is its AiMedia record); null for text.",
  })
  @Property({ type: 'json', nullable: true })
  payload?: Record<string, unknown> | null;

  @Field(() => GraphQLSafeInt, {
    nullable: true,
    description: 'The message of the same conversation this one answers or reacts to, or null.',
  })
  @Property({ nullable: true })
  reply_to_id?: number | null;

  @Field(() => String, {
    description:
      'Where it came from: api (posted through the API), whatsapp (from the customer), business_app (sent from the WhatsApp Business app) or history (imported).',
  })
  @Property({ length: 16 })
  source: Opt<MessageSource> = 'api';

  @Field(() => Date, { nullable: true, description: 'When the newest edit was written; null when never edited.' })
  @Property({ type: 'datetime', nullable: true })
  edited_at?: Date | null;

  @Field(() => GraphQLJSON, {
    description:
      'The versions edits replaced, oldest first, at most 20: [{content, payload, edited_at}] (edited_at null for the original); [] otherwise.',
  })
  @Property({ type: 'json' })
  edits: Opt<MessageEdit[]> = [];

  @Field(() => Date, {
    nullable: true,
    description: 'When the sender deleted it for everyone (content "", payload null); else null.',
  })
  @Property({ type: 'datetime', nullable: true })
  revoked_at?: Date | null;

  @Field(() => GraphQLJSON, {
    nullable: true,
    description:
      'The Click-to-WhatsApp ad or post the item came from ({source_url, source_id, source_type, body, headline, media_type, image_url, video_url, thumbnail_url, ctwa_clid, welcome_message}, missing members null); null when none.',
  })
  @Property({ type: 'json', nullable: true })
  referral?: Record<string, unknown> | null;

  @Field(() => GraphQLJSON, {
    nullable: true,
    description:
      "The catalog product the customer asks about (WhatsApp's context.referred_product: {catalog_id, product_retailer_id}, the product's retailer_id in the agent's business); null when none.",
  })
  @Property({ type: 'json', nullable: true })
  referred_product?: Record<string, unknown> | null;

  @Field(() => GraphQLSafeInt, {
    nullable: true,
    description: 'The order whose notice this message is (an order placed or moved); else null.',
  })
  @Property({ nullable: true })
  order_id?: number | null;
}

/** CONTRACT §13.1: where a message came from. */
export const MESSAGE_SOURCES = ['api', 'whatsapp', 'business_app', 'history'] as const;
export type MessageSource = (typeof MESSAGE_SOURCES)[number];

/** CONTRACT §13.2: a version an edit replaced. */
export interface MessageEdit {
  content: string;
  payload: Record<string, unknown> | null;
  edited_at: string | null;
}

/** CONTRACT §12.2: the kinds of message. */
export const MESSAGE_TYPES = [
  'text',
  'image',
  'audio',
  'video',
  'document',
  'sticker',
  'location',
  'contacts',
  'interactive',
  'button',
  'order',
  'reaction',
  'unsupported',
  'template',
  'system',
] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];
/** The types whose payload carries a file (`payload.media`). */
export const MEDIA_MESSAGE_TYPES = ['image', 'audio', 'video', 'document', 'sticker'] as const;
export type MediaMessageType = (typeof MEDIA_MESSAGE_TYPES)[number];

/** CONTRACT §10.1: the delivery states of a message sent on WhatsApp. */
export const DELIVERY_STATUSES = ['pending', 'accepted', 'sent', 'delivered', 'read', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
