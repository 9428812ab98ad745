/* OrderGraph console: the inbox (CONTRACT §10.4, §10.5). A queue by last activity with the caller's unread
 * counts, the last message's first words, the contact's and the agent's names, tabs Mine / Unassigned / All,
 * search (q), more pages on scroll; a thread with delivery ticks, take over / hand back, a draft per
 * conversation, the window's time left kept live, the agent's approved templates once the window is closed,
 * no reply box for closed conversations; new messages announced in the title and as notifications.
 * Runs while console.ts has a session (`console:signed-in` … `console:signed-out`). */
import type { Agent, Envelope, Message, Result } from './api-types.js';
import { api, base, headers, newKey, og, session, showError, type ApiError, type Auth, type QueryParams } from './console.js';
import * as dom from './dom.js';
import { $, fill, h } from './dom.js';
import { lang, n, plural, t } from './i18n.js';
import {
  agentOff,
  authorLabel,
  contactNode,
  contactOf,
  firstWords,
  previewOf,
  sideOf,
  tick,
  when,
  windowOpen,
  windowWords,
  type Conv,
  type LastMessage,
} from './conversation-view.js';
import * as view from './message-view.js';
import { forgetTemplates, loadTemplates, resetTemplates } from './templates.js';

/** A value of an event or a payload the inbox reads loosely (each field checked where it is used). */
type Loose = Record<string, any>;
/** An event of the stream (§9.4): its id, type, time and record. */
interface StreamEvent {
  id: number;
  type: string;
  created_at: string;
  data: Loose;
}
/** The signed-in session (the inbox runs only while there is one). */
function auth(): Auth {
  const a = session();
  if (!a) throw new Error('not signed in');
  return a;
}

const PAGE = 30;
/**
 * The fields the queue reads (`params`). §12.1's `contact_name` is shown when present: add it here when
 * the API has it (`params` refuses unknown fields).
 */
const LIST_FIELDS = [
  'id',
  'agent_id',
  'business_id',
  'status',
  'status_reason',
  'contact',
  'contact_name',
  'contact_user_id',
  'contact_username',
  'source',
  'window_expires_at',
  'handler',
  'assignee_id',
  'created_at',
  'last_message_at',
  'unread_count',
  'last_message.id',
  'last_message.role',
  'last_message.content',
  'last_message.created_at',
  'last_message.edited_at',
  'last_message.revoked_at',
  'agent.name',
  'agent.enabled',
  'agent.provider',
].join(',');
const EVENT_TYPES = [
  'conversation.created',
  'conversation.closed',
  'conversation.handoff',
  'message.created',
  'message.status',
  'message.updated', // a file stored or failed (§12.3): its placeholder becomes the picture
  // §15.7: carts and orders, for orders.ts (passed on as `console:event`)
  'cart.updated',
  'order.created',
  'order.status',
  'order.updated',
  // an agent disabled by Meta (offboarded, §13.5): its conversations say so at once
  'agent.updated',
];
const RANK: Record<string, number> = { pending: 1, accepted: 2, sent: 3, delivered: 4, read: 5, failed: 5 };
const REPLY_ERRORS: Record<string, string> = {
  ERROR_WHATSAPP_WINDOW_CLOSED: 'err_window',
  ERROR_AI_CONVERSATION_CLOSED: 'err_closed',
  ERROR_AI_CONVERSATION_HANDED_OFF: 'err_handed_off',
  ERROR_AI_CONVERSATION_NOT_FOUND: 'err_not_found',
};
const DRAFTS = 'ordergraph-console:drafts';
const WINDOW_MS = 24 * 3600 * 1000;
const baseTitle = document.title;

interface State {
  events: EventSource | null;
  poll: ReturnType<typeof setInterval> | null;
  clock: ReturnType<typeof setInterval> | null;
  reopen: ReturnType<typeof setTimeout> | null;
  searchTimer?: ReturnType<typeof setTimeout>;
  observer: IntersectionObserver | null;
  lastEventId: string | null;
  tab: string | null;
  q: string;
  conversations: Map<number, Conv>;
  page: number;
  total: number | null;
  loading: boolean;
  generation: number;
  selected: number | null;
  /** Whether the operator chose the open conversation (only then is it marked seen). */
  opened?: boolean;
  threadReady?: boolean;
  threadPage: number;
  askingLocation?: boolean;
  messages: Map<number, Message>;
  /** Blob URLs of the open conversation's files, by path and hash (revoked when another is opened). */
  media: Map<string, Promise<string>>;
  /** The safe filename each of those answers gave, by blob URL. */
  mediaNames: Map<string, string | null>;
  counted: Set<number>;
  /** The open conversation's `conversation.handoff` events, by id (the thread's "who took it" lines). */
  handoffs: Map<number, StreamEvent>;
  handoffRead: AbortController | null;
}
let state = freshState();
function freshState(): State {
  return {
    events: null,
    poll: null,
    clock: null,
    reopen: null,
    observer: null,
    lastEventId: null,
    tab: 'all',
    q: '',
    conversations: new Map(),
    page: 0,
    total: null,
    loading: false,
    generation: 0,
    selected: null,
    threadPage: 1,
    messages: new Map(),
    media: new Map(),
    mediaNames: new Map(),
    counted: new Set(),
    handoffs: new Map(),
    handoffRead: null,
  };
}

/** A user by name (GET /ai/operators, read by counter.ts into `og.names`), else by number. */
function who(id: number): string {
  if (id === auth().userId) return t('you');
  const name = og.names && og.names.get(id);
  return name || t('user_n', { id: n(id) });
}

