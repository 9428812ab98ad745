import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ProviderError, type MessagingProvider } from '../../src/providers/messaging.js';
import { createWhatsAppClient } from '../../src/providers/whatsapp/client.js';
import { startWhatsAppFake, type WhatsAppFake } from '../support/whatsapp-fake.js';

const TOKEN = 'EAAG-client-test-token-secret';
const CREDS = { waba_id: '1001', phone_number_id: '2002', access_token: TOKEN };
const body = (text: string) => [{ type: 'BODY', text }];
const TEMPLATES = [
  { id: 't1', name: 'welcome', language: 'en', category: 'MARKETING', status: 'APPROVED', components: body('Hi {{1}}') },
  { id: 't2', name: 'welcome', language: 'es', category: 'MARKETING', status: 'APPROVED', components: body('Hola {{1}}') },
  { id: 't3', name: 'receipt', language: 'en', category: 'UTILITY', status: 'PENDING', components: body('Total {{1}}') },
  { id: 't4', name: 'appeal', language: 'en', category: 'UTILITY', status: 'IN_APPEAL', components: [] },
  { id: 't5', name: 'old', language: 'en', category: 'UTILITY', status: 'rejected', components: [] },
];

let fake: WhatsAppFake;
let client: MessagingProvider;

beforeAll(async () => {
  fake = await startWhatsAppFake();
  fake.addAccount({ ...CREDS, templates: TEMPLATES });
  client = createWhatsAppClient({ baseUrl: fake.url, timeoutMs: 300, retryDelaysMs: [10, 20] });
});
afterAll(() => fake.close());
beforeEach(() => fake.reset({ requests: true }));

async function failure(p: Promise<unknown>): Promise<ProviderError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  return err as ProviderError;
}

describe('WhatsApp client: list templates', () => {
  it('sends exactly GET {base}/{waba_id}/message_templates with the bearer token, following paging.next', async () => {
    const list = await client.listTemplates(CREDS);
    expect(list.map((t) => t.external_id)).toEqual(['t1', 't2', 't3', 't4', 't5']);
    const reqs = fake.requests;
    expect(reqs).toHaveLength(3);
    expect(reqs.map((r) => r.method)).toEqual(['GET', 'GET', 'GET']);
    expect(reqs.every((r) => r.path === '/v21.0/1001/message_templates')).toBe(true);
    expect(reqs[0].query).toEqual({});
    expect(reqs[1].query.after).toBeTruthy();
    expect(reqs[1].query.limit).toBe('2');
    expect(reqs[2].query.after).not.toBe(reqs[1].query.after);
    for (const r of reqs) {
      expect(r.headers.authorization).toBe(`Bearer ${TOKEN}`);
      expect(r.body).toBeUndefined();
    }
  });

  it('maps templates to the stored shape, statuses upper-cased onto the five documented ones', async () => {
    const list = await client.listTemplates(CREDS);
    expect(list[0]).toEqual({
      external_id: 't1',
      name: 'welcome',
      language: 'en',
      category: 'MARKETING',
      status: 'APPROVED',
      components: body('Hi {{1}}'),
    });
    expect(list.find((t) => t.external_id === 't4')?.status).toBe('PENDING');
    expect(list.find((t) => t.external_id === 't5')?.status).toBe('REJECTED');
  });

  it('retries a 5xx page twice, then gives up as unavailable', async () => {
    fake.fail('list', { status: 503 }, { page: 2 });
    const err = await failure(client.listTemplates(CREDS));
    expect(err.kind).toBe('unavailable');
    // page 1 once, page 2 three times (1 + 2 retries)
    expect(fake.requests).toHaveLength(4);
  });

  it('recovers when a retry succeeds', async () => {
    fake.fail('list', { status: 500 }, { page: 1, times: 1 });
    const list = await client.listTemplates(CREDS);
    expect(list).toHaveLength(5);
    expect(fake.requests).toHaveLength(4);
  });

  it('does not retry a 4xx: rejected with the provider message, never the token', async () => {
    fake.fail('list', { status: 400, body: { error: { message: `Bad token ${TOKEN} given`, type: 'OAuthException', code: 190 } } });
    const err = await failure(client.listTemplates(CREDS));
    expect(err.kind).toBe('rejected');
    expect(err.detail).toBe('Bad token [redacted] given');
    expect(JSON.stringify(err) + err.message + err.reason).not.toContain(TOKEN);
    expect(fake.requests).toHaveLength(1);
  });

  it('reports a wrong token as the provider rejection', async () => {
    const err = await failure(client.listTemplates({ ...CREDS, access_token: 'wrong-token' }));
    expect(err.kind).toBe('rejected');
    expect(err.detail).toMatch(/Invalid OAuth access token/);
  });

  it('times out a provider that never answers, without retrying', async () => {
    fake.fail('list', { hang: true });
    const started = Date.now();
    const err = await failure(client.listTemplates(CREDS));
    expect(err.kind).toBe('unavailable');
    expect(err.reason).toMatch(/timeout/);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(fake.requests).toHaveLength(1);
  });

  it('is unavailable when nothing listens, after its retries', async () => {
    const dead = createWhatsAppClient({ baseUrl: 'http://127.0.0.1:1/v21.0', timeoutMs: 300, retryDelaysMs: [5, 5] });
    const err = await failure(dead.listTemplates(CREDS));
    expect(err.kind).toBe('unavailable');
    expect(err.reason).toMatch(/network/);
  });

  it('refuses a paging.next on another origin (the token is never sent elsewhere)', async () => {
    fake.fail(
      'list',
      { status: 200, body: { data: [], paging: { next: 'http://evil.example/v21.0/1001/message_templates?after=x' } } },
      { times: 1 },
    );
    const err = await failure(client.listTemplates(CREDS));
    expect(err.kind).toBe('unavailable');
    expect(fake.requests).toHaveLength(1);
  });

  it('needs complete credentials', async () => {
    const err = await failure(client.listTemplates({ waba_id: '1001' }));
    expect(err.kind).toBe('not_configured');
    expect(fake.requests).toHaveLength(0);
  });
});

