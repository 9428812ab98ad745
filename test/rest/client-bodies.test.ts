import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS, PASSWORD } from '../support/fixtures.js';
import { startWhatsAppFake, type FakeTemplate, type WhatsAppFake } from '../support/whatsapp-fake.js';

/**
 * Bodies as the platform's SDK sends them (CONTRACT §3): `Content-Type: application/json` with an
 * empty body is no body; nested objects and arrays may come as their JSON text; a reCAPTCHA
 * answer may be JSON text {"code", "version"} (§4.1).
 */
const creds = (id: number) => ({ waba_id: `waba${id}`, phone_number_id: `phone${id}`, access_token: `token-${id}` });
const TEMPLATES = (id: number): FakeTemplate[] => [
  {
    id: `t${id}-1`,
    name: 'welcome',
    language: 'en',
    category: 'MARKETING',
    status: 'APPROVED',
    components: [{ type: 'BODY', text: 'Hi {{1}}' }],
  },
];
const agentOf = (e: number) => 1 + e; // each engine its own agent
const JSON_TYPE = { 'content-type': 'application/json' };

let db: TestDatabase;
let fake: WhatsAppFake;
let verifier: http.Server;
let verifierUrl: string;
const verified: Record<string, string>[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  fake = await startWhatsAppFake();
  const fixture = baseFixture({
    agents: [0, 1].map((e) => ({
      id: agentOf(e),
      business_id: 1,
      name: `Bot ${e}`,
      provider: 'whatsapp',
      provider_type: 'chat',
      provider_external_id: `bot-${e}`,
      enabled: true,
      credentials: creds(agentOf(e)),
    })),
    templates: [0, 1].map((e) => ({
      id: agentOf(e) * 10 + 1,
      agent_id: agentOf(e),
      external_id: `t${agentOf(e)}-1`,
      name: 'welcome',
      language: 'en',
      category: 'MARKETING',
      status: 'APPROVED',
      components: [{ type: 'BODY', text: 'Hi {{1}}' }],
    })),
  });
  fixture.projects.push({
    code: 'captcha',
    name: 'Captcha',
    users: [{ id: 200, name: 'Cap', email: 'cap@captcha.test', password: PASSWORD, level: 3 }],
    configs: [{ key: 'security_recaptcha_auth', value: '1', public: false }],
  });
  await db.load(fixture);
  for (const e of [0, 1]) fake.addAccount({ ...creds(agentOf(e)), templates: TEMPLATES(agentOf(e)) });
  verifier = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const form = Object.fromEntries(new URLSearchParams(raw));
      verified.push(form);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(form.response === 'good' ? { success: true, score: 0.9 } : { success: false }));
    });
  });
  await new Promise<void>((resolve) => verifier.listen(0, '127.0.0.1', resolve));
  verifierUrl = `http://127.0.0.1:${(verifier.address() as AddressInfo).port}/siteverify`;
});
afterAll(async () => {
  await new Promise((resolve) => verifier?.close(resolve));
  await fake?.close();
  await db?.orm.close();
});

