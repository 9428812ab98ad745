import type { MikroORM } from '@mikro-orm/postgresql';
import type { FastifyInstance } from 'fastify';
import type { DatabaseBreaker } from '../db/breaker.js';
import { selectRows } from '../db/direct-read.js';
import { causeOf, LineLimiter, RETRY_AFTER_SECONDS } from '../db/unavailable.js';

/** /health/ready answers within this, whatever the database does. */
export const READY_TIMEOUT_MS = 900;

/**
 * Liveness: the process answers (also while it sheds load). Readiness: 503 while it sheds load (heap,
 * event loop; a process at STREAMS_MAX_OPEN still serves requests, so it stays ready and says so in
 * `streams`); otherwise the serving pool can serve a read now: one `select 1`
 * through the same pool and path as a request's reads (an acquire, which hands out only a
 * connection in a known idle state, then the statement), answered within READY_TIMEOUT_MS. At
 * most one such read is in flight: checks arriving meanwhile share its outcome, so a frozen
 * database holds at most one pooled connection for readiness however often it is asked. While the
 * breaker (db/breaker.ts) knows the database is down, readiness fails at once.
 */
export function registerHealth(
  app: FastifyInstance,
  orm: MikroORM,
  breaker?: DatabaseBreaker,
  streams: () => { open: number; max: number } = () => ({ open: 0, max: 0 }),
  pressure: () => string | null = () => null,
): void {
  const em = orm.em.fork();
  let inFlight: Promise<unknown> | undefined;
  const read = () => (inFlight ??= selectRows(em, 'select 1 as ok', []).finally(() => (inFlight = undefined)));
  const lines = new LineLimiter();
  app.get(
    '/health/live',
    { schema: { operationId: 'HealthLive', tags: ['health'], summary: 'The process is up', security: [] } },
    async () => ({ status: 'ok' }),
  );
  app.get(
    '/health/ready',
    { schema: { operationId: 'HealthReady', tags: ['health'], summary: 'The process can serve requests', security: [] } },
    async (req, reply) => {
      // shedding load (rest/load-shedding.ts: heap or event loop, never the stream bound): not ready for more, though alive
      if (app.isUnderPressure())
        return reply.code(503).header('retry-after', String(RETRY_AFTER_SECONDS)).send({ status: 'unavailable', reason: pressure() });
      let timer: NodeJS.Timeout | undefined;
      try {
        if (breaker?.isDown) throw new Error('the database is down (the breaker probes it)');
        await Promise.race([
          read(),
          new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error(`no answer within ${READY_TIMEOUT_MS} ms`)), READY_TIMEOUT_MS);
          }),
        ]);
        // a process at its stream bound still serves requests: ready, with the bound told apart
        const { open, max } = streams();
        return { status: 'ok', streams: { open, max, full: open >= max } };
      } catch (err) {
        breaker?.suspect();
        const cause = causeOf(err);
        const suppressed = lines.admit(`ready ${cause}`);
        if (suppressed !== false) req.log.warn({ cause, ...(suppressed ? { suppressed } : {}) }, 'readiness check failed');
        return reply.code(503).header('retry-after', String(RETRY_AFTER_SECONDS)).send({ status: 'unavailable' });
      } finally {
        clearTimeout(timer);
      }
    },
  );
}
