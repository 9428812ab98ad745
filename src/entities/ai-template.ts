import { Entity, type Opt, PrimaryKey, Property, Unique } from '@mikro-orm/core';
import { Field, ObjectType } from 'type-graphql';
import { GraphQLJSON, GraphQLSafeInt } from 'graphql-scalars';
import { TenantEntity } from './tenant.js';

export const TEMPLATE_STATUSES = ['APPROVED', 'PENDING', 'REJECTED', 'PAUSED', 'DISABLED'] as const;

/** A provider message template stored per agent; `external_id` is the provider's template id. */
@ObjectType({ simpleResolvers: true })
@Entity({ tableName: 'ai_templates' })
@Unique({ properties: ['agent_id', 'external_id'] })
export class AiTemplate extends TenantEntity {
  @Field(() => GraphQLSafeInt)
  @PrimaryKey()
  id!: number;

  @Field(() => GraphQLSafeInt)
  @Property()
  agent_id!: number;

  @Field(() => String)
  @Property({ length: 64 })
  external_id!: string;

  @Field(() => String)
  @Property({ length: 512 })
  name!: string;

  @Field(() => String)
  @Property({ length: 16 })
  language!: string;

  @Field(() => String, { nullable: true })
  @Property({ nullable: true, length: 64 })
  category?: string | null;

  @Field(() => String)
  @Property({ length: 16 })
  status!: string;

  @Field(() => GraphQLJSON)
  @Property({ type: 'json' })
  components: Opt<unknown[]> = [];

  @Property()
  created_at: Opt<Date> = new Date();

  @Field(() => Date)
  @Property({ onUpdate: () => new Date() })
  updated_at: Opt<Date> = new Date();
}
