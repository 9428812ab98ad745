import { GraphQLSafeInt } from 'graphql-scalars';
import { Arg, Ctx, Field, Float, Int, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../context/index.js';
import type { Page } from '../services/conversations/conversation.service.js';
import type { CreatedWebhook, WebhookDeliveryRecord, WebhookRecord } from '../services/events/webhook.service.js';
import { Pagination } from './conversation.resolver.js';

@ObjectType({ simpleResolvers: true, description: 'An outbound webhook; its secret is shown only when it is created.' })
export class AiWebhook implements WebhookRecord {
  @Field(() => GraphQLSafeInt) id!: number;
  @Field(() => String) url!: string;
  @Field(() => [String], { description: 'Event types delivered, or ["*"] for all.' }) events!: string[];
  @Field(() => Boolean) enabled!: boolean;
  @Field(() => Date) created_at!: Date;
}

@ObjectType({ simpleResolvers: true, description: 'A new webhook with its signing secret (the one time it is shown).' })
export class AiWebhookCreated extends AiWebhook implements CreatedWebhook {
  @Field(() => String, { description: 'HMAC-SHA256 key of X-OrderGraph-Signature.' }) secret!: string;
}

@ObjectType({ simpleResolvers: true, description: 'One event to one webhook: its attempts so far.' })
export class AiWebhookDelivery implements WebhookDeliveryRecord {
  @Field(() => String, { description: 'The delivery UUID (X-OrderGraph-Delivery), the same on every attempt.' }) id!: string;
  @Field(() => Float) event_id!: number;
  @Field(() => String) event_type!: string;
  @Field(() => String, { description: 'pending, delivered or failed' }) status!: 'pending' | 'delivered' | 'failed';
  @Field(() => Int) attempts!: number;
  @Field(() => Int, { nullable: true }) last_status_code!: number | null;
  @Field(() => String, { nullable: true }) last_error!: string | null;
  @Field(() => Date, { nullable: true }) next_attempt_at!: Date | null;
  @Field(() => Date, { nullable: true }) delivered_at!: Date | null;
}

@ObjectType({ simpleResolvers: true, description: "One page of a webhook's deliveries, newest first." })
export class AiWebhookDeliveryPage implements Page<AiWebhookDelivery> {
  @Field(() => [AiWebhookDelivery]) items!: AiWebhookDelivery[];
  @Field(() => Pagination) pagination!: Pagination;
}

/** Outbound webhooks: thin, the rules live in WebhookService. */
@Resolver()
export class WebhookResolver {
  @Query(() => [AiWebhook], { description: "The project's webhooks (GET /ai/webhooks)." })
  aiWebhooks(@Ctx() ctx: RequestContext): Promise<AiWebhook[]> {
    return ctx.services.webhooks.list(ctx);
  }

  @Mutation(() => AiWebhookCreated, { description: 'Registers a webhook (POST /ai/webhooks).' })
  createAiWebhook(
    @Ctx() ctx: RequestContext,
    @Arg('url', () => String) url: string,
    @Arg('events', () => [String]) events: string[],
    @Arg('enabled', () => Boolean, { nullable: true }) enabled?: boolean | null,
  ): Promise<AiWebhookCreated> {
    return ctx.services.webhooks.create(ctx, { url, events, enabled });
  }

  @Mutation(() => AiWebhook, { description: 'Deletes a webhook and its deliveries (DELETE /ai/webhooks/{webhook_id}).' })
  deleteAiWebhook(@Ctx() ctx: RequestContext, @Arg('webhook_id', () => GraphQLSafeInt) webhookId: number): Promise<AiWebhook> {
    return ctx.services.webhooks.delete(ctx, webhookId);
  }

  @Query(() => AiWebhookDeliveryPage, { description: "A webhook's deliveries, newest first (GET /ai/webhooks/{webhook_id}/deliveries)." })
  aiWebhookDeliveries(
    @Ctx() ctx: RequestContext,
    @Arg('webhook_id', () => GraphQLSafeInt) webhookId: number,
    @Arg('page', () => Int, { nullable: true }) page?: number | null,
    @Arg('page_size', () => Int, { nullable: true }) page_size?: number | null,
  ): Promise<AiWebhookDeliveryPage> {
    return ctx.services.webhooks.deliveries(ctx, webhookId, { page, page_size });
  }
}
