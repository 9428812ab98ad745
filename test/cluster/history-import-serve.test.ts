import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, TEST_CREDENTIALS_KEY, type TestDatabase } from '../support/db.js';
import { ensureEmitted } from '../support/dist.js';
import { baseFixture } from '../support/fixtures.js';
import { startServe, stopServe, type ServeProcess } from '../support/serve-process.js';
import { MetaWebhooks } from '../support/whatsapp-fake.js';

/**
 * The phone's history import across real `serve` processes on one database (CONTRACT §13.3): a
 * process SIGKILLed in the middle of a chunk's import (its messages inserted, its transaction not
 * committed) leaves the chunk to the other process, which imports it once: every message stored
 * exactly once, the agent's `history.messages` counted once.
 *
 * The kill lands mid-import deterministically: a session of the test holds the import's per-agent
 * lock, then the agent's row, and lets go of the former, so the killed process's import, having
 * inserted the chunk's conversations and messages, waits at its last statement (the agent's
 * `history`); the test sees it waiting there, kills the process, then lets go of the row.
 */
const AGENT = 1;
const creds = {
  waba_id: 'waba-history-cluster',
  phone_number_id: 'pn-history-cluster',
  access_token: 'EAAG-history-cluster',
  app_secret: 'history-cluster-secret',
  verify_token: 'verify-history-cluster',
};
const ENV = { CREDENTIALS_KEY: TEST_CREDENTIALS_KEY, HISTORY_IMPORT_POLL_MS: '200', DB_STATEMENT_TIMEOUT_MS: '60000' };
/** history-import.ts's per-agent lock class ("OGhi"). */
const HISTORY_LOCK_CLASS = 0x4f476869;
const THREADS = 3;
const PER_THREAD = 400;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let db: TestDatabase;
const servers: ServeProcess[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(
    baseFixture({
      agents: [
        {
          id: AGENT,
          business_id: 1,
          name: 'WA history',
          provider: 'whatsapp',
          provider_type: 'chat',
          provider_external_id: 'wa-history-cluster',
          enabled: true,
          credentials: creds,
        },
      ],
    }),
  );
  await ensureEmitted('history-import-serve.test');
}, 300_000);
afterAll(async () => {
  await stopServe(servers);
  await db.orm.close();
});

async function serve(): Promise<ServeProcess> {
  const s = await startServe(db.url, { DATABASE_DIRECT_URL: db.directUrl, ...ENV });
  servers.push(s);
  return s;
}

async function until(check: () => Promise<boolean> | boolean, timeoutMs: number): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) {
      const seen = await db.sql(
        `select state, wait_event_type, wait_event, left(query, 80) as query from pg_stat_activity where datname = current_database()`,
      );
      const chunks = await db.sql('select id, status, attempts, claimed_by, last_error from ai_history_chunks');
      throw new Error(`timed out: ${JSON.stringify({ seen, chunks, out: servers.map((s) => s.output().slice(-2000)) })}`);
    }
    await sleep(50);
  }
}

/** One chunk of THREADS threads of PER_THREAD messages each, half of them the business's. */
function chunk(): Record<string, unknown> {
  const t0 = Math.floor(Date.now() / 1000) - 30 * 86400;
  return {
    metadata: { phase: '0', chunk_order: '1', progress: '50' },
    threads: Array.from({ length: THREADS }, (_, t) => {
      const phone = `5215590000${t}`;
      return {
        id: phone,
        messages: Array.from({ length: PER_THREAD }, (_, i) => ({
          id: `wamid.history-cluster.${process.pid}.${t}.${i}`,
          ...(i % 2 ? { from: '15550002222', to: phone, history_context: { status: 'DELIVERED' } } : { from: phone }),
          timestamp: String(t0 + i * 60),
          type: 'text',
          text: { body: `message ${t}.${i}` },
        })),
      };
    }),
  };
}

