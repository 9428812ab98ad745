import type { EntityManager } from '@mikro-orm/postgresql';
import { readOne, readRows } from '../../db/tenant-read.js';
import { Config } from '../../entities/config.js';
import { Device } from '../../entities/device.js';
import { OneTimePassword } from '../../entities/one-time-password.js';
import { LEVEL, User } from '../../entities/user.js';
import { appError, validationError, type Problem } from '../../errors/codes.js';
import type { RequestContext } from '../../context/index.js';
import { rateLimitHeaders, type LimiterStore } from '../../limits/store.js';
import type { RecaptchaVerifier } from '../../providers/recaptcha.js';
import { decoyHash, newToken, sha256, verifyPassword } from '../../platform/secrets.js';
import type { RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';

export interface AuthInput {
  email?: string | null;
  cellphone?: string | null;
  country_phone_code?: string | null;
  password?: string | null;
  one_time_password?: string | null;
  guest_token?: string | null;
  device_code?: string | null;
  platform?: string | null;
  notification_app?: string | null;
  notification_provider?: string | null;
  notification_token?: string | null;
  recaptcha_type?: string | null;
  verification_code?: string | null;
}

export interface AuthResult {
  user: User;
  session: { access_token: string; token_type: 'bearer'; expires_in: number };
}

type Branch =
  | { kind: 'otp'; identifier: Identifier; code: string }
  | { kind: 'email'; identifier: Identifier; password: string }
  | { kind: 'cellphone'; identifier: Identifier; password: string }
  | { kind: 'guest'; token: string };

type Identifier = { by: 'email'; email: string; key: string } | { by: 'cellphone'; cellphone: string; code: string | null; key: string };

export const LOCKOUT = { failures: 10, windowS: 15 * 60, blockS: 15 * 60 };
export const MAX_OTP_ATTEMPTS = 5;
const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}\.[^\s@]{1,63}$/;
const DIGITS = /^[0-9]{4,10}$/;
const CELLPHONE = /^[0-9]{4,15}$/;
const COUNTRY_CODE = /^\+?[0-9]{1,4}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const RECAPTCHA_CONFIG = 'security_recaptcha_auth';

/** `POST /auth`: the four branches of CONTRACT §4.1. */
export class AuthService {
  private readonly lockout: RateLimiterAbstract;

  constructor(
    limiter: LimiterStore,
    private readonly recaptcha: RecaptchaVerifier,
    private readonly sessionTtlSeconds: number,
  ) {
    this.lockout = limiter.create({ keyPrefix: 'auth-lockout', points: LOCKOUT.failures, duration: LOCKOUT.windowS });
  }

  async authenticate(ctx: RequestContext, input: AuthInput): Promise<AuthResult> {
    const branch = chooseBranch(input);
    await this.checkRecaptcha(ctx, input);
    if (branch.kind === 'guest') return this.signIn(ctx, await this.guestUser(ctx, branch.token), input, false);

    const lockKey = `${ctx.project.id}:${branch.identifier.key}`;
    await this.assertNotLocked(lockKey, branch.identifier.key);
    const user = await this.verify(ctx, branch);
    if (!user) {
      await this.recordFailure(lockKey);
      throw appError('ERROR_INVALID_CREDENTIALS');
    }
    await this.lockout.delete(lockKey).catch(() => undefined);
    return this.signIn(ctx, user, input, !!input.guest_token);
  }

  /** A session alone is one insert; with a guest to link or a device to register, one transaction. */
  private signIn(ctx: RequestContext, user: User, input: AuthInput, linking: boolean): Promise<AuthResult> {
    if (!linking && !input.notification_token) return this.openSession(ctx, user, input);
    return ctx.em.transactional(async (em) => {
      if (linking) await linkGuest(em, ctx, input.guest_token!, user);
      return this.openSession({ ...ctx, em }, user, input);
    });
  }

