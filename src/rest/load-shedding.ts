import type { FastifyInstance } from 'fastify';
import { serviceUnavailable } from '../db/unavailable.js';
import { resolveLang } from '../i18n/messages.js';
import type { PressureMonitor } from '../platform/pressure.js';
import { sendError } from './envelope.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** True while the process sheds load (CONTRACT §11): new requests, streams and WebSocket upgrades are refused. */
    isUnderPressure(): boolean;
  }
}

/** Paths that answer under pressure: liveness stays 200, readiness says 503 itself (rest/health.ts), metrics are read. */
const EXEMPT = new Set(['/health/live', '/health/ready', '/metrics']);

/**
 * Load shedding: while the monitor reports pressure (live heap, event-loop delay), every
 * new request but those of EXEMPT and CORS preflights gets 503 ERROR_SERVICE_UNAVAILABLE with
 * Retry-After; what the process already holds goes on. One log line when it starts and when it ends.
 */
export function registerLoadShedding(app: FastifyInstance, monitor: PressureMonitor): void {
  let shedding: string | null = null;
  const underPressure = () => {
    const reason = monitor.reason;
    if (reason !== shedding) {
      if (reason) app.log.warn({ reason, ...monitor.last }, 'under pressure: refusing new requests and streams');
      else app.log.info({ ...monitor.last }, 'pressure relieved: accepting requests again');
      shedding = reason;
    }
    return reason !== null;
  };
  app.decorate('isUnderPressure', underPressure);
  app.addHook('onRequest', (req, reply, done) => {
    if (req.method === 'OPTIONS' || !underPressure()) return done();
    const path = req.url.split('?', 1)[0];
    if (EXEMPT.has(path)) return done();
    sendError(reply, serviceUnavailable(), resolveLang(path.split('/')[2]));
  });
}
