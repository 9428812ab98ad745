import 'reflect-metadata';
import { createHash, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, PASSWORD, USERS } from '../support/fixtures.js';

/**
 * Both engines share this file's database, so every stateful case (OTPs, lockout, guests) has one
 * user per engine: `id(base, e)` is base + engine index.
 */
const id = (base: number, e: number) => base + e;
const OTP = { single: 20, cell: 22, expired: 24, tries: 26, race: 28 };
const LOCK_USER = 30;
const LOCK_PHONE_USER = 32;
const LINK = { guest: 40, user: 42 };
const GUEST_TOKENS = [randomUUID(), randomUUID()];
const RECAPTCHA_SECRET = 'test-recaptcha-secret';
const USER_FIELDS = ['cellphone', 'country_phone_code', 'email', 'enabled', 'guest', 'id', 'lastname', 'level', 'name', 'session'];

const minutesFromNow = (m: number) => new Date(Date.now() + m * 60_000).toISOString();
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

function extraUsers() {
  const users: Record<string, unknown>[] = [];
  const otps: Record<string, unknown>[] = [];
  for (const e of [0, 1]) {
    users.push(
      { id: id(OTP.single, e), name: 'Otp', email: `otp-single-${e}@acme.test`, password: PASSWORD, level: 3 },
      { id: id(OTP.cell, e), name: 'Otc', cellphone: `555000000${e}`, country_phone_code: '52', password: PASSWORD, level: 3 },
      { id: id(OTP.expired, e), name: 'Ote', email: `otp-expired-${e}@acme.test`, password: PASSWORD, level: 3 },
      { id: id(OTP.tries, e), name: 'Ott', email: `otp-tries-${e}@acme.test`, password: PASSWORD, level: 3 },
      { id: id(OTP.race, e), name: 'Otr', email: `otp-race-${e}@acme.test`, level: 3 },
      { id: id(LOCK_USER, e), name: 'Lock', email: `lock-${e}@acme.test`, password: PASSWORD, level: 3 },
      { id: id(LOCK_PHONE_USER, e), name: 'Lockp', cellphone: `555100000${e}`, country_phone_code: '52', password: PASSWORD, level: 3 },
      { id: id(LINK.guest, e), name: null, level: 3, guest: true, guest_token: GUEST_TOKENS[e] },
      { id: id(LINK.user, e), name: 'Link', email: `link-${e}@acme.test`, password: PASSWORD, level: 3 },
    );
    otps.push(
      { user_id: id(OTP.single, e), code: '246810', expires_at: minutesFromNow(10) },
      { user_id: id(OTP.cell, e), code: '135790', expires_at: minutesFromNow(10) },
      { user_id: id(OTP.expired, e), code: '112233', expires_at: minutesFromNow(-1) },
      { user_id: id(OTP.tries, e), code: '445566', expires_at: minutesFromNow(10) },
      { user_id: id(OTP.race, e), code: '778899', expires_at: minutesFromNow(10) },
    );
  }
  return { users, otps };
}

