import type { RequestContext } from '../../../context/index.js';
import { writeWithEvents } from '../../events/event-log.js';
import { isObject, list, optionalList, phoneOf, run, skip, type WebhookChange } from '../webhook-items.js';

/** Meta's error code when the business declined to share its history (CONTRACT §13.3). */
const DECLINED = 2593109;

/**
 * Field `history` (CONTRACT §13.3): each chunk (`history[]`) is stored as it came, as a row of
 * ai_history_chunks (with the change's `display_phone_number`: the business's messages are those from
 * it, or with a `to`), the outbox of the import (workers/history-importer.ts), and the agent's
 * `history` takes the chunk's phase and progress (the highest seen) and `declined`, in one
 * transaction; the answer never waits for the import. Counts in neither `messages` nor `statuses`.
 * A change that carries `value.messages` instead (the files of earlier `media_placeholder` items) is
 * stored as a chunk of its own, `{"messages": [...]}`, which the import applies to the imported messages.
 */
export async function receiveHistory(ctx: RequestContext, change: WebhookChange): Promise<void> {
  const { agent, value, where, problems } = change;
  if (!agent) return;
  if (value.history === undefined && value.messages !== undefined) return receiveHistoryMedia(ctx, change);
  const chunks: Record<string, unknown>[] = [];
  let phase: number | null = null;
  let progress: number | null = null;
  let declined = false;
  let read = 0;
  for (const [i, chunk] of list(value.history, `${where}.value.history`, problems).entries()) {
    if (!isObject(chunk)) {
      skip(problems, `${where}.value.history[${i}]: not a chunk`);
      continue;
    }
    read++;
    const meta = isObject(chunk.metadata) ? chunk.metadata : {};
    phase = highest(phase, numberOf(meta.phase));
    progress = highest(progress, numberOf(meta.progress));
    declined ||= optionalList(chunk.errors, `${where}.value.history[${i}].errors`, problems).some(
      (e) => isObject(e) && numberOf(e.code) === DECLINED,
    );
    if (optionalList(chunk.threads, `${where}.value.history[${i}].threads`, problems).length) chunks.push(chunk);
  }
  if (!read) return; // nothing readable: the agent's history stays as it was
  await writeWithEvents(
    ctx,
    async (tx) => {
      if (chunks.length)
        await run(
          tx,
          `insert into ai_history_chunks (project_id, agent_id, business_number, value) select ?, ?, ?, x from json_array_elements(?::json) x`,
          [ctx.project.id, agent.id, businessNumber(value.metadata), JSON.stringify(chunks)],
        );
      await run(
        tx,
        `update ai_agents set history = jsonb_build_object(
           'progress', greatest((history->>'progress')::numeric, ?::numeric),
           'phase', greatest((history->>'phase')::numeric, ?::numeric),
           'messages', coalesce((history->>'messages')::bigint, 0),
           'declined', coalesce((history->>'declined')::boolean, false) or ?::boolean,
           'failed', coalesce(history->'failed', '[]'::jsonb),
           'updated_at', to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
         where project_id = ? and id = ?`,
        [progress === null ? null : Math.min(100, progress), phase, declined, ctx.project.id, agent.id],
      );
      return { value: null, events: [], queued: chunks.length ? ['history'] : [] };
    },
    { statementsOnly: true },
  );
}

/**
 * CONTRACT §13.3: a later `history` change whose `value.messages` carry the media items of earlier
 * `media_placeholder` items (same ids): stored as one chunk `{"messages": [...]}` for the import (which
 * holds the agent's lock, so it never races the import of the placeholders themselves); the agent's
 * `history` does not change.
 */
async function receiveHistoryMedia(ctx: RequestContext, change: WebhookChange): Promise<void> {
  const { agent, value, where, problems } = change;
  if (!agent) return;
  const items = list(value.messages, `${where}.value.messages`, problems).filter((m, i) =>
    isObject(m) ? true : skip(problems, `${where}.value.messages[${i}]: not a message`),
  );
  if (!items.length) return;
  await writeWithEvents(
    ctx,
    async (tx) => {
      await run(tx, `insert into ai_history_chunks (project_id, agent_id, business_number, value) values (?, ?, ?, ?::json)`, [
        ctx.project.id,
        agent.id,
        businessNumber(value.metadata),
        JSON.stringify({ messages: items }),
      ]);
      return { value: null, events: [], queued: ['history'] };
    },
    { statementsOnly: true },
  );
}

/** A non-negative number, or its decimal text (Meta sends either); else null. */
export function numberOf(v: unknown): number | null {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^[0-9]{1,9}(\.[0-9]{1,6})?$/.test(v) ? Number(v) : NaN;
  return Number.isFinite(n) && n >= 0 && n < 1e9 ? n : null;
}

const highest = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.max(a, b));

/** The business's own number as the change's metadata shows it (`+1 555-000-1111` read as digits). */
function businessNumber(metadata: unknown): string | null {
  const shown = isObject(metadata) ? metadata.display_phone_number : null;
  return typeof shown === 'string' ? phoneOf(shown.replace(/[^0-9]/g, '')) : null;
}
