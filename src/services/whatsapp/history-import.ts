import { ID_KEY } from '../../db/advisory.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { readInbound } from './inbound-types.js';
import { applyEarlyChanges } from './message-changes.js';
import { wellFormedJson } from '../../errors/nul.js';
import { NAME_LOCK_CLASS } from './stored-items.js';
import { externalIdOf, isObject, messageKey, phoneOf, run, unixSeconds } from './webhook-items.js';

/** First key of the per-agent lock that makes one agent's chunks import one at a time ("OGhi"). */
const HISTORY_LOCK_CLASS = 0x4f476869;
/** `history_context.status` values kept as they are (lower-cased); anything else is `sent`. */
const STATUSES: ReadonlySet<string> = new Set(['sent', 'delivered', 'read', 'failed', 'pending']);

interface Row {
  contact: string;
  external_id: string;
  external_key: string | null;
  role: 'user' | 'assistant';
  content: string;
  type: string;
  payload: Record<string, unknown> | null;
  created_at: string;
  delivery_status: string | null;
  media_id: string | null;
  mime_type: string | null;
  filename: string | null;
  provider_media_id: string | null;
}

/** What one chunk's import did: messages stored, and what it could not read. */
export interface ChunkImport {
  messages: number;
  media: number;
  problems: string[];
}

/**
 * Imports one stored `history` chunk (CONTRACT §13.3) in the caller's transaction: the chunk row is
 * locked at the claimed attempt (a later attempt's claim makes this one change nothing: null), the
 * agent's lock taken (its chunks import one after the other in every process), then, set-based: one
 * closed conversation per (agent, contact) with `source` `history` (created, or its `created_at` and
 * `closed_at` widened), the messages whose ids the agent does not hold (the keys of
 * ai_inbound_message_ids, which live deliveries and echoes take too, and the agent's messages by
 * `external_id`), their files' download jobs, the chunk `done` and the agent's `history.messages`.
 * No event, no window (`last_inbound_at` untouched), and the metrics count no `history` conversation.
 */