describe('WhatsApp client: send a template', () => {
  it('sends exactly the documented POST {base}/{phone_number_id}/messages body', async () => {
    const res = await client.sendTemplate(CREDS, { to: '5215512345678', name: 'welcome', language: 'en', bodyParameters: ['Ana'] });
    expect(res.message_id).toMatch(/^wamid\./);
    expect(fake.requests).toHaveLength(1);
    const [r] = fake.requests;
    expect(r.method).toBe('POST');
    expect(r.path).toBe('/v21.0/2002/messages');
    expect(r.query).toEqual({});
    expect(r.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.body).toEqual({
      messaging_product: 'whatsapp',
      to: '5215512345678',
      type: 'template',
      template: {
        name: 'welcome',
        language: { code: 'en' },
        components: [{ type: 'body', parameters: [{ type: 'text', text: 'Ana' }] }],
      },
    });
  });

  it('sends an empty components list for a template without parameters', async () => {
    await client.sendTemplate(CREDS, { to: '5215512345678', name: 'appeal', language: 'en', bodyParameters: [] });
    expect(fake.requests[0].body.template.components).toEqual([]);
  });

  it('maps a 4xx to rejected with the provider message, and never retries a send', async () => {
    const err = await failure(client.sendTemplate(CREDS, { to: '5215512345678', name: 'nope', language: 'en', bodyParameters: [] }));
    expect(err.kind).toBe('rejected');
    expect(err.detail).toBe('(#132001) Template name does not exist in the translation');
    fake.fail('send', { status: 500 });
    const err5 = await failure(client.sendTemplate(CREDS, { to: '5215512345678', name: 'welcome', language: 'en', bodyParameters: ['x'] }));
    expect(err5.kind).toBe('unavailable');
    expect(fake.requestsTo('send')).toHaveLength(2);
  });

  it('times out a send that never answers', async () => {
    fake.fail('send', { hang: true });
    const started = Date.now();
    const err = await failure(client.sendTemplate(CREDS, { to: '5215512345678', name: 'welcome', language: 'en', bodyParameters: ['x'] }));
    expect(err.kind).toBe('unavailable');
    expect(Date.now() - started).toBeLessThan(2000);
    expect(fake.requests).toHaveLength(1);
  });

  it('treats an answer without messages[0].id as unavailable', async () => {
    fake.fail('send', { status: 200, body: { messaging_product: 'whatsapp', messages: [] } });
    const err = await failure(client.sendTemplate(CREDS, { to: '5215512345678', name: 'welcome', language: 'en', bodyParameters: ['x'] }));
    expect(err.kind).toBe('unavailable');
  });
});
