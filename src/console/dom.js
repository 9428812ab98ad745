/* OrderGraph console: the one way the console writes into its page (CONTRACT §11, "pages that cannot be
 * dressed up"). Every element is built with createElement, every value goes in through textContent (text
 * nodes) or setAttribute (one attribute, whatever its characters): no HTML string is ever parsed, so a
 * quote, `<`, `&` or `</script>` in an agent's name or a customer's message stays text. Loaded first. */
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
  window.OrderGraphDom = { h: h, fill: fill };
})();
