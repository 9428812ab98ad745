import { Entity, type Opt, PrimaryKey, Property, Unique } from '@mikro-orm/core';
import { Field, Int, ObjectType } from 'type-graphql';
import { TenantEntity } from './tenant.js';

/**
 * An AI agent. `credentials` holds the provider credentials encrypted (platform/crypto.ts);
 * it is never a graph field and is hidden from serialisation.
 */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'ai_agents' })
@Unique({ properties: ['project', 'provider_external_id'] })
export class AiAgent extends TenantEntity {
  @Field(() => Int)
  @PrimaryKey()
  id!: number;

  @Field(() => Int, { nullable: true })
  @Property({ nullable: true })
  business_id?: number | null;

  @Field(() => String)
  @Property()
  name!: string;

  @Field(() => String)
  @Property({ length: 32 })
  provider!: string;

  @Field(() => String)
  @Property({ length: 32 })
  provider_type!: string;

  @Field(() => String)
  @Property({ length: 128 })
  provider_external_id!: string;

  @Field(() => Boolean)
  @Property()
  enabled: Opt<boolean> = true;

  @Property({ type: 'text', nullable: true, hidden: true, lazy: true })
  credentials?: string | null;

  @Field(() => Date)
  @Property()
  created_at: Opt<Date> = new Date();

  @Field(() => Date)
  @Property({ onUpdate: () => new Date() })
  updated_at: Opt<Date> = new Date();
}