let db: TestDatabase;
let verifier: http.Server;
let verifierUrl: string;
const verifications: { contentType?: string; form: Record<string, string> }[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  const base = baseFixture();
  const acme = base.projects[0];
  const { users, otps } = extraUsers();
  acme.users = [...acme.users!, ...users];
  acme.one_time_passwords = otps;
  acme.agents = [
    { id: 1, business_id: 1, name: 'Bot', provider: 'whatsapp', provider_type: 'chat', provider_external_id: 'bot-1', enabled: true },
  ];
  acme.conversations = [0, 1].map((e) => ({
    id: 1 + e,
    agent_id: 1,
    user_id: id(LINK.guest, e),
    business_id: 1,
    status: 'closed',
    status_reason: 'completed',
    closed_at: new Date().toISOString(),
  }));
  acme.orders = [0, 1].map((e) => ({
    id: 1 + e,
    business_id: 1,
    customer_id: id(LINK.guest, e),
    conversation_id: 1 + e,
    status: 1,
    summary: { total: 10 },
  }));
  base.projects.push({
    code: 'captcha',
    name: 'Captcha',
    users: [200, 201].map((uid) => ({ id: uid, name: 'Cap', email: `cap-${uid}@captcha.test`, password: PASSWORD, level: 3 })),
    configs: [{ key: 'security_recaptcha_auth', value: '1', public: false }],
  });
  await db.load(base);

  // A local stand-in for Google's siteverify: a form POST answered with {success, score}.
  verifier = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const form = Object.fromEntries(new URLSearchParams(raw));
      verifications.push({ contentType: req.headers['content-type'], form });
      const answers: Record<string, object> = {
        'good-v2': { success: true },
        'good-v3': { success: true, score: 0.9, action: 'login' },
        'low-v3': { success: true, score: 0.1, action: 'login' },
      };
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(answers[form.response] ?? { success: false, 'error-codes': ['invalid-input-response'] }));
    });
  });
  await new Promise<void>((resolve) => verifier.listen(0, '127.0.0.1', resolve));
  verifierUrl = `http://127.0.0.1:${(verifier.address() as AddressInfo).port}/recaptcha/api/siteverify`;
});
afterAll(async () => {
  if (verifier) await new Promise((resolve) => verifier.close(resolve));
  await db?.orm.close();
});

