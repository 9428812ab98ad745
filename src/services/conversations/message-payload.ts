import type { Problem } from '../../errors/codes.js';

/**
 * The typed messages a caller may post (CONTRACT §12.4): the `payload` of each type checked member by
 * member before anything is stored (every problem names its member, `payload.action.buttons[1].reply.title`,
 * and the rule it breaks), and the readable `content` of a message posted without one (§12.2's rules).
 * Pure functions: the database checks (`reply_to_id`, a reaction's message, a `media_id`) are the write's.
 */

/** The types POST .../messages accepts (§12.4); the other types of §12.2 only arrive from customers. */
export const OUTBOUND_TYPES = ['text', 'location', 'interactive', 'image', 'video', 'document', 'audio', 'sticker', 'reaction'] as const;
export type OutboundType = (typeof OUTBOUND_TYPES)[number];

export const MEDIA_KINDS = ['image', 'video', 'document', 'audio', 'sticker'] as const;
export type MediaKind = (typeof MEDIA_KINDS)[number];
export const isMediaKind = (type: string): type is MediaKind => (MEDIA_KINDS as readonly string[]).includes(type);

export const INTERACTIVE_TYPES = ['button', 'list', 'cta_url', 'location_request_message'] as const;

/** Meta's limits for interactive messages and media (§12.4). */
export const LIMITS = {
  locationText: 1_000,
  headerText: 60,
  footerText: 60,
  buttonBody: 1_024,
  listBody: 4_096,
  otherBody: 1_024,
  buttons: 3,
  replyId: 256,
  replyTitle: 20,
  listButton: 20,
  sections: 10,
  sectionTitle: 24,
  rows: 10,
  rowId: 200,
  rowTitle: 24,
  rowDescription: 72,
  displayText: 20,
  url: 2_000,
  caption: 1_024,
  filename: 240,
  mediaId: 64,
} as const;

export interface CheckedPayload {
  /** The payload as it is stored: the members posted, in Meta's names. */
  payload: Record<string, any>;
  /** The readable text of §12.2, for a message posted without `content`. */
  content: string;
}

type Obj = Record<string, any>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const codePoints = (s: string) => [...s].length;

/** Collects the problems of one payload; `at(path)` names a member. */
class Checker {
  readonly problems: Problem[] = [];

  fail(field: string, problem: Omit<Problem, 'field'>): void {
    this.problems.push({ field, ...problem });
  }

  /** An object with only the given members; false (and a problem) when it is not one. */
  object(value: unknown, field: string, allowed: readonly string[]): value is Obj {
    if (!isObj(value)) {
      this.fail(field, { rule: 'object' });
      return false;
    }
    for (const key of Object.keys(value))
      if (!allowed.includes(key)) this.fail(`${field}.${key}`, { rule: 'key_enum', params: { values: [...allowed] } });
    return true;
  }

  /** A string of `min`–`max` code points; absent is fine unless `required`. */
  text(obj: Obj, key: string, field: string, min: number, max: number, required: boolean): string | undefined {
    const v = obj[key];
    const name = `${field}.${key}`;
    if (v === undefined || v === null) {
      if (required) this.fail(name, { rule: 'required' });
      return undefined;
    }
    if (typeof v !== 'string') return void this.fail(name, { rule: 'string' });
    const n = codePoints(v);
    if (n < min || n > max) {
      this.fail(name, min > 0 ? { rule: 'length', params: { min, max } } : { rule: 'max_length', params: { max } });
      return undefined;
    }
    return v;
  }

  number(obj: Obj, key: string, field: string, min: number, max: number): number | undefined {
    const v = obj[key];
    const name = `${field}.${key}`;
    if (v === undefined || v === null) return void this.fail(name, { rule: 'required' });
    if (typeof v !== 'number' || !Number.isFinite(v)) return void this.fail(name, { rule: 'number' });
    if (v < min || v > max) return void this.fail(name, { rule: 'range', params: { min, max } });
    return v;
  }

  /** One of the given values (a single value: a constant such as `"reply"`). */
  oneOf(obj: Obj, key: string, field: string, values: readonly string[]): string | undefined {
    const v = obj[key];
    if (v === undefined || v === null) return void this.fail(`${field}.${key}`, { rule: 'required' });
    if (typeof v !== 'string' || !values.includes(v))
      return void this.fail(`${field}.${key}`, { rule: 'enum', params: { values: [...values] } });
    return v;
  }

