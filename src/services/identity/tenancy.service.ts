import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { ApiKey } from '../../entities/api-key.js';
import { Project } from '../../entities/project.js';
import { Session } from '../../entities/session.js';
import { TENANT_FILTER } from '../../entities/tenant.js';
import { User } from '../../entities/user.js';
import { selectRows } from '../../db/direct-read.js';
import { columnsOf, entityRow, tenantOf } from '../../db/tenant-read.js';
import type { Caller } from '../../context/index.js';
import { sha256 } from '../../platform/secrets.js';
import { TtlCache } from '../../platform/ttl-cache.js';

const PROJECT_CODE = /^[a-z0-9][a-z0-9_-]{0,63}$/;
/** Changes to a project (maintenance, subscription, limits) reach every process within this. */
export const PROJECT_CACHE_MS = 2000;
/**
 * A valid API key or session is remembered per process this long (from the start of its lookup),
 * so a revoked key, a deleted session or a disabled user is refused everywhere within it; a
 * session's expiry is checked on every hit. Unknown credentials are never remembered.
 */
export const CALLER_CACHE_MS = 1000;

export interface Credentials {
  bearer?: string;
  apiKey?: string;
}

/** Identification results: a caller, nobody, or credentials that were sent but are not valid. */
export type Identified = Caller | { kind: 'invalid' };

/** Projects and callers: resolved before any request context exists. */
export class TenancyService {
  private readonly projects = new TtlCache<string, Project | null>(PROJECT_CACHE_MS, 10_000);
  private readonly callers = new TtlCache<string, { caller: Identified; expiresAt?: Date; projectCode?: string }>(CALLER_CACHE_MS, 10_000);
  /**
   * Sessions this process revoked (`DELETE /auth/session`), by id, until every remembered caller of theirs has
   * expired: a hit on one is refused at once here (other processes within CALLER_CACHE_MS, as a deleted session is).
   */
  private readonly revoked = new Map<number, number>();
  /** byApiKey's statement, made once from the User entity's columns. */
  private keySql: string | undefined;

  constructor(private readonly orm: MikroORM) {}

  /** The project of a path segment; null when it does not exist. Throws when the lookup fails. */
  async findProject(code: string): Promise<Project | null> {
    if (!PROJECT_CODE.test(code)) return null;
    return this.projects.getOrLoad(code, () => this.orm.em.fork().findOne(Project, { code }));
  }

  forgetProject(code: string): void {
    this.projects.delete(code);
  }

  /** The session `id` was revoked: no remembered caller of this process stands for it any longer. */
  forgetSession(id: number): void {
    const now = Date.now();
    for (const [sessionId, until] of this.revoked) if (until <= now) this.revoked.delete(sessionId);
    this.revoked.set(id, now + 2 * CALLER_CACHE_MS);
  }

  /** A request-scoped entity manager that can only see and write rows of `project`. */
  scopedEm(project: Project): EntityManager {
    const em = this.orm.em.fork({ clear: true });
    em.setFilterParams(TENANT_FILTER, { projectId: project.id });
    return em;
  }

  /** Who is calling, within a project. When both are sent, the API key decides. */
  async identify(em: EntityManager, creds: Credentials): Promise<Identified> {
    const { projectId } = em.getFilterParams<{ projectId: number }>(TENANT_FILTER);
    if (creds.apiKey !== undefined) {
      const key = creds.apiKey;
      return this.remembered(`${projectId}:k:${sha256(key)}`, async () => ({ caller: await this.byApiKey(em, key) }));
    }
    if (creds.bearer !== undefined) {
      const token = creds.bearer;
      return this.remembered(`${projectId}:s:${sha256(token)}`, () => this.bySession(em, token));
    }
    return { kind: 'anonymous' };
  }

  /** A caller from the short per-process cache; only valid callers stay in it. */
  private async remembered(key: string, load: () => Promise<{ caller: Identified; expiresAt?: Date }>): Promise<Identified> {
    return (await this.rememberedEntry(key, load)).caller;
  }

  private async rememberedEntry<T extends { caller: Identified; expiresAt?: Date }>(key: string, load: () => Promise<T>): Promise<T> {
    const hit = (await this.callers.getOrLoad(key, load)) as T;
    const { caller } = hit;
    if (caller.kind === 'user' && caller.via === 'session' && caller.credentialId !== undefined && this.revoked.has(caller.credentialId)) {
      this.callers.delete(key);
      return { ...hit, caller: { kind: 'invalid' } };
    }
    if (hit.caller.kind === 'invalid') {
      this.callers.delete(key);
      return hit;
    }
    if (hit.expiresAt && hit.expiresAt.getTime() <= Date.now()) {
      this.callers.delete(key);
      return { ...hit, caller: { kind: 'invalid' } };
    }
    return hit;
  }