  private async checkRecaptcha(ctx: RequestContext, input: AuthInput): Promise<void> {
    const flag = await readOne(ctx.em, Config, { key: RECAPTCHA_CONFIG }, { fields: ['value'] });
    if (flag?.value !== '1') return;
    const { token, type } = recaptchaAnswer(input);
    if (!token || (type !== 'v2' && type !== 'v3')) throw appError('ERROR_RECAPTCHA');
    const ok = await this.recaptcha.verify({ token, type, remoteIp: ctx.ip });
    if (!ok) throw appError('ERROR_RECAPTCHA');
  }

  private async assertNotLocked(lockKey: string, shownKey: string): Promise<void> {
    let res: RateLimiterRes | null;
    try {
      res = await this.lockout.get(lockKey);
    } catch {
      throw appError('ERROR_RATE_LIMIT_UNAVAILABLE', undefined, { headers: { 'retry-after': '1' } });
    }
    if (res && res.consumedPoints >= LOCKOUT.failures) {
      const headers = rateLimitHeaders({ limit: LOCKOUT.failures, msBeforeNext: res.msBeforeNext, scope: 'auth', key: shownKey });
      throw appError('ERROR_RATE_LIMIT', [{ key: 'ERROR_RATE_LIMIT', params: { retry_after: headers['retry-after'] } }], { headers });
    }
  }

  private async recordFailure(lockKey: string): Promise<void> {
    try {
      const res = await this.lockout.penalty(lockKey, 1);
      // The 10th failure starts a full 15-minute lockout from that moment.
      if (res.consumedPoints >= LOCKOUT.failures) await this.lockout.block(lockKey, LOCKOUT.blockS);
    } catch {
      /* the failure is still answered with 401; the count is best effort when the store is down */
    }
  }

  /** The user the credentials prove, or null. Unknown users cost one password verification too. */
  private async verify(ctx: RequestContext, branch: Exclude<Branch, { kind: 'guest' }>): Promise<User | null> {
    const user = await findByIdentifier(ctx.em, branch.identifier, branch.kind !== 'otp');
    if (branch.kind === 'otp') return user?.enabled ? this.consumeOtp(ctx, user, branch.code) : null;
    const hash = user?.password_hash ?? null;
    const ok = await verifyPassword(hash ?? (await decoyHash()), branch.password);
    return ok && hash && user?.enabled ? user : null;
  }

  /** Single use under concurrency: the row is claimed with a conditional update. */
  private async consumeOtp(ctx: RequestContext, user: User, code: string): Promise<User | null> {
    const otp = await ctx.em.findOne(
      OneTimePassword,
      { user: user.id, used_at: null, expires_at: { $gt: new Date() }, attempts: { $lt: MAX_OTP_ATTEMPTS } },
      { orderBy: { id: 'desc' } },
    );
    if (!otp) return null;
    const match = await verifyPassword(otp.code_hash, code);
    const claimed = await ctx.em.nativeUpdate(
      OneTimePassword,
      { id: otp.id, used_at: null, attempts: { $lt: MAX_OTP_ATTEMPTS } },
      match ? { used_at: new Date(), attempts: otp.attempts + 1 } : { attempts: otp.attempts + 1 },
    );
    return match && claimed === 1 ? user : null;
  }

  private async guestUser(ctx: RequestContext, token: string): Promise<User> {
    const found = await ctx.em.findOne(User, { guest_token: token });
    if (found) {
      if (!found.enabled || !found.guest) throw appError('ERROR_INVALID_CREDENTIALS');
      return found;
    }
    const user = ctx.em.create(User, {
      project: ctx.project,
      guest: true,
      guest_token: token,
      level: LEVEL.CUSTOMER,
      enabled: true,
    });
    try {
      await ctx.em.flush();
      return user;
    } catch (err) {
      // Two first calls with one token: the loser reads the winner's user.
      ctx.em.clear();
      const winner = await ctx.em.findOne(User, { guest_token: token });
      if (winner?.guest && winner.enabled) return winner;
      throw err;
    }
  }

