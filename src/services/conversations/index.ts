/** Conversations and their messages: the lists, the current conversation, writes and closing (CONTRACT §6.2, §9.1). */
export { ConversationService } from './conversation.service.js';
