import { GraphQLJSON, GraphQLSafeInt } from 'graphql-scalars';
import { ArrayType, Entity, type Opt, PrimaryKey, Property, Unique } from '@mikro-orm/core';
import { Field, ObjectType } from 'type-graphql';
import { TenantEntity } from './tenant.js';

/**
 * An AI agent. `credentials` holds the provider credentials encrypted (platform/secrets.ts); it is
 * hidden from serialisation, and the graph's `credentials` field (resolvers/agent.resolver.ts) shows
 * only which keys are stored, from `credential_keys`. `phone_number_id` is the plain WhatsApp
 * phone number id that the per-project unique index needs (Migration20261125000000_agent_management).
 */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'ai_agents' })
@Unique({ properties: ['project', 'provider_external_id'] })
export class AiAgent extends TenantEntity {
  @Field(() => GraphQLSafeInt)
  @PrimaryKey()
  id!: number;

  @Field(() => GraphQLSafeInt, { nullable: true })
  @Property({ nullable: true })
  business_id?: number | null;

  @Field(() => String)
  @Property()
  name!: string;

  @Field(() => String)
  @Property({ length: 64 })
  provider!: string;

  @Field(() => String)
  @Property({ length: 64 })
  provider_type!: string;

  @Field(() => String)
  @Property({ length: 255 })
  provider_external_id!: string;

  @Field(() => Boolean)
  @Property()
  enabled: Opt<boolean> = true;

  @Field(() => String, {
    nullable: true,
    description: 'Why the agent was disabled by the provider (offboarded: the number left the Cloud API); null otherwise.',
  })
  @Property({ length: 32, nullable: true })
  disabled_reason?: 'offboarded' | null;

  @Field(() => GraphQLJSON, {
    nullable: true,
    description:
      "The import of the phone's history: {progress (0-100, the highest seen), phase (the highest seen), messages (imported so far), declined (the business declined sharing), failed ([{phase, chunk_order, error, attempts}]: the chunks whose import gave up), updated_at}; null until a history change arrives.",
  })
  @Property({ type: 'json', nullable: true })
  history?: AgentHistory | null;

  @Field(() => GraphQLJSON, {
    nullable: true,
    description:
      'The notices an order of its WhatsApp conversations sends (CONTRACT §15.5): an object keyed by status code ("0" placed, "7", "4", …) of {text (1-1024, with {{order}}, {{total}}, {{eta}}), template_id (an APPROVED template of the agent, sent outside the window) or null, locale or null}; null when none.',
  })
  @Property({ type: 'json', nullable: true })
  order_messages?: Record<string, OrderMessage> | null;

  @Property({ type: 'text', nullable: true, hidden: true, lazy: true })
  credentials?: string | null;

  /** The names of the stored credentials (never their values). */
  @Property({ type: ArrayType, default: '{}' })
  credential_keys: Opt<string[]> = [];

  @Property({ length: 255, nullable: true, hidden: true })
  phone_number_id?: string | null;

  @Field(() => Date)
  @Property()
  created_at: Opt<Date> = new Date();

  @Field(() => Date)
  @Property({ onUpdate: () => new Date() })
  updated_at: Opt<Date> = new Date();
}

/** CONTRACT §15.5: the notice of one order status. */
export interface OrderMessage {
  text: string;
  template_id: number | null;
  locale: string | null;
}

/** CONTRACT §13.3: an agent's history import. */
export interface AgentHistory {
  progress: number | null;
  phase: number | null;
  messages: number;
  declined: boolean;
  /** The chunks whose import gave up after the bounded attempts (workers/attempts.ts), oldest first. */
  failed: { phase: number | null; chunk_order: number | null; error: string; attempts: number }[];
  updated_at: string;
}
