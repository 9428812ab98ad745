import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';

/**
 * Finding 6 of issue 39 (CONTRACT §11): an `ilike` value ending in a backslash was a 500 ("LIKE
 * pattern must not end with escape character") on the conversations, messages and agents lists.
 * Every list's `ilike` (services/shared/list-query.ts) now takes `%` and `_` as wildcards and every
 * other character, a backslash included, literally.
 */
const agent = (id: number, name: string) => ({
  id,
  business_id: 1,
  name,
  provider: 'web',
  provider_type: 'chat',
  provider_external_id: `like-${id}`,
  enabled: true,
});
let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(
    baseFixture({
      agents: [agent(1, 'Back\\slash'), agent(2, 'Backxslash'), agent(3, 'Ends with \\'), agent(4, 'Fifty 50%')],
      conversations: [
        {
          id: 1,
          agent_id: 1,
          user_id: null,
          contact: 'c1',
          business_id: 1,
          status: 'active',
          usage: {},
          created_at: '2026-11-01T12:00:00Z',
        },
      ],
      messages: [{ id: 1, conversation_id: 1, role: 'user', content: 'hi', public: true, created_at: '2026-11-01T12:01:00Z' }],
    }),
  );
});
afterAll(() => db.orm.close());

const ilike = (attribute: string, value: string) => JSON.stringify([{ attribute, value: { condition: 'ilike', value } }]);

describe.each(ENGINES)('ilike values (%s)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(engine, db);
  });
  afterAll(() => t.close());

  const list = async (path: string, where: string) => {
    const res = await t.api({ path, key: KEYS.server, query: { where } });
    expect(res.statusCode, res.body).toBe(200);
    return (res.json().result as { id: number }[]).map((r) => r.id).sort();
  };

  it('a value ending in a backslash is 200 on every list with ilike', async () => {
    expect(await list('/ai/agents', ilike('name', '%\\'))).toEqual([3]);
    expect(await list('/ai/conversations', ilike('status', 'active\\'))).toEqual([]);
    expect(await list('/ai/conversations', ilike('id', '1\\'))).toEqual([]); // an integer compared as text
    expect(await list('/ai/conversations/1/messages', ilike('role', 'us%\\'))).toEqual([]);
    expect(await list('/ai/agents/1/templates/sends', ilike('to', '52\\'))).toEqual([]);
  });

  it('a backslash is literal, % and _ stay wildcards', async () => {
    expect(await list('/ai/agents', ilike('name', 'back\\slash'))).toEqual([1]);
    expect(await list('/ai/agents', ilike('name', 'back_slash'))).toEqual([1, 2]);
    // `\%` is a backslash then a wildcard, not an escaped percent sign
    expect(await list('/ai/agents', ilike('name', '%h \\%'))).toEqual([3]);
    expect(await list('/ai/agents', ilike('name', '%50%'))).toEqual([4]);
    expect(await list('/ai/agents', ilike('name', '%\\\\%'))).toEqual([]);
  });
});