  array(obj: Obj, key: string, field: string, min: number, max: number): unknown[] | undefined {
    const v = obj[key];
    const name = `${field}.${key}`;
    if (v === undefined || v === null) return void this.fail(name, { rule: 'required' });
    if (!Array.isArray(v)) return void this.fail(name, { rule: 'array' });
    if (v.length < min || v.length > max) return void this.fail(name, { rule: 'items_range', params: { min, max } });
    return v;
  }

  httpsUrl(obj: Obj, key: string, field: string, required: boolean): string | undefined {
    const v = obj[key];
    const name = `${field}.${key}`;
    if (v === undefined || v === null) return required ? void this.fail(name, { rule: 'required' }) : undefined;
    if (typeof v !== 'string' || v.length > LIMITS.url || !isHttpsUrl(v))
      return void this.fail(name, { rule: 'https_url', params: { max: LIMITS.url } });
    return v;
  }

  /** Each value once: the second and later of a repeated value are named. */
  unique(values: (string | undefined)[], field: (i: number) => string): void {
    const seen = new Set<string>();
    values.forEach((v, i) => {
      if (v === undefined) return;
      if (seen.has(v)) this.fail(field(i), { rule: 'unique' });
      seen.add(v);
    });
  }
}

export function isHttpsUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' && url.hostname.length > 0;
  } catch {
    return false;
  }
}

/** Unicode's recommended emoji (RGI: every fully-qualified emoji of its list), as a property of strings (`v` flag). */
const RGI_EMOJI = new RegExp('^\\p{RGI_Emoji}$', 'v');
const VS16 = '\uFE0F';
/** A character whose fully-qualified form takes VS16 after it (text by default: ❤, ☺, ♀, a keycap's digit). */
const TAKES_VS16 = /^(?=\p{Emoji})(?!\p{Emoji_Presentation})(?!\p{Emoji_Modifier})(?!\p{Regional_Indicator})/u;
const MODIFIER = /^\p{Emoji_Modifier}$/u;

/**
 * One emoji (CONTRACT §12.4, §11 third review): one of Unicode's emoji list, fully-qualified or in a form
 * the list gives it, i.e. its fully-qualified form with some of its variation selectors (U+FE0F) left
 * out (a bare ❤ is one). A selector the fully-qualified form lacks (`👍` + U+FE0F ×4) is not.
 */
export function isOneEmoji(value: string): boolean {
  if (value.length > 64) return false;
  if (RGI_EMOJI.test(value)) return true;
  const bare = [...value].filter((ch) => ch !== VS16);
  const qualified = bare.flatMap((ch, i) => (TAKES_VS16.test(ch) && !MODIFIER.test(bare[i + 1] ?? '') ? [ch, VS16] : [ch])).join('');
  return RGI_EMOJI.test(qualified) && dropsOnlySelectors(qualified, value);
}

/** Whether `form` is `qualified` with some of its VS16 left out (and nothing else changed). */
function dropsOnlySelectors(qualified: string, form: string): boolean {
  const q = [...qualified];
  const f = [...form];
  let j = 0;
  for (const ch of q) {
    if (f[j] === ch) j++;
    else if (ch !== VS16) return false;
  }
  return j === f.length;
}

/**
 * Checks `payload` for `type` (§12.4). Problems are pushed to `problems`; the checked payload and the
 * computed content come back when there are none. `text` takes no payload.
 */
export function checkPayload(type: OutboundType, payload: unknown, problems: Problem[]): CheckedPayload | null {
  const c = new Checker();
  let checked: CheckedPayload | null = null;
  if (type === 'text') {
    if (payload !== undefined && payload !== null) c.fail('payload', { rule: 'type_forbids', params: { type } });
  } else if (payload === undefined || payload === null) {
    c.fail('payload', { rule: 'required' });
  } else if (type === 'location') checked = location(c, payload);
  else if (type === 'interactive') checked = interactive(c, payload);
  else if (type === 'reaction') checked = reaction(c, payload);
  else checked = media(c, type, payload);
  problems.push(...c.problems);
  return c.problems.length ? null : checked;
}

