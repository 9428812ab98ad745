import { afterAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../support/app.js';
import { createTestDatabase, TEST_CREDENTIALS_KEY, type TestDatabase } from '../support/db.js';
import { ensureEmitted } from '../support/dist.js';
import { baseFixture } from '../support/fixtures.js';
import { startServe, stopServe, type ServeProcess } from '../support/serve-process.js';

/**
 * Finding 9 of issue 29: `serve` seeded a demo tenant (and printed its administrator's password)
 * into any database without one, and failed on a database whose ids 1–3 were taken ("fixture:
 * ai_conversations id 2 belongs to another project"). The demo now belongs to the embedded
 * database (test/cli/serve.test.ts) or `serve --demo`, with ids the database assigns.
 */
const ONE_TO_THREE = [1, 2, 3];

/** acme holds ids 1–3 of every table the demo writes (as after `ordergraph seed-bench`). */
function takenIds() {
  const fixture = baseFixture({
    products: ONE_TO_THREE.map((id) => ({ id, business_id: 1, name: `P${id}`, price: 1 })),
    agents: ONE_TO_THREE.map((id) => ({
      id,
      business_id: 1,
      name: `A${id}`,
      provider: 'web',
      provider_type: 'chat',
      provider_external_id: `taken-${id}`,
      enabled: true,
    })),
    templates: ONE_TO_THREE.map((id) => ({
      id,
      agent_id: 1,
      external_id: `x${id}`,
      name: `t${id}`,
      language: 'en',
      category: 'UTILITY',
      status: 'APPROVED',
      components: [],
    })),
    conversations: ONE_TO_THREE.map((id) => ({
      id,
      agent_id: 1,
      user_id: 3,
      business_id: 1,
      status: 'closed',
      status_reason: 'completed',
    })),
    messages: ONE_TO_THREE.map((id) => ({ id, conversation_id: id, role: 'user', content: `acme ${id}`, public: true })),
    orders: ONE_TO_THREE.map((id) => ({
      id,
      business_id: 1,
      customer_id: 3,
      conversation_id: id,
      status: 1,
      summary: { total: 1 },
      products: [{ product_id: id, name: `P${id}`, quantity: 1, price: 1 }],
    })),
  });
  return fixture;
}

describe.each(ENGINES)('serve and the demo project (%s)', (engine) => {
  const servers: ServeProcess[] = [];
  const dbs: TestDatabase[] = [];
  afterAll(async () => {
    await stopServe(servers);
    for (const db of dbs) await db.orm.close();
  });

  async function serve(db: TestDatabase, args: string[] = []): Promise<ServeProcess> {
    await ensureEmitted('demo-seed.test');
    const s = await startServe(
      db.url,
      { DATABASE_DIRECT_URL: db.directUrl, CREDENTIALS_KEY: TEST_CREDENTIALS_KEY, GRAPHQL_ENGINE: engine },
      { args },
    );
    servers.push(s);
    return s;
  }
  async function database(): Promise<TestDatabase> {
    const db = await createTestDatabase();
    dbs.push(db);
    await db.load(takenIds());
    return db;
  }

  it('creates no demo project (and prints no password) on a DATABASE_URL database', async () => {
    const db = await database();
    const s = await serve(db);
    // the seed would run before listening: /health/live answering means it is decided
    expect(await db.sql("select code from projects where code = 'demo'")).toEqual([]);
    expect(s.output()).not.toContain('Demo project');
    expect((await fetch(`${s.base}/v400/en/demo/configs`)).status).toBe(401);
  }, 120_000);

  it('seeds it with --demo beside a project holding ids 1–3, with ids the database assigns; the printed credentials work', async () => {
    const db = await database();
    const s = await serve(db, ['--demo']);
    // printed right after listening; the pipe may bring it a moment after /health/live answered
    for (let i = 0; i < 100 && !s.output().includes('server API key'); i++) await new Promise((r) => setTimeout(r, 100));
    const out = s.output();
    const password = /administrator\s+admin@demo\.test \/ (\S+)/.exec(out)?.[1];
    const key = /server API key\s+(\S+)/.exec(out)?.[1];
    expect(password, out).toBeTruthy();

    const auth = await fetch(`${s.base}/v400/en/demo/auth`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@demo.test', password }),
    });
    expect(auth.status).toBe(200);
    const list = await fetch(`${s.base}/v400/en/demo/ai/conversations?page_size=1`, { headers: { 'x-api-key': key! } });
    expect(list.status).toBe(200);
    expect(((await list.json()) as any).pagination.total).toBeGreaterThan(1000);

    // acme's rows are acme's still, and no demo row took a fixed id
    for (const table of ['ai_conversations', 'ai_messages', 'orders', 'products', 'ai_agents', 'ai_templates', 'businesses', 'users']) {
      const rows = await db.sql<{ id: number; code: string }>(
        `select t.id, p.code from ${table} t join projects p on p.id = t.project_id where t.id in (1, 2, 3) order by t.id`,
      );
      expect(rows, table).toEqual(ONE_TO_THREE.map((id) => ({ id, code: 'acme' })));
    }
    const [demoConversation] = await db.sql<{ content: string }>(
      "select m.content from ai_messages m join projects p on p.id = m.project_id where p.code = 'demo' and m.content = 'One margherita, please'",
    );
    expect(demoConversation).toBeTruthy();
    // a second start finds it and seeds nothing
    await stopServe([s]);
    const again = await serve(db, ['--demo']);
    expect(again.output()).not.toContain('Demo project');
    expect(await db.sql("select count(*)::int as n from users u join projects p on p.id = u.project_id where p.code = 'demo'")).toEqual([
      { n: 3 },
    ]);
  }, 180_000);
});
