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

/**
 * JSON text parsed with every NUL removed from its strings and keys: what a signed WhatsApp
 * notification becomes (Meta retries anything but a 200, so its message is stored, not refused).
 */
export function parseWithoutNul(text: string): unknown {
  // JSON text can only spell NUL as the escape \u0000: without one, nothing to remove (and no reviver, 3x faster on 200 kB)
  if (!text.includes('\\u0000')) return JSON.parse(text);
  return JSON.parse(text, (_key, v: unknown) => {
    if (typeof v === 'string') return withoutNul(v);
    if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).some((k) => k.includes(NUL))) {
      return Object.fromEntries(Object.entries(v).map(([k, child]) => [withoutNul(k), child]));
    }
    return v;
  });
}
