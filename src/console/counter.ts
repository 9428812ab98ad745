/* OrderGraph console: what a busy counter needs next (CONTRACT §10.6, issue 57). Colleagues by name (authors and
 * assignees, GET /ai/operators) and assignment to one of them (§10.2 handoff with assignee_id), closing a
 * conversation (§9.1, after a confirmation), a contact panel (the phone number as a tel: link, the username, the
 * BSUID, the contact's conversations with this agent and the orders placed in them), and saved replies offered when
 * the reply box starts with `/` (GET /ai/replies?q=). Imported after inbox.ts, whose calls it uses. */
import type { Conversation, Operator, Result } from './api-types.js';
import { api, inbox, money, og, session, type ApiError, type QueryParams } from './console.js';
import { $, fill, h } from './dom.js';
import { lang, n, t } from './i18n.js';

type Reply = Result<'AiReplies'>[number];
/** An id in the page's digits, never grouped (#1798, not #1,798). */
const ids = new Intl.NumberFormat(lang, { useGrouping: false });
let operators: Operator[] = [];
og.names = new Map();

function nameOf(o: Operator): string {
  return o.name || t('user_n', { id: n(o.id) });
}
/** Colleagues by name: authors and assignees are then shown by name everywhere. */
function loadOperators(): Promise<void> {
  return api<Operator[]>('/ai/operators').then(
    function (list) {
      operators = list;
      og.names = new Map(
        list.map(function (o): [number, string] {
          return [o.id, nameOf(o)];
        }),
      );
      if (og.inbox) og.inbox.redraw();
    },
    function () {
      /* without the list, users stay "user #N" */
    },
  );
}

// ---- assignment and closing ----------------------------------------------------------------------
document.addEventListener('console:thread-head', function (e) {
  const c = (e as CustomEvent<Conversation>).detail;
  renderTools(c);
  renderFacts(c);
});
const assign = $<HTMLSelectElement>('assign');
function renderTools(c: Conversation): void {
  const active = c.status === 'active';
  $('thread-tools').hidden = !active;
  if (!active) $('close-confirm').hidden = true;
  const assigned = c.handler === 'human' && c.assignee_id != null ? c.assignee_id : null;
  fill(
    $('assign'),
    h('option', { value: '' }, t('assign_pick')),
    operators.map(function (o) {
      return h('option', { value: o.id }, nameOf(o));
    }),
  );
  assign.value = assigned != null && og.names.has(assigned) ? String(assigned) : '';
}
function threadError(err: unknown): void {
  const e = err as Error | null | undefined;
  $('thread-error').textContent = e && e.message ? e.message : '?';
}
assign.addEventListener('change', function () {
  const c = inbox().selected();
  const v = assign.value;
  if (!c || !v) return;
  $('thread-error').textContent = '';
  api<Conversation>('/ai/conversations/' + c.id + '/handoff', null, { body: { handler: 'human', assignee_id: Number(v) } }).then(
    (next) => inbox().putConversation(next),
    threadError,
  );
});
$('close-conversation').addEventListener('click', function () {
  $('close-confirm').hidden = false;
  $('close-cancel').focus();
});
$('close-cancel').addEventListener('click', function () {
  $('close-confirm').hidden = true;
});
$('close-yes').addEventListener('click', function () {
  const c = inbox().selected();
  $('close-confirm').hidden = true;
  if (!c) return;
  api<Conversation>('/ai/conversations/' + c.id + '/close', null, { body: { status_reason: 'completed' } }).then(
    (next) => inbox().putConversation(next),
    threadError,
  );
});

