/* OrderGraph console: the Orders page and a thread's cart and orders (CONTRACT §15.7). Today's orders (today in the
 * browser's zone) of the project (a level-2 owner: the API scopes GET /ai/orders to their businesses), newest first,
 * grouped pending (0, 13) / in progress / done (the final statuses of §15.4), live from the inbox's stream
 * (`console:event`: order.created, order.status, order.updated, cart.updated), each with its lines, total in its
 * currency, delivery type, address and customer, and the buttons that move it (POST /ai/orders/{id}/status). A new
 * order is announced by a short sound made with the Web Audio API (no file; a toggle kept in localStorage) and in the
 * tab's title until the page is looked at. In the inbox's thread: the conversation's cart and its orders.
 * Plain JS, no build step; loaded after inbox.js and counter.js (it uses `og.inbox`). */
import type { Cart, Conversation, Envelope, Order } from './api-types.js';
import { api, currencyFormat, og, session, showError, type ApiError } from './console.js';
import * as dom from './dom.js';
import { $, fill, h } from './dom.js';
import * as i18n from './i18n.js';
import { lang, t } from './i18n.js';
const dashboard = $('dashboard');
type Group = 'pending' | 'progress' | 'done';
/** A line as the order's card and the cart show it (an order's product or a cart's line). */
interface Line {
  name?: string | null;
  retailer_id?: string | null;
  product_id?: number | null;
  quantity: number;
  price?: number | null;
  total?: number | null;
  comment?: string | null;
}
type Customer = Pick<Conversation, 'id' | 'contact' | 'contact_name'>;
/** The conversation open in the inbox: its cart and its orders. */
interface Thread {
  id: number | null;
  cart: Cart | null;
  orders: Map<number, Order>;
}