// ---- the queue -------------------------------------------------------------------------
function tabWhere(): Loose {
  // a search also finds closed conversations; the tabs are the live queue
  if (state.tab === 'mine') return { status: 'active', assignee_id: 'me' };
  if (state.tab === 'unassigned') return { status: 'active', handler: 'human', assignee_id: null };
  // the phone's imported history (§13.3) apart from the live conversations; a search finds both
  if (state.tab === 'history') return { source: 'history' };
  return state.q ? { source: ['live', 'history'] } : { status: 'active' };
}
function inTab(c: Conv): boolean {
  if (state.q) return false; // a search is a snapshot: new conversations arrive in the tabs
  if (c.status !== 'active' || state.tab === 'history') return false;
  if (state.tab === 'mine') return c.assignee_id != null && c.assignee_id === auth().userId;
  if (state.tab === 'unassigned') return c.handler === 'human' && c.assignee_id == null;
  return true;
}
function sorted(): Conv[] {
  return Array.from(state.conversations.values()).sort(function (a, b) {
    const d = Date.parse(b.last_message_at || b.created_at) - Date.parse(a.last_message_at || a.created_at);
    return d || b.id - a.id;
  });
}
/** From the first page again (a tab, a search, a reset of the stream). */
function reload(): Promise<void> {
  state.generation++;
  state.conversations = new Map();
  state.page = 0;
  state.total = null;
  state.loading = false;
  renderList();
  return loadMore();
}
/** The queue's request for page `page` of the tab (and the search) shown. */
function listQuery(page: number): QueryParams {
  const query: QueryParams = {
    params: LIST_FIELDS,
    where: JSON.stringify(tabWhere()),
    orderBy: '-last_message_at,-id',
    page: String(page),
    page_size: String(PAGE),
  };
  if (state.q) query.q = state.q;
  return query;
}
/** The next page of the queue; never a silent cut: the list says how many there are and loads the rest on scroll. */
function loadMore(): Promise<void> {
  if (state.loading || (state.total !== null && state.page * PAGE >= state.total)) return Promise.resolve();
  state.loading = true;
  renderList();
  const generation = state.generation;
  const query = listQuery(state.page + 1);
  return api<Envelope<'AiConversations'>>('/ai/conversations', query, null, true)
    .then(function (body) {
      if (generation !== state.generation) return;
      state.page++;
      state.total = body.pagination.total;
      (body.result as Conv[]).forEach(function (c) {
        if (!state.conversations.has(c.id)) state.conversations.set(c.id, c);
      });
      state.loading = false;
      renderList();
      if (!state.selected) {
        const first = sorted()[0];
        if (first) select(first.id);
      }
    })
    .catch(function (err) {
      state.loading = false;
      renderList();
      showError(err);
    });
}
/** The first page read again and merged into what is shown (the pages loaded and the selection kept). */
function catchUp(): Promise<void> {
  const generation = state.generation;
  const query = listQuery(1);
  return api<Envelope<'AiConversations'>>('/ai/conversations', query, null, true).then(function (body) {
    if (generation !== state.generation) return;
    state.total = body.pagination.total;
    (body.result as Conv[]).forEach(function (c) {
      const known = state.conversations.get(c.id);
      if (known) Object.assign(known, c);
      else state.conversations.set(c.id, c);
    });
    renderList();
  }, showError);
}
/** One conversation read again (a new one, or one of a later page that just got a message). */
function fetchConversation(id: number): Promise<Conv> {
  return api<Conv>('/ai/conversations/' + id, { params: LIST_FIELDS });
}

function renderList(): void {
  const list = sorted();
  const items = list.map(function (c) {
    const preview = previewOf(c.last_message);
    return h(
      'li',
      null,
      h(
        'button',
        {
          type: 'button',
          'data-id': c.id,
          'aria-current': String(c.id === state.selected),
          class: (c.unread_count || 0) > 0 ? 'unread' : null,
        },
        h('span', { class: 'line' }, contactNode(c, 'who'), h('span', { class: 'when' }, when(c.last_message_at || c.created_at))),
        h('span', { class: 'preview', dir: 'auto' }, preview),
        h(
          'span',
          { class: 'line meta' },
          h(
            'span',
            null,
            c.handler === 'human' ? h('span', { class: 'badge human' }, t('person')) : h('span', { class: 'badge' }, t('ai')),
            ' ',
            c.agent ? h('bdi', { class: 'agent', dir: 'auto' }, c.agent.name) : null,
            agentOff(c) ? h('span', { class: 'badge off' }, t('agent_disabled')) : null,
            c.source === 'history'
              ? h('span', { class: 'badge history' }, t('phone_history'))
              : c.status !== 'active'
                ? h('span', { class: 'badge' }, t('closed'))
                : null,
            c.changed ? h('span', { class: 'badge changed' }, t(c.changed)) : null,
          ),
          c.unread_count !== null && c.unread_count > 0
            ? h('span', { class: 'count', 'aria-label': plural('unread', c.unread_count) }, n(c.unread_count))
            : null,
        ),
      ),
    );
  });
  const done = state.total !== null && state.page * PAGE >= state.total;
  const footer = h(
    'li',
    { class: 'more', id: 'more' },
    state.loading
      ? t('loading')
      : state.total === 0 && !list.length
        ? state.q
          ? t('no_matches', { q: state.q })
          : t('no_conversations')
        : done
          ? plural('all_shown', Math.max(list.length, state.total || 0))
          : [
              h('span', null, t('shown_of', { shown: n(list.length), total: n(state.total || 0) }) + ' '),
              h('button', { type: 'button', id: 'load-more' }, t('load_more')),
            ],
  );
  fill($('conversations'), items, footer);
  if (state.observer) {
    state.observer.disconnect();
    if (!done && !state.loading) state.observer.observe(footer);
  }
  announce();
}
$('conversations').addEventListener('click', function (e) {
  if ((e.target as Element).closest('#load-more')) return void loadMore();
  const b = (e.target as Element).closest('button[data-id]');
  if (b) select(Number(b.getAttribute('data-id')), true);
});

// ---- tabs and search -------------------------------------------------------------------
$('tabs').addEventListener('click', function (e) {
  const b = (e.target as Element).closest('[role="tab"]');
  if (!b) return;
  state.tab = b.getAttribute('data-tab');
  document.querySelectorAll('#tabs [role="tab"]').forEach(function (x) {
    x.setAttribute('aria-selected', String(x === b));
  });
  void reload();
});
$<HTMLInputElement>('search').addEventListener('input', function () {
  clearTimeout(state.searchTimer);
  state.searchTimer = setTimeout(function () {
    const q = $<HTMLInputElement>('search').value.trim().slice(0, 100);
    if (q === state.q) return;
    state.q = q;
    void reload();
  }, 300);
});

// ---- the thread --------------------------------------------------------------------------
/**
 * Drafts are the operator's (CONTRACT §11, fourth review): kept under the project and the signed-in user (or a
 * digest of the key), so the next person signing in in the same browser sees none of them.
 */
