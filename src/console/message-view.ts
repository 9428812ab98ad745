/* OrderGraph console: a message as a person expects to see it (CONTRACT §12.2, §12.4, §12.6). A picture inline, an
 * audio or video player, a document to download with its name and size, a location card with an https link to a map
 * (no tiles: nothing is loaded from elsewhere), a contact card, an order as a table with its total, a tapped button
 * or list row with the question it answers, the buttons and lists of an outbound interactive message as the customer
 * sees them, and the reactions a message got. Files come through the API with the console's credential (fetched with
 * its header, shown from blob URLs: no token in a URL). Built with dom.ts only; imported by inbox.ts. */
import type { Message } from './api-types.js';
import * as dom from './dom.js';
import { h, type Child } from './dom.js';
import { lang, n, t } from './i18n.js';

/**
 * A payload as the view reads it: any field may be missing or of another type than §12.2 says (a provider's
 * payload, an older message), so every value is checked where it is used (`obj`, `str`, `Array.isArray`).
 */
type Loose = Record<string, any>;
/** What render() reads of a message: the API's Message (a pending reply of the composer has the same fields). */
export type ViewMessage = Message;
/** What the thread gives the view: files, the other messages, the names of the menu's products. */
export interface ViewContext {
  /** A promise of a blob URL for the file at `path` (`key`: the path and the file's digest). */
  load(key: string, path: string): Promise<string>;
  /** The size of a stored file, when its payload has none. */
  size?(path: string): Promise<number | null>;
  /** The safe filename of a loaded blob URL (its Content-Disposition). */
  fileName(url: string): string | null;
  get(id: number): ViewMessage | null | undefined;
  answers(id: number): ViewMessage[];
  reactions(id: number): { emoji: string; role: string }[];
  productName?(retailerId: string): string | null | undefined;
}

