import { validationError } from './codes.js';

/**
 * CONTRACT §11, "no input is an outage": PostgreSQL stores no U+0000 in text or jsonb, and the
 * driver's protocol refuses it in a parameter. Every string a request carries (keys included, at
 * any depth) is checked here, once, where the request's values are decoded: the HTTP hooks
 * (`refuseNul` in rest/errors.ts: path, query string, JSON body; /graphql's GET variables), the graph's variables and its inline
 * literals (graph/limits.ts).
 */
const NUL = '\u0000';

/** The path (`a.b[2].c`) of the first string or key of `value` holding NUL, under `field`; null when none. */
export function nulField(value: unknown, field: string): string | null {
  const stack: [unknown, string][] = [[value, field]];
  while (stack.length) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      if (v.includes(NUL)) return path;
    } else if (Array.isArray(v)) {
      v.forEach((item, i) => stack.push([item, `${path}[${i}]`]));
    } else if (v !== null && typeof v === 'object' && !Buffer.isBuffer(v)) {
      for (const [k, child] of Object.entries(v)) {
        const at = path ? `${path}.${k}` : k;
        if (k.includes(NUL)) return at.replaceAll(NUL, '\\u0000');
        stack.push([child, at]);
      }
    }
  }
  return null;
}

/** 400 ERROR_VALIDATION naming the first field of `value` that holds NUL. */
export function assertNoNul(value: unknown, field = ''): void {
  const at = nulField(value, field);
  if (at !== null) throw validationError([{ field: at || 'body', rule: 'no_nul' }]);
}

/** Text with every NUL removed. */
export function withoutNul(text: string): string {
  return text.includes(NUL) ? text.replaceAll(NUL, '') : text;
}

/** An unpaired UTF-16 surrogate (a high one not followed by a low one, or a low one not after a high one). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/** JSON text can spell a surrogate only as an escape (UTF-8 has none: Buffer#toString already made bad bytes U+FFFD). */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F][0-9a-fA-F]{2}/;

/** Text with every unpaired surrogate replaced by U+FFFD (String#toWellFormed, ES2024). */
export function wellFormed(text: string): string {
  return text.replace(LONE_SURROGATE, '\uFFFD');
}

/** JSON.stringify's escape of an unpaired surrogate (it writes pairs as they are), not itself an escaped backslash's text. */
const STRINGIFIED_SURROGATE = /(?<!\\)((?:\\\\)*)\\ud[89a-f][0-9a-f]{2}/g;

/**
 * JSON.stringify's output with every unpaired surrogate (which it writes as `\udXXX`, and PostgreSQL's jsonb refuses)
 * replaced by U+FFFD: for values that were parsed before the notification's text was mended (a chunk stored earlier).
 */
export function wellFormedJson(text: string): string {
  return text.includes('\\ud') ? text.replace(STRINGIFIED_SURROGATE, '$1\uFFFD') : text;
}

/**
 * JSON text parsed with every NUL removed from its strings and keys, and every unpaired UTF-16
 * surrogate (`\udc00`) replaced by U+FFFD: what a signed WhatsApp notification becomes (Meta retries
 * anything but a 200, so its message is stored, not refused; PostgreSQL refuses both characters).
 */
export function parseWithoutNul(text: string): unknown {
  const nul = text.includes('\\u0000');
  const surrogates = SURROGATE_ESCAPE.test(text);
  // without either escape, nothing to mend (and no reviver, 3x faster on 200 kB)
  if (!nul && !surrogates) return JSON.parse(text);
  const mend = (s: string) => wellFormed(withoutNul(s));
  return JSON.parse(text, (_key, v: unknown) => {
    if (typeof v === 'string') return mend(v);
    if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).some((k) => mend(k) !== k)) {
      return Object.fromEntries(Object.entries(v).map(([k, child]) => [mend(k), child]));
    }
    return v;
  });
}