describe.each(ENGINES.map((engine, e) => [engine, e] as const))('client bodies (%s)', (engine, e) => {
  const agent = agentOf(e);
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(engine, db, { config: { whatsappApiUrl: fake.url, recaptchaVerifyUrl: verifierUrl, recaptchaSecret: 's' } });
  });
  afterAll(() => t.close());

  const call = (method: 'POST' | 'PUT' | 'PATCH', path: string, body?: unknown, headers: Record<string, string> = JSON_TYPE) =>
    t.api({
      method,
      path,
      key: KEYS.server,
      headers,
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
  const fieldsOf = (res: { json(): any }) => res.json().result.join(' ');

  describe('an empty body with Content-Type: application/json is no body', () => {
    it('refresh and sync answer as without a content type', async () => {
      for (const path of [`/ai/agents/${agent}/templates/refresh`, `/ai/agents/${agent}/templates/sync`]) {
        const bare = await call('POST', path, undefined, {});
        const typed = await call('POST', path, undefined);
        const typedCharset = await call('POST', path, '', { 'content-type': 'application/json; charset=utf-8' });
        expect(bare.statusCode, path).toBe(200);
        for (const res of [typed, typedCharset]) {
          expect(res.statusCode, path).toBe(200);
          expect(res.json()).toEqual(bare.json());
        }
      }
    });

    it('a route that needs a body answers as when none is sent', async () => {
      const typed = await call('POST', `/ai/agents/${agent}/templates/${agent * 10 + 1}/send`, undefined);
      const bare = await call('POST', `/ai/agents/${agent}/templates/${agent * 10 + 1}/send`, undefined, {});
      expect(typed.statusCode).toBe(400);
      expect(typed.json()).toEqual(bare.json());
      expect(typed.json().code).toBe('ERROR_VALIDATION');
    });

    it('a body of only spaces is still malformed JSON', async () => {
      const res = await call('POST', `/ai/agents/${agent}/templates/sync`, '   ');
      expect(res.statusCode).toBe(400);
      expect(fieldsOf(res)).toContain('body');
    });
  });

  describe('nested fields as JSON text', () => {
    const send = (body: Record<string, unknown>) => call('POST', `/ai/agents/${agent}/templates/${agent * 10 + 1}/send`, body);

    it('an array given as its JSON text is the array', async () => {
      fake.reset({ requests: true });
      const text = await send({ to: '5215512345678', body_parameters: '["Ana"]' });
      const plain = await send({ to: '5215512345678', body_parameters: ['Ana'] });
      expect(text.statusCode).toBe(200);
      expect(plain.statusCode).toBe(200);
      expect({ ...text.json().result, message_id: 'x' }).toEqual({ ...plain.json().result, message_id: 'x' });
      const sent = fake.requests.filter((r) => r.method === 'POST').map((r) => r.body);
      expect(sent).toHaveLength(2);
      expect(sent[0]).toEqual(sent[1]);
    });

    it('the decoded value is validated as usual', async () => {
      const tooMany = await send({ to: '5215512345678', body_parameters: '["a", "b"]' });
      expect(tooMany.statusCode).toBe(400);
      expect(tooMany.json().code).toBe('ERROR_VALIDATION');
      expect(fieldsOf(tooMany)).toMatch(/exactly 1 parameter/);
      const notStrings = await send({ to: '5215512345678', body_parameters: '[1]' });
      expect(notStrings.statusCode).toBe(400);
      expect(fieldsOf(notStrings)).toContain('body_parameters');
    });

    it('a string that is not JSON text of exactly the specified type stays a 400', async () => {
      for (const value of ['Ana', '{"0": "Ana"}', '"[\\"Ana\\"]"', '[Ana]', 'null', '']) {
        const res = await send({ to: '5215512345678', body_parameters: value });
        expect(res.statusCode, value).toBe(400);
        expect(res.json().code).toBe('ERROR_VALIDATION');
        expect(fieldsOf(res), value).toContain('body_parameters');
      }
    });

    it('translations as JSON text replace and merge as the object would', async () => {
      const path = `/ai/agents/${agent}/translations`;
      const put = await call('PUT', path, { translations: JSON.stringify({ en: { hello: 'Hello' }, es: { hello: 'Hola' } }) });
      expect(put.statusCode).toBe(200);
      expect(put.json().result.translations).toEqual({ en: { hello: 'Hello' }, es: { hello: 'Hola' } });
      const patch = await call('PATCH', path, { translations: JSON.stringify({ en: { bye: 'Bye' }, es: null }) });
      expect(patch.statusCode).toBe(200);
      expect(patch.json().result.translations).toEqual({ en: { hello: 'Hello', bye: 'Bye' } });
    });

    it('translations: the wrong JSON type, a bad locale value inside the text, or plain text are 400s naming the field', async () => {
      const path = `/ai/agents/${agent}/translations`;
      for (const [value, field] of [
        ['[{"en": {}}]', 'translations'],
        ['hello', 'translations'],
        ['{"en": "text"}', 'translations.en'],
        ['{"__proto__": {"x": 1}}', 'translations'],
      ]) {
        const res = await call('PUT', path, { translations: value });
        expect(res.statusCode, value).toBe(400);
        expect(res.json().code).toBe('ERROR_VALIDATION');
        expect(fieldsOf(res), value).toContain(field);
      }
    });

    it('a boolean given as text is not decoded', async () => {
      const res = await call('POST', `/ai/agents/${agent}/templates/sync`, { delete_removed: 'true' });
      expect(res.statusCode).toBe(400);
      expect(fieldsOf(res)).toContain('delete_removed');
    });
  });

  describe('reCAPTCHA answer as JSON text', () => {
    const auth = (body: Record<string, unknown>) =>
      t.api({
        method: 'POST',
        path: '/auth',
        project: 'captcha',
        body: JSON.stringify({ email: 'cap@captcha.test', password: PASSWORD, ...body }),
        headers: JSON_TYPE,
      });

    it('verification_code {"code", "version"} without recaptcha_type is verified as that version', async () => {
      verified.length = 0;
      const res = await auth({ verification_code: JSON.stringify({ code: 'good', version: 'v3' }) });
      expect(res.statusCode).toBe(200);
      expect(verified).toEqual([expect.objectContaining({ response: 'good' })]);
      const v2 = await auth({ verification_code: JSON.stringify({ code: 'good', version: 'v2' }) });
      expect(v2.statusCode).toBe(200);
    });

    it('a failed, versionless or malformed answer is ERROR_RECAPTCHA', async () => {
      for (const code of [
        JSON.stringify({ code: 'forged', version: 'v2' }),
        JSON.stringify({ code: 'good', version: 'v4' }),
        JSON.stringify({ code: 'good' }),
        '{"code": "good"',
        'good',
      ]) {
        const res = await auth({ verification_code: code });
        expect(res.statusCode, code).toBe(400);
        expect(res.json().code).toBe('ERROR_RECAPTCHA');
      }
    });
  });
});
