import { appendEvents } from '../events/event-log.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { run, agentOf, conversationEvent } from './records.js';

/** The stored config that makes a project's idle conversations close (CONTRACT §9.1). */
export const IDLE_CLOSE_CONFIG = 'ai_idle_close_minutes';

/**
 * One batch of idle closing for one project, in its own transaction: active conversations whose
 * newest message (or creation, when none) is older than `minutes` are closed as `abandoned`, each
 * with its `conversation.closed` event. `for update skip locked` hands every conversation to one
 * sweeper only (other processes skip the rows this one holds, and find them closed afterwards), and
 * a conversation a message writer holds is left for the next pass. Returns the closed count (the
 * caller then runs the sequencer pass that gives the events their ids).
 */
export async function closeIdleConversations(em: EntityManager, projectId: number, minutes: number, limit: number): Promise<number> {
  return em.transactional(async (tx) => {
    const rows = await run(
      tx,
      `with idle as (
         select c.id from ai_conversations c
          where c.project_id = ? and c.status = 'active'
            and coalesce((select max(m.created_at) from ai_messages m where m.conversation_id = c.id), c.created_at) < now() - make_interval(mins => ?)
          order by c.id
          limit ?
          for update of c skip locked)
       update ai_conversations c set status = 'closed', status_reason = 'abandoned', closed_at = now(), updated_at = now()
         from idle
        where c.id = idle.id and c.status = 'active'
       returning c.*,
         (select a.business_id from ai_agents a where a.id = c.agent_id) as agent_business_id,
         (select count(*)::int from ai_messages m where m.conversation_id = c.id) as messages_count`,
      [projectId, minutes, limit],
    );
    const events = rows.map((row) => conversationEvent('conversation.closed', row, agentOf(row), row.messages_count));
    await appendEvents(tx, projectId, events);
    return rows.length;
  });
}
