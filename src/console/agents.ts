/* OrderGraph console: the agents page (CONTRACT §10.4, §10.5): list, enable/disable (disabling asks for
 * confirmation: its customers go unanswered), check credentials.
 * It reads the session console.ts keeps for this tab and shows itself
 * while the dashboard is shown; credentials are only ever shown as "stored" or "missing". */
const STORE = 'ordergraph-console';
import type { Agent, Result } from './api-types.js';
import { og, type Auth, type QueryParams } from './console.js';
import { $, fill, h, type Child } from './dom.js';
import * as i18n from './i18n.js';
import { t } from './i18n.js';

/** §13.3/§13.7's history import as an agent shows it (the schema leaves it open). */
interface History {
  declined?: boolean;
  progress?: number | null;
  messages?: number;
}
const dashboard = $('dashboard');

const section = document.createElement('section');
section.id = 'agents';
section.className = 'card';
section.setAttribute('aria-labelledby', 'agents-title');
const th = function (label: string) {
  return h('th', { scope: 'col' }, label);
};
fill(
  section,
  h(
    'div',
    { class: 'row' },
    h('h2', { id: 'agents-title' }, t('agents')),
    h('button', { type: 'button', id: 'agents-reload' }, t('reload')),
  ),
  h('p', { id: 'agents-status', class: 'muted', role: 'status', 'aria-live': 'polite' }),
  h(
    'table',
    null,
    h(
      'thead',
      null,
      h('tr', null, th(t('col_agent')), th(t('col_provider')), th(t('col_credentials')), th(t('col_state')), th(t('col_actions'))),
    ),
    h('tbody', { id: 'agents-rows' }),
  ),
);
dashboard.appendChild(section);
// disabling asks first: a disabled agent's customers are not answered
const confirmDialog = h(
  'dialog',
  { id: 'confirm-disable', 'aria-labelledby': 'confirm-disable-title' },
  h(
    'form',
    { method: 'dialog' },
    h('h2', { id: 'confirm-disable-title' }),
    h('p', { id: 'confirm-disable-text' }),
    h(
      'div',
      { class: 'row end' },
      h('button', { value: 'cancel', class: 'secondary' }, t('cancel')),
      h('button', { value: 'disable', class: 'danger', id: 'confirm-disable-yes' }, t('disable')),
    ),
  ),
);
document.body.appendChild(confirmDialog);
function confirmDisable(agent: Agent): Promise<boolean> {
  return new Promise(function (resolve) {
    (confirmDialog.querySelector('#confirm-disable-title') as HTMLElement).textContent = t('confirm_disable_title', { name: agent.name });
    (confirmDialog.querySelector('#confirm-disable-text') as HTMLElement).textContent = t('confirm_disable_text');
    confirmDialog.returnValue = '';
    confirmDialog.addEventListener(
      'close',
      function () {
        resolve(confirmDialog.returnValue === 'disable');
      },
      { once: true },
    );
    confirmDialog.showModal();
    (confirmDialog.querySelector('button[value="cancel"]') as HTMLButtonElement).focus();
  });
}
const rows = section.querySelector('#agents-rows') as HTMLElement;
const status = section.querySelector('#agents-status') as HTMLElement;
let agents: Agent[] = [];
let results: Record<number, { cls: string; text: string }> = {}; // agent id → the last check's {cls, text}, kept across re-renders

