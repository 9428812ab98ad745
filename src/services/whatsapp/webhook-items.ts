import type { EntityManager } from '@mikro-orm/postgresql';
import type { RequestContext, VerifiedWebhook } from '../../context/index.js';
import { runStatement } from '../../db/direct-read.js';

/**
 * What every receiver of a WhatsApp notification's change shares (CONTRACT §9.3, §13): the agent the
 * change names, the answer's counts, and the reading of Meta's loosely typed items.
 */

export type WebhookAgent = VerifiedWebhook['agents'][number];

export interface WhatsAppDeliveryResult {
  messages: number;
  statuses: number;
}

/** One change of a notification (`entry[].changes[]`), as a receiver of its `field` gets it. */
export interface WebhookChange {
  /** The enabled agent its `metadata.phone_number_id` names, else undefined. */
  agent: WebhookAgent | undefined;
  /** The agents the change names by phone number id or, for account updates, by the entry's WABA id. */
  agents: readonly WebhookAgent[];
  value: Record<string, any>;
  entry: Record<string, any>;
  /** Where it is in the body (`entry[0].changes[1]`), for the log. */
  where: string;
  problems: string[];
  result: WhatsAppDeliveryResult;
}

/** Reads and stores one change; a new webhook `field` is a new entry of fields/index.ts. */
export type FieldReceiver = (ctx: RequestContext, change: WebhookChange) => Promise<void>;

/** `ai_conversations.contact` and `ai_inbound_message_ids.external_id` widths. */
export const MAX_CONTACT = 64;
export const MAX_EXTERNAL_ID = 128;

/** A BSUID: two letters, a period, letters and digits (parent ids add segments: `US.ENT.…`). */
const BSUID = /^[A-Za-z]{2}(\.[A-Za-z0-9]{1,128}){1,3}$/;
export const bsuidOf = (v: unknown): string | null => (typeof v === 'string' && v.length <= 200 && BSUID.test(v) ? v : null);
export const phoneOf = (v: unknown): string | null => (typeof v === 'string' && /^[0-9]{1,64}$/.test(v) ? v : null);

/** A provider message id we can store, else null. */
export const externalIdOf = (v: unknown): string | null => (typeof v === 'string' && v && v.length <= MAX_EXTERNAL_ID ? v : null);

/** Unix seconds (a number or its decimal text, Meta sends text) as a Date; null when it is not one. */
export function unixSeconds(v: unknown): Date | null {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^[0-9]{1,12}$/.test(v) ? Number(v) : NaN;
  if (!Number.isFinite(n) || n < 0 || n > 253_402_300_799) return null;
  return new Date(n * 1000);
}

/** A statement in `tx`'s transaction with bind parameters (db/direct-read.ts; timestamps come as text). */
export function run(tx: EntityManager, sql: string, params: unknown[]): Promise<Record<string, any>[]> {
  return runStatement<Record<string, any>>(tx.getConnection(), sql, params, tx.getTransactionContext());
}

/** An array where one is required; anything else is logged and read as empty. */
export function list(v: unknown, where: string, problems: string[]): unknown[] {
  if (Array.isArray(v)) return v;
  problems.push(`${where}: not an array`);
  return [];
}

/** An array that may be absent. */
export function optionalList(v: unknown, where: string, problems: string[]): unknown[] {
  return v === undefined ? [] : list(v, where, problems);
}

export function skip(problems: string[], problem: string): 0 {
  problems.push(problem);
  return 0;
}

export const clip = (v: unknown) => JSON.stringify(v ?? null).slice(0, 40);

export function isObject(v: unknown): v is Record<string, any> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * CONTRACT §13.5: the WABA id an `account_update` change names: `value.waba_info.waba_id` when given (a
 * partner event such as `PARTNER_REMOVED` puts the partner's business id in `entry[].id`), else
 * `entry[].id`; null when neither is a non-empty string.
 */
export function accountWabaId(entry: unknown, value: unknown): string | null {
  const info = isObject(value) && isObject(value.waba_info) ? value.waba_info.waba_id : undefined;
  if (typeof info === 'string' && info) return info;
  const id = isObject(entry) ? entry.id : undefined;
  return typeof id === 'string' && id ? id : null;
}

/** The marker before a wamid's message token (Meta's `…\x15\x02\x00`, then one byte of direction, then `\x18 LEN TOKEN`). */
const TOKEN_MARK = Buffer.from([0x15, 0x02, 0x00]);

/**
 * CONTRACT §13.2: the token of a wamid that is the same in every form Meta gives one message (the id of
 * the send's answer names the peer by phone number, a later webhook's by phone number or BSUID, from
 * either side); null when the id is not a wamid of that shape. A message is found by its external id,
 * else by this key.
 */
export function messageKey(id: string | null | undefined): string | null {
  if (!id || !id.startsWith('wamid.')) return null;
  const bytes = Buffer.from(id.slice(6), 'base64');
  const at = bytes.lastIndexOf(TOKEN_MARK);
  if (at < 0 || bytes[at + 4] !== 0x18) return null;
  const length = bytes[at + 5];
  const token = bytes.subarray(at + 6, at + 6 + length).toString('latin1');
  return token.length === length && length >= 4 && length <= 128 && /^[\x21-\x7e]+$/.test(token) ? token : null;
}
