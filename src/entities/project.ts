import { Entity, type Opt, PrimaryKey, Property } from '@mikro-orm/core';
import { Field, ObjectType } from 'type-graphql';
import { GraphQLJSON, GraphQLSafeInt } from 'graphql-scalars';

export type LimitScope = 'project' | 'ip' | 'user';
export interface RateLimitRule {
  scope: LimitScope;
  points: number;
  duration_s: number;
  ban_after?: number;
  ban_s?: number;
  on_error?: 'open' | 'closed';
}

@ObjectType({ simpleResolvers: true, description: 'A tenant of the platform.' })
@Entity({ tableName: 'projects' })
export class Project {
  @Field(() => GraphQLSafeInt)
  @PrimaryKey()
  id!: number;

  @Field(() => String)
  @Property({ unique: true, length: 64 })
  code!: string;

  @Field(() => String)
  @Property()
  name!: string;

  @Field(() => Boolean)
  @Property()
  subscription_active: Opt<boolean> = true;

  @Field(() => Boolean)
  @Property()
  maintenance: Opt<boolean> = false;

  @Field(() => Boolean)
  @Property()
  ai_enabled: Opt<boolean> = false;

  @Field(() => [String])
  @Property({ type: 'text[]' })
  plugins: Opt<string[]> = [];

  @Field(() => GraphQLJSON)
  @Property({ type: 'json' })
  rate_limits: Opt<RateLimitRule[]> = [];

  @Property({ onCreate: () => new Date() })
  created_at: Opt<Date> = new Date();

  @Property({ onUpdate: () => new Date() })
  updated_at: Opt<Date> = new Date();
}
