import type { EntityManager } from '@mikro-orm/postgresql';
import { CONVERSATION_HANDLERS, type AiConversation, type ConversationHandler } from '../../entities/ai-conversation.js';
import { LEVEL } from '../../entities/user.js';
import { validationError } from '../../errors/codes.js';
import type { RequestContext } from '../../context/index.js';
import { assertAiAdmin, visibleBusinessIds } from '../identity/access.js';
import { agentOf, conversationEvent, run } from './records.js';
import { checkConversationId, ID_MAX } from './message-rules.js';
import { lockVisible } from './conversation-writes.service.js';
import { writeWithEvents } from '../events/event-log.js';

export interface HandoffInput {
  handler?: unknown;
  assignee_id?: unknown;
}

/** `POST /ai/conversations/{id}/handoff` (CONTRACT §10.2): a person takes a conversation over, or hands it back to the AI. */
export class HandoffService {
  async handoff(ctx: RequestContext, conversationId: number, input: HandoffInput): Promise<AiConversation & { messages_count: number }> {
    assertAiAdmin(ctx);
    const { handler, assigneeId } = checkInput(input);
    checkConversationId(conversationId);
    const scope = await visibleBusinessIds(ctx);
    return writeWithEvents(ctx, async (tx) => {
      const conversation = await lockVisible(tx, ctx, conversationId, scope);
      let assignee: number | null = null;
      if (handler === 'human') {
        if (assigneeId !== null) assignee = await checkAssignee(tx, ctx.project.id, assigneeId, conversation.business_id ?? null);
        else assignee = ctx.caller.kind === 'user' ? ctx.caller.user.id : null;
      }
      if (conversation.handler === handler && (conversation.assignee_id ?? null) === assignee) {
        const [row] = await run(tx, `${WITH_COUNT} where c.id = ? and c.project_id = ?`, [conversation.id, ctx.project.id]);
        return { value: row, events: [] };
      }
      const [row] = await run(
        tx,
        `update ai_conversations c set handler = ?, assignee_id = ?, updated_at = now()
          where c.id = ? and c.project_id = ?
          returning c.*, (select count(*)::int from ai_messages m where m.conversation_id = c.id and m.project_id = c.project_id) as messages_count`,
        [handler, assignee, conversation.id, ctx.project.id],
      );
      return { value: row, events: [conversationEvent('conversation.handoff', row, agentOf(conversation), row.messages_count)] };
    });
  }
}

const WITH_COUNT = `select c.*, (select count(*)::int from ai_messages m where m.conversation_id = c.id and m.project_id = c.project_id) as messages_count
  from ai_conversations c`;

/** The same rules as the REST schema, for /graphql callers: `handler` required; `assignee_id` an id, and with `ai` only absent or null. */
function checkInput(input: HandoffInput): { handler: ConversationHandler; assigneeId: number | null } {
  if (input.handler === undefined || input.handler === null) throw validationError([{ field: 'handler', key: 'required_field' }]);
  if (!(CONVERSATION_HANDLERS as readonly unknown[]).includes(input.handler)) throw validationError([{ field: 'handler' }]);
  const assigneeId = input.assignee_id ?? null;
  if (
    assigneeId !== null &&
    (input.handler === 'ai' || !Number.isInteger(assigneeId) || (assigneeId as number) < 1 || (assigneeId as number) > ID_MAX)
  ) {
    throw validationError([{ field: 'assignee_id' }]);
  }
  return { handler: input.handler as ConversationHandler, assigneeId: assigneeId as number | null };
}

/**
 * An assignee is an enabled user of the project who can see the conversation (CONTRACT §10.2, §11 fourth review: the
 * operators §10.6 lists): level 0, or level 2 owning the conversation's business; else 400 naming assignee_id.
 */
async function checkAssignee(tx: EntityManager, projectId: number, userId: number, businessId: number | null): Promise<number> {
  const [user] = await run(
    tx,
    `select u.id from users u
      where u.project_id = ? and u.id = ? and u.enabled and not u.guest
        and (u.level = ? or (u.level = ? and exists (
              select 1 from user_businesses ub where ub.user_id = u.id and ub.project_id = u.project_id and ub.business_id = ?)))`,
    [projectId, userId, LEVEL.ADMIN, LEVEL.BUSINESS_OWNER, businessId],
  );
  if (!user) throw validationError([{ field: 'assignee_id' }]);
  return user.id as number;
}
