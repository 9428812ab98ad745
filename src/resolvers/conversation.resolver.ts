import { GraphQLJSON, GraphQLSafeInt } from 'graphql-scalars';
import { Arg, Ctx, Field, FieldResolver, Int, Mutation, ObjectType, Query, Resolver, Root } from 'type-graphql';
import { AiAgent } from '../entities/ai-agent.js';
import { AiConversation, windowExpiresAt } from '../entities/ai-conversation.js';
import { AiMedia } from '../entities/ai-media.js';
import { AiMessage } from '../entities/ai-message.js';
import type { RequestContext } from '../context/index.js';
import type { Page } from '../services/conversations/conversation.service.js';
import type { ListInput } from '../services/shared/list-query.js';

@ObjectType({
  simpleResolvers: true,
  description: 'The pagination block of a list; from/to are 1-based, null on an empty page.',
})
export class Pagination {
  @Field(() => Int) current_page!: number;
  @Field(() => Int) page_size!: number;
  @Field(() => Int) total_pages!: number;
  @Field(() => Int) total!: number;
  @Field(() => Int, { nullable: true }) from!: number | null;
  @Field(() => Int, { nullable: true }) to!: number | null;
}

@ObjectType({ simpleResolvers: true, description: 'One page of conversations.' })
export class AiConversationPage implements Page<AiConversation> {
  @Field(() => [AiConversation]) items!: AiConversation[];
  @Field(() => Pagination) pagination!: Pagination;
}

@ObjectType({ simpleResolvers: true, description: "The caller's unread count after a seen mark." })
export class AiConversationSeen {
  @Field(() => Int) unread_count!: number;
}

@ObjectType({ simpleResolvers: true, description: "One page of a conversation's messages." })
export class AiMessagePage implements Page<AiMessage> {
  @Field(() => [AiMessage]) items!: AiMessage[];
  @Field(() => Pagination) pagination!: Pagination;
}

const WHERE = {
  nullable: true,
  description:
    '`where`: an object of exact matches (AND-ed; an array value means any of) or an array of conditions {attribute, value} / {attribute, value: {condition, value}} and groups {conditions, conector} (JSON, or its text)',
};
const ORDER = { nullable: true, description: 'Comma-separated attributes, `-` for descending; default `id`' };

function listInput(where: unknown, orderBy?: string | null, page?: number | null, page_size?: number | null): ListInput {
  return { where, orderBy, page, page_size };
}

/** The conversation operations (spec §4.3); the service checks access, so /graphql gets the same rules. */
@Resolver(() => AiConversation)
export class ConversationResolver {
  @Query(() => AiConversationPage, { description: 'Conversations visible to the caller (GET /ai/conversations).' })
  aiConversations(
    @Ctx() ctx: RequestContext,
    @Arg('where', () => GraphQLJSON, WHERE) where?: unknown,
    @Arg('orderBy', () => String, ORDER) orderBy?: string | null,
    @Arg('page', () => Int, { nullable: true }) page?: number | null,
    @Arg('page_size', () => Int, { nullable: true }) page_size?: number | null,
    @Arg('q', () => String, {
      nullable: true,
      description: "1–100 characters: conversations whose contact or any message's content contains it, case-insensitively",
    })
    q?: string | null,
  ): Promise<AiConversationPage> {
    return ctx.services.conversations.list(ctx, listInput(where, orderBy, page, page_size), q);
  }

  @Mutation(() => AiConversationSeen, {
    description:
      "Moves the caller's seen mark forward to message_id (default: the newest message); emits nothing (POST /ai/conversations/{conversation_id}/seen).",
  })
  markAiConversationSeen(
    @Ctx() ctx: RequestContext,
    @Arg('conversation_id', () => GraphQLSafeInt) conversationId: number,
    @Arg('message_id', () => GraphQLSafeInt, { nullable: true }) messageId?: number | null,
  ): Promise<AiConversationSeen> {
    return ctx.services.conversations.markSeen(ctx, conversationId, messageId);
  }

  @Query(() => AiConversation, { description: 'One conversation (GET /ai/conversations/{conversation_id}).' })
  aiConversation(@Ctx() ctx: RequestContext, @Arg('id', () => GraphQLSafeInt) id: number): Promise<AiConversation> {
    return ctx.services.conversations.get(ctx, id);
  }

