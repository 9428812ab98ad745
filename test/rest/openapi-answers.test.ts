import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture } from '../support/fixtures.js';
import { compileDocument, eventProblem, problemOf } from '../support/openapi-check.js';
import { KEYS } from '../support/fixtures.js';

/**
 * The check every test's answers pass (test/support/openapi-check.ts, wired into startApp): it refuses
 * what the document does not describe, and accepts what it does, for each kind of answer.
 */
let db: TestDatabase;
let t: TestApp;
let check: (method: string, path: string, status: number, type: string | undefined, body: string) => string | null;
beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(
    baseFixture({
      agents: [{ id: 1, business_id: 1, name: 'Web', provider: 'web', provider_type: 'chat', provider_external_id: 'web', enabled: true }],
    }),
  );
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

  it("events match the document's webhooks: created, message, handoff, closed", async () => {
    const first = await t.api({
      method: 'POST',
      path: '/ai/agents/web/conversations/current/messages',
      key: KEYS.customer,
      body: { content: 'Hola' },
    });
    expect(first.statusCode, first.body).toBe(200);
    const id = first.json().result.conversation_id as number;
    const post = (p: string, body: unknown) => t.api({ method: 'POST', path: `/ai/conversations/${id}${p}`, key: KEYS.server, body });
    expect(
      (await post('/messages', { role: 'assistant', type: 'location', payload: { latitude: 40.4, longitude: -3.7, name: 'Sol' } }))
        .statusCode,
    ).toBe(200);
    expect((await post('/handoff', { handler: 'human' })).statusCode).toBe(200);
    expect((await post('/close', { status_reason: 'completed' })).statusCode).toBe(200);
    const compiled = compileDocument(t.app.swagger());
    const rows: { id: string; type: string; created_at: Date; data: unknown }[] = await db.sql(
      `select e.seq as id, e.type, e.created_at, e.data from ai_event_inbox e where e.conversation_id = ${id}
       union all select e.id, e.type, e.created_at, e.data from ai_events e where e.conversation_id = ${id}`,
    );
    expect(new Set(rows.map((r) => r.type))).toEqual(
      new Set(['conversation.created', 'message.created', 'conversation.handoff', 'conversation.closed']),
    );
    for (const r of rows) {
      expect(
        eventProblem(compiled, { id: Number(r.id), type: r.type, created_at: new Date(r.created_at).toISOString(), data: r.data } as never),
      ).toBeNull();
    }
  });

  it('checks the answers the tests get through app.inject', async () => {
    await expect(t.app.inject({ method: 'GET', url: '/v400/en/acme/configs' })).resolves.toMatchObject({ statusCode: 401 });
    expect(compileDocument(t.app.swagger())).toBe(compileDocument(t.app.swagger()));
  });
});
