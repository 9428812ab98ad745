import { GraphQLJSON, GraphQLSafeInt } from 'graphql-scalars';
import { Arg, Ctx, Field, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../context/index.js';
import type { TranslationMap, TranslationsResult as ResultShape } from '../services/agents/translation.service.js';

@ObjectType({ simpleResolvers: true, description: 'A translations change: a message in the request language and the full map after it.' })
export class AiTranslationsResult implements ResultShape {
  @Field(() => String) message!: string;
  @Field(() => GraphQLJSON, { description: 'Locale (en, es, fr, ar) → JSON object.' }) translations!: TranslationMap;
}

/** Agent translations (spec §4.2): thin, the rules live in TranslationService. */
@Resolver()
export class TranslationResolver {
  @Query(() => GraphQLJSON, { description: "An agent's translations keyed by locale, or one locale's value ({} when none)." })
  aiTranslations(
    @Ctx() ctx: RequestContext,
    @Arg('agent_id', () => GraphQLSafeInt) agentId: number,
    @Arg('locale', () => String, { nullable: true }) locale?: string | null,
  ): Promise<unknown> {
    return ctx.services.translations.get(ctx, agentId, locale);
  }

  @Mutation(() => AiTranslationsResult, { description: 'Replaces every locale (PUT .../translations).' })
  replaceAiTranslations(
    @Ctx() ctx: RequestContext,
    @Arg('agent_id', () => GraphQLSafeInt) agentId: number,
    @Arg('translations', () => GraphQLJSON, { nullable: true }) translations?: unknown,
  ): Promise<AiTranslationsResult> {
    return ctx.services.translations.replace(ctx, agentId, translations);
  }

  @Mutation(() => AiTranslationsResult, { description: 'Deep-merges per locale; null removes a key (PATCH .../translations).' })
  updateAiTranslations(
    @Ctx() ctx: RequestContext,
    @Arg('agent_id', () => GraphQLSafeInt) agentId: number,
    @Arg('translations', () => GraphQLJSON, { nullable: true }) translations?: unknown,
  ): Promise<AiTranslationsResult> {
    return ctx.services.translations.merge(ctx, agentId, translations);
  }

  @Mutation(() => AiTranslationsResult, {
    description: "Replaces the agent's translations with another agent's (POST .../translations/copy).",
  })
  copyAiTranslations(
    @Ctx() ctx: RequestContext,
    @Arg('agent_id', () => GraphQLSafeInt) agentId: number,
    @Arg('source_agent_id', () => GraphQLSafeInt) sourceAgentId: number,
  ): Promise<AiTranslationsResult> {
    return ctx.services.translations.copy(ctx, agentId, sourceAgentId);
  }
}
