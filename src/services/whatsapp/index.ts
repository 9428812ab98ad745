/**
 * The WhatsApp Cloud API side of agents: message templates (list, refresh, sync, send and the
 * record of sends), the inbound webhook (its verification in whatsapp-inbound.service.ts; the
 * messages and delivery statuses it brings, stored by inbound-notification.ts, CONTRACT §9.3) and the
 * delivery state of replies sent on WhatsApp (delivery.ts; the sender is workers/whatsapp-sender.ts, §10.1).
 */
export { TemplateService } from './template.service.js';
export { TemplateSendService } from './template-send.service.js';
export { WhatsAppInboundService } from './whatsapp-inbound.service.js';
export { TypingService } from './typing.service.js';
