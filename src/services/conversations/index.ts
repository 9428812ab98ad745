/** Conversations and their messages, read: the lists, one conversation, the current conversation (CONTRACT §6.2). */
export { ConversationService } from './conversation.service.js';
/** Conversation writes: the current conversation opened, messages added, closing (CONTRACT §9.1). */
export { ConversationWriteService } from './conversation-writes.service.js';
/** Closing idle conversations (§9.1), run by workers/idle-sweeper.ts. */
export { closeIdleConversations, IDLE_CLOSE_CONFIG } from './idle-close.js';
/** People who take over (CONTRACT §10.2): `POST /ai/conversations/{id}/handoff`. */
export { HandoffService } from './handoff.service.js';
/** Saved replies (CONTRACT §10.6): `/ai/replies`. */
export { ReplyService } from './replies.service.js';
