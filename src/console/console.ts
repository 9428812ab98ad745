/* OrderGraph console: every asset comes from this server. This module signs in and out, calls the API and draws
 * the overview, the charts and the top products; the inbox is inbox.ts, agents agents.ts. */
import type UPlot from 'uplot';
import type { Business, Conversation, Result, SeriesResult } from './api-types.js';
import { $, fill, h } from './dom.js';
import { choose, lang, names, t } from './i18n.js';

/** Who is signed in: a server key, or a user's session (an administrator or a business owner). */
export interface Auth {
  project: string;
  key?: string;
  token?: string;
  email?: string;
  userId?: number;
  level?: number;
  name?: string | null;
}
type Group = 'day' | 'week' | 'month';
type Metric = 'orders' | 'revenue' | 'conversations' | 'success_rate';
const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
const state: { auth: Auth | null; group: Group; plots: Partial<Record<Metric, UPlot>>; currency?: string } = {
  auth: null,
  group: 'day',
  plots: {},
};
const STORE = 'ordergraph-console';

// ---- calls ---------------------------------------------------------------------------
/** The signed-in session (every call is made while one is). */
function auth(): Auth {
  if (!state.auth) throw new Error('not signed in');
  return state.auth;
}
/** The API's prefix for this project, in the page's language. */
export function base(): string {
  return '/v400/' + lang + '/' + encodeURIComponent(auth().project);
}
/** The credential's header (media are fetched with it, never with a token in a URL). */
export function headers(): Record<string, string> {
  const a = auth();
  return a.key ? { 'X-Api-Key': a.key } : { Authorization: 'Bearer ' + (a.token || '') };
}
/** A write: a JSON `body` (POST unless `method`), or a multipart `form` (the browser sets its Content-Type). */
export interface Send {
  method?: string;
  body?: unknown;
  form?: FormData;
  headers?: Record<string, string>;
}
/** An API error: the answer's status and code with its messages. */
export interface ApiError extends Error {
  status?: number;
  code?: string;
}
export type QueryParams = Record<string, string | number | boolean | null | undefined>;
/**
 * A call to the API; `send` = {method, body, headers} for writes, or {form} for a multipart upload (the
 * browser sets its Content-Type); `whole`: the envelope (with `pagination`) instead of its `result`.
 * Errors carry the status and the code.
 */
export function api<R = unknown>(path: string, query?: QueryParams | null, send?: Send | null, whole?: boolean): Promise<R> {
  const qs = query ? '?' + new URLSearchParams(stringParams(query)).toString() : '';
  const sent: Record<string, string> = headers();
  const init: RequestInit = { headers: sent };
  if (send) {
    init.method = send.method || 'POST';
    if (!send.form) sent['Content-Type'] = 'application/json';
    Object.assign(sent, send.headers || {});
    init.body = send.form || JSON.stringify(send.body || {});
  }
  return fetch(base() + path + qs, init).then((res) =>
    res
      .json()
      .catch(() => ({}))
      .then((body: { error?: boolean; code?: string; result?: unknown }) => {
        if (!res.ok || body.error) {
          const err: ApiError = new Error((Array.isArray(body.result) ? body.result.join(' ') : '') || res.statusText);
          err.status = res.status;
          err.code = body.code;
          throw err;
        }
        return (whole ? body : body.result) as R;
      }),
  );
}
/** A new Idempotency-Key for a write (a retry after a lost answer reuses its key; a new write gets a new one). */
export function newKey(): string {
  return window.crypto && crypto.randomUUID ? crypto.randomUUID() : Date.now().toString(36) + Math.random().toString(36).slice(2);
}
/** A query's values as URLSearchParams would write them from a plain object (`String()` of each). */
function stringParams(query: QueryParams): Record<string, string> {
  const out: Record<string, string> = {};
  Object.keys(query).forEach((k) => {
    out[k] = String(query[k]);
  });
  return out;
}

