/* OrderGraph console: a message as a person expects to see it (CONTRACT §12.2, §12.4, §12.6). A picture inline, an
 * audio or video player, a document to download with its name and size, a location card with an https link to a map
 * (no tiles: nothing is loaded from elsewhere), a contact card, an order as a table with its total, a tapped button
 * or list row with the question it answers, the buttons and lists of an outbound interactive message as the customer
 * sees them, and the reactions a message got. Files come through the API with the console's credential (fetched with
 * its header, shown from blob URLs: no token in a URL). Built with dom.js only; loaded before inbox.js. */
(function () {
  'use strict';
  var dom = window.OrderGraphDom;
  var h = dom.h;
  var i18n = window.OrderGraphI18n;
  var t = i18n.t,
    n = i18n.n,
    lang = i18n.lang;

  function obj(x) {
    return x && typeof x === 'object' && !Array.isArray(x) ? x : {};
  }
  /** A payload's value as text, without bidirectional controls (dom.js `plain`). */
  function str(x) {
    return dom.plain(x);
  }
  function bytes(size) {
    if (typeof size !== 'number') return '';
    var units = ['byte', 'kilobyte', 'megabyte', 'gigabyte'];
    var u = 0;
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
  function money(amount, currency) {
    if (typeof amount !== 'number') return '';
    try {
      return new Intl.NumberFormat(lang, { style: 'currency', currency: currency || 'USD' }).format(amount);
    } catch {
      return n(amount) + (currency ? ' ' + currency : '');
    }
  }
  function coordinate(x) {
    return new Intl.NumberFormat(lang, { maximumFractionDigits: 6, minimumFractionDigits: 4 }).format(x);
  }
  function text(s, cls) {
    return s ? h('span', { class: cls || 'content', dir: 'auto' }, dom.plain(s)) : null;
  }
  /** A link that leaves the console in a new tab, telling the other site nothing. */
  function outLink(href, label, cls) {
    // https only (the API checks it for replies; a link of any other scheme is shown as text)
    if (!/^https:\/\//i.test(href)) return h('span', { class: cls || null, dir: 'ltr' }, label);
    return h('a', { href: href, target: '_blank', rel: 'noopener noreferrer', class: cls || null }, label);
  }

  // ---- files ---------------------------------------------------------------------------------------
  /**
   * Where a message's file is read: an inbound one through its conversation (§12.3), one of the project's own
   * uploads by its id (§12.5); a `link` of a reply is Meta's to fetch and is only shown as a link.
   */
  function mediaPath(m) {
    var p = obj(m.payload);
    if (p.media) return '/ai/conversations/' + m.conversation_id + '/messages/' + m.id + '/media';
    if (typeof p.media_id === 'string') return '/ai/media/' + encodeURIComponent(p.media_id);
    return null;
  }
  function mediaState(m) {
    var media = obj(obj(m.payload).media);
    return obj(m.payload).media ? media.status : 'stored';
  }

  function media(m, ctx) {
    var p = obj(m.payload);
    var kind = m.type;
    var caption = str(p.caption);
    var state = mediaState(m);
    var path = mediaPath(m);
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
    var key = path + '#' + str(obj(p.media).sha256);
    if (kind === 'document') return [documentCard(m, p, key, path, ctx), text(caption)];
    var el;
    if (kind === 'image' || kind === 'sticker')
      el = h('img', { class: kind === 'sticker' ? 'media sticker' : 'media', alt: caption || t('type_' + kind) });
    else el = h(kind === 'audio' ? 'audio' : 'video', { class: 'media ' + kind, controls: true, preload: 'metadata' });
    el.setAttribute('data-media', path);
    ctx.load(key, path).then(
      function (url) {
        el.src = url;
      },
      function () {
        el.replaceWith(h('span', { class: 'media-failed' }, '⚠ ' + t('media_unavailable')));
      },
    );
    return [el, kind === 'audio' && p.voice ? h('span', { class: 'muted' }, t('voice_note')) : null, text(caption)];
  }
  /** A document: its name and size, downloaded on demand (a menu of 100 MB is not read until asked for). */
  function documentCard(m, p, key, path, ctx) {
    var name = str(p.filename) || t('type_document');
    var size = obj(p.media).size;
    var sizeEl = h('span', { class: 'doc-size' }, size != null ? bytes(size) : null);
    // a document we sent (§12.5, by media_id) carries no size in its payload: its store says it
    if (size == null && ctx.size)
      ctx.size(path).then(
        function (known) {
          if (known != null) sizeEl.textContent = bytes(known);
        },
        function () {},
      );
    var button = h(
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
          var a = h('a', { href: url, download: ctx.fileName(url) || t('type_document'), hidden: true });
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
  function location(p) {
    var lat = p.latitude,
      lon = p.longitude;
    var ok = typeof lat === 'number' && typeof lon === 'number';
    var map = ok ? 'https://www.openstreetmap.org/?mlat=' + lat + '&mlon=' + lon + '#map=17/' + lat + '/' + lon : null;
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
  function contacts(p) {
    var list = Array.isArray(p.contacts) ? p.contacts : [];
    return list.map(function (c) {
      c = obj(c);
      var name = obj(c.name);
      var lines = []
        .concat(
          (Array.isArray(c.phones) ? c.phones : []).map(function (x) {
            return h('span', { class: 'phone', dir: 'ltr' }, '☎ ' + str(obj(x).phone || obj(x).wa_id));
          }),
        )
        .concat(
          (Array.isArray(c.emails) ? c.emails : []).map(function (x) {
            return h('span', { dir: 'ltr' }, '✉ ' + str(obj(x).email));
          }),
        );
      var org = obj(c.org).company;
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
  function order(p, ctx) {
    var items = Array.isArray(p.items) ? p.items.map(obj) : [];
    var currency = items.length ? str(items[0].currency) : '';
    var total = items.reduce(function (sum, x) {
      return sum + (Number(x.item_price) || 0) * (Number(x.quantity) || 0);
    }, 0);
    var mixed = items.some(function (x) {
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
              h(
                'td',
                { dir: 'auto' },
                (ctx && ctx.productName && ctx.productName(str(x.product_retailer_id))) || str(x.product_retailer_id),
              ),
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
              h(
                'tr',
                null,
                h('th', { scope: 'row', colspan: 3 }, t('order_total')),
                h('td', { class: 'num total' }, money(total, currency)),
              ),
            ),
      ),
      text(str(p.text)),
    ];
  }

  // ---- interactive ----------------------------------------------------------------------------------
  /** What the customer tapped (a reply button, a list row, a template's button) or answered in a Flow. */
  function choice(m) {
    var p = obj(m.payload);
    if (m.type === 'button') return h('span', { class: 'choice' }, h('bdi', { dir: 'auto' }, str(p.text)));
    if (p.reply_type === 'nfm_reply') {
      var r = obj(p.response);
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
  function bubble(p, chosen) {
    var header = obj(p.header).text ? h('strong', { class: 'wa-header', dir: 'auto' }, str(p.header.text)) : null;
    var body = obj(p.body).text ? h('span', { class: 'content', dir: 'auto' }, str(p.body.text)) : null;
    var footer = obj(p.footer).text ? h('span', { class: 'wa-footer', dir: 'auto' }, str(p.footer.text)) : null;
    var action = obj(p.action);
    var picked = function (id) {
      return chosen.indexOf(id) >= 0;
    };
    var below = null;
    if (p.type === 'button') {
      below = h(
        'span',
        { class: 'wa-buttons' },
        (Array.isArray(action.buttons) ? action.buttons : []).map(function (b) {
          var r = obj(obj(b).reply);
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
          (Array.isArray(action.sections) ? action.sections : []).map(function (s) {
            s = obj(s);
            return h(
              'span',
              { class: 'wa-section' },
              s.title ? h('span', { class: 'wa-section-title', dir: 'auto' }, str(s.title)) : null,
              (Array.isArray(s.rows) ? s.rows : []).map(function (row) {
                row = obj(row);
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
      var prm = obj(action.parameters);
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
  function render(m, ctx) {
    var p = obj(m.payload);
    var out;
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
                var ap = obj(a.payload);
                return str(ap.id || ap.payload);
              }),
            ),
          ];
        break;
      case 'reaction':
        var target = p.message_id != null && ctx.get(p.message_id);
        out = [
          h('span', { class: 'muted' }, p.emoji ? t('reacted', { emoji: str(p.emoji) }) : t('reaction_removed')),
          target ? quote(target) : null,
        ];
        break;
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
      default:
        out = [text(m.content)];
    }
    if (m.revoked_at) out = [h('span', { class: 'deleted muted' }, '⊘ ' + t('deleted_message'))];
    var question = m.reply_to_id != null ? ctx.get(m.reply_to_id) : null;
    var reactions = ctx.reactions(m.id);
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
  function changeMarks(m) {
    // the handoff it caused is the conversation's `handler` (shown above the thread); the mark says why
    var fromPhone =
      m.source === 'business_app' ? h('span', { class: 'from-phone', title: t('took_over_phone') }, t('from_business_app')) : null;
    var edits = Array.isArray(m.edits) ? m.edits.map(obj) : [];
    if (!m.edited_at || m.revoked_at) return fromPhone;
    var versions = h(
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
    var marks = h(
      'details',
      { class: 'edited' },
      h('summary', null, t('edited') + (edits.length ? ' · ' + t('earlier_versions', { n: n(edits.length) }) : '')),
      versions,
    );
    return [fromPhone, marks];
  }
  function when(iso) {
    try {
      return new Intl.DateTimeFormat(lang, { dateStyle: 'short', timeStyle: 'short' }).format(new Date(iso));
    } catch {
      return str(iso);
    }
  }
  /** The Click-to-WhatsApp ad a message came from: its headline, body and an https link to it. */
  function adCard(referral) {
    var r = obj(referral);
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
  function quote(q) {
    var words = String(q.content || '')
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

  window.OrderGraphMessageView = { render: render, mediaPath: mediaPath, bytes: bytes };
})();