function draftsKey(): string | null {
  const a = session();
  if (!a) return null;
  const by = a.userId ? 'user:' + a.userId : 'key:' + digest(a.key || '');
  return DRAFTS + ':' + a.project + ':' + by;
}
/** A short non-secret digest (FNV-1a) naming a key without writing it into a storage key. */
function digest(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16);
}
function drafts(): Record<string, string> {
  const key = draftsKey();
  if (!key) return {};
  try {
    return JSON.parse(sessionStorage.getItem(key) || '{}') as Record<string, string>;
  } catch {
    return {};
  }
}
function saveDrafts(all: Record<string, string>): void {
  const key = draftsKey();
  if (key) sessionStorage.setItem(key, JSON.stringify(all));
}
/** The reply box's text belongs to its conversation: kept when another is opened, given back when it is reopened. */
function keepDraft(): void {
  if (!state.selected) return;
  const all = drafts();
  const text = $<HTMLTextAreaElement>('reply-text').value;
  if (text) all[state.selected] = text;
  else delete all[state.selected];
  saveDrafts(all);
}
/** Opens a conversation; `opened` when the operator chose it (only then is it marked seen: the first one opens by itself). */
function select(id: number, opened?: boolean): void {
  state.opened = !!opened;
  if (state.selected !== id) {
    keepDraft();
    $<HTMLTextAreaElement>('reply-text').value = drafts()[id] || '';
    replyKey = null;
  }
  state.selected = id;
  const chosen = state.conversations.get(id);
  if (chosen) chosen.changed = null;
  resetTemplates();
  state.messages = new Map();
  state.handoffs = new Map();
  dropMedia();
  $('messages').replaceChildren();
  $('reply-error').textContent = '';
  $('thread-error').textContent = '';
  $('template-hint').textContent = '';
  $('template-error').textContent = '';
  cancelFile();
  askLocation(false);
  $('new-below').hidden = true;
  renderList();
  renderThreadHead();
  loadMessages(id);
  loadHandoffs(id);
  void checkAgent(state.conversations.get(id));
  document.dispatchEvent(new CustomEvent('console:thread', { detail: { id: id } }));
}
function renderThreadHead(): void {
  const c = state.selected && state.conversations.get(state.selected);
  if (!c) return;
  fill($('messages-title'), contactNode(c), c.agent ? [' · ', h('bdi', { dir: 'auto' }, c.agent.name)] : null);
  const win = $('window');
  win.hidden = !c.contact || c.status !== 'active';
  win.textContent = windowWords(c);
  win.className = 'pill' + (windowOpen(c) ? '' : ' closed');
  $('agent-off').hidden = !agentOff(c);
  $('agent-off').textContent = agentOff(c) ? t('agent_disabled_long', { name: c.agent ? c.agent.name : '' }) : '';
  $('handler').textContent =
    c.status !== 'active'
      ? t('conversation_closed')
      : c.handler !== 'human'
        ? t('handled_ai')
        : c.assignee_id == null
          ? t('handled_person')
          : c.assignee_id === auth().userId
            ? t('handled_by_you')
            : t('handled_by', { who: who(c.assignee_id) });
  const b = $<HTMLButtonElement>('handoff');
  b.hidden = c.status !== 'active';
  b.textContent = c.handler === 'human' ? t('hand_back') : t('take_over');
  b.setAttribute('data-handler', c.handler === 'human' ? 'ai' : 'human');
  renderComposer(c);
  document.dispatchEvent(new CustomEvent('console:thread-head', { detail: c }));
}
/**
 * What the operator can send: nothing to a closed conversation; an approved template once a WhatsApp window
 * is closed; else the reply box (to a user signed in with a password: a server key's reply is the runtime's).
 */