describe.each(ENGINES.map((engine, e) => [engine, e] as const))('POST /auth (%s)', (engine, e) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(engine, db, { config: { recaptchaVerifyUrl: verifierUrl, recaptchaSecret: RECAPTCHA_SECRET } });
  });
  afterAll(() => t.close());

  const auth = (body: unknown, extra: { project?: string; headers?: Record<string, string>; lang?: string } = {}) =>
    t.api({ method: 'POST', path: '/auth', body, ...extra });

  describe('email and password', () => {
    it('returns the user fields and a bearer session, never the password', async () => {
      const res = await auth({ email: 'admin@acme.test', password: PASSWORD });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.error).toBe(false);
      expect(Object.keys(body.result).sort()).toEqual(USER_FIELDS);
      expect(body.result).toMatchObject({ id: USERS.admin, email: 'admin@acme.test', level: 0, guest: false, enabled: true });
      expect(body.result.session.token_type).toBe('bearer');
      expect(typeof body.result.session.access_token).toBe('string');
      expect(body.result.session.access_token.length).toBeGreaterThanOrEqual(32);
      expect(body.result.session.expires_in).toBe(t.config.sessionTtlSeconds);
      expect(res.body).not.toMatch(/password/i);
      expect(res.body).not.toContain('$argon2');
    });

    it('matches the email case-insensitively', async () => {
      const res = await auth({ email: 'Admin@ACME.test', password: PASSWORD });
      expect(res.statusCode).toBe(200);
      expect(res.json().result.id).toBe(USERS.admin);
    });

    it('issues a token that works on GET /configs and is stored only as its SHA-256 hash', async () => {
      const token = (await auth({ email: 'owner@acme.test', password: PASSWORD })).json().result.session.access_token as string;
      const configs = await t.api({ path: '/configs', token });
      expect(configs.statusCode).toBe(200);
      expect(configs.json().error).toBe(false);

      const rows = await db.sql<Record<string, unknown>>('select * from sessions where token_hash = ?', [sha256(token)]);
      expect(rows).toHaveLength(1);
      expect(rows[0].user_id).toBe(USERS.owner);
      for (const value of Object.values(rows[0])) expect(String(value)).not.toContain(token);
      const plain = await db.sql('select id from sessions where token_hash = ?', [token]);
      expect(plain).toHaveLength(0);
    });

    it('stores passwords as argon2id hashes', async () => {
      const [row] = await db.sql<{ password_hash: string }>('select password_hash from users where id = ?', [USERS.admin]);
      expect(row.password_hash.startsWith('$argon2id$')).toBe(true);
      expect(row.password_hash).not.toContain(PASSWORD);
    });

    it('records device, platform, addresses and user agent with the session', async () => {
      const device = `device-${engine}`;
      const res = await auth(
        { email: 'city@acme.test', password: PASSWORD, device_code: device, platform: 'ios' },
        { headers: { 'x-forwarded-for': '203.0.113.7, 10.0.0.2', 'user-agent': 'OrderGraphTest/1.0 (iPhone)' } },
      );
      expect(res.statusCode).toBe(200);
      const token = res.json().result.session.access_token as string;
      const [row] = await db.sql<Record<string, unknown>>(
        'select user_id, device_code, platform, ip, forwarded_for, user_agent, expires_at from sessions where token_hash = ?',
        [sha256(token)],
      );
      expect(row).toMatchObject({
        user_id: USERS.cityManager,
        device_code: device,
        platform: 'ios',
        ip: '127.0.0.1',
        forwarded_for: '203.0.113.7, 10.0.0.2',
        user_agent: 'OrderGraphTest/1.0 (iPhone)',
      });
      const ttl = (new Date(row.expires_at as string).getTime() - Date.now()) / 1000;
      expect(Math.abs(ttl - t.config.sessionTtlSeconds)).toBeLessThan(60);
    });

    it('registers a device for push notifications', async () => {
      const token = `push-token-${engine}-${randomUUID()}`;
      const res = await auth({
        email: 'owner2@acme.test',
        password: PASSWORD,
        notification_token: token,
        notification_app: 'com.acme.app',
        notification_provider: 'fcm',
        platform: 'android',
        device_code: 'dev-9',
      });
      expect(res.statusCode).toBe(200);
      const rows = await db.sql(
        'select user_id, notification_app, notification_provider, platform, device_code from devices where notification_token = ?',
        [token],
      );
      expect(rows).toEqual([
        {
          user_id: USERS.owner2,
          notification_app: 'com.acme.app',
          notification_provider: 'fcm',
          platform: 'android',
          device_code: 'dev-9',
        },
      ]);
    });

    it('keeps no device when its session cannot be written (one transaction)', async () => {
      const token = `push-token-fail-${engine}-${randomUUID()}`;
      const trigger = `og_session_fail_${e}`;
      await db.sql(
        `create function ${trigger}() returns trigger language plpgsql as $$ begin if new.device_code = 'fail-${e}' then raise exception 'simulated failure'; end if; return new; end $$`,
      );
      await db.sql(`create trigger ${trigger} before insert on sessions for each row execute function ${trigger}()`);
      try {
        const res = await auth({ email: 'owner2@acme.test', password: PASSWORD, notification_token: token, device_code: `fail-${e}` });
        expect(res.statusCode).toBe(500);
        expect(res.json()).toMatchObject({ error: true, code: 'ERROR_INTERNAL' });
        expect(res.body).not.toContain('simulated');
      } finally {
        await db.sql(`drop trigger ${trigger} on sessions`);
        await db.sql(`drop function ${trigger}()`);
      }
      expect(await db.sql('select 1 from devices where notification_token = ?', [token])).toHaveLength(0);
      const retry = await auth({ email: 'owner2@acme.test', password: PASSWORD, notification_token: token, device_code: `fail-${e}` });
      expect(retry.statusCode).toBe(200);
      expect(await db.sql('select 1 from devices where notification_token = ?', [token])).toHaveLength(1);
    });

    it('answers a wrong password and an unknown user with the same 401 body', async () => {
      const wrong = await auth({ email: 'customer@acme.test', password: 'not the password' });
      const unknown = await auth({ email: 'nobody@acme.test', password: 'not the password' });
      expect(wrong.statusCode).toBe(401);
      expect(unknown.statusCode).toBe(401);
      expect(wrong.json()).toMatchObject({ error: true, code: 'ERROR_INVALID_CREDENTIALS' });
      expect(unknown.body).toBe(wrong.body);
    });

    it('refuses a password for a user who has none', async () => {
      const res = await auth({ email: `otp-race-${e}@acme.test`, password: PASSWORD });
      expect(res.statusCode).toBe(401);
      expect(res.json().code).toBe('ERROR_INVALID_CREDENTIALS');
    });

    it('refuses a disabled user with the same 401', async () => {
      const res = await auth({ email: 'disabled@acme.test', password: PASSWORD });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ error: true, code: 'ERROR_INVALID_CREDENTIALS' });
    });

    it('does not accept credentials of another project', async () => {
      const res = await auth({ email: 'admin@other.test', password: PASSWORD });
      expect(res.statusCode).toBe(401);
      expect(res.json().code).toBe('ERROR_INVALID_CREDENTIALS');
    });
  });

  describe('cellphone and password', () => {
    it('signs in with cellphone and country code', async () => {
      const res = await auth({ cellphone: '5512345678', country_phone_code: '52', password: PASSWORD });
      expect(res.statusCode).toBe(200);
      expect(res.json().result).toMatchObject({ id: USERS.customer, cellphone: '5512345678', country_phone_code: '52', level: 3 });
    });

    it('refuses a wrong country code', async () => {
      const res = await auth({ cellphone: '5512345678', country_phone_code: '1', password: PASSWORD });
      expect(res.statusCode).toBe(401);
      expect(res.json().code).toBe('ERROR_INVALID_CREDENTIALS');
    });
  });

  describe('one-time password', () => {
    it('works once with an email, then is 401', async () => {
      const body = { email: `otp-single-${e}@acme.test`, one_time_password: '246810' };
      const first = await auth(body);
      expect(first.statusCode).toBe(200);
      expect(first.json().result.id).toBe(id(OTP.single, e));
      const second = await auth(body);
      expect(second.statusCode).toBe(401);
      expect(second.json().code).toBe('ERROR_INVALID_CREDENTIALS');
    });

    it('works with cellphone and country code', async () => {
      const res = await auth({ cellphone: `555000000${e}`, country_phone_code: '52', one_time_password: '135790' });
      expect(res.statusCode).toBe(200);
      expect(res.json().result.id).toBe(id(OTP.cell, e));
      const [otp] = await db.sql<{ used_at: unknown }>('select used_at from one_time_passwords where user_id = ?', [id(OTP.cell, e)]);
      expect(otp.used_at).not.toBeNull();
    });

    it('is 401 once expired, even with the right code', async () => {
      const res = await auth({ email: `otp-expired-${e}@acme.test`, one_time_password: '112233' });
      expect(res.statusCode).toBe(401);
      expect(res.json().code).toBe('ERROR_INVALID_CREDENTIALS');
    });

    it('allows at most 5 tries: after 5 wrong codes the right one is 401', async () => {
      const email = `otp-tries-${e}@acme.test`;
      for (let i = 0; i < 5; i++) {
        const res = await auth({ email, one_time_password: '000000' });
        expect(res.statusCode).toBe(401);
      }
      const right = await auth({ email, one_time_password: '445566' });
      expect(right.statusCode).toBe(401);
      expect(right.json().code).toBe('ERROR_INVALID_CREDENTIALS');
      const [otp] = await db.sql<{ used_at: unknown; attempts: number }>(
        'select used_at, attempts from one_time_passwords where user_id = ?',
        [id(OTP.tries, e)],
      );
      expect(otp.used_at).toBeNull();
      expect(otp.attempts).toBe(5);
    });

    it('stays single-use when the right code arrives several times at once', async () => {
      const body = { email: `otp-race-${e}@acme.test`, one_time_password: '778899' };
      const results = await Promise.all(Array.from({ length: 4 }, () => auth(body)));
      expect(results.map((r) => r.statusCode).sort()).toEqual([200, 401, 401, 401]);
      const sessions = await db.sql<{ n: number }>('select count(*)::int as n from sessions where user_id = ?', [id(OTP.race, e)]);
      expect(sessions).toEqual([{ n: 1 }]);
    });

    it('does not take a password as a one-time password for a user without one', async () => {
      const res = await auth({ email: 'admin@acme.test', one_time_password: '123456' });
      expect(res.statusCode).toBe(401);
    });
  });

  describe('guest token', () => {
    it('creates a level-3 guest on first use and returns the same user next time', async () => {
      const token = randomUUID();
      const first = await auth({ guest_token: token });
      expect(first.statusCode).toBe(200);
      const user = first.json().result;
      expect(user).toMatchObject({ level: 3, guest: true, enabled: true });
      expect(user.session.token_type).toBe('bearer');
      const again = await auth({ guest_token: token.toUpperCase() });
      expect(again.statusCode).toBe(200);
      expect(again.json().result.id).toBe(user.id);
      expect(again.json().result.session.access_token).not.toBe(user.session.access_token);
      const rows = await db.sql('select id, level, guest from users where guest_token = ?', [token]);
      expect(rows).toEqual([{ id: user.id, level: 3, guest: true }]);
    });

    it('creates one guest when the first calls with a token arrive at once', async () => {
      const token = randomUUID();
      const results = await Promise.all(Array.from({ length: 4 }, () => auth({ guest_token: token })));
      expect(results.map((r) => r.statusCode)).toEqual([200, 200, 200, 200]);
      expect(new Set(results.map((r) => r.json().result.id)).size).toBe(1);
      expect(await db.sql('select count(*)::int as n from users where guest_token = ?', [token])).toEqual([{ n: 1 }]);
    });

    it("links the guest's conversations and orders to the user who signs in with it", async () => {
      const guestId = id(LINK.guest, e);
      const userId = id(LINK.user, e);
      const res = await auth({ email: `link-${e}@acme.test`, password: PASSWORD, guest_token: GUEST_TOKENS[e] });
      expect(res.statusCode).toBe(200);
      expect(res.json().result).toMatchObject({ id: userId, guest: false });
      expect(await db.sql('select user_id from ai_conversations where id = ?', [1 + e])).toEqual([{ user_id: userId }]);
      expect(await db.sql('select customer_id from orders where id = ?', [1 + e])).toEqual([{ customer_id: userId }]);
      expect(await db.sql('select count(*)::int as n from ai_conversations where user_id = ?', [guestId])).toEqual([{ n: 0 }]);
    });
  });

  describe('validation', () => {
    const rejects = async (body: unknown, field: string) => {
      const res = await auth(body);
      expect(res.statusCode).toBe(400);
      const json = res.json();
      expect(json).toMatchObject({ error: true, code: 'ERROR_VALIDATION' });
      expect(Array.isArray(json.result)).toBe(true);
      expect(json.result.join(' ')).toContain(field);
    };

    it('rejects an email that is not an address', () => rejects({ email: 'not-an-email', password: PASSWORD }, 'email'));
    it('rejects a one-time password that is not digits', () =>
      rejects({ email: 'admin@acme.test', one_time_password: '12ab56' }, 'one_time_password'));
    it('rejects a number where a string is expected', () => rejects({ email: 'admin@acme.test', password: 12345678 }, 'password'));
    it('rejects a body with no credentials', () => rejects({}, 'email'));
    it('rejects an email with no password', () => rejects({ email: 'admin@acme.test' }, 'password'));
    it('rejects a malformed guest token', () => rejects({ guest_token: 'not-a-uuid' }, 'guest_token'));
    it('rejects a malformed country code', () =>
      rejects({ cellphone: '5512345678', country_phone_code: '52a', password: PASSWORD }, 'country_phone_code'));

    it("names the field, and what it must be, in the request's language", async () => {
      const res = await auth({ email: 'nope', password: PASSWORD }, { lang: 'es' });
      expect(res.statusCode).toBe(400);
      expect(res.json().result).toEqual(['El campo email debe ser una dirección de correo electrónico.']);
    });
  });

  describe('reCAPTCHA (project config security_recaptcha_auth = "1")', () => {
    const captcha = (body: Record<string, unknown>) =>
      auth({ email: `cap-${200 + e}@captcha.test`, password: PASSWORD, ...body }, { project: 'captcha' });
    beforeEach(() => {
      verifications.length = 0;
    });

    it('verifies a v2 response with the configured verifier, sending secret, response and remote address', async () => {
      const res = await captcha({ recaptcha_type: 'v2', verification_code: 'good-v2' });
      expect(res.statusCode).toBe(200);
      expect(verifications).toEqual([
        {
          contentType: 'application/x-www-form-urlencoded',
          form: { secret: RECAPTCHA_SECRET, response: 'good-v2', remoteip: '127.0.0.1' },
        },
      ]);
    });

    it('accepts a v3 response with a good score', async () => {
      const res = await captcha({ recaptcha_type: 'v3', verification_code: 'good-v3' });
      expect(res.statusCode).toBe(200);
    });

    it('refuses a v3 response with a low score', async () => {
      const res = await captcha({ recaptcha_type: 'v3', verification_code: 'low-v3' });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error: true, code: 'ERROR_RECAPTCHA' });
      expect(verifications).toHaveLength(1);
    });

    it('refuses a response the verifier rejects', async () => {
      const res = await captcha({ recaptcha_type: 'v2', verification_code: 'forged' });
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('ERROR_RECAPTCHA');
    });

    it('refuses a missing verification_code without calling the verifier', async () => {
      const res = await captcha({ recaptcha_type: 'v2' });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error: true, code: 'ERROR_RECAPTCHA' });
      expect(verifications).toHaveLength(0);
    });

    it('does not ask for reCAPTCHA where the project does not enable it', async () => {
      const res = await auth({ email: 'admin@acme.test', password: PASSWORD });
      expect(res.statusCode).toBe(200);
      expect(verifications).toHaveLength(0);
    });
  });

  describe('lockout', () => {
    it('after 10 failures for one identifier the 11th attempt is 429, even with the right password', async () => {
      const email = `lock-${e}@acme.test`;
      for (let i = 0; i < 10; i++) {
        const res = await auth({ email, password: `wrong-${i}` });
        expect(res.statusCode).toBe(401);
      }
      const locked = await auth({ email, password: PASSWORD });
      expect(locked.statusCode).toBe(429);
      expect(locked.json()).toMatchObject({ error: true, code: 'ERROR_RATE_LIMIT' });
      expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(locked.headers['retry-after'])).toBeLessThanOrEqual(15 * 60);
      expect(locked.headers['x-ratelimit-limit']).toBe('10');
      expect(locked.headers['x-ratelimit-remaining']).toBe('0');
      expect(Number(locked.headers['x-ratelimit-reset'])).toBeGreaterThan(0);
      expect(locked.headers['x-ratelimit-scope']).toBe('auth');
      expect(locked.headers['x-ratelimit-key']).toBe(email);

      // Still locked on the next try, and another identifier is unaffected.
      expect((await auth({ email: email.toUpperCase(), password: PASSWORD })).statusCode).toBe(429);
      const other = await auth({ email: 'admin@acme.test', password: PASSWORD });
      expect(other.statusCode).toBe(200);
    });

    it('locks a cellphone identifier (country code + cellphone), however the code is written', async () => {
      const cellphone = `555100000${e}`;
      for (let i = 0; i < 10; i++) {
        const res = await auth({ cellphone, country_phone_code: i % 2 ? '+52' : '52', password: `wrong-${i}` });
        expect(res.statusCode).toBe(401);
      }
      const locked = await auth({ cellphone, country_phone_code: '52', password: PASSWORD });
      expect(locked.statusCode).toBe(429);
      expect(locked.json().code).toBe('ERROR_RATE_LIMIT');
      expect(locked.headers['x-ratelimit-scope']).toBe('auth');
      expect(locked.headers['x-ratelimit-key']).toBe(`+52${cellphone}`);
      const otherPhone = await auth({ cellphone: '5512345678', country_phone_code: '52', password: PASSWORD });
      expect(otherPhone.statusCode).toBe(200);
    });
  });
});
