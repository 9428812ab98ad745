import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture } from '../support/fixtures.js';
import { compileDocument, problemOf } from '../support/openapi-check.js';

/**
 * The check every test's answers pass (test/support/openapi-check.ts, wired into startApp): it refuses
 * what the document does not describe, and accepts what it does, for each kind of answer.
 */
let db: TestDatabase;
let t: TestApp;
let check: (method: string, path: string, status: number, type: string | undefined, body: string) => string | null;
beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(baseFixture());
  t = await startApp('mercurius', db);
  const compiled = compileDocument(t.app.swagger());
  check = (method, path, status, type, body) => {
    const url = `/v400/en/acme${path}`;
    const res = {
      statusCode: status,
      headers: type ? { 'content-type': type } : {},
      body,
      rawPayload: Buffer.from(body),
      raw: { req: { method, url } },
    } as unknown as LightMyRequestResponse;
    return problemOf(compiled, { method, url }, res);
  };
});
afterAll(async () => {
  await t.close();
  await db.orm.close();
});

const JSON_TYPE = 'application/json; charset=utf-8';
const envelope = (code: string) => JSON.stringify({ error: true, code, result: ['x'] });

describe('every answer is checked against /openapi.json', () => {
  it('refuses a status, a code, a body or a content type the document does not give the route', () => {
    expect(check('GET', '/configs', 418, JSON_TYPE, envelope('ERROR_VALIDATION'))).toMatch(/status 418 is not documented/);
    expect(check('GET', '/configs', 400, JSON_TYPE, envelope('ERROR_AI_MEDIA_PENDING'))).toMatch(/code must be equal to one of/);
    expect(check('GET', '/configs', 200, JSON_TYPE, JSON.stringify({ error: false, result: 5 }))).toMatch(/does not match/);
    expect(check('GET', '/ai/webhooks/whatsapp', 200, JSON_TYPE, '12345')).toMatch(/Content-Type application\/json is not documented/);
    expect(check('GET', '/ai/media/abc', 304, 'application/pdf', 'bytes')).toMatch(/documented without a body/);
    expect(check('GET', '/ai/events', 200, JSON_TYPE, '{}')).toMatch(/not documented \(text\/event-stream\)/);
    expect(check('GET', '/ai/nothing-here', 400, JSON_TYPE, envelope('ERROR_VALIDATION'))).toMatch(/no documented route/);
  });

  it('accepts what it describes: files, streams, text, empty answers, selections and unknown routes', () => {
    expect(check('GET', '/ai/media/abc', 206, 'application/pdf', '%PDF')).toBeNull();
    expect(check('GET', '/ai/media/abc', 304, undefined, '')).toBeNull();
    expect(check('GET', '/ai/media/abc', 416, 'application/pdf', '')).toBeNull();
    expect(check('GET', '/ai/events', 200, 'text/event-stream', ': ok\n\n')).toBeNull();
    expect(check('GET', '/ai/webhooks/whatsapp', 200, 'text/plain; charset=utf-8', '12345')).toBeNull();
    const page = { current_page: 1, page_size: 10, total_pages: 1, total: 1, from: 1, to: 1 };
    // params=status: a selection answers only what it names, with id and messages_count
    const selected = { error: false, result: [{ id: 1, messages_count: 0, status: 'active' }], pagination: page };
    expect(check('GET', '/ai/conversations', 200, JSON_TYPE, JSON.stringify(selected))).toBeNull();
    expect(check('GET', '/ai/conversations', 200, JSON_TYPE, JSON.stringify({ ...selected, result: [{ id: 1, status: 'open' }] }))).toMatch(
      /messages_count|allowed values/,
    );
    expect(check('GET', '/ai/nothing-here', 404, JSON_TYPE, envelope('ERROR_NOT_FOUND'))).toBeNull();
  });

  it('checks the answers the tests get through app.inject', async () => {
    await expect(t.app.inject({ method: 'GET', url: '/v400/en/acme/configs' })).resolves.toMatchObject({ statusCode: 401 });
    expect(compileDocument(t.app.swagger())).toBe(compileDocument(t.app.swagger()));
  });
});