function obj(x: unknown): Loose {
  return x && typeof x === 'object' && !Array.isArray(x) ? x : {};
}
/** A payload's value as text, without bidirectional controls (dom.ts `plain`). */
function str(x: unknown): string {
  return dom.plain(x);
}
export function bytes(size: unknown): string {
  if (typeof size !== 'number') return '';
  const units = ['byte', 'kilobyte', 'megabyte', 'gigabyte'];
  let u = 0;
  while (size >= 1000 && u < units.length - 1) {
    size /= 1000;
    u++;
  }
  try {
    return new Intl.NumberFormat(lang, { style: 'unit', unit: units[u], unitDisplay: 'short', maximumFractionDigits: u ? 1 : 0 }).format(
      size,
    );
  } catch {
    return n(Math.round(size)) + ' ' + ['B', 'kB', 'MB', 'GB'][u];
  }
}
function money(amount: unknown, currency?: string): string {
  if (typeof amount !== 'number') return '';
  try {
    return new Intl.NumberFormat(lang, { style: 'currency', currency: currency || 'USD' }).format(amount);
  } catch {
    return n(amount) + (currency ? ' ' + currency : '');
  }
}
function coordinate(x: number): string {
  return new Intl.NumberFormat(lang, { maximumFractionDigits: 6, minimumFractionDigits: 4 }).format(x);
}
function text(s: string | null | undefined, cls?: string): HTMLElement | null {
  return s ? h('span', { class: cls || 'content', dir: 'auto' }, dom.plain(s)) : null;
}
/** A link that leaves the console in a new tab, telling the other site nothing. */
function outLink(href: string, label: string, cls?: string): HTMLElement {
  // https only (the API checks it for replies; a link of any other scheme is shown as text)
  if (!/^https:\/\//i.test(href)) return h('span', { class: cls || null, dir: 'ltr' }, label);
  return h('a', { href: href, target: '_blank', rel: 'noopener noreferrer', class: cls || null }, label);
}

// ---- files ---------------------------------------------------------------------------------------
/**
 * Where a message's file is read: an inbound one through its conversation (§12.3), one of the project's own
 * uploads by its id (§12.5); a `link` of a reply is Meta's to fetch and is only shown as a link.
 */
export function mediaPath(m: ViewMessage): string | null {
  const p = obj(m.payload);
  if (p.media) return '/ai/conversations/' + m.conversation_id + '/messages/' + m.id + '/media';
  if (typeof p.media_id === 'string') return '/ai/media/' + encodeURIComponent(p.media_id);
  return null;
}
function mediaState(m: ViewMessage): unknown {
  const media = obj(obj(m.payload).media);
  return obj(m.payload).media ? media.status : 'stored';
}

function media(m: ViewMessage, ctx: ViewContext): Child[] {
  const p = obj(m.payload);
  const kind = m.type;
  const caption = str(p.caption);
  const state = mediaState(m);
  const path = mediaPath(m);
  if (!path) {
    // a reply by link: Meta fetches it; the console does not (it stays offline)
    return [
      h('span', { class: 'media-card' }, t('type_' + kind), ' ', p.link ? outLink(str(p.link), str(p.link), 'media-link') : null),
      text(caption),
    ];
  }
  if (state === 'pending') return [h('span', { class: 'media-pending', role: 'status' }, t('media_pending')), text(caption)];
  if (state === 'failed')
    return [
      h('span', { class: 'media-failed' }, '⚠ ', dom.slot(t('media_failed'), 'reason', dom.name(obj(p.media).error || '?'))),
      text(caption),
    ];
  const key = path + '#' + str(obj(p.media).sha256);
  if (kind === 'document') return [documentCard(p, key, path, ctx), text(caption)];
  let el: HTMLImageElement | HTMLMediaElement;
  if (kind === 'image' || kind === 'sticker')
    el = h('img', { class: kind === 'sticker' ? 'media sticker' : 'media', alt: caption || t('type_' + kind) });
  else el = h(kind === 'audio' ? 'audio' : 'video', { class: 'media ' + kind, controls: true, preload: 'metadata' });
  const shown = el;
  el.setAttribute('data-media', path);
  ctx.load(key, path).then(
    function (url) {
      shown.src = url;
    },
    function () {
      shown.replaceWith(h('span', { class: 'media-failed' }, '⚠ ' + t('media_unavailable')));
    },
  );
  return [el, kind === 'audio' && p.voice ? h('span', { class: 'muted' }, t('voice_note')) : null, text(caption)];
}
/** A document: its name and size, downloaded on demand (a menu of 100 MB is not read until asked for). */
function documentCard(p: Loose, key: string, path: string, ctx: ViewContext): HTMLElement {
  const name = str(p.filename) || t('type_document');
  const size = obj(p.media).size as number | null | undefined;
  const sizeEl = h('span', { class: 'doc-size' }, size != null ? bytes(size) : null);
  // a document we sent (§12.5, by media_id) carries no size in its payload: its store says it
  if (size == null && ctx.size)
    ctx.size(path).then(
      function (known) {
        if (known != null) sizeEl.textContent = bytes(known);
      },
      function () {},
    );
  const button = h(
    'button',
    { type: 'button', class: 'document', 'data-media': path },
    dom.name(name, { class: 'doc-name' }),
    sizeEl,
    h('span', { class: 'doc-get' }, t('download')),
  );
  button.addEventListener('click', function () {
    button.disabled = true;
    ctx.load(key, path).then(
      function (url) {
        button.disabled = false;
        // the safe name the service's Content-Disposition gives, never the customer's raw one
        const a = h('a', { href: url, download: ctx.fileName(url) || t('type_document'), hidden: true });
        document.body.appendChild(a);
        a.click();
        a.remove();
      },
      function () {
        button.disabled = false;
        button.replaceWith(h('span', { class: 'media-failed' }, '⚠ ' + t('media_unavailable')));
      },
    );
  });
  return button;
}

// ---- location, contacts, order ------------------------------------------------------------------
function location(p: Loose): HTMLElement {
  const lat = p.latitude,
    lon = p.longitude;
  const ok = typeof lat === 'number' && typeof lon === 'number';
  const map = ok ? 'https://www.openstreetmap.org/?mlat=' + lat + '&mlon=' + lon + '#map=17/' + lat + '/' + lon : null;
  return h(
    'span',
    { class: 'location-card' },
    h(
      'span',
      { class: 'location-text' },
      p.name ? h('strong', { dir: 'auto' }, str(p.name)) : null,
      p.address ? h('span', { class: 'address', dir: 'auto' }, str(p.address)) : null,
      ok ? h('span', { class: 'coords', dir: 'ltr' }, coordinate(lat) + ', ' + coordinate(lon)) : null,
      map ? outLink(map, t('open_map') + ' ↗', 'map-link') : null,
    ),
  );
}
function contacts(p: Loose): HTMLElement[] {
  const list = Array.isArray(p.contacts) ? p.contacts : [];
  return list.map(function (item: unknown) {
    const c = obj(item);
    const name = obj(c.name);
    const lines: HTMLElement[] = ([] as HTMLElement[])
      .concat(
        (Array.isArray(c.phones) ? c.phones : []).map(function (x: unknown) {
          return h('span', { class: 'phone', dir: 'ltr' }, '☎ ' + str(obj(x).phone || obj(x).wa_id));
        }),
      )
      .concat(
        (Array.isArray(c.emails) ? c.emails : []).map(function (x: unknown) {
          return h('span', { dir: 'ltr' }, '✉ ' + str(obj(x).email));
        }),
      );
    const org = obj(c.org).company;
    return h(
      'span',
      { class: 'contact-card' },
      h(
        'span',
        { class: 'contact-lines' },
        h('strong', { dir: 'auto' }, str(name.formatted_name || name.first_name) || t('type_contacts')),
        org ? h('span', { dir: 'auto' }, str(org)) : null,
        lines,
      ),
    );
  });
}
/** A catalog cart (§12.2 `order`): each line the menu's dish by name (§15.2: its retailer id in the business's menu). */
function order(p: Loose, ctx: ViewContext): Child[] {
  const items: Loose[] = Array.isArray(p.items) ? p.items.map(obj) : [];
  const currency = items.length ? str(items[0].currency) : '';
  const total = items.reduce(function (sum: number, x) {
    return sum + (Number(x.item_price) || 0) * (Number(x.quantity) || 0);
  }, 0);
  const mixed = items.some(function (x) {
    return str(x.currency) !== currency;
  });
  return [
    h(
      'table',
      { class: 'order' },
      h('caption', null, t('order_title', { n: n(items.length) })),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          h('th', { scope: 'col' }, t('order_product')),
          h('th', { scope: 'col' }, t('order_qty')),
          h('th', { scope: 'col' }, t('order_price')),
          h('th', { scope: 'col' }, t('order_subtotal')),
        ),
      ),
      h(
        'tbody',
        null,
        items.map(function (x) {
          return h(
            'tr',
            null,
            h('td', { dir: 'auto' }, (ctx.productName && ctx.productName(str(x.product_retailer_id))) || str(x.product_retailer_id)),
            h('td', { class: 'num' }, n(Number(x.quantity) || 0)),
            h('td', { class: 'num' }, money(Number(x.item_price), str(x.currency))),
            h('td', { class: 'num' }, money((Number(x.item_price) || 0) * (Number(x.quantity) || 0), str(x.currency))),
          );
        }),
      ),
      mixed
        ? null
        : h(
            'tfoot',
            null,
            h('tr', null, h('th', { scope: 'row', colspan: 3 }, t('order_total')), h('td', { class: 'num total' }, money(total, currency))),
          ),
    ),
    text(str(p.text)),
  ];
}