const PENDING = [0, 13];
const FINAL = [1, 2, 5, 6, 10, 11, 12, 15, 16, 17];
const GROUPS: Group[] = ['pending', 'progress', 'done'];
const SOUND = 'ordergraph-console:orders-sound';
const baseTitle = document.title;
const ids = new Intl.NumberFormat(lang, { useGrouping: false });
const timeOnly = new Intl.DateTimeFormat(lang, { hour: '2-digit', minute: '2-digit' });
const dayLong = new Intl.DateTimeFormat(lang, { weekday: 'long', day: 'numeric', month: 'long' });
const plainMoney = new Intl.NumberFormat(lang, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
/** An amount with its currency, in the page's language (`23,50 €`, `€23.50`, `٢٣٫٥٠ €`). */
function money(amount: number | null | undefined, currency: string | null | undefined): string {
  if (amount === null || amount === undefined || isNaN(Number(amount))) return '–';
  if (!currency) return plainMoney.format(Number(amount));
  const f = currencyFormat(currency);
  return f ? f.format(Number(amount)) : plainMoney.format(Number(amount)) + ' ' + currency;
}
function groupOf(status: number): Group {
  if (PENDING.indexOf(status) >= 0) return 'pending';
  return FINAL.indexOf(status) >= 0 ? 'done' : 'progress';
}
function statusName(s: number): string {
  return t('ost_' + s);
}
function totalOf(o: Order): number | null | undefined {
  return o.summary && o.summary.total !== undefined ? o.summary.total : (o as Order & { total?: number | null }).total;
}
/** Midnight today in the browser's zone, as an instant. */
function todayStart(): Date {
  const d = new Date();
  d.setHours(0, 0, 0, 0);
  return d;
}
function isToday(iso: string): boolean {
  return new Date(iso).toDateString() === new Date().toDateString();
}

let state = fresh();
function fresh() {
  return {
    orders: new Map<number, Order>(),
    customers: new Map<number, Customer | null>(),
    day: new Date().toDateString(),
    loaded: false,
    unseen: 0,
    fresh: new Set<number>(),
    rejecting: null as number | null,
    errors: new Map<number, string>(),
    busy: new Set<number>(),
    generation: 0,
    chimes: 0,
    clock: null as ReturnType<typeof setInterval> | null,
    thread: { id: null, cart: null, orders: new Map() } as Thread,
  };
}

// ---- the page's markup: a switch between the inbox (with the figures) and the orders ----------------
const nav = h(
  'nav',
  { class: 'pages', 'aria-label': t('nav_label') },
  h('button', { type: 'button', id: 'page-inbox', 'data-page': 'inbox', 'aria-current': 'page' }, t('nav_inbox')),
  h(
    'button',
    { type: 'button', id: 'page-orders', 'data-page': 'orders', 'aria-current': 'false' },
    t('nav_orders'),
    ' ',
    h('span', { id: 'orders-badge', class: 'count', hidden: true }),
  ),
);
const section = h(
  'section',
  { id: 'orders-page', class: 'orders-page', 'aria-labelledby': 'orders-title', hidden: true },
  h(
    'div',
    { class: 'row' },
    h('h2', { id: 'orders-title' }, t('orders_today'), ' ', h('span', { id: 'orders-day', class: 'muted' })),
    h(
      'label',
      { class: 'inline sound', for: 'orders-sound' },
      h('input', { type: 'checkbox', id: 'orders-sound' }),
      ' ',
      h('span', null, t('sound_toggle')),
    ),
  ),
  h('p', { id: 'orders-status', class: 'muted', role: 'status', 'aria-live': 'polite' }),
  h('p', { id: 'orders-error', class: 'error', role: 'alert' }),
  h(
    'div',
    { class: 'order-groups' },
    GROUPS.map(function (g) {
      return h(
        'section',
        { class: 'order-group', 'data-group': g, 'aria-labelledby': 'group-' + g + '-title' },
        h('h3', { id: 'group-' + g + '-title' }, t('group_' + g), ' ', h('span', { class: 'group-count' })),
        h('ol', { class: 'order-list', id: 'orders-' + g }),
      );
    }),
  ),
);
dashboard.insertBefore(nav, dashboard.firstChild);
dashboard.insertBefore(section, nav.nextSibling);

function currentPage(): 'orders' | 'inbox' {
  return dashboard.classList.contains('view-orders') ? 'orders' : 'inbox';
}
function showPage(page: string | null): void {
  const orders = page === 'orders';
  dashboard.classList.toggle('view-orders', orders);
  section.hidden = !orders;
  $('page-inbox').setAttribute('aria-current', orders ? 'false' : 'page');
  $('page-orders').setAttribute('aria-current', orders ? 'page' : 'false');
  const url = new URL(location.href);
  url.hash = orders ? 'orders' : '';
  window.history.replaceState(null, '', url.toString());
  if (orders) {
    looked();
    if (!state.loaded) void load();
  }
  retitle();
}
nav.addEventListener('click', function (e) {
  const b = (e.target as Element).closest('button[data-page]');
  if (b) showPage(b.getAttribute('data-page'));
});

// ---- the announcement: a sound (Web Audio, no file) and the tab's title ------------------------------------
const soundBox = $<HTMLInputElement>('orders-sound');
soundBox.checked = localStorage.getItem(SOUND) !== 'off';
soundBox.addEventListener('change', function () {
  localStorage.setItem(SOUND, soundBox.checked ? 'on' : 'off');
  if (soundBox.checked) audio();
});
let audioContext: AudioContext | null = null;
/** The page's one AudioContext, made (or resumed) on a click: browsers start sound only after a gesture. */
function audio(): AudioContext | null {
  const Ctx = window.AudioContext || (window as Window & { webkitAudioContext?: typeof AudioContext }).webkitAudioContext;
  if (!Ctx) return null;
  if (!audioContext) {
    try {
      audioContext = new Ctx();
    } catch {
      return null;
    }
  }
  if (audioContext.state === 'suspended') audioContext.resume().catch(function () {});
  return audioContext;
}
document.addEventListener('click', () => void audio(), { once: true });
/** Two short rising tones (about 0.4 s), quiet enough for a kitchen not to jump. */
function chime(): void {
  if (!soundBox.checked) return;
  state.chimes++;
  section.setAttribute('data-chimes', String(state.chimes));
  const ctx = audio();
  if (!ctx) return;
  try {
    [
      [880, 0],
      [1318.5, 0.18],
    ].forEach(function (note: number[]) {
      const at = ctx.currentTime + note[1];
      const osc = ctx.createOscillator();
      const gain = ctx.createGain();
      osc.type = 'sine';
      osc.frequency.value = note[0];
      gain.gain.setValueAtTime(0.0001, at);
      gain.gain.exponentialRampToValueAtTime(0.25, at + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, at + 0.2);
      osc.connect(gain);
      gain.connect(ctx.destination);
      osc.start(at);
      osc.stop(at + 0.22);
    });
  } catch {
    /* no sound: the title still says it */
  }
}
function watching() {
  return currentPage() === 'orders' && document.visibilityState === 'visible';
}
/** The page was looked at: the new orders are no longer new for the title. */
function looked() {
  if (!watching()) return;
  state.unseen = 0;
  retitle();
}
document.addEventListener('visibilitychange', looked);
window.addEventListener('focus', looked);
/**
 * The tab's title: `(2) Orders — OrderGraph console` while new orders wait to be looked at (`Orders — …` on this
 * page); on the inbox, its own part follows (`(5) OrderGraph console` with unread messages).
 */
function retitle(): void {
  const onOrders = currentPage() === 'orders';
  const inbox = og.unread && !onOrders ? '(' + i18n.n(og.unread) + ') ' + baseTitle : baseTitle;
  const orders = state.unseen ? '(' + i18n.n(state.unseen) + ') ' + t('orders_title') : onOrders ? t('orders_title') : null;
  document.title = orders ? orders + ' — ' + inbox : inbox;
  const badge = $('orders-badge');
  badge.hidden = !state.unseen;
  badge.textContent = state.unseen ? i18n.n(state.unseen) : '';
}
og.retitle = retitle;

// ---- today's orders ---------------------------------------------------------------------------------
/** Every order of today, newest first: pages of 100 until the last (a busy day is read whole, never cut). */
function load(): Promise<void> {
  const generation = ++state.generation;
  state.day = new Date().toDateString();
  $('orders-day').textContent = dayLong.format(new Date());
  $('orders-status').textContent = t('orders_loading');
  $('orders-error').textContent = '';
  const where = JSON.stringify([{ attribute: 'created_at', value: { condition: '>=', value: todayStart().toISOString() } }]);
  const found = new Map<number, Order>();
  function page(n: number): Promise<void> {
    return api<Envelope<'AiOrders'>>(
      '/ai/orders',
      { where: where, orderBy: '-created_at,-id', page: String(n), page_size: '100' },
      null,
      true,
    ).then(function (body) {
      body.result.forEach(function (o) {
        found.set(o.id, o);
      });
      if (n < (body.pagination as { total_pages: number }).total_pages && n < 50) return page(n + 1);
    });
  }
  return page(1).then(
    function () {
      if (generation !== state.generation) return;
      // what the stream brought meanwhile is newer than the read
      state.orders.forEach(function (o, id) {
        const read = found.get(id);
        if (!read || Date.parse(o.updated_at) > Date.parse(read.updated_at)) found.set(id, o);
      });
      state.orders = found;
      state.loaded = true;
      loadCustomers();
      render();
    },
    function (err: ApiError) {
      if (generation !== state.generation) return;
      $('orders-status').textContent = '';
      $('orders-error').textContent = err.message || '?';
      if (err.status === 401) showError(err);
    },
  );
}
/** The contact's name of each order's conversation, read in one call for all those not known yet. */
function loadCustomers(): void {
  const wanted: number[] = [];
  state.orders.forEach(function (o) {
    if (o.conversation_id != null && !state.customers.has(o.conversation_id) && wanted.length < 100) wanted.push(o.conversation_id);
  });
  if (!wanted.length) return;
  wanted.forEach(function (id) {
    state.customers.set(id, null);
  });
  api<Customer[]>('/ai/conversations', {
    where: JSON.stringify({ id: wanted }),
    params: 'id,contact,contact_name',
    page_size: '100',
  }).then(
    function (rows) {
      rows.forEach(function (c) {
        state.customers.set(c.id, c);
      });
      render();
    },
    function () {
      /* customers stay by number */
    },
  );
}
function sortedIn(group: Group): Order[] {
  return Array.from(state.orders.values())
    .filter(function (o) {
      return groupOf(o.status) === group;
    })
    .sort(function (a, b) {
      return Date.parse(b.created_at) - Date.parse(a.created_at) || b.id - a.id;
    });
}
function render(): void {
  if (!state.loaded) return;
  // a reason being typed survives a redraw (a live event, another order's move)
  const typing = state.rejecting !== null ? (document.getElementById('reject-reason-' + state.rejecting) as HTMLInputElement | null) : null;
  const typed = typing ? typing.value : null;
  const focused = typing && document.activeElement === typing;
  $('orders-status').textContent = i18n.plural('orders_count', state.orders.size);
  GROUPS.forEach(function (g) {
    const list = sortedIn(g);
    const box = section.querySelector('.order-group[data-group="' + g + '"]') as HTMLElement;
    (box.querySelector('.group-count') as HTMLElement).textContent = '(' + i18n.n(list.length) + ')';
    fill(
      $('orders-' + g),
      list.length
        ? list.map(function (o) {
            return h('li', null, card(o));
          })
        : h('li', { class: 'muted empty' }, t('group_empty')),
    );
  });
  const again = state.rejecting !== null ? (document.getElementById('reject-reason-' + state.rejecting) as HTMLInputElement | null) : null;
  if (again && typed !== null) again.value = typed;
  if (again && focused) again.focus();
  retitle();
}
function customerNode(o: Order): HTMLElement {
  const c = o.conversation_id != null ? state.customers.get(o.conversation_id) : null;
  if (c && c.contact_name) return dom.name(c.contact_name, { class: 'customer' });
  if (c && c.contact)
    return h('bdi', { class: 'customer', dir: 'ltr' }, /^[0-9]+$/.test(c.contact) ? '+' + c.contact : dom.plain(c.contact));
  if (o.customer_id != null) return h('span', { class: 'customer' }, t('customer_n', { id: ids.format(o.customer_id) }));
  return h('span', { class: 'customer muted' }, t('no_customer'));
}
/** The moves a kitchen makes, by where the order is (§15.4; the platform's couriers may skip steps). */
function actions(o: Order): [string, number][] {
  const s = o.status;
  if (groupOf(s) === 'done') return [];
  if (groupOf(s) === 'pending') return [['accept', 7]];
  if (s === 9 || s === 19 || s === 23) return [['delivered', 11]];
  if (s === 4 || s === 3 || s === 18 || s === 20 || s === 21)
    return [o.delivery_type === 1 ? ['picked_driver', 9] : ['picked_customer', 15]];
  return [['ready', 4]];
}
function canReject(o: Order): boolean {
  return groupOf(o.status) !== 'done' && [9, 19, 23].indexOf(o.status) < 0;
}
function linesOf(items: Line[] | null | undefined, currency: string | null): HTMLElement {
  return h(
    'ul',
    { class: 'order-lines' },
    (items || []).map(function (l) {
      return h(
        'li',
        null,
        h('span', { class: 'line-name' }, dom.name(l.name || l.retailer_id || '?'), ' × ', i18n.n(l.quantity)),
        h('span', { class: 'num' }, money(l.total !== undefined ? l.total : (l.price as number) * l.quantity, currency)),
        l.comment ? h('span', { class: 'line-comment muted', dir: 'auto' }, dom.plain(l.comment)) : null,
      );
    }),
  );
}
/** The reason given with the order's last move (a rejection's, an estimated time), if any. */
function reasonOf(o: Order): string | null {
  const last = o.history && o.history.length ? o.history[o.history.length - 1] : null;
  return last && last.status === o.status && last.reason ? last.reason : null;
}
function card(o: Order): HTMLElement {
  const group = groupOf(o.status);
  const error = state.errors.get(o.id);
  const busy = state.busy.has(o.id);
  const rejecting = state.rejecting === o.id;
  return h(
    'article',
    {
      class: 'order-card ' + group + (state.fresh.has(o.id) ? ' fresh' : ''),
      'data-order': o.id,
      'data-status': o.status,
      'aria-labelledby': 'order-' + o.id + '-title',
    },
    h(
      'div',
      { class: 'order-head' },
      h(
        'h4',
        { id: 'order-' + o.id + '-title' },
        t('order_n', { id: ids.format(o.id) }),
        ' ',
        h('time', { class: 'muted', datetime: o.created_at }, timeOnly.format(new Date(o.created_at))),
      ),
      state.fresh.has(o.id) ? h('span', { class: 'badge new' }, t('new_order_badge')) : null,
      h('span', { class: 'badge status s' + o.status, 'data-status': o.status }, statusName(o.status)),
    ),
    h(
      'p',
      { class: 'order-who' },
      customerNode(o),
      o.delivery_type ? h('span', { class: 'badge dt' }, t('dt_' + o.delivery_type)) : null,
      o.paymethod ? h('span', { class: 'muted pay' }, t('pay_' + o.paymethod)) : null,
    ),
    o.address ? h('p', { class: 'order-address' }, h('span', { class: 'muted' }, t('order_address') + ': '), dom.name(o.address)) : null,
    o.comment ? h('p', { class: 'order-comment' }, h('span', { class: 'muted' }, t('order_comment') + ': '), dom.name(o.comment)) : null,
    reasonOf(o) ? h('p', { class: 'order-reason' }, h('span', { class: 'muted' }, t('order_reason') + ': '), dom.name(reasonOf(o))) : null,
    linesOf(o.products, o.currency),
    h('p', { class: 'order-total' }, h('span', null, t('order_total')), h('strong', { class: 'num' }, money(totalOf(o), o.currency))),
    error ? h('p', { class: 'error', role: 'alert' }, error) : null,
    rejecting
      ? h(
          'form',
          { class: 'reject-form', 'data-order': o.id, novalidate: true },
          h('label', { for: 'reject-reason-' + o.id }, t('reject_reason')),
          h('input', {
            id: 'reject-reason-' + o.id,
            class: 'reject-reason',
            maxlength: 500,
            dir: 'auto',
            placeholder: t('reject_placeholder'),
          }),
          h(
            'div',
            { class: 'row end' },
            h('button', { type: 'button', class: 'secondary reject-cancel' }, t('cancel')),
            h('button', { type: 'submit', class: 'danger', disabled: busy }, t('reject_confirm')),
          ),
        )
      : h(
          'div',
          { class: 'order-actions' },
          actions(o).map(function (a) {
            return h('button', { type: 'button', 'data-move': a[1], 'data-action': a[0], disabled: busy }, t('act_' + a[0]));
          }),
          canReject(o)
            ? h('button', { type: 'button', class: 'secondary', 'data-action': 'reject', disabled: busy }, t('act_reject'))
            : null,
          o.conversation_id != null
            ? h('button', { type: 'button', class: 'link', 'data-open': o.conversation_id }, t('open_conversation'))
            : null,
        ),
  );
}

// ---- moving an order ----------------------------------------------------------------------------------
function move(id: number, status: number, reason?: string | null): Promise<void> {
  state.busy.add(id);
  state.errors.delete(id);
  render();
  const body: { status: number; reason?: string } = { status: status };
  if (reason) body.reason = reason;
  return api<Order>('/ai/orders/' + id + '/status', null, { body: body }).then(
    function (o) {
      state.busy.delete(id);
      if (state.rejecting === id) state.rejecting = null;
      state.fresh.delete(id);
      put(o);
    },
    function (err: ApiError) {
      state.busy.delete(id);
      if (err.code === 'ERROR_AI_ORDER_FINAL') {
        // someone (a courier, a colleague) finished it first: say so and show it as it is now
        state.errors.set(id, t('err_order_final'));
        state.rejecting = null;
        return api<Order>('/ai/orders/' + id).then(put, function () {
          render();
        });
      }
      state.errors.set(id, err.message || '?');
      if (err.status === 401) showError(err);
      render();
    },
  );
}
section.addEventListener('click', function (e) {
  const target = e.target as Element;
  const open = target.closest('button[data-open]');
  if (open) {
    showPage('inbox');
    if (og.inbox && og.inbox.open) og.inbox.open(Number(open.getAttribute('data-open')));
    return;
  }
  const cardEl = target.closest('.order-card');
  if (!cardEl) return;
  const id = Number(cardEl.getAttribute('data-order'));
  const b = target.closest('button[data-action]');
  if (b && b.getAttribute('data-action') === 'reject') {
    state.rejecting = id;
    render();
    const input = document.getElementById('reject-reason-' + id);
    if (input) input.focus();
    return;
  }
  if (b && b.hasAttribute('data-move')) return void move(id, Number(b.getAttribute('data-move')));
  if (target.closest('.reject-cancel')) {
    state.rejecting = null;
    render();
  }
});
section.addEventListener('submit', function (e) {
  const form = (e.target as Element).closest('.reject-form');
  if (!form) return;
  e.preventDefault();
  const id = Number(form.getAttribute('data-order'));
  const reason = (form.querySelector('.reject-reason') as HTMLInputElement).value.trim();
  void move(id, 5, reason || null);
});
section.addEventListener('keydown', function (e) {
  if (e.key === 'Escape' && state.rejecting !== null) {
    state.rejecting = null;
    render();
  }
});

// ---- live ---------------------------------------------------------------------------------------------
/** An order record from the stream or an answer: today's are kept; the newer record wins. */
function put(o: Order): void {
  const known = state.orders.get(o.id);
  if (known && Date.parse(known.updated_at) > Date.parse(o.updated_at)) return;
  if (known || isToday(o.created_at)) state.orders.set(o.id, o);
  // "new" until it leaves the pending group
  if (groupOf(o.status) !== 'pending') state.fresh.delete(o.id);
  if (o.conversation_id != null && !state.customers.has(o.conversation_id)) loadCustomers();
  render();
  putThread(o);
  // the contact panel's line of this order (counter.ts) follows its status
  const badge = document.querySelector('#contact-conversations [data-order="' + o.id + '"] .badge.status');
  if (badge) {
    badge.className = 'badge status s' + o.status;
    badge.textContent = statusName(o.status);
  }
}
document.addEventListener('console:event', function (e) {
  const ev = (e as CustomEvent<{ type: string; data: unknown }>).detail;
  if (ev.type === 'cart.updated') return void putCart(ev.data as Cart | null);
  if (ev.type !== 'order.created' && ev.type !== 'order.status' && ev.type !== 'order.updated') return;
  const o = ev.data as Order;
  const isNew = ev.type === 'order.created' && !state.orders.has(o.id) && isToday(o.created_at);
  put(o);
  if (o.conversation_id === state.thread.id && state.thread.cart && ev.type === 'order.created') {
    // placing empties the cart (no cart.updated follows)
    state.thread.cart = null;
    renderThread();
  }
  if (!isNew) return;
  state.fresh.add(o.id);
  chime();
  if (!watching()) state.unseen++;
  render();
});
document.addEventListener('console:resync', function () {
  if (state.loaded) void load();
  if (state.thread.id) loadThread(state.thread.id);
});

// ---- the thread: the conversation's cart and its orders ------------------------------------------------
const threadBox = h('div', { id: 'thread-commerce', class: 'thread-commerce', hidden: true });
const threadAnchor = $('thread-error');
if (threadAnchor && threadAnchor.parentNode) threadAnchor.parentNode.insertBefore(threadBox, threadAnchor);
function loadThread(id: number): void {
  const thread: Thread = { id: id, cart: null, orders: new Map() };
  state.thread = thread;
  renderThread();
  api<Cart>('/ai/conversations/' + id + '/cart').then(
    function (cart) {
      if (state.thread !== thread) return;
      thread.cart = cart;
      renderThread();
    },
    function () {
      /* 400 ERROR_AI_CART_NOT_FOUND: no cart, nothing to show */
    },
  );
  api<Order[]>('/ai/orders', { where: JSON.stringify({ conversation_id: id }), orderBy: '-created_at,-id', page_size: '20' }).then(
    function (list) {
      if (state.thread !== thread) return;
      list.forEach(function (o) {
        const known = thread.orders.get(o.id);
        if (!known || Date.parse(known.updated_at) <= Date.parse(o.updated_at)) thread.orders.set(o.id, o);
      });
      renderThread();
    },
    function () {
      /* the thread's messages are what matters */
    },
  );
}
function putThread(o: Order): void {
  if (o.conversation_id !== state.thread.id) return;
  const known = state.thread.orders.get(o.id);
  if (known && Date.parse(known.updated_at) > Date.parse(o.updated_at)) return;
  state.thread.orders.set(o.id, o);
  renderThread();
}
function putCart(cart: Cart | null): void {
  if (!cart || cart.conversation_id !== state.thread.id) return;
  state.thread.cart = cart.lines && cart.lines.length ? cart : null;
  renderThread();
}
function renderThread(): void {
  const th = state.thread;
  const cart = th.cart && th.cart.lines && th.cart.lines.length ? th.cart : null;
  const orders = Array.from(th.orders.values()).sort(function (a, b) {
    return b.id - a.id;
  });
  threadBox.hidden = !cart && !orders.length;
  fill(threadBox, cart ? cartView(cart) : null, orders.length ? threadOrders(orders) : null);
}
function cartView(cart: Cart): HTMLElement {
  const problems = new Map(
    (cart.problems || []).map(function (p) {
      return [p.line, p.reason];
    }),
  );
  const s = cart.summary || {};
  return h(
    'section',
    { class: 'cart', id: 'thread-cart', 'data-version': cart.version, 'aria-labelledby': 'thread-cart-title' },
    h('h4', { id: 'thread-cart-title' }, t('cart_title'), ' ', h('span', { class: 'badge dt' }, t('dt_' + cart.delivery_type))),
    h(
      'ul',
      { class: 'order-lines' },
      cart.lines.map(function (l: Line, i) {
        const problem = problems.get(i);
        return h(
          'li',
          { class: problem ? 'problem' : null, 'data-problem': problem || null },
          h('span', { class: 'line-name' }, dom.name(l.name || l.retailer_id || l.product_id || '?'), ' × ', i18n.n(l.quantity)),
          problem
            ? h('span', { class: 'problem-reason' }, '⚠ ' + t('cart_problem_' + problem))
            : h('span', { class: 'num' }, money(l.total, cart.currency)),
        );
      }),
    ),
    problems.size ? h('p', { class: 'muted small' }, t('cart_problems')) : null,
    cart.address ? h('p', { class: 'small' }, h('span', { class: 'muted' }, t('order_address') + ': '), dom.name(cart.address)) : null,
    s.delivery_price
      ? h(
          'p',
          { class: 'order-total small' },
          h('span', null, t('delivery_price')),
          h('span', { class: 'num' }, money(s.delivery_price, cart.currency)),
        )
      : null,
    s.tax
      ? h('p', { class: 'order-total small' }, h('span', null, t('tax')), h('span', { class: 'num' }, money(s.tax, cart.currency)))
      : null,
    h('p', { class: 'order-total' }, h('span', null, t('order_total')), h('strong', { class: 'num' }, money(s.total, cart.currency))),
  );
}
function threadOrders(orders: Order[]): HTMLElement {
  return h(
    'section',
    { class: 'thread-orders', 'aria-labelledby': 'thread-orders-title' },
    h('h4', { id: 'thread-orders-title' }, t('thread_orders')),
    h(
      'ul',
      { class: 'plain' },
      orders.map(function (o) {
        return h(
          'li',
          { 'data-order': o.id, 'data-status': o.status, class: groupOf(o.status) },
          h(
            'span',
            { class: 'thread-order-head' },
            h('strong', null, t('order_n', { id: ids.format(o.id) })),
            ' · ',
            h('time', { datetime: o.created_at }, og.inbox ? og.inbox.when(o.created_at) : o.created_at),
            ' · ',
            h('span', { class: 'num' }, money(totalOf(o), o.currency)),
            ' ',
            h('span', { class: 'badge status s' + o.status }, statusName(o.status)),
          ),
          o.products && o.products.length
            ? h(
                'span',
                { class: 'muted small thread-order-lines' },
                o.products
                  .map(function (l) {
                    return dom.plain(l.name) + ' × ' + i18n.n(l.quantity);
                  })
                  .join(', '),
              )
            : null,
        );
      }),
    ),
  );
}
document.addEventListener('console:thread', function (e) {
  loadThread((e as CustomEvent<{ id: number }>).detail.id);
});

// ---- the session --------------------------------------------------------------------------------------
function begin(): void {
  if (!session()) return;
  state.clock = setInterval(function () {
    // past midnight: today is another day
    if (new Date().toDateString() !== state.day && state.loaded) void load();
  }, 60000);
  showPage(location.hash === '#orders' ? 'orders' : 'inbox');
}
document.addEventListener('console:signed-in', begin);
document.addEventListener('console:signed-out', function () {
  if (state.clock) clearInterval(state.clock);
  state = fresh();
  GROUPS.forEach(function (g) {
    $('orders-' + g).replaceChildren();
  });
  threadBox.hidden = true;
  threadBox.replaceChildren();
  showPage('inbox');
  document.title = baseTitle;
});
/** What the browser tests may read. */
og.orders = {
  show: showPage,
  reload: () => load(),
  chimes: function () {
    return state.chimes;
  },
  /** The AudioContext's state (`running` once a click allowed sound), or null before. */
  audio: function () {
    return audioContext ? audioContext.state : null;
  },
};
if (session()) begin();
