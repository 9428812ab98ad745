import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pathSegment, ProviderError } from '../../src/providers/messaging.js';
import { createWhatsAppTextSender } from '../../src/providers/whatsapp/client.js';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';
import { startWhatsAppFake, type WhatsAppFake } from '../support/whatsapp-fake.js';

/**
 * Finding 9 of issue 39 (CONTRACT §11, "provider ids are ids"): `phone_number_id: ".."` made
 * credentials/check call `GET {origin}/?fields=…` with the agent's token, outside the API version
 * path. `waba_id` and `phone_number_id` are now 1–64 letters, digits, `_` or `-` where they are
 * accepted (400 naming the key), and every id placed in a Cloud API URL goes through `pathSegment`
 * (percent-encoded, and an id or nothing), so agents stored before the rule send nothing either.
 * Against the local fake Cloud API.
 */
const wa = (id: number, credentials: Record<string, string>) => ({
  id,
  business_id: 1,
  name: `WA ${id}`,
  provider: 'whatsapp',
  provider_type: 'chat',
  provider_external_id: `ids-${id}`,
  enabled: true,
  credentials,
});
// stored before the rule existed (fixtures are the operator's and bypass the API's checks)
const DOTS = 1;
const SLASH = 2;
const GOOD = 3;

let db: TestDatabase;
let fake: WhatsAppFake;
beforeAll(async () => {
  db = await createTestDatabase();
  fake = await startWhatsAppFake();
  fake.addAccount({ waba_id: 'waba-good', phone_number_id: 'pn-good', access_token: 'tok-good', templates: [] });
  await db.load(
    baseFixture({
      agents: [
        wa(DOTS, { waba_id: '..', phone_number_id: '..', access_token: 'tok-dots' }),
        wa(SLASH, { waba_id: '../../x', phone_number_id: '../me', access_token: 'tok-slash' }),
        wa(GOOD, { waba_id: 'waba-good', phone_number_id: 'pn-good', access_token: 'tok-good' }),
      ],
    }),
  );
});
afterAll(async () => {
  await fake.close();
  await db.orm.close();
});

describe.each(ENGINES)('provider ids (%s)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(engine, db, { config: { whatsappApiUrl: fake.url } });
  });
  afterAll(() => t.close());

  const problem = (res: { statusCode: number; body: string }, field: string) => {
    expect(res.statusCode, res.body).toBe(400);
    const body = JSON.parse(res.body);
    expect(body.code).toBe('ERROR_VALIDATION');
    expect(body.result).toContain(`The field ${field} must be 1 to 64 letters, digits, - or _.`);
  };
  const create = (credentials: Record<string, string>, ext: string) =>
    t.api({
      method: 'POST',
      path: '/ai/agents',
      key: KEYS.server,
      body: { name: 'x', provider: 'whatsapp', provider_type: 'chat', provider_external_id: `${engine}-${ext}`, credentials },
    });

  it('refuses a waba_id or phone_number_id that is not an id on POST and PATCH, naming the key', async () => {
    problem(await create({ phone_number_id: '..', access_token: 't' }, 'a'), 'credentials.phone_number_id');
    problem(await create({ waba_id: 'a/b' }, 'b'), 'credentials.waba_id');
    problem(await create({ waba_id: 'x'.repeat(65) }, 'c'), 'credentials.waba_id');
    problem(await create({ phone_number_id: '1 2' }, 'd'), 'credentials.phone_number_id');
    problem(
      await t.api({ method: 'PATCH', path: `/ai/agents/${GOOD}`, key: KEYS.server, body: { credentials: { phone_number_id: '%2e%2e' } } }),
      'credentials.phone_number_id',
    );
    // a web agent's keys of those names are ids too
    const web = await t.api({
      method: 'POST',
      path: '/ai/agents',
      key: KEYS.server,
      body: { name: 'w', provider: 'web', provider_type: 'chat', provider_external_id: `${engine}-web`, credentials: { waba_id: '.' } },
    });
    problem(web, 'credentials.waba_id');
    const ok = await create({ waba_id: `W_${'9'.repeat(62)}`, phone_number_id: `pn-${engine}-ok` }, 'ok');
    expect(ok.statusCode, ok.body).toBe(200);
  });

  it('sends no request for a stored id that is not one: credentials check, templates refresh', async () => {
    const before = fake.requests.length;
    for (const id of [DOTS, SLASH]) {
      const check = await t.api({ method: 'POST', path: `/ai/agents/${id}/credentials/check`, key: KEYS.server });
      expect(check.statusCode, check.body).toBe(400);
      expect(check.json().code).toBe('ERROR_AI_PROVIDER_NOT_CONFIGURED');
      const refresh = await t.api({ method: 'POST', path: `/ai/agents/${id}/templates/refresh`, key: KEYS.server });
      expect(refresh.statusCode, refresh.body).toBe(400);
    }
    expect(fake.requests.slice(before)).toEqual([]);
    // a good id still reaches the versioned path
    const good = await t.api({ method: 'POST', path: `/ai/agents/${GOOD}/credentials/check`, key: KEYS.server });
    expect(good.statusCode, good.body).toBe(200);
    expect(fake.requests.slice(before).map((r) => r.path)).toEqual([`/v21.0/pn-good`]);
  });
});

describe('the Cloud API URL builders', () => {
  it('place an id as one percent-encoded segment, and only an id', () => {
    expect(pathSegment('123_abc-DEF')).toBe('123_abc-DEF');
    for (const bad of ['.', '..', '%2e%2e', 'a/b', 'a?b', 'a#b', '', 'x'.repeat(65), 'é']) {
      expect(() => pathSegment(bad), bad).toThrow(ProviderError);
    }
  });

  it('the text sender sends nothing for a phone_number_id that is not an id', async () => {
    const sender = createWhatsAppTextSender({ baseUrl: fake.url, timeoutMs: 2000 });
    const before = fake.requests.length;
    try {
      const outcome = await sender.send({ phone_number_id: '..', access_token: 'tok-dots', to: '525512345678', body: 'hi' });
      expect(outcome).toMatchObject({ accepted: false, retry: false });
      expect(fake.requests.length).toBe(before);
    } finally {
      sender.close();
    }
  });
});