function location(c: Checker, p: unknown): CheckedPayload | null {
  if (!c.object(p, 'payload', ['latitude', 'longitude', 'name', 'address'])) return null;
  const latitude = c.number(p, 'latitude', 'payload', -90, 90);
  const longitude = c.number(p, 'longitude', 'payload', -180, 180);
  const name = c.text(p, 'name', 'payload', 0, LIMITS.locationText, false);
  const address = c.text(p, 'address', 'payload', 0, LIMITS.locationText, false);
  const named = [name, address].filter((s): s is string => !!s);
  return { payload: p, content: named.length ? named.join(', ') : `${latitude},${longitude}` };
}

function reaction(c: Checker, p: unknown): CheckedPayload | null {
  if (!c.object(p, 'payload', ['message_id', 'emoji'])) return null;
  const id = p.message_id;
  if (id === undefined || id === null) c.fail('payload.message_id', { rule: 'required' });
  else if (!Number.isInteger(id) || id < 1) c.fail('payload.message_id', { rule: 'sent_message' });
  const emoji = p.emoji;
  if (emoji === undefined || emoji === null) c.fail('payload.emoji', { rule: 'required' });
  else if (typeof emoji !== 'string' || (emoji !== '' && !isOneEmoji(emoji))) c.fail('payload.emoji', { rule: 'emoji' });
  return { payload: { message_id: id, emoji }, content: typeof emoji === 'string' && emoji ? emoji : '[REACTION]' };
}

function media(c: Checker, kind: MediaKind, p: unknown): CheckedPayload | null {
  const members = [
    'media_id',
    'link',
    ...(kind === 'audio' || kind === 'sticker' ? [] : ['caption']),
    ...(kind === 'document' ? ['filename'] : []),
  ];
  if (!isObj(p)) {
    c.fail('payload', { rule: 'object' });
    return null;
  }
  for (const key of Object.keys(p)) {
    if (members.includes(key)) continue;
    // a caption on audio or a filename on an image is a member Meta refuses for that type
    if (key === 'caption' || key === 'filename') c.fail(`payload.${key}`, { rule: 'type_forbids', params: { type: kind } });
    else c.fail(`payload.${key}`, { rule: 'key_enum', params: { values: members } });
  }
  const hasId = p.media_id !== undefined && p.media_id !== null;
  const hasLink = p.link !== undefined && p.link !== null;
  if (hasId === hasLink) c.fail('payload', { rule: 'exactly_one', params: { values: ['media_id', 'link'] } });
  if (hasId && (typeof p.media_id !== 'string' || p.media_id.length === 0 || p.media_id.length > LIMITS.mediaId))
    c.fail('payload.media_id', { rule: 'length', params: { min: 1, max: LIMITS.mediaId } });
  if (hasLink) c.httpsUrl(p, 'link', 'payload', true);
  const caption = members.includes('caption') ? c.text(p, 'caption', 'payload', 0, LIMITS.caption, false) : undefined;
  if (members.includes('filename')) c.text(p, 'filename', 'payload', 1, LIMITS.filename, false);
  return { payload: p, content: caption || `[${kind.toUpperCase()}]` };
}

const TEXT_OBJECT = ['text'] as const;

function interactive(c: Checker, p: unknown): CheckedPayload | null {
  if (!isObj(p)) {
    c.fail('payload', { rule: 'object' });
    return null;
  }
  const type = c.oneOf(p, 'type', 'payload', INTERACTIVE_TYPES);
  if (!type) return null;
  const members = type === 'location_request_message' ? ['type', 'body', 'action'] : ['type', 'header', 'body', 'footer', 'action'];
  c.object(p, 'payload', members);
  if (p.header !== undefined && p.header !== null && members.includes('header') && c.object(p.header, 'payload.header', ['type', 'text'])) {
    c.oneOf(p.header, 'type', 'payload.header', ['text']);
    c.text(p.header, 'text', 'payload.header', 1, LIMITS.headerText, true);
  }
  const bodyMax = type === 'button' ? LIMITS.buttonBody : type === 'list' ? LIMITS.listBody : LIMITS.otherBody;
  let body: string | undefined;
  if (p.body === undefined || p.body === null) c.fail('payload.body', { rule: 'required' });
  else if (c.object(p.body, 'payload.body', TEXT_OBJECT)) body = c.text(p.body, 'text', 'payload.body', 1, bodyMax, true);
  if (p.footer !== undefined && p.footer !== null && members.includes('footer') && c.object(p.footer, 'payload.footer', TEXT_OBJECT))
    c.text(p.footer, 'text', 'payload.footer', 0, LIMITS.footerText, true);
  if (p.action === undefined || p.action === null) c.fail('payload.action', { rule: 'required' });
  else if (type === 'button') buttonAction(c, p.action);
  else if (type === 'list') listAction(c, p.action);
  else if (type === 'cta_url') ctaAction(c, p.action);
  else if (c.object(p.action, 'payload.action', ['name'])) c.oneOf(p.action, 'name', 'payload.action', ['send_location']);
  return { payload: p, content: body ?? '[INTERACTIVE]' };
}

