import type { FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseFailure } from '../db/unavailable.js';
import type { Project } from '../entities/project.js';
import { appError } from '../errors/codes.js';
import type { RequestContext } from '../context/index.js';
import { resolveLang } from '../i18n/messages.js';
import { assertAccess, assertAiModule } from '../services/identity/access.js';
import type { Services } from '../services/index.js';
import { credentialsFrom } from '../services/identity/tenancy.service.js';
import type { RouteSpec } from './route-spec.js';

export type ClientIp = (socketIp: string, forwardedFor: string | undefined) => string;

/**
 * The checks of CONTRACT §1 after the version (which routing already decided), in order:
 * application maintenance → project → usage limits → authentication and level → AI module.
 * Input validation follows in Fastify's validation phase; the operation in the handler.
 */
export function pipeline(spec: RouteSpec, services: Services, clientIp: ClientIp) {
  return async function runPipeline(req: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const { lang: langSegment, project: code } = req.params as { lang: string; project: string };
    req.lang = resolveLang(langSegment);
    await assertApplicationOpen(services);

    const project = servable(await lookup(req, () => services.tenancy.findProject(code)));

    const em = services.tenancy.scopedEm(project);
    const forwardedFor = header(req, 'x-forwarded-for');
    const ip = clientIp(req.socket.remoteAddress ?? '', forwardedFor);
    const caller = await services.tenancy.identify(em, credentialsFrom(req.headers));
    await services.limits.enforce({ project, ip, userId: caller.kind === 'user' ? caller.user.id : undefined });
    if (caller.kind === 'invalid') throw appError('ERROR_UNAUTHORIZED');

    const ctx: RequestContext = {
      requestId: req.id,
      project,
      caller,
      em,
      lang: req.lang,
      ip,
      forwardedFor,
      userAgent: header(req, 'user-agent'),
      services,
      log: req.log,
    };
    assertAccess(ctx, spec.access);
    if (spec.ai) assertAiModule(ctx);
    req.ctx = ctx;
  };
}

/** Application maintenance: 503 before anything else but the version (REST and /graphql). */
export async function assertApplicationOpen(services: Services): Promise<void> {
  if (await services.settings.maintenance()) throw appError('ERROR_MAINTENANCE');
}

/**
 * 401 for an unknown project or inactive subscription, 503 for project maintenance unless the
 * request is the one a project in maintenance may still make (`maintenanceExempt`, /graphql's
 * `setProjectMaintenance`; asked only while the project is in maintenance).
 */
export function servable(project: Project | null, maintenanceExempt?: () => boolean): Project {
  if (!project) throw appError('ERROR_PROJECT_NOT_FOUND');
  if (!project.subscription_active) throw appError('ERROR_PROJECT_SUBSCRIPTION_INACTIVE');
  if (project.maintenance && !maintenanceExempt?.()) throw appError('ERROR_MAINTENANCE');
  return project;
}

/** A project lookup (`load`): a database outage or refusal stays itself (a 503 or 400), any other failure is a 500 ERROR_PROJECT_LOOKUP_FAILED, logged. */
export async function lookup<T>(req: FastifyRequest, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (err) {
    if (isDatabaseFailure(err)) throw err; // a 503 (rest/errors.ts), logged once per outage, or a refused value's 400
    req.server.outage.unexpected(req.log, err, 'project lookup failed');
    throw appError('ERROR_PROJECT_LOOKUP_FAILED');
  }
}

export function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}
