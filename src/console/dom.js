/* OrderGraph console: the one way the console writes into its page (CONTRACT §11, "pages that cannot be
 * dressed up"). Every element is built with createElement, every value goes in through textContent (text
 * nodes) or setAttribute (one attribute, whatever its characters): no HTML string is ever parsed, so a
 * quote, `<`, `&` or `</script>` in an agent's name or a customer's message stays text; a customer's names lose
 * their bidirectional controls and stand isolated (`plain`, `name`). Loaded first. */
(function () {
  'use strict';
  /**
   * h('button', {type: 'button', 'data-id': 7, class: 'x', hidden: true}, 'text', node, [more], null)
   * Attributes: null/undefined/false are left out, true is the empty attribute; `on<event>` keys are
   * refused (handlers are added with addEventListener); `style` is refused (the CSP allows no inline style).
   * Children: strings and numbers become text nodes, nodes are appended, arrays are flattened, null/false skipped.
   */
  function h(tag, attrs) {
    var el = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (name) {
        var v = attrs[name];
        if (/^on/i.test(name) || name === 'style') throw new Error('h(): ' + name + ' is not set as an attribute');
        if (v === null || v === undefined || v === false) return;
        el.setAttribute(name, v === true ? '' : String(v));
      });
    }
    for (var i = 2; i < arguments.length; i++) append(el, arguments[i]);
    return el;
  }
  function append(el, child) {
    if (child === null || child === undefined || child === false) return;
    if (Array.isArray(child))
      return child.forEach(function (c) {
        append(el, c);
      });
    el.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
  /** Replaces every child of `el` with `children` (same rules as h's). */
  function fill(el) {
    el.replaceChildren();
    for (var i = 1; i < arguments.length; i++) append(el, arguments[i]);
    return el;
  }
  /**
   * A customer's text without Unicode's bidirectional controls (CONTRACT §11, third review): the embeddings and
   * overrides U+202A–U+202E and the isolates U+2066–U+2069, which would let `…\u202Egnp.exe` read as `…exe.png`.
   * Callers show it in an element of its own with `dir` (isolated from the text around it).
   */
  var BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/g;
  function plain(x) {
    return (typeof x === 'string' ? x : x === null || x === undefined ? '' : String(x)).replace(BIDI_CONTROLS, '');
  }
  /** A customer-supplied name (a contact's, a file's, a provider's reason) as an isolated run: `<bdi dir="auto">`. */
  function name(value, attrs) {
    return h('bdi', Object.assign({ dir: 'auto' }, attrs || {}), plain(value));
  }
  /**
   * The filename a `Content-Disposition` answer gives (the service strips it to a safe form: no path, quotes or
   * controls): its RFC 5987 `filename*` decoded, else its `filename`; null when it has neither.
   */
  function dispositionName(header) {
    var star = /filename\*=UTF-8''([^;\s]+)/i.exec(header || '');
    if (star) {
      try {
        return plain(decodeURIComponent(star[1]));
      } catch {
        // a malformed escape: the ASCII name below
      }
    }
    var quoted = /filename="([^"]*)"/i.exec(header || '');
    return quoted ? plain(quoted[1]) : null;
  }
  /** Children for h(): a translated `template` with its `{slot}` replaced by `node` (a name stays its own element). */
  function slot(template, key, node) {
    var parts = String(template).split('{' + key + '}');
    return parts.length < 2 ? [template, ' ', node] : [parts[0], node, parts.slice(1).join('')];
  }
  window.OrderGraphDom = { h: h, fill: fill, plain: plain, name: name, dispositionName: dispositionName, slot: slot };
})();
