import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';

/**
 * The unproven finding of issue 29 (CONTRACT §11, §9.4): the webhook URL check refuses the IPv6
 * forms of IPv4 loopback, private and link-local addresses, and still accepts public ones.
 */
let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(baseFixture());
});
afterAll(() => db.orm.close());

const REFUSED = [
  'http://[::127.0.0.1]/x', // IPv4-compatible (::a.b.c.d), the review's form
  'http://[::ffff:0:7f00:1]/x', // ::ffff:0:0:0/96 (IPv4-translated) of 127.0.0.1
  'http://[::ffff:0:10.0.0.1]/x',
  'http://[::ffff:7f00:1]/x', // ::ffff:0:0/96 (IPv4-mapped), hex
  'http://[::ffff:169.254.169.254]/latest/meta-data',
  'http://[64:ff9b:1::7f00:1]/x', // local-use NAT64 (64:ff9b:1::/48)
  'http://[64:ff9b::127.0.0.1]/x', // NAT64 (64:ff9b::/96)
  'http://[64:ff9b::c0a8:101]/x',
  'http://[2002:7f00:1::]/x', // 6to4 of 127.0.0.1
  'http://[2002:a00:1::1]/x', // 6to4 of 10.0.0.1
  'http://[2002:a9fe:a9fe::]/x', // 6to4 of 169.254.169.254
  'http://[::a00:1]/x', // ::10.0.0.1
];
const ACCEPTED = ['http://[2002:808:808::1]/x', 'http://[2606:4700:4700::1111]/x', 'http://[::ffff:8.8.8.8]/x'];

describe.each(ENGINES)('webhook URLs: IPv6 forms of private IPv4 (%s)', (engine) => {
  let t: TestApp;
  let origin: string;
  beforeAll(async () => {
    t = await startApp(engine, db, { config: { webhooks: { ...loadConfig({}).webhooks, allowPrivateNetworks: false } } });
    origin = await t.listen();
  });
  afterAll(() => t.close());

  const create = (url: string) =>
    fetch(`${origin}/v400/en/acme/ai/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': KEYS.server },
      body: JSON.stringify({ url, events: ['*'] }),
    });

  it('refuses each form with 400 naming url, and stores nothing', async () => {
    for (const url of REFUSED) {
      const res = await create(url);
      const body = (await res.json()) as any;
      expect(res.status, url).toBe(400);
      expect(body.code, url).toBe('ERROR_VALIDATION');
      expect(body.result.join(' '), url).toContain('url');
    }
    expect(await db.sql('select url from ai_webhooks')).toEqual([]);
  });

  it('accepts IPv6 addresses that embed or are public addresses', async () => {
    for (const url of ACCEPTED) {
      const res = await create(url);
      expect(res.status, `${url} ${await res.clone().text()}`).toBe(200);
      const id = ((await res.json()) as any).result.id;
      await fetch(`${origin}/v400/en/acme/ai/webhooks/${id}`, { method: 'DELETE', headers: { 'x-api-key': KEYS.server } });
    }
  });
});