  /**
   * `DELETE /auth/session` (CONTRACT §11, fourth review): the caller's session ends: its row is deleted, so its token
   * is 401 everywhere (this process at once, the others within their caller cache) and the streams opened with it end
   * at their next check. Only a session's own bearer token ends it: an API key, or no credential, is 401. The user's
   * other sessions go on.
   */
  async endSession(ctx: RequestContext): Promise<boolean> {
    const { caller } = ctx;
    if (caller.kind !== 'user' || caller.via !== 'session' || caller.credentialId === undefined) throw appError('ERROR_UNAUTHORIZED');
    const rows = await ctx.em
      .getConnection()
      .execute<{ id: number }[]>(
        `delete from sessions where project_id = ? and id = ? and user_id = ? returning id`,
        [ctx.project.id, caller.credentialId, caller.user.id],
        'all',
        ctx.em.getTransactionContext(),
      );
    ctx.services.tenancy.forgetSession(caller.credentialId);
    if (!rows.length) throw appError('ERROR_UNAUTHORIZED'); // revoked meanwhile, by another request
    return true;
  }

  private async openSession(ctx: RequestContext, user: User, input: AuthInput): Promise<AuthResult> {
    const token = newToken('ogs');
    if (input.notification_token) await registerDevice(ctx, user, input);
    await ctx.em.getConnection().execute(
      `insert into sessions (project_id, user_id, token_hash, expires_at, device_code, platform, ip, forwarded_for, user_agent, created_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, now())`,
      [
        ctx.project.id,
        user.id,
        sha256(token),
        new Date(Date.now() + this.sessionTtlSeconds * 1000),
        input.device_code ?? null,
        input.platform ?? null,
        ctx.ip,
        ctx.forwardedFor ?? null,
        ctx.userAgent ?? null,
      ],
      'run',
      ctx.em.getTransactionContext(),
    );
    return { user, session: { access_token: token, token_type: 'bearer', expires_in: this.sessionTtlSeconds } };
  }
}

/**
 * The reCAPTCHA answer: `verification_code` with `recaptcha_type`, or (as the SDK's sign-up flow
 * sends it) a `verification_code` that is JSON text `{"code": …, "version": "v2"|"v3"}` without it.
 */
function recaptchaAnswer(input: AuthInput): { token?: string | null; type?: string | null } {
  const code = input.verification_code;
  if (input.recaptcha_type != null || !code?.trimStart().startsWith('{')) return { token: code, type: input.recaptcha_type };
  try {
    const decoded = JSON.parse(code) as unknown;
    if (typeof decoded === 'object' && decoded !== null && !Array.isArray(decoded)) {
      const { code: token, version } = decoded as Record<string, unknown>;
      if (typeof token === 'string' && typeof version === 'string') return { token, type: version };
    }
  } catch {
    /* not JSON text: an answer without a type */
  }
  return { token: code, type: null };
}

/** Which branch a body takes, with its fields checked (400 naming each bad field). */
export function chooseBranch(input: AuthInput): Branch {
  const problems: Problem[] = [];
  const bad = (field: string, rule?: Problem['rule'], params?: Problem['params']) => problems.push({ field, rule, params });
  const fail = () => validationError(problems);

  const identifier = (): Identifier | null => {
    if (input.email != null) {
      const email = input.email.trim().toLowerCase();
      if (!EMAIL.test(email)) return (bad('email', 'email'), null);
      return { by: 'email', email, key: email };
    }
    if (input.cellphone != null) {
      if (!CELLPHONE.test(input.cellphone)) bad('cellphone', 'digits_count', { min: 4, max: 15 });
      if (input.country_phone_code != null && !COUNTRY_CODE.test(input.country_phone_code)) bad('country_phone_code', 'phone');
      if (problems.length) return null;
      // Without a country code (the customer apps send the national number only): the cellphone alone.
      if (input.country_phone_code == null) return { by: 'cellphone', cellphone: input.cellphone, code: null, key: input.cellphone };
      const code = input.country_phone_code.replace(/^\+/, '');
      return { by: 'cellphone', cellphone: input.cellphone, code, key: `+${code}${input.cellphone}` };
    }
    bad('email', 'required');
    return null;
  };

  if (input.guest_token != null && !UUID.test(input.guest_token)) bad('guest_token', 'uuid');
  if (input.one_time_password != null) {
    if (!DIGITS.test(input.one_time_password)) bad('one_time_password', 'digits');
    const id = identifier();
    if (problems.length || !id) throw fail();
    return { kind: 'otp', identifier: id, code: input.one_time_password };
  }
  if (input.password != null) {
    if (input.password.length === 0) bad('password', 'not_empty');
    else if (input.password.length > 1024) bad('password', 'max_length', { max: 1024 });
    const id = identifier();
    if (problems.length || !id) throw fail();
    return id.by === 'email'
      ? { kind: 'email', identifier: id, password: input.password }
      : { kind: 'cellphone', identifier: id, password: input.password };
  }
  if (input.guest_token != null && input.email == null && input.cellphone == null) {
    if (problems.length) throw fail();
    return { kind: 'guest', token: input.guest_token.toLowerCase() };
  }
  if (input.email != null || input.cellphone != null) bad('password', 'required');
  else if (!problems.length) bad('email', 'required');
  throw fail();
}

