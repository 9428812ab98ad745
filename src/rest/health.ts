import type { MikroORM } from '@mikro-orm/postgresql';
import type { FastifyInstance } from 'fastify';
import { causeOf, RETRY_AFTER_SECONDS } from '../db/unavailable.js';

/** /health/ready answers within this, whatever the database does. */
export const READY_TIMEOUT_MS = 900;

/** Liveness: the process answers. Readiness: the database answers too, within READY_TIMEOUT_MS. */
export function registerHealth(app: FastifyInstance, orm: MikroORM): void {
  app.get('/health/live', { schema: { tags: ['health'], summary: 'The process is up' } }, async () => ({ status: 'ok' }));
  app.get('/health/ready', { schema: { tags: ['health'], summary: 'The process can serve requests' } }, async (req, reply) => {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        orm.em.getConnection().execute('select 1'),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${READY_TIMEOUT_MS} ms`)), READY_TIMEOUT_MS);
        }),
      ]);
      return { status: 'ok' };
    } catch (err) {
      req.log.warn({ cause: causeOf(err) }, 'readiness check failed');
      return reply.code(503).header('retry-after', String(RETRY_AFTER_SECONDS)).send({ status: 'unavailable' });
    } finally {
      clearTimeout(timer);
    }
  });
}