// ---- sign-in -------------------------------------------------------------------------
const form = $<HTMLFormElement>('signin-form');
const method = form.elements.namedItem('method') as RadioNodeList;
const field = (id: string) => $<HTMLInputElement>(id);
Array.prototype.forEach.call(method, (r: HTMLInputElement) => {
  r.addEventListener('change', () => {
    const byKey = method.value === 'key';
    $('by-key').hidden = !byKey;
    $('by-password').hidden = byKey;
  });
});
// the language: a choice reloads the page in it (the tab's session is kept)
const langMenu = $<HTMLSelectElement>('lang');
(Object.keys(names) as (keyof typeof names)[]).forEach((code) => {
  langMenu.appendChild(h('option', { value: code, lang: code, selected: code === lang }, names[code]));
});
langMenu.addEventListener('change', () => {
  choose(langMenu.value);
});
const params = new URLSearchParams(location.search);
field('project').value = params.get('project') || localStorage.getItem(STORE + ':project') || 'demo';

form.addEventListener('submit', (e) => {
  e.preventDefault();
  $('signin-error').textContent = '';
  const project = field('project').value.trim();
  if (!project) return fail(t('enter_project'), field('project'));
  if (method.value === 'key') {
    const key = field('key').value.trim();
    if (!key) return fail(t('enter_key'), field('key'));
    state.auth = { project: project, key: key };
    // a metrics read checks the key's level
    api('/ai/metrics/overview', { timezone: zone }).then(start, (err: ApiError) => {
      fail(err.status === 401 || err.status === 403 ? t('key_refused') : err.message, field('key'));
    });
  } else {
    const email = field('email').value.trim();
    const password = field('password').value;
    if (!email || !password) return fail(t('enter_password'), field('email'));
    fetch('/v400/' + lang + '/' + encodeURIComponent(project) + '/auth', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: email, password: password }),
    })
      .then((res) => res.json() as Promise<{ error: boolean; result: Result<'Authenticate'> }>)
      .then(
        (body) => {
          if (body.error) return fail(t('wrong_password'), field('password'));
          // administrators and business owners (who see only their businesses: the API scopes every read)
          if (body.result.level !== 0 && body.result.level !== 2) return fail(t('levels_only'), field('email'));
          state.auth = {
            project: project,
            token: body.result.session.access_token,
            email: email,
            userId: body.result.id,
            level: body.result.level,
            name: [body.result.name, body.result.lastname].filter(Boolean).join(' ') || null,
          };
          start();
        },
        () => {
          fail(t('unreachable'), field('email'));
        },
      );
  }
});
function fail(message: string, input?: HTMLElement): void {
  state.auth = null;
  $('signin-error').textContent = message;
  if (input) input.focus();
}
$('signout').addEventListener('click', () => {
  document.dispatchEvent(new CustomEvent('console:signed-out'));
  // the session ends on the server too (CONTRACT §11): its token is refused from now on, its streams end
  if (state.auth && state.auth.token) {
    fetch(base() + '/auth/session', { method: 'DELETE', headers: headers(), keepalive: true }).catch(() => {
      /* the token expires by itself */
    });
  }
  sessionStorage.removeItem(STORE);
  state.auth = null;
  $('dashboard').hidden = true;
  $('signin').hidden = false;
  $('signout').hidden = true;
  $('who').textContent = '';
  $('project').focus();
});

function start(): void {
  const a = auth();
  localStorage.setItem(STORE + ':project', a.project);
  sessionStorage.setItem(STORE, JSON.stringify(a));
  $('signin').hidden = true;
  $('dashboard').hidden = false;
  $('signout').hidden = false;
  showWho(null);
  field('key').value = '';
  field('password').value = '';
  $('main').focus();
  // the restaurant's name and currency first: every amount is shown with its currency
  void readPlace().then(() => {
    loadOverview();
    loadCharts();
    loadProducts();
  });
  // the hook for the inbox (inbox.ts) and other panels (agents.ts and the like): they read the same session
  document.dispatchEvent(new CustomEvent('console:signed-in', { detail: { project: a.project } }));
}

