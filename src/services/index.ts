import type { MikroORM } from '@mikro-orm/postgresql';
import type { AppConfig } from '../config.js';
import type { LimiterStore } from '../limits/store.js';
import type { CredentialCipher } from '../platform/secrets.js';
import type { RecaptchaVerifier } from '../providers/recaptcha.js';
import { createProviders } from '../providers/registry.js';
import { AgentService, TranslationService } from './agents/index.js';
import { ConversationService, ConversationWriteService, HandoffService, ReplyService } from './conversations/index.js';
import { EventsService, WebhookService } from './events/index.js';
import { AuthService, LimitsService, OperatorService, TenancyService } from './identity/index.js';
import { MediaService, MediaStores, MediaUploadService } from './media/index.js';
import { MetricsService } from './metrics/index.js';
import { CartService, MenuService, OrderService } from './orders/index.js';
import { ConfigService, SettingsService } from './settings/index.js';
import { TemplateSendService, TemplateService, TypingService, WhatsAppInboundService } from './whatsapp/index.js';

/**
 * The services, grouped by domain (each folder's index.ts says what it offers): identity (tenancy,
 * auth, access, limits), settings, conversations, agents, whatsapp, events, metrics, and shared
 * (list queries). Each takes the request context first. Background workers are in src/workers/.
 */

/** What services are built from: made once per process by `build()` (app.ts). */
export interface Deps {
  config: AppConfig;
  orm: MikroORM;
  limiter: LimiterStore;
  recaptcha: RecaptchaVerifier;
  cipher: CredentialCipher;
}

export function createServices(deps: Deps) {
  const providers = createProviders(deps.config);
  const media = new MediaStores(deps.orm, deps.config.media);
  return {
    deps,
    tenancy: new TenancyService(deps.orm),
    settings: new SettingsService(deps.orm, deps.config.maintenance),
    auth: new AuthService(deps.limiter, deps.recaptcha, deps.config.sessionTtlSeconds),
    configs: new ConfigService(),
    conversations: new ConversationService(),
    conversationWrites: new ConversationWriteService(deps.config.writeBatchMax),
    handoff: new HandoffService(),
    /** Saved replies (CONTRACT §10.6). */
    replies: new ReplyService(),
    /** Colleagues by name (CONTRACT §10.6). */
    operators: new OperatorService(),
    typing: new TypingService(providers, deps.cipher),
    templates: new TemplateService(providers, deps.cipher),
    translations: new TranslationService(),
    limits: new LimitsService(deps.limiter),
    metrics: new MetricsService(),
    events: new EventsService(deps.orm, deps.config),
    templateSends: new TemplateSendService(),
    whatsappInbound: new WhatsAppInboundService(deps.cipher),
    webhooks: new WebhookService(deps.config.webhooks, deps.cipher),
    agents: new AgentService(providers, deps.cipher),
    /** Where files are kept (CONTRACT §12.3): PostgreSQL, or S3 when MEDIA_S3_BUCKET is set. */
    media,
    /** Files a project uploads to send (CONTRACT §12.5). */
    mediaUploads: new MediaUploadService(media),
    mediaFiles: new MediaService(),
    /** The menu, carts and orders (CONTRACT §15). */
    menu: new MenuService(),
    carts: new CartService(),
    orders: new OrderService(),
  };
}

export type Services = ReturnType<typeof createServices>;

// `RequestContext.services` (src/context) is this registry: declared here, downward, so the context
// module never imports the services.
declare module '../context/index.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface ServiceRegistry extends Services {}
}
