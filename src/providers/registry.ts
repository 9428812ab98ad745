import type { AppConfig } from '../config.js';
import type { MessagingProvider, ProviderRegistry } from './messaging.js';
import { createWhatsAppClient } from './whatsapp/client.js';

/** The messaging providers by `agent.provider`. Another provider is one more entry here. */
export function createProviders(config: Pick<AppConfig, 'whatsappApiUrl' | 'providerTimeoutMs'>): ProviderRegistry {
  return new Map<string, MessagingProvider>([
    ['whatsapp', createWhatsAppClient({ baseUrl: config.whatsappApiUrl, timeoutMs: config.providerTimeoutMs })],
  ]);
}
