import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';
import { sha256 } from '../../src/platform/secrets.js';

/**
 * `fixtures load` (src/fixtures/load.ts, what `npx ordergraph fixtures load FILE` runs) of a partial file
 * changes only what it names (issue 67): a member a file leaves out keeps the stored value.
 */
let db: TestDatabase;
const project = async () =>
  (
    await db.sql<Record<string, any>>(
      `select name, subscription_active, maintenance, ai_enabled, plugins, rate_limits from projects where code = 'acme'`,
    )
  )[0];

beforeAll(async () => {
  db = await createTestDatabase();
  const agent = {
    id: 9,
    business_id: 1,
    name: 'Bot',
    provider: 'whatsapp',
    provider_type: 'chat',
    provider_external_id: 'bot',
    enabled: true,
  };
  await db.load(
    baseFixture({
      maintenance: false,
      rate_limits: [{ key: 'per_ip', points: 50, duration: 60 }] as never,
      franchises: [{ id: 1, name: 'Acme Group' }],
      agents: [agent],
      templates: [
        {
          id: 3,
          agent_id: 9,
          external_id: 't-3',
          name: 'welcome',
          language: 'es',
          status: 'APPROVED',
          components: [{ type: 'BODY', text: 'Hola' }],
        },
      ],
      translations: [{ agent_id: 9, locale: 'es', value: { greeting: 'Hola' } }],
      conversations: [{ id: 5, agent_id: 9, business_id: 1, contact: '5215500000005', status: 'active', usage: { cost: 2.5 } }],
      messages: [{ id: 7, conversation_id: 5, role: 'user', content: 'hola', usage: { input_tokens: 3 } }],
    }),
  );
});
afterAll(() => db.orm.close());

describe('a partial fixture file', () => {
  it('with only code (and a list) keeps the project: name, AI module, plugins, limits', async () => {
    const before = await project();
    expect(before).toMatchObject({ name: 'Acme', ai_enabled: true, plugins: ['loyalty'] });
    await db.load({ projects: [{ code: 'acme', configs: [{ key: 'partial_file', value: 'yes' }] }] });
    expect(await project()).toEqual(before);
    expect(await db.sql(`select value from configs where key = 'partial_file'`)).toEqual([{ value: 'yes' }]);
  });

  it('changes the members it names, and only those', async () => {
    await db.load({ projects: [{ code: 'acme', ai_enabled: false }] });
    expect(await project()).toMatchObject({ name: 'Acme', ai_enabled: false, plugins: ['loyalty'] });
    await db.load({ projects: [{ code: 'acme', ai_enabled: true }] });
  });

  it("rows keep what they leave out: a franchise named only by a business, a template's components, usage, a key's level", async () => {
    await db.load({
      projects: [
        {
          code: 'acme',
          businesses: [{ id: 2, name: 'Acme Norte (nuevo)', franchise_id: 1 }],
          templates: [{ id: 3, agent_id: 9, status: 'PAUSED' }],
          translations: [{ agent_id: 9, locale: 'es' }],
          conversations: [{ id: 5, status: 'closed', status_reason: 'completed' }],
          messages: [{ id: 7, content: 'hola de nuevo' }],
          api_keys: [{ key: KEYS.server, name: 'the server' }],
        },
      ],
    });
    expect(await db.sql(`select name from franchises where id = 1`)).toEqual([{ name: 'Acme Group' }]);
    expect(await db.sql(`select name from businesses where id = 2`)).toEqual([{ name: 'Acme Norte (nuevo)' }]);
    expect(await db.sql(`select name, status, components from ai_templates where id = 3`)).toEqual([
      { name: 'welcome', status: 'PAUSED', components: [{ type: 'BODY', text: 'Hola' }] },
    ]);
    expect(await db.sql(`select value from ai_translations where agent_id = 9 and locale = 'es'`)).toEqual([
      { value: { greeting: 'Hola' } },
    ]);
    expect(await db.sql(`select status, usage, contact from ai_conversations where id = 5`)).toEqual([
      { status: 'closed', usage: { cost: 2.5 }, contact: '5215500000005' },
    ]);
    expect(await db.sql(`select content, usage from ai_messages where id = 7`)).toEqual([
      { content: 'hola de nuevo', usage: { input_tokens: 3 } },
    ]);
    expect(await db.sql(`select server, name from api_keys where key_hash = ?`, [sha256(KEYS.server)])).toEqual([
      { server: true, name: 'the server' },
    ]);
  });

  it('a new row still takes the defaults', async () => {
    await db.load({ projects: [{ code: 'fresh', franchises: [], businesses: [{ id: 500, name: 'Nueva', franchise_id: 50 }] }] });
    expect((await db.sql(`select name, ai_enabled, plugins from projects where code = 'fresh'`))[0]).toEqual({
      name: 'fresh',
      ai_enabled: false,
      plugins: [],
    });
    expect(await db.sql(`select name from franchises where id = 50`)).toEqual([{ name: 'Franchise 50' }]);
    // a config key of another project is this project's own entry
    await db.load({ projects: [{ code: 'fresh', configs: [{ key: 'partial_file', value: 'no' }] }] });
    expect(
      await db.sql(`select c.value from configs c join projects p on p.id = c.project_id where c.key = 'partial_file' order by p.code`),
    ).toEqual([{ value: 'yes' }, { value: 'no' }]);
  });
});