export async function importChunk(tx: EntityManager, chunkId: string, attempt: number): Promise<ChunkImport | null> {
  const [chunk] = await run(
    tx,
    `select project_id, agent_id, business_number, value from ai_history_chunks where id = ?::bigint and attempts = ? and status = 'pending' for update`,
    [chunkId, attempt],
  );
  if (!chunk) return null;
  const p = Number(chunk.project_id);
  const agentId = Number(chunk.agent_id);
  await run(tx, `select pg_advisory_xact_lock(?, ${ID_KEY})`, [HISTORY_LOCK_CLASS, agentId]);
  const value = typeof chunk.value === 'string' ? JSON.parse(chunk.value) : chunk.value;
  const problems: string[] = [];
  if (isObject(value) && Array.isArray(value.messages) && value.threads === undefined) {
    const applied = await receiveMedia(tx, p, agentId, value.messages, problems);
    await chunkDone(tx, chunkId);
    return { messages: 0, media: applied, problems };
  }
  const rows = readChunk(value, problems);
  let messages = 0;
  let media = 0;
  const fresh = rows.length ? await freshRows(tx, p, agentId, rows) : [];
  if (fresh.length) {
    // the address book's name locks of these numbers, in one order (fields/state-sync.ts takes one of them):
    // a name committed before a lock is granted is read by the insert below, a later one waits for this commit
    await run(
      tx,
      `select pg_advisory_xact_lock(?, hashtext(?::text || ':' || n.x)) from (select distinct x from unnest(?::text[]) x) n order by n.x`,
      [NAME_LOCK_CLASS, String(agentId), `{${[...new Set(fresh.map((r) => r.contact))].join(',')}}`],
    );
    await run(
      tx,
      `insert into ai_conversations as c (project_id, agent_id, business_id, contact, contact_name, status, status_reason, usage, source,
                                          created_at, updated_at, closed_at)
       select ?::bigint, ?::bigint, (select business_id from ai_agents where id = ?::bigint), t.contact,
              (select b.name from ai_contact_names b where b.agent_id = ?::bigint and b.phone = t.contact),
              'closed', 'completed', '{}', 'history', t.oldest, now(), t.newest
         from (select r->>'contact' as contact, min((r->>'created_at')::timestamptz) as oldest, max((r->>'created_at')::timestamptz) as newest
                 from json_array_elements(?::json) r group by 1) t
        order by t.contact
       on conflict (agent_id, contact) where source = 'history'
       do update set created_at = least(c.created_at, excluded.created_at), closed_at = greatest(c.closed_at, excluded.closed_at)
        where c.created_at > excluded.created_at or c.closed_at < excluded.closed_at`,
      [p, agentId, agentId, agentId, JSON.stringify(fresh.map((r) => ({ contact: r.contact, created_at: r.created_at })))],
    );
    const [stored] = await run(
      tx,
      `with r as (select * from json_to_recordset(?::json) as r(contact text, external_id text, external_key text, role text, content text,
                    type text, payload jsonb, created_at timestamptz, delivery_status text, media_id text, mime_type text, filename text,
                    provider_media_id text)),
       m as (insert into ai_messages (project_id, conversation_id, role, content, public, created_at, external_id, type, payload, source,
                                      delivery_status, external_key)
             select ?::bigint, c.id, r.role, r.content, true, r.created_at, r.external_id, r.type, r.payload, 'history', r.delivery_status,
                    r.external_key
               from r join ai_conversations c on c.agent_id = ?::bigint and c.contact = r.contact and c.source = 'history' and c.project_id = ?::bigint
             returning id, conversation_id, external_id),
       med as (insert into ai_media (id, project_id, origin, conversation_id, message_id, agent_id, mime_type, filename, provider_media_id)
               select r.media_id, ?::bigint, 'inbound', m.conversation_id, m.id, ?::bigint, r.mime_type, r.filename, r.provider_media_id
                 from m join r on r.external_id = m.external_id where r.media_id is not null
               returning 1)
       select (select count(*) from m)::int as messages, (select count(*) from med)::int as media`,
      // a chunk stored before its text was mended may hold unpaired surrogates: U+FFFD here too (CONTRACT §11)
      [wellFormedJson(JSON.stringify(fresh)), p, agentId, p, p, agentId],
    );
    messages = Number(stored.messages);
    media = Number(stored.media);
    await applyKeptChanges(tx, p, agentId, fresh);
    media += await applyWaitingMedia(tx, p, agentId, fresh);
  }
  await chunkDone(tx, chunkId);
  await run(
    tx,
    `update ai_agents set history = jsonb_set(coalesce(history, '{}'), '{messages}', to_jsonb(coalesce((history->>'messages')::bigint, 0) + ?::int))
      where id = ?::bigint`,
    [messages, agentId],
  );
  return { messages, media, problems };
}

async function chunkDone(tx: EntityManager, chunkId: string): Promise<void> {
  await run(
    tx,
    `update ai_history_chunks set status = 'done', claimed_by = null, next_attempt_at = null, updated_at = now() where id = ?::bigint`,
    [chunkId],
  );
}

/** How long a history file waits in ai_history_media for its message's import. */
const WAITING_MEDIA_DAYS = 30;

/** An imported message a media item of a later `history` change may complete (CONTRACT §13.3). */
interface Placeholder {
  id: number;
  conversation_id: number;
}

/**
 * CONTRACT §13.3: the media items of a later `history` change (the files of earlier `media_placeholder`
 * items, same ids), under the agent's lock. An item whose imported message is stored gives it its `type`,
 * `payload` and `content` by §12.2 and its file's download job (no event, window or unread); one whose
 * message is not imported yet waits in ai_history_media for that import (applyWaitingMedia). A message that
 * already has a file keeps it (a change delivered twice downloads once). Returns the files queued.
 */
