import { type ConversationUsage } from '../../entities/ai-conversation.js';
import { appError, validationError, type Problem } from '../../errors/codes.js';
import { checkPayload, OUTBOUND_TYPES, type OutboundType } from './message-payload.js';

/**
 * What a message write must hold (CONTRACT §9.1, §10.1): roles, reasons, content lengths and usage,
 * checked here for /graphql callers with the REST schema's rules and messages.
 */

/** The largest 32-bit value a body may give (PostgreSQL integer): versions, quantities, statuses. */
export const INT_MAX = 2_147_483_647;

/** The largest record id (CONTRACT §16): ids are `bigint` in the database and answered as exact JSON numbers. */
export const ID_MAX = Number.MAX_SAFE_INTEGER;

/** An id as a lookup binds it: one no record can have (out of range, not an integer) becomes 0, which none has. */
export const storedId = (id: number): number => (Number.isSafeInteger(id) && id > 0 ? id : 0);

export const MESSAGE_ROLES = ['user', 'assistant', 'system', 'tool'] as const;

export const STATUS_REASONS = ['completed', 'abandoned', 'failed'] as const;

export const CURRENT_CONTENT_MAX = 4_000;

export const CONTENT_MAX = 32_000;

/** Usage members (CONTRACT §9.1): all ≥ 0; all but cost integers. Bounded so sums stay exact. */
export const USAGE_MAX = Number.MAX_SAFE_INTEGER;

export const USAGE_INTEGERS = ['response_time_ms', 'input_tokens', 'output_tokens'] as const;

export interface MessageInput {
  role?: unknown;
  content?: unknown;
  public?: unknown;
  usage?: unknown;
  /** CONTRACT §12.4: the message's type (default text), its payload and the message it answers. */
  type?: unknown;
  payload?: unknown;
  reply_to_id?: unknown;
}

export interface CheckedMessage {
  role: (typeof MESSAGE_ROLES)[number];
  content: string;
  public: boolean;
  usage: ConversationUsage | null;
  type: OutboundType;
  payload: Record<string, any> | null;
  reply_to_id: number | null;
}

/** The same rules as the REST schema, for /graphql callers: one message per invalid field. */
export function checkMessage(input: MessageInput): CheckedMessage {
  const problems: Problem[] = [];
  if (input.role === undefined || input.role === null) problems.push({ field: 'role', rule: 'required' });
  else if (!(MESSAGE_ROLES as readonly unknown[]).includes(input.role))
    problems.push({ field: 'role', rule: 'enum', params: { values: MESSAGE_ROLES } });
  const type = input.type === undefined || input.type === null ? 'text' : input.type;
  const typed = (OUTBOUND_TYPES as readonly unknown[]).includes(type);
  if (!typed) problems.push({ field: 'type', rule: 'enum', params: { values: OUTBOUND_TYPES } });
  // every type but text may leave its content to be computed from the payload (§12.4)
  if (input.content === undefined || input.content === null) {
    if (type === 'text') problems.push({ field: 'content', rule: 'required' });
  } else if (!validContent(input.content, CONTENT_MAX)) problems.push(contentProblem(input.content, CONTENT_MAX));
  const checked = typed ? checkPayload(type as OutboundType, input.payload, problems) : null;
  const replyTo = input.reply_to_id;
  if (replyTo !== undefined && replyTo !== null && (!Number.isInteger(replyTo) || (replyTo as number) < 1 || (replyTo as number) > ID_MAX))
    problems.push({ field: 'reply_to_id', rule: 'conversation_message' });
  if (input.public !== undefined && input.public !== null && typeof input.public !== 'boolean')
    problems.push({ field: 'public', rule: 'boolean' });
  let usage: ConversationUsage | null = null;
  if (input.usage !== undefined && input.usage !== null) {
    const u = input.usage as Record<string, unknown>;
    if (typeof u !== 'object' || Array.isArray(u)) problems.push({ field: 'usage', rule: 'object' });
    else {
      usage = {};
      for (const [k, v] of Object.entries(u)) {
        const integer = (USAGE_INTEGERS as readonly string[]).includes(k);
        if (k !== 'cost' && !integer) continue; // unknown members are dropped, as the REST schema drops them
        if (typeof v !== 'number' || !Number.isFinite(v)) problems.push({ field: `usage.${k}`, rule: integer ? 'integer' : 'number' });
        else if (integer && !Number.isInteger(v)) problems.push({ field: `usage.${k}`, rule: 'integer' });
        else if (v < 0 || v > USAGE_MAX) problems.push({ field: `usage.${k}`, rule: 'range', params: { min: 0, max: USAGE_MAX } });
        else usage[k as keyof ConversationUsage] = v;
      }
    }
  }
  if (problems.length) throw validationError(problems);
  return {
    role: input.role as CheckedMessage['role'],
    content: typeof input.content === 'string' ? input.content : (checked?.content ?? ''),
    public: input.public !== false,
    usage,
    type: type as OutboundType,
    payload: checked?.payload ?? null,
    reply_to_id: (replyTo as number | null | undefined) ?? null,
  };
}

/** Length in characters (code points), as the REST schema counts it. */
export function validContent(content: unknown, max: number): content is string {
  if (typeof content !== 'string' || content.length === 0 || content.length > 2 * max) return false;
  let n = 0;
  for (const _ of content) if (++n > max) return false;
  return true;
}

/** What is wrong with a content that is not valid: its type, emptiness or length. */
export function contentProblem(content: unknown, max: number): Problem {
  if (typeof content !== 'string') return { field: 'content', rule: 'string' };
  return content.length === 0 ? { field: 'content', rule: 'not_empty' } : { field: 'content', rule: 'max_length', params: { max } };
}

export function checkContent(content: unknown, max: number): string {
  if (content === undefined || content === null) throw validationError([{ field: 'content', rule: 'required' }]);
  if (!validContent(content, max)) throw validationError([contentProblem(content, max)]);
  return content;
}

export function checkConversationId(id: number): void {
  if (!Number.isInteger(id) || id < 1 || id > ID_MAX) throw appError('ERROR_AI_CONVERSATION_NOT_FOUND');
}

/** The Cloud API's limit on a text message, in code points (CONTRACT §10.1). */
export const WHATSAPP_CONTENT_MAX = 4_096;