// ---- who is signed in, where --------------------------------------------------------------
/** The person's name (the email when the user has none; "server key" for a key) and the restaurant's. */
function showWho(store: string | null): void {
  const a = auth();
  const person = a.key ? t('who_key') : a.name || a.email;
  $('who').textContent = [person, store || t('project', { code: a.project })].join(' · ');
  $('who').title = [a.email, t('project', { code: a.project }), zone].filter(Boolean).join(' · ');
}
/**
 * The restaurant: its name (the public config `store_name`, §5) and its currency (the newest order's, §15.3; the
 * businesses' default, EUR, before the first order).
 */
function readPlace(): Promise<void> {
  const name = api<Record<string, unknown> | null>('/configs', { mode: 'dictionary' }).then(
    (d) => {
      const entry = d && (d.store_name as { value?: string } | string | undefined);
      return entry && typeof entry === 'object' ? entry.value : entry || null;
    },
    () => null,
  );
  const businesses = api<Business[]>('/ai/businesses').then(
    (list) => list,
    (): Business[] => [],
  );
  const newest = api<Result<'AiOrders'>>('/ai/orders', { page_size: '1' }).then(
    (rows) => (rows[0] && rows[0].currency) || null,
    () => null,
  );
  return Promise.all([name, businesses, newest]).then((r) => {
    if (!state.auth) return;
    const list = r[1];
    og.businesses = new Map(list.map((b) => [b.id, b]));
    // the businesses' one currency; when they differ, the newest order's; EUR (§15.1's default) without either
    const codes = new Set(list.map((b) => b.currency));
    state.currency = codes.size === 1 ? list[0].currency : r[2] || 'EUR';
    // a business owner's restaurant is their business when the project names none
    showWho(r[0] || (list.length === 1 ? list[0].name : null));
    document.dispatchEvent(new CustomEvent('console:place'));
  });
}
const moneyBy = new Map<string, Intl.NumberFormat | null>();
/** The page language's format of a currency, made once per code; null when the code is unknown to Intl. */
export function currencyFormat(code: string): Intl.NumberFormat | null {
  if (!moneyBy.has(code)) {
    try {
      moneyBy.set(code, new Intl.NumberFormat(lang, { style: 'currency', currency: code }));
    } catch {
      moneyBy.set(code, null);
    }
  }
  return moneyBy.get(code) ?? null;
}
/** An amount with its currency in the page's language (22,50 €, €22.50); the plain number when the code is unknown. */
export function money(amount: number | string | null | undefined, currency?: string | null): string {
  const code = currency || state.currency || 'EUR';
  const f = currencyFormat(code);
  return f ? f.format(Number(amount)) : decimals.format(Number(amount)) + ' ' + code;
}
/** Something that formats a number (Intl.NumberFormat, or `money` as one). */
interface Format {
  format(x: number): string;
}
/** `money` as a formatter (the overview's cards take one). */
const moneyFormat: Format = { format: (x) => money(x) };

