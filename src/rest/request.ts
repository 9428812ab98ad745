import type { RequestContext } from '../context/index.js';
import type { OutageLog } from '../db/unavailable.js';
import type { Lang } from '../i18n/messages.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request context, set by the pipeline (rest/pipeline.ts) for API routes. */
    ctx: RequestContext | null;
    /** The response language, known once the path is read. */
    lang: Lang | null;
  }
  interface FastifyInstance {
    /** Logs database outages once, then as periodic summaries (db/unavailable.ts). */
    outage: OutageLog;
  }
}

export {};
