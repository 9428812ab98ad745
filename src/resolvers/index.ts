import type { NonEmptyArray } from 'type-graphql';
import { AuthResolver } from './auth.resolver.js';
import { ConfigResolver } from './config.resolver.js';
import { ConversationResolver } from './conversation.resolver.js';
import { LimitsResolver } from './limits.resolver.js';
import { SystemResolver } from './system.resolver.js';
import { TemplateResolver } from './template.resolver.js';
import { TranslationResolver } from './translation.resolver.js';
import { MetricsResolver } from './metrics.resolver.js';
import { EventResolver } from './event.resolver.js';
import { WebhookResolver } from './webhook.resolver.js';
import { WhatsAppResolver } from './whatsapp.resolver.js';
import { AgentResolver } from './agent.resolver.js';
import { UploadResolver } from './upload.resolver.js';
import { CounterResolver } from './counter.resolver.js';
import { OrderResolver } from './order.resolver.js';

/** Every resolver of the one schema. */
export const RESOLVERS: NonEmptyArray<Function> = [
  AuthResolver,
  ConfigResolver,
  SystemResolver,
  LimitsResolver,
  TemplateResolver,
  TranslationResolver,
  ConversationResolver,
  MetricsResolver,
  WhatsAppResolver,
  WebhookResolver,
  EventResolver,
  AgentResolver,
  UploadResolver,
  CounterResolver,
  OrderResolver,
];