// ---- interactive ----------------------------------------------------------------------------------
/** What the customer tapped (a reply button, a list row, a template's button) or answered in a Flow. */
function choice(m: ViewMessage): HTMLElement {
  const p = obj(m.payload);
  if (m.type === 'button') return h('span', { class: 'choice' }, h('bdi', { dir: 'auto' }, str(p.text)));
  if (p.reply_type === 'nfm_reply') {
    const r = obj(p.response);
    return h(
      'span',
      { class: 'choice flow' },
      h('strong', null, t('flow_answer', { name: str(p.name) })),
      h(
        'dl',
        null,
        Object.keys(r).map(function (k) {
          return [h('dt', { dir: 'auto' }, k), h('dd', { dir: 'auto' }, typeof r[k] === 'object' ? JSON.stringify(r[k]) : str(r[k]))];
        }),
      ),
    );
  }
  return h(
    'span',
    { class: 'choice' },
    (p.reply_type === 'list_reply' ? '☰ ' : '') + t(p.reply_type === 'list_reply' ? 'picked_row' : 'tapped_button') + ' ',
    h('bdi', { class: 'choice-title', dir: 'auto' }, str(p.title)),
    p.description ? [' · ', h('bdi', { class: 'muted', dir: 'auto' }, str(p.description))] : null,
  );
}
/** An interactive message of ours drawn as WhatsApp draws it; `chosen`: the ids the customer tapped. */
function bubble(p: Loose, chosen: string[]): HTMLElement {
  const header = obj(p.header).text ? h('strong', { class: 'wa-header', dir: 'auto' }, str(p.header.text)) : null;
  const body = obj(p.body).text ? h('span', { class: 'content', dir: 'auto' }, str(p.body.text)) : null;
  const footer = obj(p.footer).text ? h('span', { class: 'wa-footer', dir: 'auto' }, str(p.footer.text)) : null;
  const action = obj(p.action);
  const picked = function (id: unknown): boolean {
    return chosen.indexOf(id as string) >= 0;
  };
  let below: Child = null;
  if (p.type === 'button') {
    below = h(
      'span',
      { class: 'wa-buttons' },
      (Array.isArray(action.buttons) ? action.buttons : []).map(function (b: unknown) {
        const r = obj(obj(b).reply);
        return h(
          'span',
          { class: 'wa-button' + (picked(r.id) ? ' chosen' : ''), 'data-reply-id': str(r.id), dir: 'auto' },
          (picked(r.id) ? '✓ ' : '') + str(r.title),
        );
      }),
    );
  } else if (p.type === 'list') {
    below = [
      h('span', { class: 'wa-buttons' }, h('span', { class: 'wa-button', dir: 'auto' }, '☰ ' + str(action.button))),
      h(
        'span',
        { class: 'wa-list', 'aria-label': str(action.button) },
        (Array.isArray(action.sections) ? action.sections : []).map(function (section: unknown) {
          const s = obj(section);
          return h(
            'span',
            { class: 'wa-section' },
            s.title ? h('span', { class: 'wa-section-title', dir: 'auto' }, str(s.title)) : null,
            (Array.isArray(s.rows) ? s.rows : []).map(function (item: unknown) {
              const row = obj(item);
              return h(
                'span',
                { class: 'wa-row' + (picked(row.id) ? ' chosen' : ''), 'data-reply-id': str(row.id) },
                h('span', { dir: 'auto' }, (picked(row.id) ? '✓ ' : '') + str(row.title)),
                row.description ? h('span', { class: 'muted', dir: 'auto' }, str(row.description)) : null,
              );
            }),
          );
        }),
      ),
    ];
  } else if (p.type === 'cta_url') {
    const prm = obj(action.parameters);
    below = h('span', { class: 'wa-buttons' }, outLink(str(prm.url), '↗ ' + str(prm.display_text), 'wa-button'));
  } else if (p.type === 'location_request_message') {
    below = h('span', { class: 'wa-buttons' }, h('span', { class: 'wa-button' }, t('send_location_button')));
  }
  return h('span', { class: 'wa-bubble' }, header, body, footer, below);
}