async function receiveMedia(tx: EntityManager, p: number, agentId: number, items: unknown[], problems: string[]): Promise<number> {
  // a file whose message never came (Meta sends a history once, within days) is not kept for ever
  await run(tx, `delete from ai_history_media where agent_id = ? and created_at < now() - make_interval(days => ?)`, [
    agentId,
    WAITING_MEDIA_DAYS,
  ]);
  let queued = 0;
  for (const [i, m] of items.entries()) {
    const id = isObject(m) ? externalIdOf(m.id) : null;
    if (!isObject(m) || !id) {
      problems.push(`messages[${i}]: no usable id`);
      continue;
    }
    const [target] = await run(
      tx,
      `select m.id, m.conversation_id from ai_messages m join ai_conversations c on c.id = m.conversation_id
        where m.external_id = ? and m.project_id = ? and c.agent_id = ? and m.source = 'history' limit 1`,
      [id, p, agentId],
    );
    if (target) queued += await completePlaceholder(tx, p, agentId, target as Placeholder, m, `messages[${i}]`, problems);
    else
      await run(
        tx,
        `insert into ai_history_media (agent_id, external_id, project_id, item) values (?, ?, ?, ?::json)
         on conflict (agent_id, external_id) do update set item = excluded.item`,
        [agentId, id, p, JSON.stringify(m)],
      );
  }
  return queued;
}

/** The media items that waited in ai_history_media for messages this import just stored, applied and dropped. */
async function applyWaitingMedia(tx: EntityManager, p: number, agentId: number, fresh: Row[]): Promise<number> {
  const waiting = await run(
    tx,
    `delete from ai_history_media w where w.agent_id = ? and w.external_id = any(?::text[]) returning w.external_id, w.item`,
    [agentId, `{${fresh.map((r) => JSON.stringify(r.external_id)).join(',')}}`],
  );
  let queued = 0;
  for (const w of waiting) {
    const [target] = await run(
      tx,
      `select m.id, m.conversation_id from ai_messages m join ai_conversations c on c.id = m.conversation_id
        where m.external_id = ? and m.project_id = ? and c.agent_id = ? and m.source = 'history' limit 1`,
      [w.external_id, p, agentId],
    );
    const item = typeof w.item === 'string' ? JSON.parse(w.item) : w.item;
    if (target && isObject(item)) queued += await completePlaceholder(tx, p, agentId, target as Placeholder, item, w.external_id, []);
  }
  return queued;
}

/** One imported message completed by its media item (read as a live item: a media item needs its `id`). */
async function completePlaceholder(
  tx: EntityManager,
  p: number,
  agentId: number,
  target: Placeholder,
  m: Record<string, any>,
  where: string,
  problems: string[],
): Promise<number> {
  const item = readInbound(m);
  if (!item.media) {
    problems.push(`${where}: not a media item with an id`);
    return 0;
  }
  const [updated] = await run(
    tx,
    `update ai_messages set type = ?, payload = ?::jsonb, content = ?
      where id = ? and project_id = ? and not exists (select 1 from ai_media where message_id = ? and project_id = ?)
      returning id`,
    [item.type, JSON.stringify(item.payload), item.content, target.id, p, target.id, p],
  );
  if (!updated) return 0;
  await run(
    tx,
    `insert into ai_media (id, project_id, origin, conversation_id, message_id, agent_id, mime_type, filename, provider_media_id)
     values (?, ?, 'inbound', ?, ?, ?, ?, ?, ?)`,
    [item.media.id, p, target.conversation_id, target.id, agentId, item.media.mime_type, item.media.filename, item.media.provider_media_id],
  );
  return 1;
}

/**
 * CONTRACT §11, fourth review (§13.2): the edits and revokes kept early for messages this chunk imported are applied
 * to them, as a live delivery applies them (in the order they came; no event: an import emits none). One indexed look
 * at the agent's kept changes first: nearly always none.
 */
