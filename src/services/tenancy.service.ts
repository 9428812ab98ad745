import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { ApiKey } from '../entities/api-key.js';
import { Project } from '../entities/project.js';
import { Session } from '../entities/session.js';
import { TENANT_FILTER } from '../entities/tenant.js';
import type { User } from '../entities/user.js';
import { appError } from '../errors/codes.js';
import type { Caller } from '../graph/context.js';
import { sha256 } from '../platform/secrets.js';
import { TtlCache } from '../platform/ttl-cache.js';

const PROJECT_CODE = /^[a-z0-9][a-z0-9_-]{0,63}$/;
/** Changes to a project (maintenance, subscription, limits) reach every process within this. */
export const PROJECT_CACHE_MS = 2000;

export interface Credentials {
  bearer?: string;
  apiKey?: string;
}

/** Identification results: a caller, nobody, or credentials that were sent but are not valid. */
export type Identified = Caller | { kind: 'invalid' };

/** Projects and callers: resolved before any request context exists. */
export class TenancyService {
  private readonly projects = new TtlCache<string, Project | null>(PROJECT_CACHE_MS, 10_000);

  constructor(private readonly orm: MikroORM) {}

  /** The project of a path segment; null when it does not exist. Throws when the lookup fails. */
  async findProject(code: string): Promise<Project | null> {
    if (!PROJECT_CODE.test(code)) return null;
    return this.projects.getOrLoad(code, () => this.orm.em.fork().findOne(Project, { code }));
  }

  forgetProject(code: string): void {
    this.projects.delete(code);
  }

  /** A request-scoped entity manager that can only see and write rows of `project`. */
  scopedEm(project: Project): EntityManager {
    const em = this.orm.em.fork({ clear: true });
    em.setFilterParams(TENANT_FILTER, { projectId: project.id });
    return em;
  }

  /** Who is calling, within a project. When both are sent, the API key decides. */
  async identify(em: EntityManager, creds: Credentials): Promise<Identified> {
    if (creds.apiKey !== undefined) return this.byApiKey(em, creds.apiKey);
    if (creds.bearer !== undefined) return this.bySession(em, creds.bearer);
    return { kind: 'anonymous' };
  }

  /**
   * For `/graphql`, which has no project in its path: the credential names its project. This is
   * the one lookup that reads sessions and keys across projects, by their unique hash.
   */
  async identifyAnyProject(creds: Credentials): Promise<{ project: Project; caller: Identified } | null> {
    const em = this.orm.em.fork();
    const unscoped = { filters: false, populate: ['project', 'user'] } as const;
    if (creds.apiKey !== undefined) {
      const key = await em.findOne(ApiKey, { key_hash: sha256(creds.apiKey) }, unscoped);
      return key ? { project: key.project.getEntity(), caller: this.fromKey(key) } : null;
    }
    const session = await em.findOne(Session, { token_hash: sha256(creds.bearer ?? ''), expires_at: { $gt: new Date() } }, unscoped);
    return session ? { project: session.project.getEntity(), caller: this.asUser(session.user.getEntity(), 'session') } : null;
  }

  private async byApiKey(em: EntityManager, key: string): Promise<Identified> {
    const row = await em.findOne(ApiKey, { key_hash: sha256(key) }, { populate: ['user'] });
    return row ? this.fromKey(row) : { kind: 'invalid' };
  }

  private fromKey(row: ApiKey): Identified {
    if (row.server) return { kind: 'server', apiKeyId: row.id };
    const user = row.user?.getEntity();
    return user ? this.asUser(user, 'api_key') : { kind: 'invalid' };
  }

  private async bySession(em: EntityManager, token: string): Promise<Identified> {
    const row = await em.findOne(
      Session,
      { token_hash: sha256(token), expires_at: { $gt: new Date() } },
      { populate: ['user'] },
    );
    return row ? this.asUser(row.user.getEntity(), 'session') : { kind: 'invalid' };
  }

  private asUser(user: User, via: 'session' | 'api_key'): Identified {
    return user.enabled ? { kind: 'user', user, via } : { kind: 'invalid' };
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
