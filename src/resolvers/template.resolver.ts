import { GraphQLSafeInt } from 'graphql-scalars';
import { Arg, Ctx, Field, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { AiTemplate } from '../entities/ai-template.js';
import type { RequestContext } from '../context/index.js';
import type { TemplateSendResult as SendResultShape } from '../services/whatsapp/template.service.js';

@ObjectType({ simpleResolvers: true, description: 'The provider accepted a template message.' })
export class AiTemplateSendResult implements SendResultShape {
  @Field(() => String, { description: "The provider's message id." }) message_id!: string;
  @Field(() => String, { description: 'The recipient as sent to the provider (no leading +).' }) to!: string;
  @Field(() => String, { description: 'The template name.' }) template!: string;
  @Field(() => String) language!: string;
  @Field(() => String) status!: 'accepted';
}

/** Agent message templates (spec §4.1): thin, the rules live in TemplateService. */
@Resolver()
export class TemplateResolver {
  @Query(() => [AiTemplate], { description: "An agent's stored templates, by name and language (GET .../templates)." })
  aiTemplates(
    @Ctx() ctx: RequestContext,
    @Arg('agent_id', () => GraphQLSafeInt) agentId: number,
    @Arg('status', () => String, { nullable: true, description: 'APPROVED, PENDING, REJECTED, PAUSED or DISABLED (any case)' })
    status?: string | null,
  ): Promise<AiTemplate[]> {
    return ctx.services.templates.list(ctx, agentId, status);
  }

  @Mutation(() => [AiTemplate], { description: 'Pulls every template from the provider and upserts them (POST .../templates/refresh).' })
  refreshAiTemplates(@Ctx() ctx: RequestContext, @Arg('agent_id', () => GraphQLSafeInt) agentId: number): Promise<AiTemplate[]> {
    return ctx.services.templates.refresh(ctx, agentId);
  }

  @Mutation(() => [String], {
    description: 'Reconciles with the provider: created|updated|deleted:NAME:LANG per change (POST .../templates/sync).',
  })
  syncAiTemplates(
    @Ctx() ctx: RequestContext,
    @Arg('agent_id', () => GraphQLSafeInt) agentId: number,
    @Arg('delete_removed', () => Boolean, { nullable: true }) deleteRemoved?: boolean | null,
  ): Promise<string[]> {
    return ctx.services.templates.sync(ctx, agentId, deleteRemoved === true);
  }

  @Mutation(() => AiTemplateSendResult, { description: 'Sends an approved template (POST .../templates/{template_id}/send).' })
  sendAiTemplate(
    @Ctx() ctx: RequestContext,
    @Arg('agent_id', () => GraphQLSafeInt) agentId: number,
    @Arg('template_id', () => GraphQLSafeInt) templateId: number,
    @Arg('to', () => String) to: string,
    @Arg('body_parameters', () => [String], { nullable: true }) bodyParameters?: string[] | null,
  ): Promise<AiTemplateSendResult> {
    return ctx.services.templates.send(ctx, agentId, templateId, to, bodyParameters);
  }
}