async function applyKeptChanges(tx: EntityManager, p: number, agentId: number, fresh: Row[]): Promise<void> {
  const [kept] = await run(tx, `select exists (select 1 from ai_early_changes where agent_id = ?) as any`, [agentId]);
  if (!kept?.any) return;
  const changed = await run(
    tx,
    `select m.* from ai_messages m join ai_conversations c on c.id = m.conversation_id
      where m.project_id = ? and c.agent_id = ? and c.source = 'history' and m.external_id = any(?::text[])
        and exists (select 1 from ai_early_changes e where e.agent_id = c.agent_id and (e.external_id = m.external_id or e.external_key = m.external_key))
      order by m.id for no key update of m`,
    [p, agentId, fresh.map((r) => r.external_id)],
  );
  if (!changed.length) return;
  const [agent] = await run(tx, `select id, business_id from ai_agents where id = ?`, [agentId]);
  const who = { id: agentId, business_id: (agent?.business_id ?? null) as number | null, phone_number_id: null, waba_id: null };
  for (const message of changed) await applyEarlyChanges(tx, p, who, message, []);
}

/**
 * The rows whose ids the agent does not hold yet, their keys taken (ai_inbound_message_ids, which a
 * live delivery or an echo of the same id takes too, so whichever comes second stores nothing), and
 * not a message of the agent by `external_id` (its replies sent through the API have no key).
 */
async function freshRows(tx: EntityManager, p: number, agentId: number, rows: Row[]): Promise<Row[]> {
  const taken = await run(
    tx,
    `insert into ai_inbound_message_ids (agent_id, external_id, project_id)
     select ?::bigint, x, ?::bigint from unnest(?::text[]) x
      where not exists (select 1 from ai_messages h join ai_conversations hc on hc.id = h.conversation_id
                         where h.external_id = x and hc.agent_id = ?::bigint)
      order by x
     on conflict do nothing returning external_id`,
    [agentId, p, rows.map((r) => r.external_id), agentId],
  );
  const fresh = new Set(taken.map((t) => t.external_id as string));
  return rows.filter((r) => fresh.has(r.external_id));
}

/**
 * The chunk's messages as rows to insert: one per usable id (the first of a repeated one). CONTRACT
 * §13.3: `from` decides the role: a message from the thread's `id` (the customer) is a `user` message
 * whatever else it carries (a `to` included), the others the business's.
 */
function readChunk(value: unknown, problems: string[]): Row[] {
  const rows = new Map<string, Row>();
  const threads = isObject(value) && Array.isArray(value.threads) ? value.threads : [];
  for (const [t, thread] of threads.entries()) {
    const contact = isObject(thread) ? phoneOf(thread.id) : null;
    if (!contact || !isObject(thread) || !Array.isArray(thread.messages)) {
      problems.push(`threads[${t}]: no usable id or messages`);
      continue;
    }
    for (const [i, m] of thread.messages.entries()) {
      const id = isObject(m) ? externalIdOf(m.id) : null;
      const at = isObject(m) ? unixSeconds(m.timestamp) : null;
      if (!isObject(m) || !id || !at) {
        problems.push(`threads[${t}].messages[${i}]: no usable id or timestamp`);
        continue;
      }
      if (rows.has(id)) continue;
      const business = m.from !== contact;
      const item = readInbound(m, true);
      const status =
        isObject(m.history_context) && typeof m.history_context.status === 'string' ? m.history_context.status.toLowerCase() : '';
      rows.set(id, {
        contact,
        external_id: id,
        external_key: messageKey(id),
        role: business ? 'assistant' : 'user',
        content: item.content,
        type: item.type,
        payload: item.payload,
        created_at: at.toISOString(),
        delivery_status: business ? (STATUSES.has(status) ? status : 'sent') : null,
        media_id: item.media?.id ?? null,
        mime_type: item.media?.mime_type ?? null,
        filename: item.media?.filename ?? null,
        provider_media_id: item.media?.provider_media_id ?? null,
      });
    }
  }
  return [...rows.values()];
}
