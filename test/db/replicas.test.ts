import net from 'node:net';
import type { MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initORM } from '../../src/db/orm.js';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS, PASSWORD } from '../support/fixtures.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A TCP forwarder to the test database that the test can cut and restore: the "replica". */
function forwarder(target: URL) {
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  let port = 0;
  const open = () =>
    new Promise<void>((resolve) => {
      server = net.createServer((client) => {
        const up = net.connect(Number(target.port), target.hostname);
        for (const s of [client, up]) {
          sockets.add(s);
          s.on('error', () => undefined);
          s.on('close', () => {
            sockets.delete(s);
            client.destroy();
            up.destroy();
          });
        }
        client.pipe(up);
        up.pipe(client);
      });
      server.listen(port, '127.0.0.1', () => {
        port = (server!.address() as net.AddressInfo).port;
        resolve();
      });
    });
  const cut = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server!.close(() => resolve());
    });
  return {
    open,
    cut,
    url: () => {
      const u = new URL(target);
      u.port = String(port);
      return u.toString();
    },
  };
}

let db: TestDatabase;
let replica: ReturnType<typeof forwarder>;
let orm: MikroORM;
const log: string[] = [];
beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(
    baseFixture({
      agents: [
        { id: 1, business_id: 1, name: 'Bot', provider: 'whatsapp', provider_type: 'chat', provider_external_id: 'wa-main', enabled: true },
      ],
      conversations: [{ id: 1, agent_id: 1, user_id: 3, business_id: 1, status: 'closed', status_reason: 'completed', usage: {} }],
    }),
  );
  replica = forwarder(new URL(db.url));
  await replica.open();
  orm = await initORM({ clientUrl: db.url, replicaUrls: [replica.url()], onQuery: (line) => log.push(line) });
});
afterAll(async () => {
  await orm.close();
  await replica.cut();
  await db.orm.close();
});

/** Statements a request ran on the replica (the router's own probes excluded). */
const viaReplica = (lines: string[]) =>
  lines.filter((l) => l.includes("via read connection 'replica-1'") && !l.includes('pg_last_wal_replay_lsn'));

describe.each(ENGINES)('read replicas (%s)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(engine, db, { orm });
  });
  afterAll(() => t.close());

  /** What one request ran, as logged. */
  async function traced(run: () => Promise<{ statusCode: number }>, status = 200): Promise<string[]> {
    const from = log.length;
    const res = await run();
    expect(res.statusCode).toBe(status);
    return log.slice(from);
  }
  const list = () => t.api({ path: '/ai/conversations', key: KEYS.server });

  async function untilReplicaUsed(): Promise<string[]> {
    for (const deadline = Date.now() + 5000; Date.now() < deadline; await sleep(100)) {
      const lines = await traced(list);
      if (viaReplica(lines).some((l) => /from "ai_conversations"/.test(l))) return lines;
    }
    throw new Error('the replica was never used');
  }

  it('sends list and metrics reads to the replica, and the rest to the primary', async () => {
    const lines = await untilReplicaUsed();
    expect(viaReplica(lines).some((l) => /count\(/.test(l))).toBe(true); // the page's total and messages_count
    // The identity lookup (the key) never reads a replica (the caller cache may skip it on this request).
    expect(viaReplica(lines).some((l) => l.includes('api_keys'))).toBe(false);
    const metrics = await traced(() => t.api({ path: '/ai/metrics/orders', key: KEYS.server, query: { month: '2026-01' } }));
    expect(viaReplica(metrics).length).toBeGreaterThan(0);
    const auth = await traced(() => t.api({ method: 'POST', path: '/auth', body: { email: 'admin@acme.test', password: PASSWORD } }));
    expect(viaReplica(auth)).toEqual([]);
    const messages = await traced(() => t.api({ path: '/ai/conversations/1/messages', key: KEYS.server }), 200);
    expect(viaReplica(messages).length).toBeGreaterThan(0);
  });

  it('keeps get-or-create on the primary', async () => {
    await untilReplicaUsed();
    const lines = await traced(() => t.api({ path: '/ai/agents/wa-main/conversations/current', key: KEYS.customer }));
    expect(lines.some((l) => l.includes('insert into ai_conversations') || l.includes('from "ai_conversations"'))).toBe(true);
    expect(viaReplica(lines)).toEqual([]);
  });

  it('falls back to the primary when the replica fails, leaves it out, and uses it again once it answers', async () => {
    await untilReplicaUsed();
    await replica.cut();
    try {
      const failed = await traced(list); // the replica read fails, the primary answers: no 5xx
      expect(failed.some((l) => /from "ai_conversations"/.test(l) && !l.includes('via read'))).toBe(true);
      for (let i = 0; i < 3; i++) expect(viaReplica(await traced(list)), JSON.stringify(failed)).toEqual([]);
      const scrape = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
      expect(scrape).toContain('ordergraph_db_replica_healthy{replica="replica-1"} 0');
    } finally {
      await replica.open();
    }
    await untilReplicaUsed();
    expect((await t.app.inject({ method: 'GET', url: '/metrics' })).body).toContain('ordergraph_db_replica_healthy{replica="replica-1"} 1');
  });
});
