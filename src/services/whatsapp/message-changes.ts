import type { EntityManager } from '@mikro-orm/postgresql';
import type { RequestContext } from '../../context/index.js';
import { messageRecord } from '../conversations/records.js';
import { writeWithEvents, type NewAiEvent } from '../events/event-log.js';
import { readInbound } from './inbound-types.js';
import { externalIdOf, isObject, messageKey, run, type WebhookAgent } from './webhook-items.js';

/**
 * CONTRACT §13.2: a customer's or the business's `edit` and `revoke` items change the message they
 * name (never stored as messages of their own). One whose original is not stored yet is kept in
 * `ai_early_changes` for EARLY_CHANGE_MINUTES and applied when that message is stored.
 */

export const EARLY_CHANGE_MINUTES = 10;
/** At most this many earlier versions are kept in `edits`. */
export const MAX_EDITS = 20;

export interface MessageChange {
  kind: 'edit' | 'revoke';
  original: string;
  /** The edit's new message (`{type, TYPE: {...}, context}`); null for a revoke. */
  message: Record<string, any> | null;
}

/** An item's edit or revoke, else null (an `edit` without a usable original id or message is stored as `unsupported`). */
export function changeOf(m: Record<string, any>): MessageChange | null {
  if (m.type === 'revoke' && isObject(m.revoke)) {
    const original = externalIdOf(m.revoke.original_message_id);
    return original ? { kind: 'revoke', original, message: null } : null;
  }
  if (m.type === 'edit' && isObject(m.edit) && isObject(m.edit.message)) {
    const original = externalIdOf(m.edit.original_message_id);
    return original ? { kind: 'edit', original, message: m.edit.message } : null;
  }
  return null;
}

/** An edit or revoke item, in its own transaction; counts in neither `messages` nor `statuses` (0). */
export async function receiveChange(
  ctx: RequestContext,
  agent: WebhookAgent,
  change: MessageChange,
  at: Date,
  where: string,
  problems: string[],
): Promise<0> {
  const p = ctx.project.id;
  const removed: RemovedFile[] = [];
  const kept = await writeWithEvents(ctx, async (tx) => {
    const [original] = await run(tx, ORIGINAL, originalParams(p, change.original, agent.id));
    if (!original) {
      await run(tx, `insert into ai_early_changes (agent_id, external_id, external_key, kind, item) values (?, ?, ?, ?, ?::jsonb)`, [
        agent.id,
        change.original,
        messageKey(change.original),
        change.kind,
        JSON.stringify({ message: change.message, at: at.toISOString() }),
      ]);
      return { value: true, events: [] };
    }
    const events: NewAiEvent[] = [];
    const queued = await applyChange(tx, p, agent, original, change, at, events, removed);
    return { value: false, events, queued: queued ? ['downloads'] : [] };
  });
  await removeObjects(ctx, removed);
  if (kept) {
    problems.push(`${where}: ${change.kind} of ${change.original} kept until its message arrives`);
    await recheck(ctx, agent, change.original);
  }
  return 0;
}

/** Thrown to roll back recheck's transaction: the original is not being stored. */
const NOT_YET = new Error('the original is not stored');

/**
 * After an early change's commit: the original may have been stored meanwhile by a statement that did not see
 * the change. Taking the original's inbound key waits for a delivery of it that is being stored right now (its
 * key is taken first); a key this takes means no such delivery: rolled back, the change waits for it.
 */
async function recheck(ctx: RequestContext, agent: WebhookAgent, externalId: string): Promise<void> {
  const p = ctx.project.id;
  try {
    await writeWithEvents(
      ctx,
      async (tx) => {
        const [mine] = await run(
          tx,
          `insert into ai_inbound_message_ids (agent_id, external_id, project_id) values (?, ?, ?) on conflict do nothing returning 1 as mine`,
          [agent.id, externalId, p],
        );
        const [original] = await run(tx, ORIGINAL, originalParams(p, externalId, agent.id));
        if (mine && !original) throw NOT_YET;
        const events: NewAiEvent[] = [];
        if (original) await applyEarlyChanges(tx, p, agent, original, events);
        if (mine) await run(tx, `delete from ai_inbound_message_ids where agent_id = ? and external_id = ?`, [agent.id, externalId]);
        return { value: null, events };
      },
      { statementsOnly: true },
    );
  } catch (err) {
    if (err !== NOT_YET) throw err;
  }
}

/** The agent's message with that external id, locked. */
const ORIGINAL = `select m.* from ai_messages m join ai_conversations c on c.id = m.conversation_id and c.project_id = m.project_id
   where m.project_id = ? and (m.external_id = ? or m.external_key = ?) and c.agent_id = ?
   order by (m.external_id is not distinct from ?) desc, m.id limit 1 for no key update of m`;
/** ORIGINAL's parameters: the message is found by either id form Meta gives it (CONTRACT §13.2). */
const originalParams = (p: number, externalId: string, agentId: number) => [p, externalId, messageKey(externalId), agentId, externalId];

