/**
 * Events (CONTRACT §9.4): the append in the writer's transaction (event-log), the streams that
 * SSE and subscriptions read (events.service: each an EventStream, event-stream.ts, over the shared
 * reads of feed.ts), their caps and re-validation (streams), the bus that wakes them across
 * processes (event-bus), and the project's webhooks (webhook.service; sent by
 * workers/webhook-dispatcher.ts).
 */
export { EventsService } from './events.service.js';
export { WebhookService } from './webhook.service.js';