function renderComposer(c: Conv): void {
  const closed = c.status !== 'active';
  const needsTemplate = !closed && !!c.contact && !windowOpen(c);
  // a disabled agent sends nothing: a reply would be accepted, then fail (§10.1)
  const agentDown = !closed && agentOff(c);
  const canReply = !closed && !agentDown && !needsTemplate && !!auth().token;
  $('reply').hidden = !canReply;
  $('templates').hidden = !needsTemplate || agentDown;
  const off = $('reply-off');
  off.hidden = canReply || (needsTemplate && !agentDown);
  off.textContent =
    c.source === 'history'
      ? t('history_read_only')
      : closed
        ? t('is_closed', { reason: t('reason_' + (c.status_reason || 'none')) })
        : agentDown
          ? t('agent_off_no_reply', { name: c.agent ? c.agent.name : '' })
          : t('reply_off');
  if (needsTemplate) loadTemplates(c);
}
$<HTMLButtonElement>('handoff').addEventListener('click', function () {
  const id = state.selected;
  const b = $<HTMLButtonElement>('handoff');
  b.disabled = true;
  $('thread-error').textContent = '';
  void api<Conv>('/ai/conversations/' + id + '/handoff', null, { body: { handler: b.getAttribute('data-handler') } })
    .then(putConversation, function (err: ApiError) {
      $('thread-error').textContent =
        err.code && REPLY_ERRORS[err.code] ? t(REPLY_ERRORS[err.code]).replace(/^[^:]*:\s*/, '') : err.message;
    })
    .then(function () {
      b.disabled = false;
    });
});
const THREAD_PAGE = 100;
function loadMessages(id: number): void {
  state.threadReady = false;
  state.threadPage = 1;
  api<Envelope<'AiConversationMessages'>>(
    '/ai/conversations/' + id + '/messages',
    { page_size: String(THREAD_PAGE), orderBy: '-id' },
    null,
    true,
  )
    .then(function (body) {
      if (id !== state.selected) return;
      const rows = body.result as Message[];
      rows.forEach(function (m) {
        state.counted.add(m.id);
      });
      rows.reverse().forEach(upsertMessage);
      // a handoff read before its messages says whose it was now (the phone's, §13.1)
      if (state.handoffs.size) renderHandoffs();
      earlierButton(moreBefore(body));
      state.threadReady = true;
      if (state.opened) markSeen(id);
    })
    .catch(showError);
}
function moreBefore(body: Envelope<'AiConversationMessages'>): boolean {
  const total = body.pagination ? body.pagination.total : null;
  return total == null ? body.result.length === THREAD_PAGE : state.threadPage * THREAD_PAGE < total;
}
/** A thread longer than a page (300 messages of the phone's history) is read on, page by page: never a silent cut. */
function earlierButton(more: boolean): void {
  const list = $('messages');
  const known = list.querySelector('li.earlier');
  if (known) known.remove();
  if (more)
    list.insertBefore(
      h('li', { class: 'earlier' }, h('button', { type: 'button', class: 'secondary' }, t('earlier_messages'))),
      list.firstChild,
    );
}
$('messages').addEventListener('click', function (e) {
  const b = (e.target as Element).closest<HTMLButtonElement>('li.earlier button');
  if (!b) return;
  const id = state.selected;
  const list = $('messages');
  const height = list.scrollHeight;
  b.disabled = true;
  const query = { page_size: String(THREAD_PAGE), orderBy: '-id', page: String(state.threadPage + 1) };
  api<Envelope<'AiConversationMessages'>>('/ai/conversations/' + id + '/messages', query, null, true)
    .then(function (body) {
      if (id !== state.selected) return;
      const rows = body.result as Message[];
      state.threadPage++;
      rows.forEach(function (m) {
        state.counted.add(m.id);
        upsertMessage(m);
      });
      earlierButton(moreBefore(body));
      // the messages being read stay where they were
      list.scrollTop += list.scrollHeight - height;
    })
    .catch(function (err) {
      b.disabled = false;
      showError(err);
    });
});
/** The caller's seen mark: the conversation's newest message (the server keeps it per user or key). */
function markSeen(id: number): void {
  const c = state.conversations.get(id);
  if (!c || !c.unread_count) return;
  c.unread_count = 0;
  renderList();
  api<Result<'MarkAiConversationSeen'>>('/ai/conversations/' + id + '/seen', null, { body: {} }).then(function (r) {
    const known = state.conversations.get(id);
    if (known) known.unread_count = r.unread_count;
    renderList();
  }, showError);
}
function upsertMessage(m: Message): void {
  const known = state.messages.get(m.id);
  if (known && (RANK[known.delivery_status || ''] || 0) > (RANK[m.delivery_status || ''] || 0)) return;
  state.messages.set(m.id, m);
  const target = reactedTo(m);
  if (target) {
    // a reaction is shown on the message it reacts to, not as a message of its own
    const own = $('messages').querySelector('li[data-id="' + m.id + '"]');
    if (own) own.remove();
    return void renderMessage(target, true);
  }
  renderMessage(m, !!known);
  if (!known && m.source === 'business_app' && state.handoffs.size) renderHandoffs();
  // the question a tapped button answers shows which one was tapped
  const question = m.reply_to_id != null && state.messages.get(m.reply_to_id);
  if (question) renderMessage(question, true);
}
function reactedTo(m: Message): Message | null | undefined {
  const p = m.type === 'reaction' ? (m.payload as Loose | null) : null;
  return p && p.message_id != null ? state.messages.get(p.message_id as number) : null;
}
const sizes = new Map<string, Promise<number | null>>();
/** The menu's names by business and retailer id (null while asked, or when the menu has no such dish). */
const productNames = new Map<string, string | null>();
let namesAsked: { business: number | null; ids: string[] } | null = null;
function productName(retailerId: string): string | null | undefined {
  const c = state.selected && state.conversations.get(state.selected);
  if (!c || !retailerId) return null;
  const key = (c.business_id == null ? '' : c.business_id) + ':' + retailerId;
  if (productNames.has(key)) return productNames.get(key);
  productNames.set(key, null);
  // the lines of every cart drawn now, asked in one read
  if (!namesAsked) {
    namesAsked = { business: c.business_id, ids: [] };
    setTimeout(askNames, 0);
  }
  if (namesAsked.business === c.business_id) namesAsked.ids.push(retailerId);
  return null;
}
function askNames(): void {
  const asked = namesAsked;
  namesAsked = null;
  if (!asked) return;
  const where: Loose = { retailer_id: asked.ids };
  if (asked.business != null) where.business_id = asked.business;
  api<Result<'AiProducts'>>('/ai/products', { where: JSON.stringify(where), page_size: '100' }).then(
    function (rows) {
      rows.forEach(function (p) {
        productNames.set((asked.business == null ? '' : asked.business) + ':' + p.retailer_id, p.name);
      });
      state.messages.forEach(function (m) {
        if (m.type === 'order') renderMessage(m, true);
      });
    },
    function () {
      /* the codes stay */
    },
  );
}
const viewContext: view.ViewContext = {
  productName: productName,
  load: loadMedia,
  /** The filename the answer of a file loaded as `url` gave (Content-Disposition's safe form), or null. */
  fileName: function (url) {
    return state.mediaNames.get(url) || null;
  },
  /** A stored file's size without reading it: one byte asked for, the total read from Content-Range. */
  size: function (path) {
    const known = sizes.get(path);
    if (known) return known;
    if (!sizes.has(path))
      sizes.set(
        path,
        fetch(base() + path, { headers: Object.assign({ Range: 'bytes=0-0' }, headers()) }).then(function (res) {
          const total = /\/(\d+)$/.exec(res.headers.get('content-range') || '');
          return total ? Number(total[1]) : null;
        }),
      );
    return sizes.get(path) as Promise<number | null>;
  },
  get: function (id) {
    return state.messages.get(id);
  },
  answers: function (id) {
    return Array.from(state.messages.values()).filter(function (a) {
      return a.reply_to_id === id && (a.type === 'interactive' || a.type === 'button');
    });
  },
  /** The reaction each side has on message `id` now (the newest one; an empty emoji removed it). */
  reactions: function (id) {
    const last: Record<string, Message> = {};
    state.messages.forEach(function (r) {
      if (r.type === 'reaction' && r.payload && (r.payload as Loose).message_id === id && (!last[r.role] || last[r.role].id < r.id))
        last[r.role] = r;
    });
    return Object.keys(last)
      .map(function (role) {
        return { role: role, emoji: (last[role].payload as Loose).emoji as string };
      })
      .filter(function (x) {
        return !!x.emoji;
      });
  },
};
function renderMessage(m: Message, known: boolean): void {
  const list = $('messages');
  const atEnd = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
  let li = list.querySelector('li[data-id="' + m.id + '"]');
  if (!li) {
    li = document.createElement('li');
    li.setAttribute('data-id', String(m.id));
    const after = Array.prototype.filter.call(list.children, function (x) {
      return Number(x.getAttribute('data-id')) > m.id;
    })[0];
    list.insertBefore(li, after || null);
  }
  // a note (§10.6): a non-public system message by a user, for colleagues only
  const note = m.role === 'system' && !m.public && m.author_id != null;
  li.className = m.role + (note ? ' note' : '') + ' by-' + sideOf(m);
  li.setAttribute('data-type', m.type || 'text');
  const meta = [note ? t('note') : authorLabel(m)];
  if (!m.public && !note) meta.push(t('internal'));
  if (m.author_id != null) meta.push(m.author_id === auth().userId ? t('by_you') : t('by', { who: who(m.author_id) }));
  meta.push(when(m.created_at));
  li.setAttribute('data-at', m.created_at);
  fill(li, h('span', { class: 'role' }, h('time', { datetime: m.created_at }, meta.join(' · '))), view.render(m, viewContext), tick(m));
  if (known) return;
  placeHandoffs();
  // the operator reading older messages is not pulled down: a mark says new ones are below
  if (atEnd || !state.threadReady) list.scrollTop = list.scrollHeight;
  else $('new-below').hidden = false;
}
$('new-below').addEventListener('click', function () {
  const list = $('messages');
  list.scrollTop = list.scrollHeight;
  $('new-below').hidden = true;
});
$('messages').addEventListener('scroll', function () {
  const list = $('messages');
  if (list.scrollHeight - list.scrollTop - list.clientHeight < 40) $('new-below').hidden = true;
});
/** A file of the open conversation: fetched once with the console's credential (a header), shown from a blob URL. */
function loadMedia(key: string, path: string): Promise<string> {
  const known = state.media.get(key);
  if (known) return known;
  const got = fetch(base() + path, { headers: headers() }).then(function (res) {
    if (!res.ok) throw new Error(String(res.status));
    return res.blob().then(function (b) {
      const url = URL.createObjectURL(b);
      state.mediaNames.set(url, dom.dispositionName(res.headers.get('content-disposition')));
      return url;
    });
  });
  state.media.set(key, got);
  got.catch(function () {
    if (state.media.get(key) === got) state.media.delete(key);
  });
  return got;
}
function dropMedia(): void {
  state.media.forEach(function (p) {
    p.then(
      (url) => URL.revokeObjectURL(url),
      function () {},
    );
  });
  state.media = new Map();
  state.mediaNames = new Map();
}

// ---- the agent as it is now (issue 68) ------------------------------------------------------
/** Reads conversation `c`'s agent and passes a change on as `console:agent-updated`; null when it cannot be read. */
function checkAgent(c: Conv | null | undefined): Promise<Agent | null> {
  if (!c || c.agent_id == null) return Promise.resolve(null);
  return api<Agent>('/ai/agents/' + c.agent_id).then(
    function (a) {
      if (!c.agent || c.agent.enabled !== a.enabled || c.agent.name !== a.name)
        document.dispatchEvent(new CustomEvent('console:agent-updated', { detail: a }));
      return a;
    },
    function () {
      return null;
    },
  );
}

