import type { MikroORM } from '@mikro-orm/postgresql';
import type { AppConfig } from '../config.js';
import type { LimiterStore } from '../limits/store.js';
import type { CredentialCipher } from '../platform/secrets.js';
import type { RecaptchaVerifier } from '../providers/recaptcha.js';
import { AuthService } from './auth.service.js';
import { ConfigService } from './config.service.js';
import { ConversationService } from './conversation.service.js';
import { HandoffService } from './conversations/handoff.service.js';
import { LimitsService } from './limits.service.js';
import { SettingsService } from './settings.service.js';
import { TenancyService } from './tenancy.service.js';
import { createProviders } from '../providers/registry.js';
import { TemplateService } from './template.service.js';
import { TranslationService } from './translation.service.js';
import { MetricsService } from './metrics.service.js';
import { EventsService } from './events.service.js';
import { TemplateSendService } from './template-send.service.js';
import { WhatsAppInboundService } from './whatsapp-inbound.service.js';
import { WebhookService } from './webhook.service.js';

/** What services are built from: made once per process by `build()` (app.ts). */
export interface Deps {
  config: AppConfig;
  orm: MikroORM;
  limiter: LimiterStore;
  recaptcha: RecaptchaVerifier;
  cipher: CredentialCipher;
}

export function createServices(deps: Deps) {
  return {
    deps,
    tenancy: new TenancyService(deps.orm),
    settings: new SettingsService(deps.orm, deps.config.maintenance),
    auth: new AuthService(deps.limiter, deps.recaptcha, deps.config.sessionTtlSeconds),
    configs: new ConfigService(),
    conversations: new ConversationService(),
    handoff: new HandoffService(),
    templates: new TemplateService(createProviders(deps.config), deps.cipher),
    translations: new TranslationService(),
    limits: new LimitsService(deps.limiter),
    metrics: new MetricsService(),
    events: new EventsService(deps.orm, deps.config),
    templateSends: new TemplateSendService(),
    whatsappInbound: new WhatsAppInboundService(deps.cipher),
    webhooks: new WebhookService(deps.config.webhooks, deps.cipher),
  };
}

export type Services = ReturnType<typeof createServices>;

// `RequestContext.services` (src/context) is this registry: declared here, downward, so the context
// module never imports the services.
declare module '../context/index.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface ServiceRegistry extends Services {}
}
