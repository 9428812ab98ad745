import { GraphQLJSON, GraphQLSafeInt } from 'graphql-scalars';
import { Arg, Ctx, Field, Float, Int, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { AiReply } from '../entities/ai-reply.js';
import type { RequestContext } from '../context/index.js';
import type { ConversationOrder, Page } from '../services/conversations/conversation.service.js';
import type { BusinessName, Operator } from '../services/identity/operators.service.js';
import { Pagination } from './conversation.resolver.js';

@ObjectType({ simpleResolvers: true, description: 'One page of saved replies.' })
export class AiReplyPage implements Page<AiReply> {
  @Field(() => [AiReply]) items!: AiReply[];
  @Field(() => Pagination) pagination!: Pagination;
}

@ObjectType({ simpleResolvers: true, description: 'A colleague who can see conversations.' })
export class AiOperator implements Operator {
  @Field(() => GraphQLSafeInt) id!: number;
  @Field(() => String, { nullable: true }) name!: string | null;
  @Field(() => Int) level!: number;
  @Field(() => [GraphQLSafeInt]) business_ids!: number[];
}

@ObjectType({ simpleResolvers: true, description: 'A business the caller may see, by name, with its currency.' })
export class AiBusiness implements BusinessName {
  @Field(() => GraphQLSafeInt) id!: number;
  @Field(() => String) name!: string;
  @Field(() => String, { description: 'ISO 4217: the currency of its menu and orders (CONTRACT §15.1).' }) currency!: string;
}

@ObjectType({ simpleResolvers: true, description: 'An order placed in a conversation.' })
export class AiConversationOrder implements ConversationOrder {
  @Field(() => GraphQLSafeInt) id!: number;
  @Field(() => Int) status!: number;
  @Field(() => Float, { nullable: true, description: "The order's summary.total; null when the platform's is not a number" })
  total!: number | null;
  @Field(() => GraphQLSafeInt, { nullable: true }) business_id!: number | null;
  @Field(() => Date) created_at!: Date;
}

@ObjectType({ simpleResolvers: true, description: "One page of a conversation's orders." })
export class AiConversationOrderPage implements Page<ConversationOrder> {
  @Field(() => [AiConversationOrder]) items!: AiConversationOrder[];
  @Field(() => Pagination) pagination!: Pagination;
}

/** What a busy counter needs next (CONTRACT §10.6): saved replies, colleagues by name, a conversation's orders. */
@Resolver()
export class CounterResolver {
  @Query(() => AiReplyPage, { description: "The project's saved replies (GET /ai/replies)." })
  aiReplies(
    @Ctx() ctx: RequestContext,
    @Arg('where', () => GraphQLJSON, { nullable: true, description: 'A filter: a JSON object of attribute conditions (`where`)' })
    where?: unknown,
    @Arg('orderBy', () => String, { nullable: true, description: 'Comma-separated attributes, `-` for descending; default `id`' })
    orderBy?: string | null,
    @Arg('page', () => Int, { nullable: true }) page?: number | null,
    @Arg('page_size', () => Int, { nullable: true }) page_size?: number | null,
    @Arg('q', () => String, { nullable: true, description: '1–100 characters: shortcut or content contains it, case and accents ignored' })
    q?: string | null,
  ): Promise<AiReplyPage> {
    return ctx.services.replies.list(ctx, { where, orderBy, page, page_size }, q);
  }

  @Mutation(() => AiReply, { description: 'Saves a reply (POST /ai/replies).' })
  createAiReply(
    @Ctx() ctx: RequestContext,
    @Arg('shortcut', () => String) shortcut: string,
    @Arg('content', () => String) content: string,
  ): Promise<AiReply> {
    return ctx.services.replies.create(ctx, { shortcut, content });
  }

  @Mutation(() => AiReply, { description: 'Changes the fields given (PATCH /ai/replies/{reply_id}).' })
  updateAiReply(
    @Ctx() ctx: RequestContext,
    @Arg('reply_id', () => GraphQLSafeInt) replyId: number,
    @Arg('shortcut', () => String, { nullable: true }) shortcut?: string | null,
    @Arg('content', () => String, { nullable: true }) content?: string | null,
  ): Promise<AiReply> {
    return ctx.services.replies.update(ctx, replyId, { shortcut, content });
  }

  @Mutation(() => AiReply, { description: 'Deletes a saved reply and answers it as it was (DELETE /ai/replies/{reply_id}).' })
  deleteAiReply(@Ctx() ctx: RequestContext, @Arg('reply_id', () => GraphQLSafeInt) replyId: number): Promise<AiReply> {
    return ctx.services.replies.remove(ctx, replyId);
  }

  @Query(() => [AiOperator], { description: 'Colleagues who can see conversations, by name (GET /ai/operators).' })
  aiOperators(@Ctx() ctx: RequestContext): Promise<AiOperator[]> {
    return ctx.services.operators.list(ctx);
  }

  @Query(() => [AiBusiness], { description: 'The businesses the caller may see, by name (GET /ai/businesses).' })
  aiBusinesses(@Ctx() ctx: RequestContext): Promise<AiBusiness[]> {
    return ctx.services.operators.businesses(ctx);
  }

  @Query(() => AiConversationOrderPage, {
    description: 'The orders placed in a conversation, newest first (GET /ai/conversations/{conversation_id}/orders).',
  })
  aiConversationOrders(
    @Ctx() ctx: RequestContext,
    @Arg('conversation_id', () => GraphQLSafeInt) conversationId: number,
    @Arg('page', () => Int, { nullable: true }) page?: number | null,
    @Arg('page_size', () => Int, { nullable: true }) page_size?: number | null,
  ): Promise<AiConversationOrderPage> {
    return ctx.services.conversations.orders(ctx, conversationId, { page, page_size });
  }
}
