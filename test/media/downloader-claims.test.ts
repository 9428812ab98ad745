import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { MediaStores, newMediaId } from '../../src/services/media/index.js';
import { MediaDownloader } from '../../src/workers/media-downloader.js';
import type { ClaimOwner } from '../../src/workers/outbox-worker.js';
import { createTestDatabase, testCipher, type TestDatabase } from '../support/db.js';
import { baseFixture } from '../support/fixtures.js';
import { startWhatsAppFake, type WhatsAppFake } from '../support/whatsapp-fake.js';

/**
 * The media downloader's claims under the process liveness (CONTRACT §10.1, §12.3): a claim names
 * the process, and the lease renewals of a running download keep only that claim, so a claim the
 * liveness released (its process was declared dead while it could not beat) is not pushed back a
 * lease, which would delay the process that resumes it.
 */
const AGENT = 1;
const creds = { waba_id: 'waba-claims', phone_number_id: 'pn-claims', access_token: 'EAAG-claims' };
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

let db: TestDatabase;
let fake: WhatsAppFake;
beforeAll(async () => {
  db = await createTestDatabase();
  fake = await startWhatsAppFake();
  fake.addAccount({ ...creds, templates: [] });
  await db.load(
    baseFixture({
      agents: [
        {
          id: AGENT,
          business_id: 1,
          name: 'WA',
          provider: 'whatsapp',
          provider_type: 'chat',
          provider_external_id: 'wa-claims',
          enabled: true,
          credentials: creds,
        },
      ],
    }),
  );
});
afterAll(async () => {
  await fake.close();
  await db.orm.close();
});

async function until(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('media downloader claims', () => {
  it('names its process in the claim, and never renews a claim the liveness released', async () => {
    // a download that lasts ~6 s: several renewals (every third of the 3.5 s lease) while it runs
    const file = fake.addMedia({
      id: `claims.${process.pid}`,
      phone_number_id: creds.phone_number_id,
      bytes: randomBytes(600_000),
      mime_type: 'image/jpeg',
      bytesPerSecond: 100_000,
    });
    const id = newMediaId();
    await db.sql(
      `insert into ai_media (id, project_id, origin, agent_id, provider_media_id)
       values (?, (select id from projects order by id limit 1), 'inbound', ?, ?)`,
      [id, AGENT, file.id],
    );
    let fresh = true;
    const liveness: ClaimOwner = { id: randomUUID(), fresh: () => fresh, register: () => undefined };
    const config = { ...loadConfig({}).media, pollMs: 100 };
    const stores = new MediaStores(db.orm, config);
    const downloader = new MediaDownloader({
      orm: db.orm,
      cipher: testCipher,
      stores,
      config,
      apiUrl: fake.url,
      timeoutMs: 1500,
      log: quiet,
      liveness,
    }).start();
    const row = async () =>
      (
        await db.sql<{ claimed_by: string | null; attempts: number; status: string; due: boolean; lease_s: number }>(
          `select claimed_by, attempts, status, next_attempt_at <= now() as due,
                  extract(epoch from next_attempt_at - now())::float as lease_s from ai_media where id = ?`,
          [id],
        )
      )[0];
    try {
      await until(async () => fake.downloads.get(file.id) === 1, 10_000);
      expect(await row()).toMatchObject({ claimed_by: liveness.id, attempts: 1, status: 'pending', due: false });
      // a renewal while the claim is ours keeps the lease ahead
      await new Promise((r) => setTimeout(r, 2500));
      expect((await row()).lease_s).toBeGreaterThan(1);
      // this process could not beat and was declared dead (so it claims nothing more); the liveness
      // of another process freed its claim, due now
      fresh = false;
      await db.sql('update ai_media set claimed_by = null, next_attempt_at = now() where id = ?', [id]);
      // two renewal periods later the row is still due (nobody pushed it back a lease)
      await new Promise((r) => setTimeout(r, 2500));
      expect(await row()).toMatchObject({ claimed_by: null, attempts: 1, status: 'pending', due: true });
    } finally {
      await downloader.stop();
      stores.close?.();
    }
  }, 60_000);
});
