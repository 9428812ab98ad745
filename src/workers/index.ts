import type { MikroORM } from '@mikro-orm/postgresql';
import type { FastifyBaseLogger } from 'fastify';
import type { AppConfig } from '../config.js';
import type { Services } from '../services/index.js';
import { ConversionSender } from './conversion-sender.js';
import { HistoryImporter } from './history-importer.js';
import { IdleSweeper } from './idle-sweeper.js';
import { MediaDownloader } from './media-downloader.js';
import { MetricsCompactor } from './metrics-compactor.js';
import { ProcessLiveness } from './process-liveness.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';
import { WhatsAppSender } from './whatsapp-sender.js';

/**
 * What runs in the background of every `serve` process, how it starts and stops, and what makes it
 * safe with any number of processes on one database:
 *
 * | worker | runs on | safe across processes because |
 * |---|---|---|
 * | idle sweeper (`idle-sweeper.ts`): closes idle conversations, deletes expired idempotency keys | a timer (`AI_IDLE_SWEEP_MS`) | rows claimed with `for update skip locked`: each conversation closed once |
 * | webhook dispatcher (`webhook-dispatcher.ts`): the outbox of webhook deliveries | a poll (`WEBHOOK_POLL_MS`) and every sequencer pass that added deliveries (this process's, or another's through the bus) | attempts claimed with leases (`for update skip locked`), so one process sends each |
 * | WhatsApp sender (`whatsapp-sender.ts`): the outbox of replies (CONTRACT §10.1) | a poll (`WHATSAPP_SEND_POLL_MS`) and every commit that queued a reply (here or, through the bus, in another process) | the same loop (`outbox-worker.ts`); only a conversation's oldest pending reply is due, so order holds across processes |
 * | media downloader (`media-downloader.ts`): the downloads of inbound files (CONTRACT §12.3) | a poll (`MEDIA_DOWNLOAD_POLL_MS`) and every commit that stored an inbound file | the same loop (claims name the process, released when it stops beating); leases renewed while a download runs, fenced writes |
 * | history importer (`history-importer.ts`): imports the phone's history chunks (CONTRACT §13.3) | a poll (`HISTORY_IMPORT_POLL_MS`) and every commit that stored a chunk | the same loop; each chunk one transaction fenced by its attempt, an agent's chunks one at a time (an advisory lock) |
 * | conversions sender (`conversion-sender.ts`): the outbox of Conversions API Purchase events (CONTRACT §15.6) | a poll (`WHATSAPP_SEND_POLL_MS`) and every commit that placed an order from an ad | the same loop; claims name the process, backoff from `WHATSAPP_RETRY_BASE_MS`, 8 attempts |
 * | process liveness (`process-liveness.ts`): this process's heartbeat row; releases the outbox claims of processes that stopped beating | a timer (500 ms) on a connection of its own | the release deletes the dead row under its lock first: one process releases each |
 * | metrics compactor (`metrics-compactor.ts`): folds the conversation metrics' deltas into the rollups | a timer (`METRICS_COMPACT_MS`, default 1000) | a transaction-scoped advisory lock: one compactor at a time, the others skip their pass; each batch is deleted and folded in one statement |
 *
 * Two more run inside the app itself, because the request paths need them even without `serve`
 * (tests, `build()`): the event bus (`services/events/event-bus.ts`: a LISTEN connection, or Redis,
 * that wakes this process's streams when any process commits events), with its safety poll
 * (`EVENTS_POLL_MS`) and the pruner of old events (`services/events/events.service.ts`, a timer:
 * a plain delete, idempotent); and the replica router (`db/replicas.ts`, a timer that measures
 * replica lag). They start with `build()` and stop with `app.close()`.
 */
export interface Workers {
  /**
   * The sweeper stops first (a pass in flight finishes, so no event is appended once the app is
   * closing); then `drain` (the server's `app.close()`) runs while the deliveries in flight finish.
   */
  stop(drain: () => Promise<void>): Promise<void>;
}

/** Starts the workers after `listen` (the outboxes once this process has its heartbeat row). */
export async function startWorkers(
  { services, orm, config }: { services: Services; orm: MikroORM; config: AppConfig },
  log: FastifyBaseLogger,
): Promise<Workers> {
  const liveness = new ProcessLiveness({ url: config.databaseUrl ?? orm.config.getClientUrl(), node: config.nodeName, log });
  const sweeper = new IdleSweeper(services, config.idleSweepMs, log).start();
  const compactor = new MetricsCompactor(orm, config.metricsCompactMs, log).start();
  const webhooks = new WebhookDispatcher({ orm, cipher: services.deps.cipher, config: config.webhooks, log, liveness });
  const { events } = services;
  const replies = new WhatsAppSender({
    orm,
    cipher: services.deps.cipher,
    config: config.whatsappSends,
    apiUrl: config.whatsappApiUrl,
    timeoutMs: config.providerTimeoutMs,
    log,
    liveness,
    onEvents: (projectId) => events.sequence(projectId),
    media: services.media,
  });
  const downloads = new MediaDownloader({
    orm,
    cipher: services.deps.cipher,
    stores: services.media,
    config: config.media,
    apiUrl: config.whatsappApiUrl,
    timeoutMs: config.providerTimeoutMs,
    log,
    liveness,
    onEvents: (projectId) => events.sequence(projectId),
  });
  const history = new HistoryImporter({ orm, config: config.historyImport, log, liveness });
  const conversions = new ConversionSender({
    orm,
    cipher: services.deps.cipher,
    config: config.whatsappSends,
    apiUrl: config.whatsappApiUrl,
    timeoutMs: config.providerTimeoutMs,
    log,
    liveness,
    onEvents: (projectId) => events.sequence(projectId),
  });
  await liveness.start();
  webhooks.start();
  replies.start();
  downloads.start();
  history.start();
  conversions.start();
  // A commit that queued rows for an outbox, here or in another process, wakes its worker (null: all of them).
  const unsubscribe = events.onWork((kind) => {
    if (kind === null || kind === 'webhooks') webhooks.wake();
    if (kind === null || kind === 'sends') replies.wake();
    if (kind === null || kind === 'downloads') downloads.wake();
    if (kind === null || kind === 'history') history.wake();
    if (kind === null || kind === 'conversions') conversions.wake();
  });
  return {
    async stop(drain) {
      unsubscribe();
      await Promise.all([sweeper.stop(), compactor.stop()]);
      await Promise.all([drain(), webhooks.stop(), replies.stop(), downloads.stop(), history.stop(), conversions.stop()]);
      // the claims left (made while stop began) are freed with this process's row: nobody waits for their leases
      await liveness.stop();
    },
  };
}