// ---- the contact panel -------------------------------------------------------------------------
function renderFacts(c: Conversation): void {
  const panel = $('contact-panel');
  panel.hidden = !c.contact && !c.contact_user_id;
  if (panel.hidden) return;
  const phone = c.contact && /^[0-9]+$/.test(c.contact) ? c.contact : null;
  const facts: [string, HTMLElement][] = [];
  if (c.contact_name) facts.push([t('contact_title'), h('bdi', { dir: 'auto' }, c.contact_name)]);
  if (phone) facts.push([t('phone'), h('a', { href: 'tel:+' + phone, dir: 'ltr', class: 'tel' }, '+' + phone)]);
  if (c.contact_username) facts.push([t('username'), h('bdi', { dir: 'ltr' }, '@' + c.contact_username)]);
  if (c.contact_user_id) facts.push([t('bsuid'), h('bdi', { dir: 'ltr' }, c.contact_user_id)]);
  fill(
    $('contact-facts'),
    facts.map(function (f) {
      return [h('dt', null, f[0]), h('dd', null, f[1])];
    }),
  );
}
/** The contact's conversations with this agent (newest first) and the orders placed in each. */
document.addEventListener('console:thread', function () {
  const c = inbox().selected();
  const list = $('contact-conversations');
  list.replaceChildren();
  if (!c || !c.contact) return;
  const id = c.id;
  api<Conversation[]>('/ai/conversations', {
    // the phone's imported history too (§13.3), marked as such
    where: JSON.stringify({ contact: c.contact, agent_id: c.agent_id, source: ['live', 'history'] }),
    orderBy: '-id',
    page_size: '10',
    params: 'id,status,source,created_at,last_message_at',
  })
    .then(function (rows) {
      return Promise.all(
        rows.map(function (row) {
          return api<Result<'AiConversationOrders'>>('/ai/conversations/' + row.id + '/orders', { page_size: '20' }).then(
            function (orders) {
              return { row: row, orders: orders };
            },
          );
        }),
      );
    })
    .then(function (items) {
      const now = inbox().selected();
      if (!now || now.id !== id) return;
      const any = items.some(function (x) {
        return x.orders.length;
      });
      fill(
        list,
        items.map(function (x) {
          return h(
            'li',
            { 'data-conversation': x.row.id },
            h(
              'span',
              null,
              t('conversation') + ' #' + ids.format(x.row.id) + ' · ' + inbox().when(x.row.last_message_at || x.row.created_at),
              x.row.id === id
                ? ' (' + t('this_conversation') + ')'
                : x.row.source === 'history'
                  ? ' · ' + t('phone_history')
                  : x.row.status !== 'active'
                    ? ' · ' + t('closed')
                    : '',
            ),
            x.orders.length
              ? h(
                  'ul',
                  { class: 'orders' },
                  x.orders.map(function (o) {
                    // its status by name (§15.7; the words are orders-words.ts's)
                    return h(
                      'li',
                      { 'data-order': o.id, 'data-status': o.status },
                      t('order_line', { id: ids.format(o.id), total: money(o.total) }) + ' · ' + inbox().when(o.created_at) + ' · ',
                      h('span', { class: 'badge status s' + o.status }, t('ost_' + o.status)),
                    );
                  }),
                )
              : null,
          );
        }),
        any ? null : h('li', { class: 'muted' }, t('no_orders_placed')),
      );
    })
    .catch(function () {
      /* the panel stays empty; the thread is what matters */
    });
});