// ---- who took the conversation, and when (issue 68) ----------------------------------------
/**
 * The conversation's handoffs as lines of the thread: read again when it is opened (its kept `conversation.handoff`
 * events, §9.4, replayed from the start on a stream of that conversation alone and read for a moment), then live.
 */
const HANDOFF_LOOKBACK = 20000;
function loadHandoffs(id: number): void {
  if (state.handoffRead) state.handoffRead.abort();
  const ctl = new AbortController();
  state.handoffRead = ctl;
  const stop = setTimeout(function () {
    ctl.abort();
  }, 3000);
  // a bounded read of the log: the last HANDOFF_LOOKBACK events of the project before the newest this page saw (a
  // busy project's stream always has one), else the whole kept log (a quiet project's is small)
  const from = state.lastEventId ? Math.max(0, Number(state.lastEventId) - HANDOFF_LOOKBACK) : 0;
  const url = base() + '/ai/events?types=conversation.handoff&conversation_id=' + id + '&last_event_id=' + from;
  void fetch(url, { signal: ctl.signal, headers: Object.assign({ Accept: 'text/event-stream' }, headers()) })
    .then(function (res) {
      if (!res.ok || !res.body) return;
      const reader = res.body.getReader();
      const decoder = new TextDecoder();
      let buffer = '';
      const pump = function (): Promise<void> {
        return reader.read().then(function (r): Promise<void> | undefined {
          if (r.done) return;
          buffer += decoder.decode(r.value, { stream: true });
          const frames = buffer.split('\n\n');
          buffer = frames.pop() || '';
          frames.forEach(function (frame) {
            const data = frame
              .split('\n')
              .filter(function (line) {
                return line.indexOf('data:') === 0;
              })
              .map(function (line) {
                return line.slice(5).trim();
              })
              .join('\n');
            if (!data) return;
            const ev = JSON.parse(data);
            if (ev.type === 'conversation.handoff' && ev.data && ev.data.id === state.selected) addHandoff(ev);
          });
          return pump();
        });
      };
      return pump();
    })
    .catch(function () {
      /* aborted, or no stream: the head still says who handles it */
    })
    .then(function () {
      clearTimeout(stop);
    });
}
function addHandoff(ev: StreamEvent): void {
  if (state.handoffs.has(ev.id)) return;
  state.handoffs.set(ev.id, ev);
  renderHandoffs();
}
/** One line per handoff, in the order they happened: who took it from the AI, who it went to, back to the AI. */
function renderHandoffs(): void {
  const list = $('messages');
  list.querySelectorAll('li.event').forEach(function (x) {
    x.remove();
  });
  let before: Loose = { handler: 'ai', assignee_id: null };
  Array.from(state.handoffs.values())
    .sort(function (a, b) {
      return a.id - b.id;
    })
    .forEach(function (ev) {
      const c = ev.data;
      const mine = c.assignee_id != null && c.assignee_id === auth().userId;
      const words =
        c.handler !== 'human'
          ? t('back_to_ai')
          : before.handler !== 'human'
            ? c.assignee_id == null
              ? fromPhoneAfter(ev.created_at)
                ? t('took_phone')
                : t('took_person')
              : mine
                ? t('took_by_you')
                : t('took_by', { who: who(c.assignee_id) })
            : c.assignee_id == null
              ? t('unassigned_now')
              : mine
                ? t('assigned_to_you')
                : t('assigned_to', { who: who(c.assignee_id) });
      before = c;
      list.appendChild(
        h(
          'li',
          { class: 'event', 'data-at': ev.created_at, 'data-handler': c.handler, role: 'note' },
          h('span', null, words + ' · ', h('time', { datetime: ev.created_at }, when(ev.created_at))),
        ),
      );
    });
  placeHandoffs();
}
/**
 * Whether the handoff at `at` was the phone's (§13.1: an echo takes the conversation in its own transaction): a
 * message from the business's phone dated within two minutes of it (an echo carries Meta's whole-second timestamp,
 * which may be a little before the handoff's commit), or the first message after it.
 */
function fromPhoneAfter(at: string): boolean {
  const time = Date.parse(at);
  let first: Message | null = null;
  let near = false;
  state.messages.forEach(function (m) {
    const d = Date.parse(m.created_at) - time;
    if (m.source === 'business_app' && Math.abs(d) <= 120000) near = true;
    if (d >= 0 && (!first || m.id < first.id)) first = m;
  });
  const firstAfter = first as Message | null;
  return near || (!!firstAfter && firstAfter.source === 'business_app');
}
/** Each handoff line before the first message written at or after it. */
function placeHandoffs(): void {
  const list = $('messages');
  const lines = list.querySelectorAll('li.event');
  if (!lines.length) return;
  const messages = list.querySelectorAll('li[data-id]');
  lines.forEach(function (line) {
    const at = Date.parse(line.getAttribute('data-at') || '');
    const next = Array.prototype.filter.call(messages, function (m) {
      return Date.parse(m.getAttribute('data-at')) >= at;
    })[0];
    if (next) list.insertBefore(line, next);
    else list.appendChild(line);
  });
}

// ---- live: the stream, else polling -----------------------------------------------------
function credentialQuery(): string {
  const a = auth();
  return a.key ? 'api_key=' + encodeURIComponent(a.key) : 'access_token=' + encodeURIComponent(a.token || '');
}
function streamUrl(): string {
  return base() + '/ai/events?' + credentialQuery() + (state.lastEventId ? '&last_event_id=' + encodeURIComponent(state.lastEventId) : '');
}
function startLive(): void {
  void reload();
  const ctl = new AbortController();
  // EventSource cannot show a status: ask once whether the stream exists, then open it
  fetch(streamUrl(), { signal: ctl.signal, headers: { Accept: 'text/event-stream' } }).then(
    function (res) {
      ctl.abort();
      const type = res.headers.get('content-type') || '';
      if (res.status !== 200 || type.indexOf('text/event-stream') !== 0) return startPolling();
      openStream();
    },
    function () {
      startPolling();
    },
  );
  // the window's time left and "today" move with the clock
  state.clock = setInterval(function () {
    renderThreadHead();
    renderList();
    if (state.selected) void checkAgent(state.conversations.get(state.selected));
  }, 30000);
}
/** A dropped stream is opened again after a second from the last event this page saw (`last_event_id`). */
function openStream(): void {
  if (!session()) return;
  const es = new EventSource(streamUrl());
  state.events = es;
  // a stream opened without a last event starts at its opening: what came since the list was read is read again
  let fresh = !state.lastEventId;
  es.onopen = function () {
    setMode(t('live_events'));
    if (!fresh) return;
    fresh = false;
    void catchUp();
    if (state.selected) loadMessages(state.selected);
  };
  es.onerror = function () {
    if (state.events !== es) return;
    es.close();
    state.events = null;
    setMode(t('reconnecting'));
    state.reopen = setTimeout(openStream, 1000);
  };
  EVENT_TYPES.forEach(function (type) {
    es.addEventListener(type, function (ev) {
      if (ev.lastEventId) state.lastEventId = ev.lastEventId;
      onEvent(JSON.parse(ev.data));
    });
  });
  es.addEventListener('stream.reset', function () {
    void reload();
    if (state.selected) loadMessages(state.selected);
    document.dispatchEvent(new CustomEvent('console:resync'));
  });
}
function reconnect(): void {
  if (state.events) state.events.close();
  state.events = null;
  openStream();
}
function startPolling(): void {
  if (state.poll || !session()) return;
  setMode(t('polling'));
  state.poll = setInterval(function () {
    void reload();
    if (state.selected) loadMessages(state.selected);
    document.dispatchEvent(new CustomEvent('console:resync'));
  }, 10000);
}
function stopLive(): void {
  if (state.events) state.events.close();
  [state.poll, state.clock].forEach(function (x) {
    if (x) clearInterval(x);
  });
  if (state.reopen) clearTimeout(state.reopen);
  if (state.observer) state.observer.disconnect();
  dropMedia();
  state = freshState();
  forgetTemplates();
  og.unread = 0;
  document.title = baseTitle;
}
function setMode(m: string): void {
  $('live-mode').textContent = m;
}