/** What a sign-in reads of a user: the graph's fields and, for a password branch, the (lazy) hash. */
const USER_FIELDS = ['id', 'project', 'name', 'lastname', 'email', 'cellphone', 'country_phone_code', 'level', 'guest', 'enabled'] as const;
const WITH_PASSWORD = [...USER_FIELDS, 'password_hash'] as const;

/**
 * The user of an identifier, read without entities (nothing of it is written by a sign-in);
 * `withPassword` loads the password hash in the same query.
 */
async function findByIdentifier(em: EntityManager, id: Identifier, withPassword: boolean): Promise<User | null> {
  const fields = withPassword ? WITH_PASSWORD : USER_FIELDS;
  if (id.by === 'email') {
    // Emails match case-insensitively, as the unique index on lower(email) does.
    return readOne(em, User, { email: { $ilike: id.email.replace(/[\\%_]/g, (c) => `\\${c}`) } }, { fields });
  }
  if (id.code === null) {
    // The cellphone alone identifies a user only when exactly one of the project has it.
    const found = await readRows(em, User, { cellphone: id.cellphone }, { fields, limit: 2 });
    return found.length === 1 ? found[0] : null;
  }
  return readOne(em, User, { cellphone: id.cellphone, country_phone_code: { $in: [id.code, `+${id.code}`] } }, { fields });
}

async function registerDevice(ctx: RequestContext, user: User, input: AuthInput): Promise<void> {
  await ctx.em.upsert(
    Device,
    {
      project: ctx.project,
      user_id: user.id,
      notification_token: input.notification_token!,
      notification_app: input.notification_app ?? null,
      notification_provider: input.notification_provider ?? null,
      platform: input.platform ?? null,
      device_code: input.device_code ?? null,
      updated_at: new Date(),
    },
    { onConflictFields: ['project', 'notification_token'] },
  );
}

/** A guest's conversations and orders move to the user who just signed in; the guest retires. */
async function linkGuest(em: EntityManager, ctx: RequestContext, token: string, user: User): Promise<void> {
  if (!UUID.test(token)) return;
  const guest = await em.findOne(User, { guest_token: token.toLowerCase(), guest: true });
  if (!guest || guest.id === user.id) return;
  const conn = em.getConnection();
  const tx = em.getTransactionContext();
  // An active conversation moves unless the user already has one with that agent.
  await conn.execute(
    `update ai_conversations c set user_id = ? where c.project_id = ? and c.user_id = ?
       and (c.status = 'closed' or not exists (select 1 from ai_conversations x
         where x.agent_id = c.agent_id and x.user_id = ? and x.status = 'active'))`,
    [user.id, ctx.project.id, guest.id, user.id],
    'run',
    tx,
  );
  await conn.execute(
    'update orders set customer_id = ? where project_id = ? and customer_id = ?',
    [user.id, ctx.project.id, guest.id],
    'run',
    tx,
  );
  guest.enabled = false;
  guest.guest_token = null;
}
