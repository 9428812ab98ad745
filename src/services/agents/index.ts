/**
 * Agents: finding a project's agent (and its level-2 visibility), managing agents and their write-only
 * credentials (CONTRACT §10.3), and the agents' translations (CONTRACT §6.1).
 */
export * from './agent-lookup.js';
export { TranslationService } from './translation.service.js';
export {
  AgentService,
  AGENT_ATTRIBUTES,
  AGENT_LIMITS,
  MAX_CREDENTIAL_KEYS,
  MAX_CREDENTIAL_VALUE,
  type AgentInput,
} from './agent.service.js';
export { backfillCredentialColumns, credentialColumns, credentialFlags, KNOWN_CREDENTIAL_KEYS } from './agent-credentials.js';
