import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';

/**
 * Both engines share this file's database, so each has its own agents: `base(e) + n`.
 */
const base = (e: number) => 10 + e * 10;
const AGENT = { main: 1, put: 2, source: 3, copyTarget: 4, foreignBusiness: 5, empty: 6 };
const OTHER_AGENT = (e: number) => 150 + e;
const NOAI_AGENT = (e: number) => 170 + e;
const NOAI_KEY = 'noai-tr-server-key-0123456789';
const TOKEN = (id: number) => `EAAG-translations-secret-${id}`;

function agent(id: number, business_id: number | null) {
  return {
    id,
    business_id,
    name: `Agent ${id}`,
    provider: 'whatsapp',
    provider_type: 'chat',
    provider_external_id: `tr-agent-${id}`,
    enabled: true,
    credentials: { waba_id: `w${id}`, phone_number_id: `p${id}`, access_token: TOKEN(id) },
  };
}

const MAIN_EN = { greeting: { hello: 'Hello', bye: 'Bye' }, menu: { title: 'Menu', items: ['a', 'b'] }, footer: 'Thanks' };
const MAIN_ES = { greeting: { hello: 'Hola' } };

let db: TestDatabase;
const seen: string[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  const agents: Record<string, unknown>[] = [];
  const translations: Record<string, unknown>[] = [];
  const otherAgents: Record<string, unknown>[] = [];
  const otherTranslations: Record<string, unknown>[] = [];
  for (const e of [0, 1]) {
    const b = base(e);
    agents.push(
      agent(b + AGENT.main, 1),
      agent(b + AGENT.put, 1),
      agent(b + AGENT.source, null),
      agent(b + AGENT.copyTarget, 1),
      agent(b + AGENT.foreignBusiness, 2),
      agent(b + AGENT.empty, 1),
    );
    translations.push(
      { agent_id: b + AGENT.main, locale: 'en', value: MAIN_EN },
      { agent_id: b + AGENT.main, locale: 'es', value: MAIN_ES },
      { agent_id: b + AGENT.put, locale: 'fr', value: { a: 'b' } },
      { agent_id: b + AGENT.source, locale: 'ar', value: { hello: 'مرحبا' } },
      { agent_id: b + AGENT.source, locale: 'en', value: { hello: 'Hello from source' } },
      { agent_id: b + AGENT.copyTarget, locale: 'es', value: { old: true } },
      { agent_id: b + AGENT.foreignBusiness, locale: 'en', value: { secret: 'x' } },
    );
    otherAgents.push(agent(OTHER_AGENT(e), 101));
    otherTranslations.push({ agent_id: OTHER_AGENT(e), locale: 'en', value: { other: 'project' } });
  }
  const fixture = baseFixture({ agents, translations });
  fixture.projects[1].agents = otherAgents;
  fixture.projects[1].translations = otherTranslations;
  fixture.projects.push({
    code: 'noai-tr',
    name: 'No AI',
    ai_enabled: false,
    api_keys: [{ key: NOAI_KEY, server: true }],
    agents: [agent(NOAI_AGENT(0), null), agent(NOAI_AGENT(1), null)],
  });
  await db.load(fixture);
});
afterAll(() => db.orm.close());