// ---- saved replies on "/" ------------------------------------------------------------------------
const offer: { items: Reply[]; active: number; timer?: ReturnType<typeof setTimeout>; asked: string | null } = {
  items: [],
  active: 0,
  asked: null,
};
const box = $<HTMLTextAreaElement>('reply-text');
function closeOffer() {
  offer.items = [];
  $('replies').hidden = true;
  $('replies').replaceChildren();
  box.removeAttribute('aria-activedescendant');
}
function slashWord(): string | null {
  const m = /^\/([a-z0-9_-]{0,32})$/.exec(box.value);
  return m ? m[1] : null;
}
box.addEventListener('input', function () {
  const word = slashWord();
  clearTimeout(offer.timer);
  if (word === null) return closeOffer();
  offer.timer = setTimeout(function () {
    const query: QueryParams = { page_size: '8', orderBy: 'shortcut' };
    if (word) query.q = word;
    offer.asked = word;
    api<Reply[]>('/ai/replies', query).then(function (list) {
      if (offer.asked !== word || slashWord() !== word) return;
      renderOffer(list, word);
    }, closeOffer);
  }, 120);
});
function renderOffer(list: Reply[], word: string): void {
  offer.items = list;
  offer.active = 0;
  const ul = $('replies');
  ul.hidden = false;
  if (!list.length)
    return void fill(ul, h('li', { class: 'muted', role: 'option', 'aria-disabled': 'true' }, t('no_replies', { q: '/' + word })));
  fill(
    ul,
    list.map(function (r, i) {
      return h(
        'li',
        { role: 'option', id: 'reply-option-' + r.id, 'data-index': i, 'aria-selected': String(i === 0) },
        h('strong', { dir: 'ltr' }, '/' + r.shortcut),
        ' ',
        h('span', { dir: 'auto' }, r.content.length > 80 ? r.content.slice(0, 79) + '…' : r.content),
      );
    }),
  );
  box.setAttribute('aria-activedescendant', 'reply-option-' + list[0].id);
}
function choose(i: number): void {
  const r = offer.items[i];
  if (!r) return;
  box.value = r.content;
  closeOffer();
  box.focus();
}
function move(step: number): void {
  if (!offer.items.length) return;
  offer.active = (offer.active + step + offer.items.length) % offer.items.length;
  $('replies')
    .querySelectorAll('[role="option"]')
    .forEach(function (li, i) {
      li.setAttribute('aria-selected', String(i === offer.active));
    });
  box.setAttribute('aria-activedescendant', 'reply-option-' + offer.items[offer.active].id);
}
box.addEventListener('keydown', function (e) {
  if ($('replies').hidden) return;
  if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
    e.preventDefault();
    move(e.key === 'ArrowDown' ? 1 : -1);
  } else if ((e.key === 'Enter' || e.key === 'Tab') && offer.items.length) {
    e.preventDefault();
    choose(offer.active);
  } else if (e.key === 'Escape') closeOffer();
});
$('replies').addEventListener('mousedown', function (e) {
  const li = (e.target as Element).closest('[data-index]');
  if (!li) return;
  e.preventDefault();
  choose(Number(li.getAttribute('data-index')));
});

// ---- a saved reply made from the box (§10.6: POST /ai/replies, level 0) ----------------------------
/** Only an administrator may make saved replies (the API's rule): nobody else is offered it. */
function renderSaveReply(): void {
  const auth = session();
  $('save-reply').hidden = !(auth && auth.token && auth.level === 0);
}
function closeSave(): void {
  $('reply-save').hidden = true;
  $('reply-save-error').textContent = '';
}
$('save-reply').addEventListener('click', function () {
  $('reply-error').textContent = '';
  if (!box.value.trim()) {
    $('reply-error').textContent = t('write_first');
    return void box.focus();
  }
  $('reply-save').hidden = false;
  $('reply-save-error').textContent = '';
  $('reply-shortcut').focus();
});
$('reply-save-cancel').addEventListener('click', closeSave);
function saveReply(): void {
  const shortcut = $<HTMLInputElement>('reply-shortcut').value.trim().toLowerCase();
  const content = box.value.trim();
  if (!/^[a-z0-9_-]{1,32}$/.test(shortcut)) {
    $('reply-save-error').textContent = t('shortcut_rule');
    return void $('reply-shortcut').focus();
  }
  const yes = $<HTMLButtonElement>('reply-save-yes');
  yes.disabled = true;
  void api<Reply>('/ai/replies', null, { body: { shortcut: shortcut, content: content } })
    .then(
      function (r) {
        closeSave();
        $<HTMLInputElement>('reply-shortcut').value = '';
        $('reply-hint').textContent = t('reply_saved', { shortcut: '/' + r.shortcut });
      },
      function (err: ApiError & { result?: unknown }) {
        // a shortcut is unique in the project (400 naming it)
        const taken = err.code === 'ERROR_VALIDATION' && /shortcut/.test(JSON.stringify(err.result || err.message || ''));
        $('reply-save-error').textContent = taken ? t('shortcut_taken') : t('not_saved', { reason: err.message });
      },
    )
    .then(function () {
      yes.disabled = false;
    });
}
$('reply-save-yes').addEventListener('click', saveReply);
$('reply-shortcut').addEventListener('keydown', function (e) {
  // Enter saves the reply; it never sends the box to the customer
  if (e.key === 'Enter') {
    e.preventDefault();
    saveReply();
  } else if (e.key === 'Escape') closeSave();
});

function begin(): void {
  renderSaveReply();
  if (session()) void loadOperators();
}
document.addEventListener('console:signed-in', begin);
document.addEventListener('console:signed-out', function () {
  operators = [];
  og.names = new Map();
  closeOffer();
  closeSave();
  renderSaveReply();
});
begin();
