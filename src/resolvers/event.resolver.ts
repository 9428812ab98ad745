import { GraphQLJSON, GraphQLSafeInt } from 'graphql-scalars';
import { Arg, Field, ObjectType, Resolver, Root, Subscription } from 'type-graphql';
import { appError } from '../errors/codes.js';
import type { RequestContext } from '../context/index.js';
import type { AiEventRecord } from '../services/events/feed.js';

@ObjectType({
  simpleResolvers: true,
  description: "An event of the project's AI module; `stream.reset` says events older than the stream could resume from are gone.",
})
export class AiEvent {
  @Field(() => GraphQLSafeInt, { description: 'Increasing in commit order within the project.' }) id!: number;
  @Field(() => String, {
    description:
      'conversation.created, conversation.closed, conversation.handoff, message.created, message.status, message.updated, template.sent, template.status, agent.updated, or stream.reset',
  })
  type!: string;
  @Field(() => String, { description: 'ISO 8601' }) created_at!: string;
  @Field(() => GraphQLJSON, { description: 'The conversation, message or send record.' }) data!: Record<string, unknown>;
}

const LAST = { nullable: true, description: 'Resume after this event id (as SSE Last-Event-ID).' };

type Data = { args: Record<string, any>; context: RequestContext };

/** A WebSocket connection without a credential reaches here with no caller: 401, as /graphql. */
function authenticated(context: RequestContext): RequestContext {
  if (!context?.caller || !context.services) throw appError('ERROR_UNAUTHORIZED');
  return context;
}

/**
 * Live events. The subscribe functions open a stream of services/events/events.service.ts (access checks
 * there); the field resolvers hand the event through. The REST SSE routes run these same fields.
 */
@Resolver(() => AiEvent)
export class EventResolver {
  @Subscription(() => AiEvent, {
    description: "The project's events visible to the caller (GET /ai/events): levels 0/2 and server keys.",
    subscribe: ({ args, context }: Data) =>
      authenticated(context).services.events.streamAll(context, {
        types: args.types,
        conversation_id: args.conversation_id,
        last_event_id: args.last_event_id,
      }),
  })
  aiEvents(
    @Root() event: AiEventRecord,
    @Arg('types', () => [String], { nullable: true, description: 'Event types to receive (default all).' }) _types?: string[] | null,
    @Arg('conversation_id', () => GraphQLSafeInt, { nullable: true }) _conversationId?: number | null,
    @Arg('last_event_id', () => String, LAST) _lastEventId?: string | null,
  ): AiEventRecord {
    return event;
  }

  @Subscription(() => AiEvent, {
    description:
      "The caller's current conversation: its public message.created and its conversation.closed (GET .../conversations/current/events).",
    subscribe: ({ args, context }: Data) =>
      authenticated(context).services.events.streamCurrent(context, args.provider_external_id, args.last_event_id),
  })
  aiCurrentConversationEvents(
    @Root() event: AiEventRecord,
    @Arg('provider_external_id', () => String) _providerExternalId: string,
    @Arg('last_event_id', () => String, LAST) _lastEventId?: string | null,
  ): AiEventRecord {
    return event;
  }
}