describe.each(ENGINES.map((engine, e) => [engine, e] as const))('AI translations (%s)', (engine, e) => {
  const b = base(e);
  const MAIN = b + AGENT.main;
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp(engine, db);
  });
  afterAll(() => t.close());

  async function call(opts: Parameters<TestApp['api']>[0]) {
    const res = await t.api(opts);
    seen.push(res.body);
    return res;
  }
  const path = (agentId: number, suffix = '') => `/ai/agents/${agentId}/translations${suffix}`;
  async function graph(query: string, variables: Record<string, unknown> = {}) {
    const res = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { 'x-api-key': KEYS.server },
      payload: { query, variables },
    });
    seen.push(res.body);
    return res.json();
  }

  describe('GET', () => {
    it('returns every stored locale keyed by locale', async () => {
      const res = await call({ path: path(MAIN), key: KEYS.server });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ error: false, result: { en: MAIN_EN, es: MAIN_ES } });
    });

    it("returns one locale's value, or {} when there is none", async () => {
      expect((await call({ path: path(MAIN), key: KEYS.admin, query: { locale: 'es' } })).json().result).toEqual(MAIN_ES);
      expect((await call({ path: path(MAIN), key: KEYS.owner, query: { locale: 'fr' } })).json().result).toEqual({});
      expect((await call({ path: path(b + AGENT.empty), key: KEYS.server })).json().result).toEqual({});
    });

    it('refuses an unknown locale', async () => {
      for (const locale of ['de', 'EN', 'es-MX', '']) {
        const res = await call({ path: path(MAIN), key: KEYS.server, query: { locale } });
        expect(res.statusCode, locale).toBe(400);
        expect(res.json().code).toBe('ERROR_VALIDATION');
      }
    });
  });

  describe('PUT', () => {
    const PUT = b + AGENT.put;
    it('replaces every locale and answers the full map with a message in the request language', async () => {
      const body = { translations: { en: { a: { b: 1 } }, ar: { x: 'ي' } } };
      const res = await call({ method: 'PUT', path: path(PUT), key: KEYS.server, lang: 'es', body });
      expect(res.statusCode).toBe(200);
      expect(res.json().result).toEqual({
        message: 'Las traducciones se actualizaron.',
        translations: { en: { a: { b: 1 } }, ar: { x: 'ي' } },
      });
      expect((await call({ path: path(PUT), key: KEYS.server })).json().result).toEqual({ en: { a: { b: 1 } }, ar: { x: 'ي' } });
      const rows = await db.sql<{ locale: string }>('select locale from ai_translations where agent_id = ? order by locale', [PUT]);
      expect(rows.map((r) => r.locale)).toEqual(['ar', 'en']);
    });

    it('answers messages in each language', async () => {
      const expected = { en: 'The translations were updated.', fr: 'Les traductions ont été mises à jour.', ar: 'تم تحديث الترجمات.' };
      for (const [lang, message] of Object.entries(expected)) {
        const res = await call({
          method: 'PUT',
          path: path(PUT),
          key: KEYS.server,
          lang,
          body: { translations: { en: { a: { b: 1 } }, ar: { x: 'ي' } } },
        });
        expect(res.json().result.message).toBe(message);
      }
    });

    it('refuses unknown locales and non-object values, changing nothing', async () => {
      for (const translations of [{ de: { a: 1 } }, { en: 'text' }, { en: [1] }, ['en'], 'en']) {
        const res = await call({ method: 'PUT', path: path(PUT), key: KEYS.server, body: { translations } });
        expect(res.statusCode, JSON.stringify(translations)).toBe(400);
        expect(res.json().code).toBe('ERROR_VALIDATION');
        expect(res.json().result[0]).toMatch(/translations/);
      }
      const bad = await call({ method: 'PUT', path: path(PUT), key: KEYS.server, body: [1] });
      expect(bad.statusCode).toBe(400);
      expect((await call({ path: path(PUT), key: KEYS.server })).json().result).toEqual({ en: { a: { b: 1 } }, ar: { x: 'ي' } });
    });

    it('changes nothing without a body', async () => {
      const res = await call({ method: 'PUT', path: path(PUT), key: KEYS.server });
      expect(res.statusCode).toBe(200);
      expect(res.json().result.translations).toEqual({ en: { a: { b: 1 } }, ar: { x: 'ي' } });
    });

    it('replaces with an empty map', async () => {
      const res = await call({ method: 'PUT', path: path(PUT), key: KEYS.server, body: { translations: {} } });
      expect(res.json().result.translations).toEqual({});
      expect(await db.sql('select id from ai_translations where agent_id = ?', [PUT])).toEqual([]);
    });
  });

  describe('PATCH', () => {
    it('deep-merges per locale; null removes a key; other locales stay', async () => {
      const res = await call({
        method: 'PATCH',
        path: path(MAIN),
        key: KEYS.owner,
        body: {
          translations: {
            en: { greeting: { bye: null, hi: 'Hi' }, menu: { items: ['c'] }, footer: null, extra: { deep: { x: 1, y: null } } },
            fr: { greeting: { hello: 'Bonjour' } },
          },
        },
      });
      expect(res.statusCode).toBe(200);
      const expected = {
        en: { greeting: { hello: 'Hello', hi: 'Hi' }, menu: { title: 'Menu', items: ['c'] }, extra: { deep: { x: 1 } } },
        es: MAIN_ES,
        fr: { greeting: { hello: 'Bonjour' } },
      };
      expect(res.json().result).toEqual({ message: 'The translations were updated.', translations: expected });
      expect((await call({ path: path(MAIN), key: KEYS.server })).json().result).toEqual(expected);
    });

    it('removes a whole locale with null', async () => {
      const res = await call({ method: 'PATCH', path: path(MAIN), key: KEYS.server, body: { translations: { fr: null } } });
      expect(Object.keys(res.json().result.translations)).toEqual(['en', 'es']);
    });

    it('refuses an unknown locale', async () => {
      const res = await call({ method: 'PATCH', path: path(MAIN), key: KEYS.server, body: { translations: { pt: { a: 'b' } } } });
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('ERROR_VALIDATION');
      expect(res.json().result[0]).toContain('translations.pt');
    });
  });

  describe('copy', () => {
    const TARGET = b + AGENT.copyTarget;
    it("replaces the agent's translations with the source agent's", async () => {
      const res = await call({
        method: 'POST',
        path: path(TARGET, '/copy'),
        key: KEYS.server,
        lang: 'fr',
        body: { source_agent_id: b + AGENT.source },
      });
      expect(res.statusCode).toBe(200);
      const expected = { en: { hello: 'Hello from source' }, ar: { hello: 'مرحبا' } };
      expect(res.json().result).toEqual({ message: 'Les traductions ont été copiées.', translations: expected });
      expect((await call({ path: path(TARGET), key: KEYS.server })).json().result).toEqual(expected);
      // the source is unchanged
      expect((await call({ path: path(b + AGENT.source), key: KEYS.server })).json().result).toEqual(expected);
    });

    it('refuses a missing, foreign-project or unowned source agent with 400 not-found', async () => {
      for (const [source, key] of [
        [99999, KEYS.server],
        [OTHER_AGENT(e), KEYS.server],
        [b + AGENT.foreignBusiness, KEYS.owner],
        [b + AGENT.source, KEYS.owner],
      ] as const) {
        const res = await call({ method: 'POST', path: path(TARGET, '/copy'), key, body: { source_agent_id: source } });
        expect(res.statusCode, String(source)).toBe(400);
        expect(res.json().code).toBe('ERROR_AI_AGENT_NOT_FOUND');
      }
      expect((await call({ path: path(TARGET), key: KEYS.server })).json().result).toEqual({
        en: { hello: 'Hello from source' },
        ar: { hello: 'مرحبا' },
      });
    });

    it('validates source_agent_id strictly', async () => {
      for (const body of [{}, { source_agent_id: '3' }, { source_agent_id: 1.5 }, { source_agent_id: -1 }]) {
        const res = await call({ method: 'POST', path: path(TARGET, '/copy'), key: KEYS.server, body });
        expect(res.statusCode, JSON.stringify(body)).toBe(400);
        expect(res.json().code).toBe('ERROR_VALIDATION');
      }
    });
  });

  describe('access', () => {
    it('gives a business owner only the agents of their businesses', async () => {
      for (const agentId of [b + AGENT.foreignBusiness, b + AGENT.source]) {
        const res = await call({ path: path(agentId), key: KEYS.owner });
        expect(res.statusCode).toBe(400);
        expect(res.json().code).toBe('ERROR_AI_AGENT_NOT_FOUND');
      }
      const put = await call({ method: 'PUT', path: path(b + AGENT.foreignBusiness), key: KEYS.owner, body: { translations: {} } });
      expect(put.json().code).toBe('ERROR_AI_AGENT_NOT_FOUND');
      expect((await call({ path: path(b + AGENT.foreignBusiness), key: KEYS.server })).json().result).toEqual({ en: { secret: 'x' } });
    });

    it("answers 400 not-found for another project's agent", async () => {
      for (const method of ['GET', 'PUT', 'PATCH'] as const) {
        const res = await call({
          method,
          path: path(OTHER_AGENT(e)),
          key: KEYS.server,
          ...(method === 'GET' ? {} : { body: { translations: {} } }),
        });
        expect(res.statusCode).toBe(400);
        expect(res.json().code).toBe('ERROR_AI_AGENT_NOT_FOUND');
      }
      const copy = await call({ method: 'POST', path: path(OTHER_AGENT(e), '/copy'), key: KEYS.server, body: { source_agent_id: MAIN } });
      expect(copy.json().code).toBe('ERROR_AI_AGENT_NOT_FOUND');
    });

    it('gives 401 to customers and anonymous callers, 403 with the AI module off', async () => {
      expect((await call({ path: path(MAIN), key: KEYS.customer })).statusCode).toBe(401);
      expect((await call({ method: 'PATCH', path: path(MAIN), body: { translations: {} } })).statusCode).toBe(401);
      const off = await call({ path: path(NOAI_AGENT(e)), project: 'noai-tr', key: NOAI_KEY });
      expect(off.statusCode).toBe(403);
      expect(off.json().code).toBe('ERROR_AI_MODULE_DISABLED');
    });
  });

  describe('on /graphql', () => {
    it('reads and changes translations with the same rules', async () => {
      const q = await graph('query($a: SafeInt!, $l: String) { aiTranslations(agent_id: $a, locale: $l) }', {
        a: b + AGENT.source,
        l: 'ar',
      });
      expect(q.data.aiTranslations).toEqual({ hello: 'مرحبا' });
      const bad = await graph('query($a: SafeInt!) { aiTranslations(agent_id: $a, locale: "xx") }', { a: MAIN });
      expect(bad.errors[0].extensions.code).toBe('ERROR_VALIDATION');
      const empty = b + AGENT.empty;
      const patch = await graph(
        'mutation($a: SafeInt!, $t: JSON) { updateAiTranslations(agent_id: $a, translations: $t) { message translations } }',
        { a: empty, t: { es: { a: { b: 'c' } } } },
      );
      expect(patch.data.updateAiTranslations).toEqual({
        message: 'The translations were updated.',
        translations: { es: { a: { b: 'c' } } },
      });
      const foreign = await graph(
        'mutation($a: SafeInt!, $s: SafeInt!) { copyAiTranslations(agent_id: $a, source_agent_id: $s) { message } }',
        {
          a: empty,
          s: OTHER_AGENT(e),
        },
      );
      expect(foreign.errors[0].extensions.code).toBe('ERROR_AI_AGENT_NOT_FOUND');
      const replaced = await graph('mutation($a: SafeInt!) { replaceAiTranslations(agent_id: $a, translations: {}) { translations } }', {
        a: empty,
      });
      expect(replaced.data.replaceAiTranslations.translations).toEqual({});
    });
  });
});

describe('secrets', () => {
  it('no response carries an agent credential', () => {
    expect(seen.length).toBeGreaterThan(30);
    for (const body of seen) expect(body).not.toMatch(/EAAG-translations-secret/);
  });
});