function auth(): Auth | null {
  try {
    return JSON.parse(sessionStorage.getItem(STORE) || 'null') as Auth | null;
  } catch {
    return null;
  }
}
/** A call with this tab's session: GET with a query, PATCH with `query.body` as its JSON, POST without a body. */
function call<R>(method: 'GET' | 'PATCH' | 'POST', path: string, query?: QueryParams | { body: unknown }): Promise<R> {
  const a = auth();
  if (!a) return Promise.reject(new Error(t('session_ended')));
  const headers: Record<string, string> = a.key ? { 'X-Api-Key': a.key } : { Authorization: 'Bearer ' + (a.token || '') };
  if (method !== 'GET') headers['Content-Type'] = 'application/json';
  const qs = query && method !== 'PATCH' ? '?' + new URLSearchParams(query as Record<string, string>).toString() : '';
  const init: RequestInit = { method: method, headers: headers };
  if (method === 'PATCH') init.body = JSON.stringify(query && (query as { body: unknown }).body);
  return fetch('/v400/' + i18n.lang + '/' + encodeURIComponent(a.project) + path + (method === 'PATCH' ? '' : qs), init).then(
    function (res) {
      return res
        .json()
        .catch(function () {
          return {};
        })
        .then(function (body: { error?: boolean; result?: unknown }) {
          if (!res.ok || body.error) {
            const r = body.result;
            throw new Error((Array.isArray(r) ? r.join(' ') : '') || 'HTTP ' + res.status);
          }
          return body.result as R;
        });
    },
  );
}
function load(): Promise<void> {
  status.textContent = t('agents_loading');
  return call<Agent[]>('GET', '/ai/agents', { page_size: '100', orderBy: 'name' }).then(
    function (list) {
      agents = list;
      render();
      status.textContent = list.length === 1 ? t('agents_one') : t('agents_count', { n: i18n.n(list.length) });
    },
    function (err: Error) {
      status.textContent = t('agents_failed', { message: err.message });
    },
  );
}
/** A business by name (GET /ai/businesses, read by console.ts), else by number. */
function businessName(id: number): string {
  const b = og.businesses.get(id);
  return b ? b.name : t('business_n', { id: i18n.n(id) });
}
document.addEventListener('console:place', function () {
  if (agents.length) render();
});
/** CONTRACT §13.7: why Meta's side disabled the agent (its number left the Cloud API). */
function offboarded(a: Agent): HTMLElement | null {
  return !a.enabled && a.disabled_reason === 'offboarded' ? h('span', { class: 'muted offboarded' }, ' ' + t('offboarded')) : null;
}
/** CONTRACT §13.3/§13.7: how far the import of the phone's history got. */
function historyNote(a: Agent): Child {
  const hs = a.history as History | null;
  if (!hs) return null;
  const text = hs.declined
    ? t('history_declined')
    : t('history_progress', { progress: i18n.n(hs.progress == null ? 0 : hs.progress), n: i18n.n(hs.messages || 0) });
  return [h('br'), h('span', { class: 'muted history' }, text)];
}
function credentialsCell(a: Agent): Child {
  const keys = Object.keys(a.credentials || {});
  if (!keys.length) return h('span', { class: 'muted' }, t('none'));
  return keys.map(function (k, i) {
    return [i ? h('br') : null, h('span', { class: 'nowrap' + (a.credentials[k] ? '' : ' muted') }, k + (a.credentials[k] ? ' ✓' : ' –'))];
  });
}
function render(): void {
  const trs = agents.map(function (a) {
    return h(
      'tr',
      { 'data-id': a.id },
      h(
        'td',
        null,
        h('strong', { dir: 'auto' }, a.name),
        h('br'),
        h('span', { class: 'muted' }, a.provider_external_id + (a.business_id ? ' · ' + businessName(a.business_id) : '')),
      ),
      h('td', null, a.provider + ' · ' + a.provider_type),
      h('td', null, credentialsCell(a)),
      h(
        'td',
        null,
        h('span', { class: 'pill' + (a.enabled ? '' : ' closed') }, a.enabled ? t('enabled') : t('disabled')),
        offboarded(a),
        historyNote(a),
      ),
      h(
        'td',
        { class: 'actions' },
        h(
          'button',
          { type: 'button', 'data-action': 'toggle', 'aria-label': t(a.enabled ? 'disable_x' : 'enable_x', { name: a.name }) },
          a.enabled ? t('disable') : t('enable'),
        ),
        ' ',
        a.provider === 'whatsapp'
          ? h('button', { type: 'button', 'data-action': 'check', 'aria-label': t('check_x', { name: a.name }) }, t('check'))
          : null,
        h(
          'div',
          { class: 'check-result ' + (results[a.id] ? results[a.id].cls : ''), role: 'status', 'aria-live': 'polite' },
          results[a.id] && results[a.id].text,
        ),
      ),
    );
  });
  fill(rows, trs.length ? trs : h('tr', null, h('td', { colspan: 5, class: 'muted' }, t('no_agents'))));
}
rows.addEventListener('click', function (e) {
  const button = (e.target as Element).closest('button');
  if (!button) return;
  const tr = button.closest('tr') as HTMLTableRowElement;
  const id = Number(tr.getAttribute('data-id'));
  const agent = agents.filter(function (a) {
    return a.id === id;
  })[0];
  const out = tr.querySelector('.check-result') as HTMLElement;
  function show(cls: string, message: string) {
    results[id] = { cls: cls, text: message };
    out.className = 'check-result ' + cls;
    out.textContent = message;
  }
  if (button.getAttribute('data-action') === 'toggle') {
    (agent.enabled ? confirmDisable(agent) : Promise.resolve(true))
      .then(function (yes) {
        if (!yes) return null;
        button.disabled = true;
        return call<Agent>('PATCH', '/ai/agents/' + id, { body: { enabled: !agent.enabled } });
      })
      .then(
        function (updated) {
          if (!updated) return;
          agents = agents.map(function (a) {
            return a.id === id ? updated : a;
          });
          render();
          status.textContent = t(updated.enabled ? 'is_enabled' : 'is_disabled', { name: updated.name });
          // the inbox shows it on the agent's conversations
          document.dispatchEvent(new CustomEvent('console:agent-updated', { detail: updated }));
        },
        function (err: Error) {
          button.disabled = false;
          show('error', err.message);
        },
      );
    return;
  }
  button.disabled = true;
  show('muted', t('asking'));
  call<Result<'CheckAiAgentCredentials'>>('POST', '/ai/agents/' + id + '/credentials/check').then(
    function (r) {
      button.disabled = false;
      const details = [r.display_phone_number, r.verified_name, r.quality_rating && t('quality', { q: r.quality_rating })];
      show('up', t('check_ok', { details: details.filter(Boolean).join(' · ') }));
    },
    function (err: Error) {
      button.disabled = false;
      show('error', t('check_failed', { message: err.message }));
    },
  );
});
(section.querySelector('#agents-reload') as HTMLElement).addEventListener('click', () => void load());
// an agent changed elsewhere (the inbox's stream: Meta offboarded it; a reply found it disabled): its row follows
document.addEventListener('console:agent-updated', function (e) {
  const a = (e as CustomEvent<Agent>).detail;
  const known = agents.some(function (x) {
    return x.id === a.id;
  });
  if (!known) return;
  agents = agents.map(function (x) {
    return x.id === a.id ? Object.assign({}, x, a) : x;
  });
  render();
});

// shown with the dashboard (console.ts signs in and out by toggling its `hidden`)
function sync(): void {
  if (dashboard.hidden) {
    agents = [];
    results = {};
    rows.replaceChildren();
    status.textContent = '';
    return;
  }
  void load();
}
new MutationObserver(sync).observe(dashboard, { attributes: true, attributeFilter: ['hidden'] });
if (!dashboard.hidden) void load();
