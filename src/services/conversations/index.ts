/** Conversations and their messages: the lists, the current conversation, writes and closing (CONTRACT §6.2, §9.1). */
export { ConversationService } from './conversation.service.js';
/** Closing idle conversations (§9.1), run by workers/idle-sweeper.ts. */
export { closeIdleConversations, IDLE_CLOSE_CONFIG } from './idle-close.js';
/** People who take over (CONTRACT §10.2): `POST /ai/conversations/{id}/handoff`. */
export { HandoffService } from './handoff.service.js';