// ---- overview ------------------------------------------------------------------------
// The month so far against the same days of the previous month (1–25 Nov against 1–25 Oct), from
// the series: comparing with the whole previous month would show every figure falling early on.
const month = new Date().toISOString().slice(0, 7);
const decimals = new Intl.NumberFormat(lang, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const count = new Intl.NumberFormat(lang);
interface Span {
  from: string;
  to: string;
  label: string;
}
function spans(now: Date): { current: Span; previous: Span } {
  const y = now.getFullYear(),
    m = now.getMonth();
  const prevEnd = new Date(y, m - 1, Math.min(now.getDate(), new Date(y, m, 0).getDate()));
  return {
    current: { from: ymd(new Date(y, m, 1)), to: ymd(now), label: dayRange(new Date(y, m, 1), now) },
    previous: { from: ymd(new Date(y, m - 1, 1)), to: ymd(prevEnd), label: dayRange(new Date(y, m - 1, 1), prevEnd) },
  };
}
/** 'Nov 1–25' (or 'Nov 1' on the first day). */
function dayRange(a: Date, b: Date): string {
  const m = a.toLocaleDateString(lang, { month: 'short' }) + ' ';
  return m + count.format(a.getDate()) + (a.getDate() === b.getDate() ? '' : '–' + count.format(b.getDate()));
}
/** One figure over one span: the month bucket, partly inside the range, holds exactly the span's value. */
function spanValue(metric: Metric, span: Span): Promise<number> {
  return api<SeriesResult>('/ai/metrics/series', { metric: metric, group_by: 'month', from: span.from, to: span.to, timezone: zone }).then(
    (s) => s.points.reduce((a, p) => a + p.value, 0),
  );
}
function card(label: string, cur: number, prev: number, fmt: Format, spanLabel: string, points?: boolean): HTMLElement {
  const diff = points ? cur - prev : prev === 0 ? null : ((cur - prev) / prev) * 100;
  const cls = diff !== null && diff > 0 ? 'up' : diff !== null && diff < 0 ? 'down' : 'muted';
  const change =
    diff === null
      ? cur > 0
        ? t('new_badge')
        : '0%'
      : (diff > 0 ? '▲ +' : diff < 0 ? '▼ ' : '') + decimals.format(diff) + (points ? ' ' + t('pts') : '%');
  return h(
    'div',
    { class: 'card', role: 'group', 'aria-label': label },
    h('div', { class: 'label' }, label),
    h('div', { class: 'value' }, fmt.format(cur)),
    h(
      'div',
      { class: cls },
      change + ' ',
      h('span', { class: 'muted' }, '(' + t('in_span', { value: fmt.format(prev), span: spanLabel }) + ')'),
    ),
  );
}
function loadOverview(): void {
  const sp = spans(new Date());
  $('overview-span').textContent = t('overview_span', { current: sp.current.label, previous: sp.previous.label });
  const metrics: Metric[] = ['orders', 'revenue', 'conversations', 'success_rate'];
  Promise.all(metrics.map((m) => Promise.all([spanValue(m, sp.current), spanValue(m, sp.previous)])))
    .then((r) => {
      const v = {} as Record<Metric, { cur: number; prev: number }>;
      metrics.forEach((m, i) => {
        v[m] = { cur: r[i][0], prev: r[i][1] };
      });
      const avg = (k: 'cur' | 'prev') => (v.orders[k] ? v.revenue[k] / v.orders[k] : 0);
      const l = sp.previous.label;
      fill(
        $('cards'),
        card(t('orders'), v.orders.cur, v.orders.prev, count, l),
        card(t('revenue'), v.revenue.cur, v.revenue.prev, moneyFormat, l),
        card(t('average_order'), avg('cur'), avg('prev'), moneyFormat, l),
        card(t('conversations'), v.conversations.cur, v.conversations.prev, count, l),
        card(t('success_rate_card'), v.success_rate.cur, v.success_rate.prev, decimals, l, true),
      );
    })
    .catch(showError);
}

// ---- charts --------------------------------------------------------------------------
function ymd(d: Date): string {
  return d.getFullYear() + '-' + String(d.getMonth() + 1).padStart(2, '0') + '-' + String(d.getDate()).padStart(2, '0');
}
function rangeFor(group: Group): { from: string; to: string } {
  const to = new Date();
  const from = new Date(to);
  if (group === 'day') from.setDate(from.getDate() - 29);
  else if (group === 'week') from.setDate(from.getDate() - 7 * 13 + 1);
  else {
    from.setMonth(from.getMonth() - 11);
    from.setDate(1);
  }
  return { from: ymd(from), to: ymd(to) };
}
const COLORS: Record<Metric, string> = { orders: '#0b5cad', revenue: '#116329', conversations: '#6f42c1', success_rate: '#b54708' };
function loadCharts(): void {
  const group = state.group;
  const range = rangeFor(group);
  $('range').textContent = t('range_' + group, { from: range.from, to: range.to, zone: zone });
  document.querySelectorAll('.chart').forEach((fig) => {
    const metric = fig.getAttribute('data-metric') as Metric;
    api<SeriesResult>('/ai/metrics/series', { metric: metric, group_by: group, from: range.from, to: range.to, timezone: zone })
      .then((s) => {
        if (group !== state.group) return;
        draw(fig as HTMLElement, metric, s);
      })
      .catch(showError);
  });
}
function draw(fig: HTMLElement, metric: Metric, s: SeriesResult): void {
  const el = fig.querySelector('.plot') as HTMLElement;
  const xs = s.points.map((p) => Date.parse(p.start) / 1000);
  const ys = s.points.map((p) => p.value);
  const total = ys.reduce((a, b) => a + b, 0);
  const label = (fig.querySelector('figcaption') as HTMLElement).textContent || '';
  el.setAttribute(
    'aria-label',
    label +
      ' by ' +
      s.group_by +
      ': ' +
      ys.length +
      ' points, ' +
      (metric === 'success_rate'
        ? 'highest ' + Math.max(...ys.concat(0)) + '%'
        : 'total ' + (metric === 'revenue' ? money(total) : count.format(total))) +
      '; the last point is the current ' +
      s.group_by +
      ' so far',
  );
  // the current bucket is partial: drawn apart, dashed and lighter, instead of a cliff towards zero
  const n = ys.length;
  const whole = ys.map((v, i) => (i < n - 1 ? v : null));
  const partial = ys.map((v, i) => (i >= n - 2 ? v : null));
  const old = state.plots[metric];
  if (old) old.destroy();
  const width = Math.max(240, el.clientWidth || fig.clientWidth - 32);
  const opts: UPlot.Options = {
    width: width,
    height: 220,
    scales: {
      x: { time: true },
      y: {
        range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1],
      },
    },
    legend: { show: false },
    cursor: { drag: { x: false, y: false } },
    axes: [
      // dates as the page's language writes them ("2 nov", "nov 2026"), never uPlot's month/day
      { stroke: '#4d5560', grid: { stroke: '#eceff3' }, values: axisDates(s.group_by) },
      {
        stroke: '#4d5560',
        grid: { stroke: '#eceff3' },
        size: 64,
        values: (_u, splits) => splits.map((v) => (metric === 'revenue' ? moneyShort.format(v) : count.format(v))),
      },
    ],
    series: [
      {},
      { label: label, stroke: COLORS[metric], width: 2, fill: COLORS[metric] + '22', points: { show: ys.length <= 40 } },
      {
        label: label + ' (so far)',
        stroke: COLORS[metric] + '88',
        width: 2,
        dash: [6, 5],
        fill: COLORS[metric] + '0d',
        points: { show: true, fill: '#fff' },
      },
    ],
  };
  el.replaceChildren();
  state.plots[metric] = new uPlot(opts, [xs, whole, partial], el);
  fig.setAttribute('data-partial', n ? new Date(xs[n - 1] * 1000).toISOString() : '');
  fig.setAttribute('data-group', s.group_by);
  fig.setAttribute('data-points', String(ys.length));
}
const moneyShort: Format = {
  format: (v) => money(v).replace(/[.,]00(?=\D*$)/, ''),
};
const axisFormats: Record<string, Intl.DateTimeFormat> = {
  day: new Intl.DateTimeFormat(lang, { day: 'numeric', month: 'short' }),
  week: new Intl.DateTimeFormat(lang, { day: 'numeric', month: 'short' }),
  month: new Intl.DateTimeFormat(lang, { month: 'short', year: 'numeric' }),
};
function axisDates(group: string): (u: UPlot, splits: number[]) => string[] {
  const f = axisFormats[group] || axisFormats.day;
  return (_u, splits) => splits.map((v) => f.format(new Date(v * 1000)).replace(/\.$/, ''));
}
$('grouping').addEventListener('click', (e) => {
  const b = (e.target as Element).closest('button');
  if (!b) return;
  state.group = b.getAttribute('data-group') as Group;
  document.querySelectorAll('#grouping button').forEach((x) => {
    x.setAttribute('aria-pressed', String(x === b));
  });
  loadCharts();
});
let resizeTimer: ReturnType<typeof setTimeout> | undefined;
window.addEventListener('resize', () => {
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(() => {
    (Object.keys(state.plots) as Metric[]).forEach((m) => {
      const el = document.querySelector('.chart[data-metric="' + m + '"] .plot') as HTMLElement;
      state.plots[m]?.setSize({ width: Math.max(240, el.clientWidth), height: 220 });
    });
  }, 150);
});

