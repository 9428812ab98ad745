import type { MikroORM } from '@mikro-orm/postgresql';
import type { FastifyInstance } from 'fastify';

/** Liveness: the process answers. Readiness: the database answers too. */
export function registerHealth(app: FastifyInstance, orm: MikroORM): void {
  app.get('/health/live', { schema: { tags: ['health'], summary: 'The process is up' } }, async () => ({ status: 'ok' }));
  app.get('/health/ready', { schema: { tags: ['health'], summary: 'The process can serve requests' } }, async (req, reply) => {
    try {
      await orm.em.getConnection().execute('select 1');
      return { status: 'ok' };
    } catch (err) {
      req.log.warn({ err }, 'readiness check failed');
      return reply.code(503).send({ status: 'unavailable' });
    }
  });
}
