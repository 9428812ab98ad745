import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { parseWork, WORK_CHANNEL, type OutboxKind } from '../../src/services/events/event-log.js';
import { startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';

/**
 * Which outbox workers a committed write wakes (issue 45): a message that queues nothing (no WhatsApp
 * send, no webhook that wants its event) wakes none, in this process or any other; a WhatsApp reply
 * wakes the reply sender, a message whose event a webhook wants wakes the webhook dispatcher. This
 * process's workers hear it through EventsService.onWork by the time the write answers; every other
 * process through the sequencer pass's NOTIFY on WORK_CHANNEL, read here on a LISTEN of its own.
 */
const WEB = 1;
const WHATSAPP = 2;

let db: TestDatabase;
let t: TestApp;
let projectId: number;
let listener: pg.Client;
const local: (OutboxKind | null)[] = [];
const heard: string[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  const agent = (id: number, provider: string) => ({
    id,
    business_id: 1,
    name: `Wake ${id}`,
    provider,
    provider_type: 'chat',
    provider_external_id: `wake-${id}`,
    enabled: true,
  });
  await db.load(baseFixture({ agents: [agent(WEB, 'web'), agent(WHATSAPP, 'whatsapp')] }));
  [{ id: projectId }] = await db.sql<{ id: number }>("select id from projects where code = 'acme'");
  t = await startApp('mercurius', db, { config: { webhooks: { ...loadConfig({}).webhooks, allowPrivateNetworks: true } } });
  t.services.events.onWork((kind) => local.push(kind));
  listener = new pg.Client({ connectionString: db.url });
  await listener.connect();
  listener.on('notification', (n) => heard.push(n.payload ?? ''));
  await listener.query(`listen ${WORK_CHANNEL}`);
});
afterAll(async () => {
  await listener?.end();
  await t?.close();
  await db?.orm.close();
});

/** An active conversation of `agentId` with a contact who wrote a minute ago (a WhatsApp reply's window is open). */
async function conversation(agentId: number): Promise<number> {
  const [row] = await db.sql<{ id: number }>(
    `insert into ai_conversations (project_id, agent_id, business_id, contact, status, usage, last_inbound_at)
     values (?, ?, 1, ?, 'active', '{}', now() - interval '1 minute') returning id`,
    [projectId, agentId, `3460000${agentId}${Date.now() % 100000}`],
  );
  return row.id;
}

/**
 * What the other processes heard since the last call: a marker is notified after the write answered,
 * and notifications arrive in commit order, so everything the write's pass sent came before it.
 */
async function heardByOthers(): Promise<OutboxKind[][]> {
  const marker = `marker-${Date.now()}-${Math.random()}`;
  await db.sql('select pg_notify(?, ?)', [WORK_CHANNEL, marker]);
  const started = Date.now();
  while (!heard.includes(marker)) {
    if (Date.now() - started > 5000) throw new Error('the marker notification never arrived');
    await new Promise((r) => setTimeout(r, 10));
  }
  const before = heard.splice(0).slice(0, -1);
  return before.map((p) => parseWork(p)?.kinds ?? []);
}

async function write(conversationId: number): Promise<Record<string, any>> {
  local.length = 0;
  await heardByOthers();
  const res = await t.api({
    method: 'POST',
    path: `/ai/conversations/${conversationId}/messages`,
    key: KEYS.server,
    body: { role: 'assistant', content: 'hello', usage: { cost: 0.01 } },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().result;
}

describe('outbox wake-ups of a message write', () => {
  it('a message that queues nothing wakes no worker, here or in another process', async () => {
    await write(await conversation(WEB));
    expect(local).toEqual([]);
    expect(await heardByOthers()).toEqual([]);
  });

  it('a WhatsApp reply wakes the reply sender only', async () => {
    const message = await write(await conversation(WHATSAPP));
    expect(message.delivery_status).toBe('pending');
    expect(local).toEqual(['sends']);
    expect(await heardByOthers()).toEqual([['sends']]);
  });

  it('a message whose event a webhook wants wakes the webhook dispatcher only', async () => {
    const hook = await t.api({
      method: 'POST',
      path: '/ai/webhooks',
      key: KEYS.server,
      body: { url: 'http://127.0.0.1:9/hook', events: ['message.created'] },
    });
    expect(hook.statusCode, hook.body).toBe(200);
    await write(await conversation(WEB));
    expect(local).toEqual(['webhooks']);
    expect(await heardByOthers()).toEqual([['webhooks']]);
    const [{ n }] = await db.sql<{ n: number }>('select count(*)::int as n from ai_webhook_deliveries where project_id = ?', [projectId]);
    expect(n).toBe(1);
  });
});