  @Query(() => AiMessagePage, { description: 'Every message of a conversation (GET /ai/conversations/{conversation_id}/messages).' })
  aiConversationMessages(
    @Ctx() ctx: RequestContext,
    @Arg('conversation_id', () => GraphQLSafeInt) conversationId: number,
    @Arg('where', () => GraphQLJSON, WHERE) where?: unknown,
    @Arg('orderBy', () => String, ORDER) orderBy?: string | null,
    @Arg('page', () => Int, { nullable: true }) page?: number | null,
    @Arg('page_size', () => Int, { nullable: true }) page_size?: number | null,
  ): Promise<AiMessagePage> {
    return ctx.services.conversations.messages(ctx, conversationId, listInput(where, orderBy, page, page_size));
  }

  @Query(() => AiMedia, {
    description: 'The file of a message (GET /ai/conversations/{conversation_id}/messages/{message_id}/media serves its bytes).',
  })
  aiMessageMedia(
    @Ctx() ctx: RequestContext,
    @Arg('conversation_id', () => GraphQLSafeInt) conversationId: number,
    @Arg('message_id', () => GraphQLSafeInt) messageId: number,
  ): Promise<AiMedia> {
    return ctx.services.conversations.messageMedia(ctx, conversationId, messageId);
  }

  @Query(() => AiConversation, {
    description: "The caller's active conversation with the agent, created when none is active (GET .../conversations/current).",
  })
  aiCurrentConversation(
    @Ctx() ctx: RequestContext,
    @Arg('provider_external_id', () => String) providerExternalId: string,
  ): Promise<AiConversation> {
    return ctx.services.conversationWrites.current(ctx, providerExternalId);
  }

  @Query(() => [AiMessage], { description: "Public messages of the caller's active conversation, oldest first; creates nothing." })
  aiCurrentConversationMessages(
    @Ctx() ctx: RequestContext,
    @Arg('provider_external_id', () => String) providerExternalId: string,
  ): Promise<AiMessage[]> {
    return ctx.services.conversations.currentMessages(ctx, providerExternalId);
  }

  @Mutation(() => AiMessage, {
    description:
      "Adds a public user message to the caller's current conversation, opening it when none is active (POST .../conversations/current/messages).",
  })
  addAiCurrentConversationMessage(
    @Ctx() ctx: RequestContext,
    @Arg('provider_external_id', () => String) providerExternalId: string,
    @Arg('content', () => String) content: string,
  ): Promise<AiMessage> {
    return ctx.services.conversationWrites.addCurrentMessage(ctx, providerExternalId, content);
  }

  @Mutation(() => AiMessage, {
    description:
      "Adds a message to an active conversation and adds its usage to the conversation's (POST /ai/conversations/{conversation_id}/messages).",
  })
  addAiConversationMessage(
    @Ctx() ctx: RequestContext,
    @Arg('conversation_id', () => GraphQLSafeInt) conversationId: number,
    @Arg('role', () => String) role: string,
    @Arg('content', () => String, {
      nullable: true,
      description: 'Required for text; for other types computed from the payload when absent',
    })
    content?: string | null,
    @Arg('public', () => Boolean, { nullable: true }) isPublic?: boolean | null,
    @Arg('usage', () => GraphQLJSON, {
      nullable: true,
      description: '{cost, response_time_ms, input_tokens, output_tokens}, each optional and ≥ 0',
    })
    usage?: unknown,
    @Arg('type', () => String, {
      nullable: true,
      description: 'text (default), location, interactive, image, video, document, audio, sticker or reaction',
    })
    type?: string | null,
    @Arg('payload', () => GraphQLJSON, {
      nullable: true,
      description: "The type's object (location, interactive, a file's media_id or link, a reaction); none for text",
    })
    payload?: unknown,
    @Arg('reply_to_id', () => GraphQLSafeInt, { nullable: true, description: 'A message of the same conversation this one answers' })
    replyToId?: number | null,
  ): Promise<AiMessage> {
    return ctx.services.conversationWrites.addMessage(ctx, conversationId, {
      role,
      content,
      public: isPublic,
      usage,
      type,
      payload,
      reply_to_id: replyToId,
    });
  }