function onEvent(ev: StreamEvent): void {
  // carts and orders are other panels' (orders.ts)
  if (/^(cart|order)\./.test(ev.type)) return void document.dispatchEvent(new CustomEvent('console:event', { detail: ev }));
  if (ev.type === 'agent.updated') return void document.dispatchEvent(new CustomEvent('console:agent-updated', { detail: ev.data }));
  if (ev.type === 'message.created') return onMessage(ev.data as Message);
  if (ev.type === 'message.status' || ev.type === 'message.updated') {
    if (ev.data.conversation_id === state.selected) upsertMessage(ev.data as Message);
    if (ev.type === 'message.updated') messageChanged(ev.data as Message);
    return;
  }
  if (ev.type === 'conversation.handoff' && ev.data.id === state.selected) addHandoff(ev);
  putConversation(ev.data as Conv);
}
/** A conversation record from an event or an answer: merged into the one known (keeping its agent, preview, unread). */
function putConversation(c: Conv): void {
  const known = state.conversations.get(c.id);
  if (known) {
    Object.keys(c).forEach(function (k) {
      if (k !== 'unread_count' || c.unread_count !== undefined) (known as Loose)[k] = (c as Loose)[k];
    });
    if (!inTab(known) && !state.q && known.id !== state.selected) state.conversations.delete(known.id);
  } else if (inTab(c)) {
    // new here: read it with its agent and preview
    fetchConversation(c.id).then(function (full) {
      if (!inTab(full)) return;
      const now = state.conversations.get(full.id);
      state.conversations.set(full.id, now ? Object.assign(full, pick(now)) : full);
      if (state.total !== null) state.total++;
      renderList();
      if (!state.selected) select(full.id);
    }, showError);
    return;
  }
  renderList();
  if (c.id === state.selected) renderThreadHead();
}
/**
 * A message edited or deleted by its writer (§13.2) changes its conversation's row at once: a deleted text (a card
 * number) leaves the preview, an edit (2 → 3 pizzas) shows its new words, and the row is marked until it is opened.
 * A file stored later (also `message.updated`) marks nothing.
 */
function messageChanged(m: Message): void {
  const c = state.conversations.get(m.conversation_id);
  if (!c) return;
  const last = c.last_message && c.last_message.id === m.id;
  const before = last ? c.last_message : null;
  const edited = m.edited_at && (!before || before.edited_at !== m.edited_at) && Date.now() - Date.parse(m.edited_at) < 15 * 60000;
  const deleted = m.revoked_at && (!before || !before.revoked_at);
  if (last) c.last_message = lastOf(m);
  if ((edited || deleted) && m.role === 'user' && c.id !== state.selected) c.changed = deleted ? 'was_deleted' : 'edited';
  renderList();
}
/** A message as the queue's row keeps it (`params=last_message.…`). */
function lastOf(m: Message): LastMessage {
  return { id: m.id, role: m.role, content: m.content, created_at: m.created_at, edited_at: m.edited_at, revoked_at: m.revoked_at };
}
/** What the stream knows better than an earlier read: the newest message, its time, the window. */
function pick(c: Conv): Partial<Conv> {
  const out: Loose = {};
  ['last_message', 'last_message_at', 'window_expires_at', 'unread_count'].forEach(function (k) {
    if ((c as Loose)[k] !== undefined) out[k] = (c as Loose)[k];
  });
  return out;
}
function onMessage(m: Message): void {
  const first = !state.counted.has(m.id);
  state.counted.add(m.id);
  const c = state.conversations.get(m.conversation_id);
  const watching = m.conversation_id === state.selected && state.opened && document.visibilityState === 'visible';
  if (m.conversation_id === state.selected) upsertMessage(m);
  if (!first) return;
  if (m.role === 'user' && !watching) notify(c, m);
  if (!c) {
    // a conversation beyond the pages read (or new): read it, it goes to the top
    return void fetchConversation(m.conversation_id).then(function (full) {
      if (!inTab(full) || state.conversations.has(full.id)) return;
      state.conversations.set(full.id, full);
      renderList();
      if (m.role === 'user' && document.visibilityState !== 'visible') notify(full, m, true);
    }, showError);
  }
  c.last_message = lastOf(m);
  c.last_message_at = m.created_at;
  // an inbound WhatsApp message opens the window again for 24 hours
  if (m.role === 'user' && m.external_id && c.contact) {
    c.window_expires_at = new Date(Date.parse(m.created_at) + WINDOW_MS).toISOString();
  }
  if (m.role === 'user') {
    if (watching) {
      c.unread_count = 1;
      markSeen(c.id);
    } else c.unread_count = (c.unread_count || 0) + 1;
  }
  renderList();
  if (c.id === state.selected) renderThreadHead();
}

// ---- announcing new messages --------------------------------------------------------------
/** The tab's title carries the unread count of the queue. */
function announce(): void {
  let unread = 0;
  state.conversations.forEach(function (c) {
    unread += c.unread_count || 0;
  });
  og.unread = unread;
  // orders.ts composes the title with its new orders; without it, the unread count alone
  if (og.retitle) og.retitle();
  else document.title = unread ? '(' + n(unread) + ') ' + baseTitle : baseTitle;
}
function notify(c: Conv | undefined, m: Message, known?: boolean): void {
  if (!('Notification' in window) || Notification.permission !== 'granted' || (known === undefined && !c)) return;
  try {
    const note = new Notification(t('new_message', { who: c ? contactOf(c) : '' }), {
      body: firstWords(m.content),
      tag: 'conversation-' + m.conversation_id,
      lang: lang,
    });
    note.onclick = function () {
      window.focus();
      if (state.conversations.has(m.conversation_id)) select(m.conversation_id, true);
    };
  } catch {
    /* a browser without page notifications */
  }
}
function renderNotify(): void {
  const b = $<HTMLButtonElement>('notify');
  const supported = 'Notification' in window;
  b.hidden = !supported || Notification.permission === 'denied' || !session();
  b.textContent = supported && Notification.permission === 'granted' ? t('notify_on') : t('notify_allow');
  b.disabled = supported && Notification.permission === 'granted';
}
$<HTMLButtonElement>('notify').addEventListener('click', function () {
  Notification.requestPermission().then(renderNotify, renderNotify);
});

