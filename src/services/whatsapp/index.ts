/**
 * The WhatsApp Cloud API side of agents: message templates (list, refresh, sync, send and the
 * record of sends), the inbound webhook (messages and delivery statuses, CONTRACT §9.3) and the
 * delivery state of replies sent on WhatsApp (delivery.ts; the sender is workers/whatsapp-sender.ts, §10.1).
 */
export { TemplateService } from './template.service.js';
export { TemplateSendService } from './template-send.service.js';
export { WhatsAppInboundService } from './whatsapp-inbound.service.js';
