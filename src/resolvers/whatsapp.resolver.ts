import { GraphQLJSON, GraphQLSafeInt } from 'graphql-scalars';
import { Arg, Ctx, Field, Int, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { AiTemplateSend } from '../entities/ai-template-send.js';
import type { RequestContext } from '../context/index.js';
import type { Page } from '../services/conversations/conversation.service.js';
import type { WhatsAppDeliveryResult } from '../services/whatsapp/inbound-notification.js';
import { Pagination } from './conversation.resolver.js';

@ObjectType({ simpleResolvers: true, description: "One page of an agent's template sends." })
export class AiTemplateSendPage implements Page<AiTemplateSend> {
  @Field(() => [AiTemplateSend]) items!: AiTemplateSend[];
  @Field(() => Pagination) pagination!: Pagination;
}

@ObjectType({ simpleResolvers: true, description: 'What one WhatsApp notification delivery stored.' })
export class WhatsAppDelivery implements WhatsAppDeliveryResult {
  @Field(() => Int, { description: 'Messages stored by this delivery (retried ones are not counted).' }) messages!: number;
  @Field(() => Int, { description: 'Statuses that moved a send forward.' }) statuses!: number;
}

/** WhatsApp both ways (CONTRACT §9.3): thin, the rules live in the services. */
@Resolver()
export class WhatsAppResolver {
  @Query(() => AiTemplateSendPage, { description: "An agent's template sends, newest first by default (GET .../templates/sends)." })
  aiTemplateSends(
    @Ctx() ctx: RequestContext,
    @Arg('agent_id', () => GraphQLSafeInt) agentId: number,
    @Arg('where', () => GraphQLJSON, { nullable: true, description: '`where` on status, template_id, to, created_at' })
    where?: unknown,
    @Arg('orderBy', () => String, { nullable: true, description: 'id, created_at, status; `-` for descending; default `-created_at`' })
    orderBy?: string | null,
    @Arg('page', () => Int, { nullable: true }) page?: number | null,
    @Arg('page_size', () => Int, { nullable: true }) page_size?: number | null,
  ): Promise<AiTemplateSendPage> {
    return ctx.services.templateSends.list(ctx, agentId, { where, orderBy, page, page_size });
  }

  @Query(() => String, {
    description:
      "Meta's webhook verification: the challenge when the token is a WhatsApp agent's verify_token (GET /ai/webhooks/whatsapp).",
  })
  whatsAppWebhookChallenge(
    @Ctx() ctx: RequestContext,
    @Arg('mode', () => String, { nullable: true }) mode?: string | null,
    @Arg('verify_token', () => String, { nullable: true }) verifyToken?: string | null,
    @Arg('challenge', () => String, { nullable: true }) challenge?: string | null,
  ): Promise<string> {
    return ctx.services.whatsappInbound.challenge(ctx, mode, verifyToken, challenge);
  }

  @Mutation(() => WhatsAppDelivery, {
    description:
      'A WhatsApp notification whose signature the REST gateway verified (POST /ai/webhooks/whatsapp); refused without that verification.',
  })
  receiveWhatsAppNotification(@Ctx() ctx: RequestContext, @Arg('payload', () => GraphQLJSON) payload: unknown): Promise<WhatsAppDelivery> {
    return ctx.services.whatsappInbound.receive(ctx, payload);
  }
}
