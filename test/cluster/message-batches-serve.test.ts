import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, TEST_CREDENTIALS_KEY, type TestDatabase } from '../support/db.js';
import { ensureEmitted } from '../support/dist.js';
import { baseFixture, KEYS } from '../support/fixtures.js';
import { startServe, stopServe, type ServeProcess } from '../support/serve-process.js';

/**
 * Coalesced message writes (issue 69) across two real `serve` processes on one database: 20 clients write
 * to 10 conversations through both while one process is SIGKILLed in the middle of its batches. Every
 * write that was answered 200 is stored with its message.created, none twice; what the dead process had
 * not answered is either wholly there (message and event) or not at all; each conversation's events
 * follow its messages; the processes did coalesce (rows of one transaction share their xmin).
 */
const CONVERSATIONS = Array.from({ length: 10 }, (_, i) => i + 1);
let db: TestDatabase;
const servers: ServeProcess[] = [];
/** Set just before the first process is SIGKILLed: its clients' requests may then fail. */
let killed = false;
beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(
    baseFixture({
      agents: [{ id: 1, business_id: 1, name: 'A', provider: 'web', provider_type: 'chat', provider_external_id: 'bot', enabled: true }],
      conversations: CONVERSATIONS.map((id) => ({
        id,
        agent_id: 1,
        business_id: 1,
        user_id: null,
        contact: `k${id}`,
        status: 'active',
        created_at: new Date().toISOString(),
      })),
    }),
  );
  await ensureEmitted('message-batches-serve.test');
  const env = { DATABASE_DIRECT_URL: db.directUrl, CREDENTIALS_KEY: TEST_CREDENTIALS_KEY, EVENTS_POLL_MS: '200' };
  servers.push(...(await Promise.all([0, 1].map(() => startServe(db.url, env)))));
}, 300_000);
afterAll(async () => {
  await stopServe(servers);
  await db.orm.close();
});

interface Acked {
  id: number;
  content: string;
  conversation_id: number;
}

/** One client: writes to its conversation through `server` until `until` says stop; what was answered 200. */
async function client(server: ServeProcess, c: number, until: () => boolean): Promise<{ acked: Acked[]; sent: string[] }> {
  const acked: Acked[] = [];
  const sent: string[] = [];
  for (let n = 0; !until(); n++) {
    const content = `s${c}-${n}`;
    sent.push(content);
    try {
      const res = await fetch(`${server.base}/v400/en/acme/ai/conversations/${CONVERSATIONS[c % 10]}/messages`, {
        method: 'POST',
        headers: { 'x-api-key': KEYS.server, 'content-type': 'application/json' },
        body: JSON.stringify({ role: 'assistant', content }),
      });
      if (res.status !== 200) throw new Error(`status ${res.status}: ${await res.text()}`);
      acked.push(((await res.json()) as { result: Acked }).result);
    } catch (err) {
      if (server !== servers[0] || !killed) throw err;
      return { acked, sent };
    }
  }
  return { acked, sent };
}

describe('coalesced message writes across two serve processes', () => {
  it('a SIGKILL mid-batch loses no acknowledged write, and no write is half there', async () => {
    let stop = false;
    const clients = Array.from({ length: 20 }, (_, c) => client(servers[c % 2], c, () => stop));
    // let batches form on both, then kill the first process while its clients' writes are in flight
    await new Promise((r) => setTimeout(r, 1500));
    killed = true;
    servers[0].child.kill('SIGKILL');
    await new Promise((r) => setTimeout(r, 1000));
    stop = true;
    const results = await Promise.all(clients);
    const acked = results.flatMap((r) => r.acked);
    expect(results.filter((_, c) => c % 2 === 1).every((r) => r.acked.length === r.sent.length)).toBe(true);
    expect(results.filter((_, c) => c % 2 === 0).reduce((n, r) => n + r.acked.length, 0)).toBeGreaterThan(0);

    // the survivor's poll sequences whatever the dead process committed but had not passed
    let inbox = 1;
    for (let waited = 0; inbox > 0 && waited < 10_000; waited += 100) {
      inbox = (await db.sql<{ n: number }>('select count(*)::int as n from ai_event_inbox'))[0].n;
      if (inbox) await new Promise((r) => setTimeout(r, 100));
    }
    expect(inbox).toBe(0);
    const messages = await db.sql<{ id: number; content: string; conversation_id: number; tx: string }>(
      'select id, content, conversation_id, xmin::text as tx from ai_messages order by id',
    );
    const events = await db.sql<{ conversation_id: number; data: any }>(
      `select conversation_id, data from ai_events where type = 'message.created' order by id`,
    );
    // every acknowledged write is stored, as answered, once
    const byContent = new Map(messages.map((m) => [m.content, m]));
    expect(messages).toHaveLength(byContent.size);
    for (const a of acked) expect(byContent.get(a.content)).toMatchObject({ id: a.id, conversation_id: a.conversation_id });
    // no message without its event, no event without its message, each conversation's in order
    expect(events.map((e) => e.data.id).sort((a, b) => a - b)).toEqual(messages.map((m) => m.id));
    for (const id of CONVERSATIONS) {
      const mine = events.filter((e) => e.conversation_id === id).map((e) => e.data.id);
      expect(mine).toEqual([...mine].sort((a, b) => a - b));
    }
    // each client's stored writes are a prefix of what it sent, in order
    for (const [c, r] of results.entries()) {
      const stored = messages.filter((m) => m.content.startsWith(`s${c}-`)).map((m) => m.content);
      expect(stored).toEqual(r.sent.slice(0, stored.length));
      expect(stored.length).toBeGreaterThanOrEqual(r.acked.length);
    }
    const transactions = new Set(messages.map((m) => m.tx)).size;
    console.log(`[message batches serve] ${acked.length} acknowledged, ${messages.length} stored, in ${transactions} transactions`);
    expect(transactions).toBeLessThan(messages.length);

    // the survivor keeps writing
    const after = await fetch(`${servers[1].base}/v400/en/acme/ai/conversations/1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': KEYS.server, 'content-type': 'application/json' },
      body: JSON.stringify({ role: 'assistant', content: 'after' }),
    });
    expect(after.status).toBe(200);
  }, 60_000);
});
