import { GraphQLSafeInt } from 'graphql-scalars';
import { Arg, Ctx, Field, Int, ObjectType, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../context/index.js';
import type { ConfigEntry as ConfigEntryShape } from '../services/settings/config.service.js';

@ObjectType({ simpleResolvers: true, description: 'A configuration entry; built-in entries have a null id and no description.' })
export class ConfigEntry implements ConfigEntryShape {
  @Field(() => GraphQLSafeInt, { nullable: true }) id!: number | null;
  @Field(() => String) key!: string;
  @Field(() => String) value!: string;
  @Field(() => Int) type!: number;
  @Field(() => Boolean) public!: boolean;
  @Field(() => Boolean) hidden!: boolean;
  @Field(() => Boolean) protected!: boolean;
  @Field(() => String, { nullable: true }) description?: string | null;
  @Field(() => String, { nullable: true }) plugin!: string | null;
}

@Resolver()
export class ConfigResolver {
  @Query(() => [ConfigEntry], { description: 'Configuration entries visible to the caller (GET /configs).' })
  configs(
    @Ctx() ctx: RequestContext,
    @Arg('mode', () => String, { nullable: true, description: 'dashboard (default) or dictionary' }) mode?: string | null,
  ): Promise<ConfigEntry[]> {
    return ctx.services.configs.list(ctx, mode);
  }
}