function buttonAction(c: Checker, action: unknown): void {
  if (!c.object(action, 'payload.action', ['buttons'])) return;
  const buttons = c.array(action, 'buttons', 'payload.action', 1, LIMITS.buttons);
  if (!buttons) return;
  const ids: (string | undefined)[] = [];
  const titles: (string | undefined)[] = [];
  buttons.forEach((b, i) => {
    const at = `payload.action.buttons[${i}]`;
    if (!c.object(b, at, ['type', 'reply'])) return;
    c.oneOf(b, 'type', at, ['reply']);
    if (b.reply === undefined || b.reply === null) return c.fail(`${at}.reply`, { rule: 'required' });
    if (!c.object(b.reply, `${at}.reply`, ['id', 'title'])) return;
    ids[i] = c.text(b.reply, 'id', `${at}.reply`, 1, LIMITS.replyId, true);
    titles[i] = c.text(b.reply, 'title', `${at}.reply`, 1, LIMITS.replyTitle, true);
  });
  c.unique(ids, (i) => `payload.action.buttons[${i}].reply.id`);
  c.unique(titles, (i) => `payload.action.buttons[${i}].reply.title`);
}

function listAction(c: Checker, action: unknown): void {
  if (!c.object(action, 'payload.action', ['button', 'sections'])) return;
  c.text(action, 'button', 'payload.action', 1, LIMITS.listButton, true);
  const sections = c.array(action, 'sections', 'payload.action', 1, LIMITS.sections);
  if (!sections) return;
  const ids: (string | undefined)[] = [];
  const names: string[] = [];
  let total = 0;
  sections.forEach((s, i) => {
    const at = `payload.action.sections[${i}]`;
    if (!c.object(s, at, ['title', 'rows'])) return;
    c.text(s, 'title', at, 0, LIMITS.sectionTitle, false);
    if (sections.length > 1 && (s.title === undefined || s.title === null || s.title === ''))
      c.fail(`${at}.title`, { rule: 'section_title' });
    const rows = c.array(s, 'rows', at, 1, LIMITS.rows);
    if (!rows) return;
    rows.forEach((r, j) => {
      const rowAt = `${at}.rows[${j}]`;
      total++;
      names.push(`${rowAt}.id`);
      if (!c.object(r, rowAt, ['id', 'title', 'description'])) return void ids.push(undefined);
      ids.push(c.text(r, 'id', rowAt, 1, LIMITS.rowId, true));
      c.text(r, 'title', rowAt, 1, LIMITS.rowTitle, true);
      c.text(r, 'description', rowAt, 0, LIMITS.rowDescription, false);
    });
  });
  if (total > LIMITS.rows) c.fail('payload.action.sections', { rule: 'rows_total', params: { min: 1, max: LIMITS.rows } });
  c.unique(ids, (i) => names[i]);
}

function ctaAction(c: Checker, action: unknown): void {
  if (!c.object(action, 'payload.action', ['name', 'parameters'])) return;
  c.oneOf(action, 'name', 'payload.action', ['cta_url']);
  if (action.parameters === undefined || action.parameters === null) return c.fail('payload.action.parameters', { rule: 'required' });
  if (!c.object(action.parameters, 'payload.action.parameters', ['display_text', 'url'])) return;
  c.text(action.parameters, 'display_text', 'payload.action.parameters', 1, LIMITS.displayText, true);
  c.httpsUrl(action.parameters, 'url', 'payload.action.parameters', true);
}
