/* OrderGraph console: the one way the console writes into its page (CONTRACT §11, "pages that cannot be
 * dressed up"). Every element is built with createElement, every value goes in through textContent (text
 * nodes) or setAttribute (one attribute, whatever its characters): no HTML string is ever parsed, so a
 * quote, `<`, `&` or `</script>` in an agent's name or a customer's message stays text; a customer's names lose
 * their bidirectional controls and stand isolated (`plain`, `name`). */

/** An attribute's value: null, undefined and false leave it out, true is the empty attribute. */
export type AttrValue = string | number | boolean | null | undefined;
export type Attrs = Record<string, AttrValue> | null | undefined;
/** What h() and fill() take as children: text, nodes, arrays of them; null, undefined and false are skipped. */
export type Child = Node | string | number | null | undefined | false | readonly Child[];

/**
 * h('button', {type: 'button', 'data-id': 7, class: 'x', hidden: true}, 'text', node, [more], null)
 * Attributes: null/undefined/false are left out, true is the empty attribute; `on<event>` keys are
 * refused (handlers are added with addEventListener); `style` is refused (the CSP allows no inline style).
 * Children: strings and numbers become text nodes, nodes are appended, arrays are flattened, null/false skipped.
 */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Attrs, ...children: Child[]): HTMLElementTagNameMap[K];
export function h(tag: string, attrs?: Attrs, ...children: Child[]): HTMLElement;
export function h(tag: string, attrs?: Attrs, ...children: Child[]): HTMLElement {
  const el = document.createElement(tag);
  if (attrs) {
    Object.keys(attrs).forEach((name) => {
      const v = attrs[name];
      if (/^on/i.test(name) || name === 'style') throw new Error('h(): ' + name + ' is not set as an attribute');
      if (v === null || v === undefined || v === false) return;
      el.setAttribute(name, v === true ? '' : String(v));
    });
  }
  for (const child of children) append(el, child);
  return el;
}
function append(el: Element, child: Child): void {
  if (child === null || child === undefined || child === false) return;
  if (Array.isArray(child)) {
    (child as readonly Child[]).forEach((c) => append(el, c));
    return;
  }
  el.appendChild(typeof child === 'object' ? (child as Node) : document.createTextNode(String(child)));
}
/** Replaces every child of `el` with `children` (same rules as h's). */
export function fill<E extends Element>(el: E, ...children: Child[]): E {
  el.replaceChildren();
  for (const child of children) append(el, child);
  return el;
}
/**
 * A customer's text without Unicode's bidirectional controls (CONTRACT §11, third review): the embeddings and
 * overrides U+202A–U+202E and the isolates U+2066–U+2069, which would let `…\u202Egnp.exe` read as `…exe.png`.
 * Callers show it in an element of its own with `dir` (isolated from the text around it).
 */
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/g;
export function plain(x: unknown): string {
  // a payload's value: text, or a number or a flag a provider sent where text was expected
  const value = x as string | number | boolean | null | undefined;
  return (typeof value === 'string' ? value : value === null || value === undefined ? '' : String(value)).replace(BIDI_CONTROLS, '');
}
/** A customer-supplied name (a contact's, a file's, a provider's reason) as an isolated run: `<bdi dir="auto">`. */
export function name(value: unknown, attrs?: Attrs): HTMLElement {
  return h('bdi', Object.assign({ dir: 'auto' }, attrs || {}), plain(value));
}
/**
 * The filename a `Content-Disposition` answer gives (the service strips it to a safe form: no path, quotes or
 * controls): its RFC 5987 `filename*` decoded, else its `filename`; null when it has neither.
 */
export function dispositionName(header: string | null | undefined): string | null {
  const star = /filename\*=UTF-8''([^;\s]+)/i.exec(header || '');
  if (star) {
    try {
      return plain(decodeURIComponent(star[1]));
    } catch {
      // a malformed escape: the ASCII name below
    }
  }
  const quoted = /filename="([^"]*)"/i.exec(header || '');
  return quoted ? plain(quoted[1]) : null;
}
/** Children for h(): a translated `template` with its `{slot}` replaced by `node` (a name stays its own element). */
export function slot(template: string, key: string, node: Child): Child[] {
  const parts = String(template).split('{' + key + '}');
  return parts.length < 2 ? [template, ' ', node] : [parts[0], node, parts.slice(1).join('')];
}
/** document.getElementById for the page's own ids (the markup of index.html, or what a module added): never null. */
export function $<E extends HTMLElement = HTMLElement>(id: string): E {
  return document.getElementById(id) as E;
}
