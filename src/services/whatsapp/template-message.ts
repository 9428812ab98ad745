import type { EntityManager } from '@mikro-orm/postgresql';
import type { RequestContext } from '../../context/index.js';
import type { AiTemplate } from '../../entities/ai-template.js';
import { messageRecord, run } from '../conversations/records.js';
import type { NewAiEvent } from '../events/event-log.js';
import { applyEarlyStatuses, lockExternalId, messageStatusEvent } from './delivery.js';
import { openConversation, type Sender } from './stored-items.js';
import { moveTemplateSend } from './template-send.service.js';

interface TemplateAgent {
  id: number;
  business_id?: number | null;
}

/** The template's body text with its `{{n}}` placeholders filled (the text the customer reads). */
export function filledBody(components: unknown, parameters: string[]): string {
  const body = Array.isArray(components)
    ? (components as { type?: unknown; text?: unknown }[]).find((c) => typeof c?.type === 'string' && c.type.toUpperCase() === 'BODY')
    : undefined;
  const text = typeof body?.text === 'string' ? body.text : '';
  return text.replace(/\{\{\s*(\d+)\s*\}\}/g, (whole, n: string) => parameters[Number(n) - 1] ?? whole);
}

/**
 * CONTRACT §10.6: a template the provider accepted is also a public `assistant` message of `type` `template` in the
 * active conversation of (agent, `to`), opened when none is active, so the thread shows that the customer was
 * contacted. It carries the send's provider id and state (`accepted`), is never queued for sending, and Meta's
 * statuses move it with the send (inbound-notification.ts). Runs in the send log's transaction; returns its events.
 */
export async function storeTemplateMessage(
  tx: EntityManager,
  ctx: RequestContext,
  agent: TemplateAgent,
  template: Pick<AiTemplate, 'id' | 'name' | 'language' | 'components'>,
  send: { message_id: string; to: string; body_parameters: string[] },
): Promise<NewAiEvent[]> {
  const p = ctx.project.id;
  const events: NewAiEvent[] = [];
  await lockExternalId(tx, agent.id, send.message_id);
  // the contact's active conversation, opened as an inbound message opens one (the number's lock, its address-book name)
  const contact: Sender = { phone: send.to, bsuid: null, name: null, username: null };
  const conversation = await openConversation(tx, p, agent, contact, events);
  const payload = { template_id: template.id, name: template.name, language: template.language, body_parameters: send.body_parameters };
  const [message] = await run(
    tx,
    `insert into ai_messages (project_id, conversation_id, role, content, public, author_id, external_id, delivery_status, type, payload)
     values (?, ?, 'assistant', ?, true, ?, ?, 'accepted', 'template', ?::jsonb)
     returning *`,
    [
      p,
      conversation.id,
      filledBody(template.components, send.body_parameters) || template.name,
      ctx.caller.kind === 'user' ? ctx.caller.user.id : null,
      send.message_id,
      JSON.stringify(payload),
    ],
  );
  await run(tx, 'update ai_conversations set updated_at = now() where project_id = ? and id = ?', [p, conversation.id]);
  events.push({
    type: 'message.created',
    data: messageRecord(message),
    agent_id: agent.id,
    business_id: agent.business_id ?? null,
    conversation_id: message.conversation_id,
    public: true,
  });
  // a status Meta sent before this commit was kept for the id: it moves the message, and the send with it
  const moved = await applyEarlyStatuses(tx, p, [{ agentId: agent.id, externalId: send.message_id }]);
  for (const row of moved.get(`${agent.id}:${send.message_id}`) ?? []) {
    events.push(messageStatusEvent(row, agent));
    await moveTemplateSend(tx, p, agent.id, send.message_id, row.delivery_status, row.delivery_error ?? null);
  }
  return events;
}