// ---- the reply box ----------------------------------------------------------------------------
// One Idempotency-Key per reply: a retry after a lost answer reuses it; a new key after any answer.
let replyKey: string | null = null;
$('reply').addEventListener('submit', function (e) {
  e.preventDefault();
  const box = $<HTMLTextAreaElement>('reply-text');
  const content = box.value.trim();
  $('reply-error').textContent = '';
  if (!state.selected) return;
  if (!content) {
    $('reply-error').textContent = t('write_first');
    box.focus();
    return;
  }
  if (state.askingLocation) {
    // §12.4 location_request_message: the box's (edited) text is the question
    return void sendReply({
      role: 'assistant',
      type: 'interactive',
      payload: { type: 'location_request_message', body: { text: content }, action: { name: 'send_location' } },
    });
  }
  void sendReply({ role: 'assistant', content: content });
});
/** A note for colleagues (§10.6): a non-public system message, never sent to the customer, never unread. */
$('add-note').addEventListener('click', function () {
  const content = $<HTMLTextAreaElement>('reply-text').value.trim();
  $('reply-error').textContent = '';
  if (!state.selected) return;
  if (!content) {
    $('reply-error').textContent = t('write_first');
    return void $<HTMLTextAreaElement>('reply-text').focus();
  }
  void sendReply({ role: 'system', content: content, public: false });
});
/** The question "ask for location" puts in the box: in the customer's language when the number says it. */
const LOCATION_QUESTION: Record<string, string> = {
  en: 'Could you share your location, please?',
  es: '¿Nos compartes tu ubicación, por favor?',
  fr: 'Pouvez-vous nous partager votre position, s’il vous plaît ?',
  ar: 'هل يمكنك مشاركة موقعك من فضلك؟',
};
/** Calling codes whose customers most likely read one of the console's languages. */
const CALLING_CODES = [
  ['34', 'es'],
  ['52', 'es'],
  ['54', 'es'],
  ['56', 'es'],
  ['57', 'es'],
  ['51', 'es'],
  ['58', 'es'],
  ['593', 'es'],
  ['502', 'es'],
  ['33', 'fr'],
  ['32', 'fr'],
  ['41', 'fr'],
  ['221', 'fr'],
  ['225', 'fr'],
  ['237', 'fr'],
  ['966', 'ar'],
  ['971', 'ar'],
  ['20', 'ar'],
  ['212', 'ar'],
  ['213', 'ar'],
  ['216', 'ar'],
  ['962', 'ar'],
  ['965', 'ar'],
  ['974', 'ar'],
  ['44', 'en'],
  ['1', 'en'],
  ['61', 'en'],
  ['353', 'en'],
];
function customerLanguage(c: Conv | undefined): string {
  const digits = (c && /^[0-9]+$/.test(c.contact || '') ? c.contact : '') || '';
  let best: string[] | null = null;
  CALLING_CODES.forEach(function (x) {
    if (digits.indexOf(x[0]) === 0 && (!best || x[0].length > best[0].length)) best = x;
  });
  const found = best as string[] | null;
  return found ? found[1] : lang;
}
/** "Ask for location" puts an editable question in the box; sending it asks for the location (not at once). */
function askLocation(on: boolean): void {
  state.askingLocation = !!on;
  $('location-hint').hidden = !on;
  if (!on) return;
  const box = $<HTMLTextAreaElement>('reply-text');
  const c = state.selected === null ? undefined : state.conversations.get(state.selected);
  if (!box.value.trim()) box.value = LOCATION_QUESTION[customerLanguage(c)];
  box.focus();
}
$('ask-location').addEventListener('click', function () {
  if (!state.selected) return;
  $('reply-error').textContent = '';
  askLocation(true);
});
$('location-cancel').addEventListener('click', function () {
  askLocation(false);
});
/** The kind a file is sent as (CONTRACT §12.4/§12.5, §10.6: a picture is an image, a sticker only when chosen). */
function kindOf(mime: unknown, sticker: boolean): string {
  const type = String((mime as string | null | undefined) || '').split(';')[0];
  if (type === 'image/webp' && sticker) return 'sticker';
  if (/^(image|video|audio)\//.test(type)) return type.split('/')[0];
  return 'document';
}
/** A file picked: previewed with its kind, size and a caption first; nothing leaves until "Send file". */
let pickedUrl: string | null = null;
$<HTMLInputElement>('reply-file').addEventListener('change', function () {
  const picked = $<HTMLInputElement>('reply-file').files;
  const file = picked && picked[0];
  if (!file || !state.selected) return;
  $('reply-error').textContent = '';
  const kind = kindOf(file.type, false);
  if (pickedUrl) URL.revokeObjectURL(pickedUrl);
  pickedUrl = kind === 'image' ? URL.createObjectURL(file) : null;
  fill($('file-thumb-box'), pickedUrl ? h('img', { id: 'file-thumb', alt: '', src: pickedUrl }) : null);
  $('file-name').textContent = t('file_kind_' + kind) + ' · ' + file.name + ' · ' + view.bytes(file.size);
  $<HTMLInputElement>('file-sticker').checked = false;
  $('file-sticker-label').hidden = file.type !== 'image/webp';
  const caption = $<HTMLInputElement>('file-caption');
  caption.value = $<HTMLTextAreaElement>('reply-text').value.trim();
  caption.disabled = kind === 'audio';
  $('file-preview').hidden = false;
  caption.focus();
});
/**
 * The file as WhatsApp takes it: its image type takes JPEG and PNG only, so a picture in another format (a .webp
 * photo) is redrawn as a JPEG here, unless it is sent as a sticker (WebP is what a sticker is).
 */
function asSent(file: File, sticker: boolean): Promise<File> {
  if (sticker || !/^image\/(webp|gif|bmp)$/.test(file.type) || !window.createImageBitmap) return Promise.resolve(file);
  return window.createImageBitmap(file).then(function (bitmap) {
    const canvas = document.createElement('canvas');
    canvas.width = bitmap.width;
    canvas.height = bitmap.height;
    const g = canvas.getContext('2d') as CanvasRenderingContext2D;
    g.fillStyle = '#fff';
    g.fillRect(0, 0, canvas.width, canvas.height);
    g.drawImage(bitmap, 0, 0);
    return new Promise(function (resolve) {
      canvas.toBlob(
        function (blob) {
          resolve(blob ? new window.File([blob], file.name.replace(/\.[^.]*$/, '') + '.jpg', { type: 'image/jpeg' }) : file);
        },
        'image/jpeg',
        0.9,
      );
    });
  });
}
function cancelFile(): void {
  $<HTMLInputElement>('reply-file').value = '';
  $('file-preview').hidden = true;
  if (pickedUrl) URL.revokeObjectURL(pickedUrl);
  pickedUrl = null;
  $('file-thumb-box').replaceChildren();
}
$('file-cancel').addEventListener('click', cancelFile);
/** Sent: uploaded once (`POST /ai/media`, multipart), then sent by its `media_id` with the caption typed. */
$<HTMLButtonElement>('file-send').addEventListener('click', function () {
  const picked = $<HTMLInputElement>('reply-file').files;
  const file = picked && picked[0];
  const id = state.selected;
  if (!file || !id) return;
  const sticker = $<HTMLInputElement>('file-sticker').checked;
  const caption = $<HTMLInputElement>('file-caption').value.trim();
  $('reply-hint').textContent = t('uploading', { name: file.name });
  $<HTMLButtonElement>('file-send').disabled = true;
  void asSent(file, sticker)
    .then(function (sent) {
      const form = new FormData();
      form.append('file', sent, sent.name);
      return api<Result<'UploadAiMedia'>>('/ai/media', null, { form: form });
    })
    .then(
      function (stored) {
        cancelFile();
        if (state.selected !== id) return;
        const kind = kindOf(stored.mime_type, sticker);
        const payload: Loose = { media_id: stored.id };
        if (caption && kind !== 'audio' && kind !== 'sticker') payload.caption = caption;
        if (kind === 'document') payload.filename = stored.filename || file.name;
        return sendReply({ role: 'assistant', type: kind, payload: payload });
      },
      function (err) {
        $('reply-hint').textContent = '';
        $('reply-error').textContent = t('not_sent', { reason: err.message || t('unreachable') });
        if (err.status === 401) showError(err);
      },
    )
    .then(function () {
      $<HTMLButtonElement>('file-send').disabled = false;
    });
});
/**
 * A reply to the customer from a conversation the AI handles takes it first (as a reply from the phone does, §13.1):
 * the handoff to the caller, then the reply, so the AI's next answer is refused (409) and the customer hears one voice.
 */
function sendReply(body: Loose): Promise<void> {
  const c = state.selected === null ? undefined : state.conversations.get(state.selected);
  if (body.role !== 'assistant' || !c) return postReply(body);
  // the agent as it is now (another operator, or Meta, may have disabled it since the page read it)
  return checkAgent(c).then(function (agent) {
    if (agent && !agent.enabled) {
      $('reply-error').textContent = t('err_agent_off', { name: agent.name });
      return;
    }
    return takeThenPost(c, body);
  });
}
function takeThenPost(c: Conv, body: Loose): Promise<void> {
  if (c.handler === 'human') return postReply(body);
  const id = c.id;
  $('reply-hint').textContent = t('taking_over');
  return api<Conv>('/ai/conversations/' + id + '/handoff', null, { body: { handler: 'human' } }).then(
    function (taken) {
      putConversation(taken);
      return postReply(body, id);
    },
    function (err) {
      $('reply-hint').textContent = '';
      $('reply-error').textContent = REPLY_ERRORS[err.code] ? t(REPLY_ERRORS[err.code]) : t('not_sent', { reason: err.message });
      if (err.status === 401) showError(err);
    },
  );
}
/** Sends a reply of any type, with one Idempotency-Key reused only when the answer was lost. */
function postReply(body: Loose, to?: number): Promise<void> {
  const id = (to || state.selected) as number;
  const box = $<HTMLTextAreaElement>('reply-text');
  replyKey = replyKey || newKey();
  const buttons = $('reply').querySelectorAll('button');
  buttons.forEach(function (b) {
    b.disabled = true;
  });
  $('reply-hint').textContent = t('sending');
  return api<Message>('/ai/conversations/' + id + '/messages', null, { body: body, headers: { 'Idempotency-Key': replyKey } })
    .then(
      function (m) {
        replyKey = null;
        if (state.selected === id) {
          box.value = '';
          askLocation(false);
        }
        const all = drafts();
        delete all[id];
        saveDrafts(all);
        $('reply-hint').textContent = '';
        onMessage(m);
      },
      function (err) {
        if (err.status && err.status < 500 && err.code !== 'ERROR_IDEMPOTENCY_IN_PROGRESS') replyKey = null;
        $('reply-hint').textContent = '';
        $('reply-error').textContent = REPLY_ERRORS[err.code]
          ? t(REPLY_ERRORS[err.code])
          : t('not_sent', { reason: err.message || t('unreachable') });
        if (err.status === 401) showError(err);
      },
    )
    .then(function () {
      buttons.forEach(function (b) {
        b.disabled = false;
      });
    });
}
$<HTMLTextAreaElement>('reply-text').addEventListener('input', function () {
  replyKey = null;
});

// ---- agents changed in the agents panel ----------------------------------------------------------
document.addEventListener('console:agent-updated', function (e) {
  const a = (e as CustomEvent<Agent>).detail;
  state.conversations.forEach(function (c) {
    if (c.agent_id === a.id) c.agent = Object.assign({}, c.agent || {}, { name: a.name, enabled: a.enabled, provider: a.provider });
  });
  renderList();
  renderThreadHead();
});

function begin(): void {
  $('tab-mine').hidden = !auth().userId;
  if ('IntersectionObserver' in window) {
    state.observer = new IntersectionObserver(
      function (entries) {
        if (
          entries.some(function (x) {
            return x.isIntersecting;
          })
        )
          void loadMore();
      },
      { root: $('conversations'), rootMargin: '120px' },
    );
  }
  renderNotify();
  startLive();
}
document.addEventListener('console:signed-in', begin);
document.addEventListener('console:signed-out', function () {
  keepDraft();
  $<HTMLTextAreaElement>('reply-text').value = ''; // the draft stays the operator's, never on screen for the next one
  stopLive();
  renderNotify();
});
window.addEventListener('beforeunload', keepDraft);
// what other panels and the browser tests may use
og.reconnect = reconnect;
/** What counter.ts and orders.ts (assignment, closing, the contact panel, saved replies) reads and calls. */
og.inbox = {
  selected: function () {
    return state.selected ? state.conversations.get(state.selected) || null : null;
  },
  putConversation: putConversation,
  redraw: function () {
    renderList();
    renderThreadHead();
    state.messages.forEach(function (m) {
      renderMessage(m, true);
    });
  },
  when: when,
  contactOf: contactOf,
  /** Opens conversation `id` (the Orders page's "Open conversation"), read first when the queue does not hold it. */
  open: function (id) {
    if (state.conversations.has(id)) return select(id, true);
    fetchConversation(id).then(function (c) {
      if (!state.conversations.has(c.id)) state.conversations.set(c.id, c);
      select(c.id, true);
    }, showError);
  },
};
if (session()) begin();
