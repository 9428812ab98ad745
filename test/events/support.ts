import type { MikroORM } from '@mikro-orm/postgresql';
import type { FastifyInstance } from 'fastify';
import { appendEvents, type NewAiEvent } from '../../src/services/events/event-log.js';
import type { Services } from '../../src/services/index.js';
import type { FixtureProject } from '../../src/fixtures/types.js';

/**
 * Appends events through the one insert function, in a transaction of their own, then runs the
 * sequencer pass (as writeWithEvents does). Returns the project's highest event id after it: the
 * last of these events when nothing else of the project is written meanwhile.
 */
export async function emit(orm: MikroORM, services: Services, projectId: number, events: NewAiEvent[]): Promise<number> {
  await orm.em.fork().transactional((tx) => appendEvents(tx, projectId, events));
  await services.events.sequence(projectId);
  const [{ max }] = await orm.em
    .getConnection()
    .execute<{ max: string }[]>('select max(id)::text as max from ai_events where project_id = ?', [projectId]);
  return Number(max);
}

export const agent = (id: number, ext: string, business_id: number | null = 1) => ({
  id,
  business_id,
  name: `Agent ${ext}`,
  provider: 'whatsapp',
  provider_type: 'chat',
  provider_external_id: ext,
  enabled: true,
});

/** `n` customers of acme with an API key each: ids from `first`, keys `cust-KEY-<id>`. */
export function customers(first: number, n: number): Pick<FixtureProject, 'users' | 'api_keys'> {
  const ids = Array.from({ length: n }, (_, i) => first + i);
  return {
    users: ids.map((id) => ({ id, name: `C${id}`, email: `c${id}@acme.test`, level: 3 })),
    api_keys: ids.map((id) => ({ key: `cust-key-${id}-0123456789`, user_id: id })),
  };
}
export const customerKey = (id: number) => `cust-key-${id}-0123456789`;

export async function listen(app: FastifyInstance): Promise<string> {
  return app.listen({ port: 0, host: '127.0.0.1' });
}
