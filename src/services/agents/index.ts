/** Agents: finding a project's agent (and its level-2 visibility), and the agents' translations (CONTRACT §6.1). */
export * from './agent-lookup.js';
export { TranslationService } from './translation.service.js';