  @Mutation(() => AiConversation, {
    description: 'Closes an active conversation with a reason (POST /ai/conversations/{conversation_id}/close).',
  })
  closeAiConversation(
    @Ctx() ctx: RequestContext,
    @Arg('conversation_id', () => GraphQLSafeInt) conversationId: number,
    @Arg('status_reason', () => String) statusReason: string,
  ): Promise<AiConversation> {
    return ctx.services.conversationWrites.close(ctx, conversationId, statusReason);
  }

  @Mutation(() => AiConversation, {
    description:
      'A person takes the conversation over (handler human, assignee_id or the caller) or hands it back to the AI (POST /ai/conversations/{conversation_id}/handoff).',
  })
  handoffAiConversation(
    @Ctx() ctx: RequestContext,
    @Arg('conversation_id', () => GraphQLSafeInt) conversationId: number,
    @Arg('handler', () => String, { description: 'human or ai' }) handler: string,
    @Arg('assignee_id', () => GraphQLSafeInt, {
      nullable: true,
      description: 'A level 0 or 2 user who can see the conversation; only with human',
    })
    assigneeId?: number | null,
  ): Promise<AiConversation> {
    return ctx.services.handoff.handoff(ctx, conversationId, { handler, assignee_id: assigneeId });
  }

  @Mutation(() => Boolean, {
    description:
      "WhatsApp: marks the customer's newest message read and shows the typing indicator, at most one provider call per conversation and second (POST /ai/conversations/{conversation_id}/typing); false for conversations of other channels.",
  })
  showAiConversationTyping(
    @Ctx() ctx: RequestContext,
    @Arg('conversation_id', () => GraphQLSafeInt) conversationId: number,
  ): Promise<boolean> {
    return ctx.services.typing.typing(ctx, conversationId);
  }

  @FieldResolver(() => Int, { nullable: true, description: 'All messages of the conversation, counted in SQL for the whole page.' })
  messages_count(@Root() conversation: AiConversation, @Ctx() ctx: RequestContext): Promise<number | undefined> {
    // the batch answers 0 for a conversation without messages; the loader's promise is returned as it is (one per row)
    return ctx.services.conversations.messagesCount(ctx, conversation.id, (conversation as { messages_count?: number }).messages_count);
  }

  @FieldResolver(() => Date, {
    nullable: true,
    description:
      "WhatsApp's customer service window: the newest inbound WhatsApp message's created_at + 24 h; null for other conversations and while none exists.",
  })
  window_expires_at(@Root() conversation: AiConversation): Date | null {
    return windowExpiresAt(conversation.last_inbound_at);
  }

  @FieldResolver(() => Date, { description: "The created_at of the newest message, else the conversation's own." })
  last_message_at(@Root() conversation: AiConversation): Date {
    const at = conversation.last_message_at ?? conversation.created_at;
    return at instanceof Date ? at : new Date(at);
  }

  @FieldResolver(() => Int, {
    nullable: true,
    description: "The caller's unread user messages: those after its seen mark (all without one), counted for the whole page.",
  })
  unread_count(@Root() conversation: AiConversation, @Ctx() ctx: RequestContext): Promise<number | undefined> {
    return ctx.services.conversations.unreadCount(ctx, conversation.id);
  }

  @FieldResolver(() => AiMessage, {
    nullable: true,
    description:
      "The newest message (the inbox's preview), loaded once per page; not in the default projection (params=last_message.content).",
  })
  last_message(@Root() conversation: AiConversation, @Ctx() ctx: RequestContext): Promise<AiMessage | undefined> {
    return ctx.services.conversations.lastMessage(ctx, conversation.id);
  }

  @FieldResolver(() => AiAgent, { nullable: true, description: "The conversation's agent, loaded once per page." })
  agent(@Root() conversation: AiConversation, @Ctx() ctx: RequestContext): Promise<AiAgent | undefined> {
    // undefined (an agent that is gone) reads as null: the field is nullable
    return ctx.services.conversations.agent(ctx, conversation.agent_id);
  }
}
