import type { RouteSpec } from '../route-spec.js';
import { authRoutes } from './auth.routes.js';
import { configRoutes } from './config.routes.js';
import { conversationRoutes } from './conversation.routes.js';
import { templateRoutes } from './template.routes.js';
import { translationRoutes } from './translation.routes.js';
import { metricsRoutes } from './metrics.routes.js';
import { eventRoutes } from './event.routes.js';
import { webhookRoutes } from './webhook.routes.js';
import { whatsappRoutes } from './whatsapp.routes.js';
import { agentRoutes } from './agent.routes.js';
import { uploadRoutes } from './upload.routes.js';
import { counterRoutes } from './counter.routes.js';
import { orderRoutes } from './order.routes.js';

/** Every REST endpoint, as data. */
export const ROUTES: RouteSpec[] = [
  ...authRoutes,
  ...configRoutes,
  ...templateRoutes,
  ...translationRoutes,
  ...conversationRoutes,
  ...metricsRoutes,
  ...whatsappRoutes,
  ...webhookRoutes,
  ...eventRoutes,
  ...agentRoutes,
  ...uploadRoutes,
  ...counterRoutes,
  ...orderRoutes,
];