  /**
   * For `/graphql`, which has no project in its path: the credential names its project. This is
   * the one lookup that reads sessions and keys across projects, by their unique hash. The same
   * freshness rule as the REST pipeline's: the caller (and which project it belongs to) is
   * remembered CALLER_CACHE_MS, the project itself comes through findProject (PROJECT_CACHE_MS).
   */
  async identifyAnyProject(creds: Credentials): Promise<{ project: Project; caller: Identified } | null> {
    const key = creds.apiKey !== undefined ? `*:k:${sha256(creds.apiKey)}` : `*:s:${sha256(creds.bearer ?? '')}`;
    const hit = await this.rememberedEntry(key, () => this.anyProjectCaller(creds));
    if (hit.caller.kind === 'invalid' || hit.projectCode === undefined) return null;
    const project = await this.findProject(hit.projectCode);
    return project ? { project, caller: hit.caller } : null;
  }

  private async anyProjectCaller(creds: Credentials): Promise<{ caller: Identified; expiresAt?: Date; projectCode?: string }> {
    const em = this.orm.em.fork();
    const unscoped = { filters: false, populate: ['project', 'user'] } as const;
    if (creds.apiKey !== undefined) {
      const key = await em.findOne(ApiKey, { key_hash: sha256(creds.apiKey) }, unscoped);
      return key ? { caller: this.fromKey(key), projectCode: key.project.getEntity().code } : { caller: { kind: 'invalid' } };
    }
    const session = await em.findOne(Session, { token_hash: sha256(creds.bearer ?? ''), expires_at: { $gt: new Date() } }, unscoped);
    return session
      ? {
          caller: this.asUser(session.user.getEntity(), 'session', session.id),
          expiresAt: session.expires_at,
          projectCode: session.project.getEntity().code,
        }
      : { caller: { kind: 'invalid' } };
  }

  /**
   * The key and its user in one statement with bind parameters (db/direct-read.ts), the user as
   * db/tenant-read.ts reads rows (not managed, its lazy password hash left out): a miss of the
   * caller cache costs one round trip, not the ORM's findOne with populate (issue 45).
   */
  private async byApiKey(em: EntityManager, key: string): Promise<Identified> {
    this.keySql ??= `select k.id as og_key_id, k.server as og_key_server, ${columnsOf(em, User, 'u').join(', ')}
       from api_keys k left join users u on u.id = k.user_id and u.project_id = k.project_id
      where k.project_id = ? and k.key_hash = ?`;
    const [row] = await selectRows<Record<string, unknown>>(em, this.keySql, [tenantOf(em), sha256(key)]);
    if (!row) return { kind: 'invalid' };
    const { og_key_id: id, og_key_server: server, ...user } = row;
    if (server === true) return { kind: 'server', apiKeyId: id as number };
    return user.id === null ? { kind: 'invalid' } : this.asUser(entityRow(em, User, user), 'api_key', id as number);
  }

  private fromKey(row: ApiKey): Identified {
    if (row.server) return { kind: 'server', apiKeyId: row.id };
    const user = row.user?.getEntity();
    return user ? this.asUser(user, 'api_key', row.id) : { kind: 'invalid' };
  }

  private async bySession(em: EntityManager, token: string): Promise<{ caller: Identified; expiresAt?: Date }> {
    const row = await em.findOne(Session, { token_hash: sha256(token), expires_at: { $gt: new Date() } }, { populate: ['user'] });
    return row
      ? { caller: this.asUser(row.user.getEntity(), 'session', row.id), expiresAt: row.expires_at }
      : { caller: { kind: 'invalid' } };
  }

  private asUser(user: User, via: 'session' | 'api_key', credentialId: number): Identified {
    return user.enabled ? { kind: 'user', user, via, credentialId } : { kind: 'invalid' };
  }
}

export function credentialsFrom(headers: Record<string, string | string[] | undefined>): Credentials {
  const apiKey = single(headers['x-api-key']);
  const auth = single(headers.authorization);
  const match = auth ? /^bearer\s+(\S+)\s*$/i.exec(auth) : null;
  return {
    apiKey: apiKey !== undefined ? apiKey : undefined,
    bearer: match ? match[1] : auth !== undefined ? '' : undefined,
  };
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