describe('the history import across serve processes', () => {
  it('SIGKILL mid-import: the other process imports the chunk once, no message lost or doubled', async () => {
    const locker = new pg.Client({ connectionString: db.directUrl });
    await locker.connect();
    try {
      const a = await serve();
      // the import waits for the agent's lock (held here) before it writes anything; then, once the webhook has answered,
      // for the agent's row (held here) at its last statement, having inserted the conversations and messages
      await locker.query('select pg_advisory_lock($1, $2)', [HISTORY_LOCK_CLASS, AGENT]);
      const body = {
        object: 'whatsapp_business_account',
        entry: [
          {
            id: creds.waba_id,
            changes: [
              {
                field: 'history',
                value: {
                  messaging_product: 'whatsapp',
                  metadata: { phone_number_id: creds.phone_number_id, display_phone_number: '15550002222' },
                  history: [chunk()],
                },
              },
            ],
          },
        ],
      };
      const answer = await new MetaWebhooks(`${a.base}/v400/en/acme/ai/webhooks/whatsapp`).post(body, creds.app_secret);
      expect(answer.status).toBe(200);
      await until(async () => (await db.sql(`select 1 from pg_stat_activity where wait_event = 'advisory'`)).length === 1, 30_000);
      await locker.query('begin');
      await locker.query('select 1 from ai_agents where id = $1 for no key update', [AGENT]);
      await locker.query('select pg_advisory_unlock($1, $2)', [HISTORY_LOCK_CLASS, AGENT]);
      const waiting = async () =>
        (
          await db.sql(
            `select 1 from pg_stat_activity where wait_event_type = 'Lock' and query like '%update ai_agents set history = jsonb_set%'`,
          )
        ).length === 1;
      await until(waiting, 30_000);
      const [claimed] = await db.sql<{ attempts: number; status: string; claimed_by: string | null }>(
        'select attempts, status, claimed_by from ai_history_chunks where agent_id = ?',
        [AGENT],
      );
      expect(claimed).toMatchObject({ attempts: 1, status: 'pending', claimed_by: expect.any(String) });
      const b = await serve();
      a.child.kill('SIGKILL');
      await new Promise((r) => a.child.once('exit', r));
      await locker.query('rollback');
      const killedAt = Date.now();
      await until(
        async () => (await db.sql(`select 1 from ai_history_chunks where agent_id = ? and status = 'done'`, [AGENT])).length === 1,
        30_000,
      );
      console.log(`[history import serve] imported by the other process ${Date.now() - killedAt} ms after the kill`);
      const [done] = await db.sql<{ attempts: number; claimed_by: string | null }>(
        'select attempts, claimed_by from ai_history_chunks where agent_id = ?',
        [AGENT],
      );
      expect(done).toEqual({ attempts: 2, claimed_by: null });
      const [counts] = await db.sql<{ n: number; ids: number; conversations: number }>(
        `select count(*)::int as n, count(distinct m.external_id)::int as ids, count(distinct m.conversation_id)::int as conversations
           from ai_messages m join ai_conversations c on c.id = m.conversation_id
          where c.agent_id = ? and m.source = 'history'`,
        [AGENT],
      );
      expect(counts).toEqual({ n: THREADS * PER_THREAD, ids: THREADS * PER_THREAD, conversations: THREADS });
      const [agent] = await db.sql<{ history: any }>('select history from ai_agents where id = ?', [AGENT]);
      expect(agent.history).toMatchObject({ messages: THREADS * PER_THREAD, progress: 50, phase: 0, declined: false });
      const roles = await db.sql<{ role: string; delivery_status: string | null; n: number }>(
        `select m.role, m.delivery_status, count(*)::int as n from ai_messages m join ai_conversations c on c.id = m.conversation_id
          where c.agent_id = ? group by 1, 2 order by 1`,
        [AGENT],
      );
      expect(roles).toEqual([
        { role: 'assistant', delivery_status: 'delivered', n: (THREADS * PER_THREAD) / 2 },
        { role: 'user', delivery_status: null, n: (THREADS * PER_THREAD) / 2 },
      ]);
      await stopServe([b]);
    } finally {
      await locker.end();
    }
  }, 240_000);
});
