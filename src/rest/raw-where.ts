/**
 * The platform's SDK puts the `where` JSON in the query string without URL-encoding it
 * (CONTRACT §3); the browser or Node's `url.parse` then escapes only a few characters on its own
 * (`"`, space, `{`, `}`, `<`, `>`, non-ASCII…) and leaves a `%` of the text as it is, so a LIKE
 * pattern such as `%42%` arrives as `%22%42%%22`. Such a value is not valid URL encoding, and the
 * query-string parser hands it over undecoded. This undoes exactly those automatic escapes and keeps
 * every other `%` as sent. A value that was validly encoded was already decoded by the parser.
 */
const AUTO_ESCAPED = new Set([0x09, 0x0a, 0x0d, 0x20, 0x22, 0x27, 0x3c, 0x3e, 0x5c, 0x5e, 0x60, 0x7b, 0x7c, 0x7d]);
const utf8 = new TextDecoder('utf-8', { fatal: true });

export function rawWhere(value: unknown): unknown {
  if (typeof value !== 'string' || !value.includes('%') || wellEncoded(value)) return value;
  return value.replace(/(?:%[0-9a-fA-F]{2})+/g, (run) => {
    const bytes = run
      .slice(1)
      .split('%')
      .map((h) => parseInt(h, 16));
    let out = '';
    for (let i = 0; i < bytes.length;) {
      if (bytes[i] < 0x80) {
        out += AUTO_ESCAPED.has(bytes[i]) ? String.fromCharCode(bytes[i]) : `%${run.substr(i * 3 + 1, 2)}`;
        i++;
        continue;
      }
      let j = i;
      while (j < bytes.length && bytes[j] >= 0x80) j++;
      try {
        out += utf8.decode(Uint8Array.from(bytes.slice(i, j)));
      } catch {
        out += run.slice(i * 3, j * 3);
      }
      i = j;
    }
    return out;
  });
}

function wellEncoded(value: string): boolean {
  try {
    decodeURIComponent(value);
    return true;
  } catch {
    return false;
  }
}