// ---- products ------------------------------------------------------------------------
function loadProducts(): void {
  api<Result<'MetricsProducts'>>('/ai/metrics/products', { month: month, timezone: zone })
    .then((rows) => {
      fill(
        $('products'),
        rows.length
          ? rows.map((p) =>
              h(
                'tr',
                null,
                h('td', null, p.name),
                h('td', { class: 'num' }, count.format(p.times_sold)),
                h('td', { class: 'num' }, count.format(p.orders)),
                h('td', { class: 'num' }, money(p.revenue)),
              ),
            )
          : h('tr', null, h('td', { colspan: 4, class: 'muted' }, t('no_orders'))),
      );
    })
    .catch(showError);
}

/** The signed-in session, or null. */
export function session(): Auth | null {
  return state.auth;
}

/**
 * What the screens share at run time, set by the one that owns it (the browser tests read it too, through main.ts):
 * the businesses (here), the colleagues' names (counter.ts), the unread count and the inbox's calls (inbox.ts),
 * the title's refresh and the Orders page's test hooks (orders.ts).
 */
export interface Shared {
  /** The businesses the caller may see, by id: `{id, name, currency}` (GET /ai/businesses), once signed in. */
  businesses: Map<number, Business>;
  /** The charts (uPlot instances by metric), for the browser tests. */
  plots: Partial<Record<Metric, UPlot>>;
  /** Colleagues' names by user id (counter.ts, from GET /ai/operators). */
  names: Map<number, string>;
  /** The unread messages of the queue (inbox.ts), for the page's title. */
  unread: number;
  /** Writes the page's title from the unread messages and the unseen orders (orders.ts). */
  retitle?: () => void;
  /** Opens the event stream again (inbox.ts). */
  reconnect?: () => void;
  /** The inbox's calls for the other panels (inbox.ts). */
  inbox?: InboxCalls;
  /** What the browser tests read of the Orders page (orders.ts). */
  orders?: Record<string, (...args: never[]) => unknown>;
}
/** What counter.ts and orders.ts call of the inbox. */
export interface InboxCalls {
  selected(): Conversation | null;
  putConversation(c: Conversation): void;
  redraw(): void;
  /** A time as the queue writes it (the time only today). */
  when(iso: string): string;
  /** A conversation's contact as shown: the name, the phone, or the conversation's number. */
  contactOf(c: Conversation): string;
  open(id: number): void;
}
export const og: Shared = {
  businesses: new Map(),
  plots: state.plots,
  names: new Map(),
  unread: 0,
};
/** The inbox's calls (inbox.ts is imported before the panels that use them). */
export function inbox(): InboxCalls {
  if (!og.inbox) throw new Error('the inbox is not loaded');
  return og.inbox;
}

export function showError(err: unknown): void {
  const e = err as ApiError | null | undefined;
  if (e && e.status === 401) {
    $('signout').click();
    $('signin-error').textContent = t('session_ended');
    return;
  }
  $('live-mode').textContent = t('error', { message: e && e.message ? e.message : '?' });
}

// a reload keeps the session of this tab
try {
  const saved = JSON.parse(sessionStorage.getItem(STORE) || 'null') as Auth | null;
  if (saved && saved.project) {
    state.auth = saved;
    start();
  }
} catch {
  /* ignore */
}