/**
 * The body of message `m`. `ctx`: `load(key, path)` → a promise of a blob URL; `get(id)` → a message of the
 * thread; `answers(id)` → the messages that answer it (reply_to_id); `reactions(id)` → [{emoji, role}].
 */
export function render(m: ViewMessage, ctx: ViewContext): Child[] {
  const p = obj(m.payload);
  let out: Child[];
  switch (m.type) {
    case 'image':
    case 'sticker':
    case 'audio':
    case 'video':
    case 'document':
      out = media(m, ctx);
      break;
    case 'location':
      out = [location(p)];
      break;
    case 'contacts':
      out = contacts(p);
      break;
    case 'order':
      out = order(p, ctx);
      break;
    case 'button':
      out = [choice(m)];
      break;
    case 'interactive':
      if (p.reply_type) out = [choice(m)];
      else
        out = [
          bubble(
            p,
            ctx.answers(m.id).map(function (a) {
              const ap = obj(a.payload);
              return str(ap.id || ap.payload);
            }),
          ),
        ];
      break;
    case 'reaction': {
      const target = p.message_id != null && ctx.get(p.message_id as number);
      out = [
        h('span', { class: 'muted' }, p.emoji ? t('reacted', { emoji: str(p.emoji) }) : t('reaction_removed')),
        target ? quote(target) : null,
      ];
      break;
    }
    case 'unsupported':
      out = [h('span', { class: 'muted' }, '⚠ ' + t('unsupported', { type: str(p.type) || '?' }))];
      break;
    case 'template':
      // §10.6: a template sent to the customer, its body as they read it
      out = [
        h('span', { class: 'template-tag' }, '📋 ', h('bdi', { dir: 'auto' }, t('template_msg', { name: str(p.name) }))),
        text(m.content),
      ];
      break;
    case 'text':
    case 'system':
    default:
      out = [text(m.content)];
  }
  if (m.revoked_at) out = [h('span', { class: 'deleted muted' }, '⊘ ' + t('deleted_message'))];
  const question = m.reply_to_id != null ? ctx.get(m.reply_to_id) : null;
  const reactions = ctx.reactions(m.id);
  return [
    adCard(m.referral),
    question ? quote(question) : null,
    out,
    changeMarks(m),
    reactions.length
      ? h(
          'span',
          { class: 'reactions', 'aria-label': t('reactions') },
          reactions.map(function (r) {
            return h('span', { class: 'reaction', title: t('role_' + r.role) }, r.emoji);
          }),
        )
      : null,
  ];
}
// ---- the business's phone, edits, deletions, ads (CONTRACT §13.7) -------------------------------
/** Under a message: sent from the WhatsApp Business app, and "edited" with its earlier versions on demand. */
function changeMarks(m: ViewMessage): Child {
  // the handoff it caused is the conversation's `handler` (shown above the thread); the mark says why
  const fromPhone =
    m.source === 'business_app' ? h('span', { class: 'from-phone', title: t('took_over_phone') }, t('from_business_app')) : null;
  const edits: Loose[] = Array.isArray(m.edits) ? m.edits.map(obj) : [];
  if (!m.edited_at || m.revoked_at) return fromPhone;
  const versions = h(
    'ol',
    { class: 'edits' },
    edits.map(function (v) {
      return h(
        'li',
        null,
        h('span', { class: 'muted' }, (v.edited_at ? when(v.edited_at) : t('original_version')) + ':'),
        ' ',
        h('bdi', { dir: 'auto' }, str(v.content) || '—'),
      );
    }),
  );
  const marks = h(
    'details',
    { class: 'edited' },
    h('summary', null, t('edited') + (edits.length ? ' · ' + t('earlier_versions', { n: n(edits.length) }) : '')),
    versions,
  );
  return [fromPhone, marks];
}
function when(iso: string): string {
  try {
    return new Intl.DateTimeFormat(lang, { dateStyle: 'short', timeStyle: 'short' }).format(new Date(iso));
  } catch {
    return str(iso);
  }
}
/** The Click-to-WhatsApp ad a message came from: its headline, body and an https link to it. */
function adCard(referral: unknown): HTMLElement | null {
  const r = obj(referral);
  if (!referral) return null;
  return h(
    'span',
    { class: 'ad-card' },
    h('span', { class: 'ad-label' }, t('ad_referral')),
    r.headline ? h('strong', { class: 'ad-headline', dir: 'auto' }, str(r.headline)) : null,
    r.body ? h('span', { class: 'ad-body', dir: 'auto' }, str(r.body)) : null,
    r.source_url && /^https:\/\//i.test(str(r.source_url)) ? outLink(str(r.source_url), t('open_ad') + ' ↗', 'ad-link') : null,
  );
}

/** The message another one answers or reacts to, in a line. */
function quote(q: ViewMessage): HTMLElement {
  let words = String(q.content || '')
    .replace(/\s+/g, ' ')
    .trim();
  if (q.type === 'interactive' && obj(q.payload).body) words = str(obj(q.payload).body.text);
  return h(
    'span',
    { class: 'quote', 'data-quotes': q.id },
    h('span', { class: 'quote-who' }, '↩ ' + t('in_reply_to', { role: t('role_' + q.role) })),
    h('span', { dir: 'auto' }, words.length > 90 ? words.slice(0, 89) + '…' : words),
  );
}
