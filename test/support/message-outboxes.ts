import { loadConfig } from '../../src/config.js';
import { MediaDownloader } from '../../src/workers/media-downloader.js';
import { WhatsAppSender } from '../../src/workers/whatsapp-sender.js';
import type { TestApp } from './app.js';
import { testCipher, type TestDatabase } from './db.js';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

/**
 * The media download job and the reply sender on an in-process app, as `serve` runs them (woken by
 * every commit that queued rows for them), against the Cloud API at `apiUrl`. Returns what stops them.
 */
export function startMessageOutboxes(t: TestApp, db: TestDatabase, apiUrl: string): () => Promise<void> {
  const downloader = new MediaDownloader({
    orm: db.orm,
    cipher: testCipher,
    stores: t.services.media,
    config: t.config.media,
    apiUrl,
    timeoutMs: 2000,
    log: quiet,
    onEvents: (p) => t.services.events.sequence(p),
  }).start();
  const sender = new WhatsAppSender({
    orm: db.orm,
    cipher: testCipher,
    config: { ...loadConfig({}).whatsappSends, retryBaseMs: 50, pollMs: 100 },
    apiUrl,
    timeoutMs: 2000,
    log: quiet,
    onEvents: (p) => t.services.events.sequence(p),
  }).start();
  const off = t.services.events.onWork((kind) => {
    if (kind === null || kind === 'downloads') downloader.wake();
    if (kind === null || kind === 'sends') sender.wake();
  });
  return async () => {
    off();
    await downloader.stop();
    await sender.stop();
  };
}
