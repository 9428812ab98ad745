import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, PASSWORD } from '../support/fixtures.js';

/**
 * POST /auth with a cellphone and no country code, as the customer apps send it (CONTRACT §4.1):
 * the project's one user with that cellphone; none or several answer as a wrong password.
 */
const UNIQUE = (e: number) => `55700000${e}0`;
const SHARED = (e: number) => `55700000${e}1`; // two users of acme, different country codes
const ELSEWHERE = (e: number) => `55700000${e}2`; // acme has none; the other project has one
const LOCKED = (e: number) => `55700000${e}3`;
const OTP_PHONE = (e: number) => `55700000${e}4`;
const uid = (e: number, k: number) => 30 + e * 10 + k;

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  const fixture = baseFixture();
  const acme = fixture.projects[0];
  for (const e of [0, 1]) {
    acme.users!.push(
      { id: uid(e, 0), name: 'Uno', cellphone: UNIQUE(e), country_phone_code: '52', password: PASSWORD, level: 3 },
      { id: uid(e, 1), name: 'Mx', cellphone: SHARED(e), country_phone_code: '52', password: PASSWORD, level: 3 },
      { id: uid(e, 2), name: 'Co', cellphone: SHARED(e), country_phone_code: '57', password: PASSWORD, level: 3 },
      { id: uid(e, 3), name: 'Lock', cellphone: LOCKED(e), country_phone_code: '1', password: PASSWORD, level: 3 },
      { id: uid(e, 4), name: 'Otp', cellphone: OTP_PHONE(e), country_phone_code: '34', password: PASSWORD, level: 3 },
    );
    fixture.projects[1].users!.push({
      id: 150 + e,
      name: 'Far',
      cellphone: ELSEWHERE(e),
      country_phone_code: '52',
      password: PASSWORD,
      level: 3,
    });
  }
  acme.one_time_passwords = [0, 1].map((e) => ({
    user_id: uid(e, 4),
    code: '246810',
    expires_at: new Date(Date.now() + 3600_000).toISOString(),
  }));
  await db.load(fixture);
});
afterAll(() => db.orm.close());

describe.each(ENGINES.map((engine, e) => [engine, e] as const))('cellphone without a country code (%s)', (engine, e) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(engine, db);
  });
  afterAll(() => t.close());
  const auth = (body: Record<string, unknown>) =>
    t.api({ method: 'POST', path: '/auth', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });

  it('signs in the one user of the project with that cellphone', async () => {
    const res = await auth({ cellphone: UNIQUE(e), password: PASSWORD });
    expect(res.statusCode).toBe(200);
    expect(res.json().result).toMatchObject({ id: uid(e, 0), cellphone: UNIQUE(e), country_phone_code: '52' });
    expect(res.json().result.session.access_token).toBeTruthy();
  });

  it('answers a wrong password, several matching users, or none in the project with the same 401', async () => {
    const wrong = await auth({ cellphone: UNIQUE(e), password: 'not the password' });
    const ambiguous = await auth({ cellphone: SHARED(e), password: PASSWORD });
    const foreign = await auth({ cellphone: ELSEWHERE(e), password: PASSWORD });
    const unknown = await auth({ cellphone: '5579999999', password: PASSWORD });
    for (const res of [wrong, ambiguous, foreign, unknown]) {
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual(wrong.json());
      expect(res.json().code).toBe('ERROR_INVALID_CREDENTIALS');
    }
    // With its country code, each of the two is still found.
    const mx = await auth({ cellphone: SHARED(e), country_phone_code: '+52', password: PASSWORD });
    expect(mx.json().result?.id).toBe(uid(e, 1));
    const co = await auth({ cellphone: SHARED(e), country_phone_code: '57', password: PASSWORD });
    expect(co.json().result?.id).toBe(uid(e, 2));
  });

  it('takes a one-time password the same way', async () => {
    const res = await auth({ cellphone: OTP_PHONE(e), one_time_password: '246810' });
    expect(res.statusCode).toBe(200);
    expect(res.json().result.id).toBe(uid(e, 4));
    const ambiguous = await auth({ cellphone: SHARED(e), one_time_password: '246810' });
    expect(ambiguous.statusCode).toBe(401);
  });

  it('counts failures against the cellphone alone: the 11th attempt is 429 keyed by it', async () => {
    for (let i = 0; i < 10; i++) expect((await auth({ cellphone: LOCKED(e), password: `wrong-${i}` })).statusCode).toBe(401);
    const locked = await auth({ cellphone: LOCKED(e), password: PASSWORD });
    expect(locked.statusCode).toBe(429);
    expect(locked.headers['x-ratelimit-scope']).toBe('auth');
    expect(locked.headers['x-ratelimit-key']).toBe(LOCKED(e));
    // The count with a country code is its own.
    const withCode = await auth({ cellphone: LOCKED(e), country_phone_code: '1', password: PASSWORD });
    expect(withCode.statusCode).toBe(200);
  });

  it('still checks the fields: a malformed cellphone or country code is a 400 naming it', async () => {
    const phone = await auth({ cellphone: '55-12', password: PASSWORD });
    expect(phone.statusCode).toBe(400);
    expect(phone.json().result.join(' ')).toContain('cellphone');
    const code = await auth({ cellphone: UNIQUE(e), country_phone_code: 'MX', password: PASSWORD });
    expect(code.statusCode).toBe(400);
    expect(code.json().result.join(' ')).toContain('country_phone_code');
  });
});