/** After `message` was stored: the edits and revokes that came before it, in the order they came (CONTRACT §13.2). */
export async function applyEarlyChanges(
  tx: EntityManager,
  projectId: number,
  agent: WebhookAgent,
  message: Record<string, any>,
  events: NewAiEvent[],
): Promise<void> {
  if (!message.external_id) return;
  const early = await run(
    tx,
    `delete from ai_early_changes where agent_id = ? and (external_id = ? or external_key = ?)
     returning kind, item, received_at, received_at > now() - make_interval(mins => ?) as fresh`,
    [agent.id, message.external_id, message.external_key ?? null, EARLY_CHANGE_MINUTES],
  );
  early.sort((a, b) => new Date(a.received_at).getTime() - new Date(b.received_at).getTime());
  let current = message;
  for (const e of early) {
    if (!e.fresh) continue;
    const change: MessageChange = { kind: e.kind, original: message.external_id, message: e.item.message ?? null };
    const [row] = await run(tx, `select * from ai_messages where id = ? and project_id = ? for no key update`, [current.id, projectId]);
    await applyChange(tx, projectId, agent, row, change, new Date(e.item.at as string), events);
    current = row;
  }
}

/** Applies one change to the locked `original`; true when a new file is to be downloaded. */
async function applyChange(
  tx: EntityManager,
  projectId: number,
  agent: WebhookAgent,
  original: Record<string, any>,
  change: MessageChange,
  at: Date,
  events: NewAiEvent[],
  removed: RemovedFile[] = [],
): Promise<boolean> {
  if (original.revoked_at) return false; // an edit or revoke of a revoked message changes nothing
  let updated: Record<string, any> | undefined;
  let download = false;
  if (change.kind === 'revoke') {
    removed.push(
      ...((await run(tx, `delete from ai_media where project_id = ? and message_id = ? returning id, storage, generation`, [
        projectId,
        original.id,
      ])) as RemovedFile[]),
    );
    [updated] = await run(
      tx,
      `update ai_messages set revoked_at = ?, content = '', payload = null, edits = '[]' where id = ? and project_id = ? returning *`,
      [at, original.id, projectId],
    );
  } else {
    if (original.edited_at && new Date(original.edited_at).getTime() > at.getTime()) return false; // older than the last edit
    const item = readInbound(change.message!);
    let payload = item.payload;
    const oldMedia = isObject(original.payload) && isObject(original.payload.media) ? original.payload.media : null;
    if (item.media) {
      const [same] = oldMedia
        ? await run(tx, `select 1 from ai_media where project_id = ? and id = ? and provider_media_id = ?`, [
            projectId,
            oldMedia.id,
            item.media.provider_media_id,
          ])
        : [];
      if (same)
        payload = { ...payload, media: oldMedia }; // the same file: kept
      else {
        await run(
          tx,
          `insert into ai_media (id, project_id, origin, conversation_id, message_id, agent_id, mime_type, filename, provider_media_id)
           values (?, ?, 'inbound', ?, ?, ?, ?, ?, ?)`,
          [
            item.media.id,
            projectId,
            original.conversation_id,
            original.id,
            agent.id,
            item.media.mime_type,
            item.media.filename,
            item.media.provider_media_id,
          ],
        );
        download = true;
      }
    }
    const previous = { content: original.content, payload: original.payload ?? null, edited_at: isoOrNull(original.edited_at) };
    const edits = [...(Array.isArray(original.edits) ? original.edits : []), previous].slice(-MAX_EDITS);
    [updated] = await run(
      tx,
      `update ai_messages set content = ?, type = ?, payload = ?::jsonb, edited_at = ?, edits = ?::jsonb
        where id = ? and project_id = ? returning *`,
      [item.content, item.type, payload === null ? null : JSON.stringify(payload), at, JSON.stringify(edits), original.id, projectId],
    );
  }
  if (updated) {
    Object.assign(original, updated);
    events.push({
      type: 'message.updated',
      data: messageRecord(updated),
      agent_id: agent.id,
      business_id: agent.business_id,
      conversation_id: updated.conversation_id,
      public: updated.public,
    });
  }
  return download;
}

/** A revoked message's file: its row (and PostgreSQL chunks) went with the transaction; an S3 object is removed after it. */
interface RemovedFile {
  id: string;
  storage: string;
  generation: number | null;
}

async function removeObjects(ctx: RequestContext, files: RemovedFile[]): Promise<void> {
  for (const f of files) {
    if (f.storage !== 's3') continue;
    const store = ctx.services.media.of('s3');
    // every attempt's bytes: the row that named one of them is gone
    await Promise.all([store?.remove(f), store?.removeOthers(f)]).catch((err: unknown) =>
      ctx.log.warn({ media_id: f.id, err }, 'revoked message: removing its S3 object failed'),
    );
  }
}

const isoOrNull = (v: unknown) => (v == null ? null : new Date(v as string).toISOString());

/** Forgets changes kept longer than EARLY_CHANGE_MINUTES. */
export async function pruneEarlyChanges(em: EntityManager): Promise<void> {
  await em
    .getConnection()
    .execute('delete from ai_early_changes where received_at < now() - make_interval(mins => ?)', [EARLY_CHANGE_MINUTES], 'run');
}
