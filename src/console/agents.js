/* OrderGraph console: the agents page (CONTRACT §10.4, §10.5): list, enable/disable (disabling asks for
 * confirmation: its customers go unanswered), check credentials.
 * Plain JS, no build step. It reads the session console.js keeps for this tab and shows itself
 * while the dashboard is shown; credentials are only ever shown as "stored" or "missing". */
(function () {
  'use strict';
  var STORE = 'ordergraph-console';
  var h = window.OrderGraphDom.h,
    fill = window.OrderGraphDom.fill;
  var i18n = window.OrderGraphI18n,
    t = i18n.t;
  var dashboard = document.getElementById('dashboard');
  if (!dashboard) return;

  var section = document.createElement('section');
  section.id = 'agents';
  section.className = 'card';
  section.setAttribute('aria-labelledby', 'agents-title');
  var th = function (label) {
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
  var confirmDialog = h(
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
  function confirmDisable(agent) {
    return new Promise(function (resolve) {
      confirmDialog.querySelector('#confirm-disable-title').textContent = t('confirm_disable_title', { name: agent.name });
      confirmDialog.querySelector('#confirm-disable-text').textContent = t('confirm_disable_text');
      confirmDialog.returnValue = '';
      confirmDialog.addEventListener(
        'close',
        function () {
          resolve(confirmDialog.returnValue === 'disable');
        },
        { once: true },
      );
      confirmDialog.showModal();
      confirmDialog.querySelector('button[value="cancel"]').focus();
    });
  }
  var rows = section.querySelector('#agents-rows');
  var status = section.querySelector('#agents-status');
  var agents = [];
  var results = {}; // agent id → the last check's {cls, text}, kept across re-renders

  function auth() {
    try {
      return JSON.parse(sessionStorage.getItem(STORE) || 'null');
    } catch {
      return null;
    }
  }
  function call(method, path, query) {
    var a = auth();
    if (!a) return Promise.reject(new Error(t('session_ended')));
    var headers = a.key ? { 'X-Api-Key': a.key } : { Authorization: 'Bearer ' + a.token };
    if (method !== 'GET') headers['Content-Type'] = 'application/json';
    var qs = query ? '?' + new URLSearchParams(query).toString() : '';
    var init = { method: method, headers: headers };
    if (method === 'PATCH') init.body = JSON.stringify(query && query.body);
    return fetch('/v400/' + i18n.lang + '/' + encodeURIComponent(a.project) + path + (method === 'PATCH' ? '' : qs), init).then(
      function (res) {
        return res
          .json()
          .catch(function () {
            return {};
          })
          .then(function (body) {
            if (!res.ok || body.error) {
              var r = body.result;
              throw new Error((r && r.join ? r.join(' ') : '') || 'HTTP ' + res.status);
            }
            return body.result;
          });
      },
    );
  }
  function load() {
    status.textContent = t('agents_loading');
    return call('GET', '/ai/agents', { page_size: '100', orderBy: 'name' }).then(
      function (list) {
        agents = list;
        render();
        status.textContent = list.length === 1 ? t('agents_one') : t('agents_count', { n: i18n.n(list.length) });
      },
      function (err) {
        status.textContent = t('agents_failed', { message: err.message });
      },
    );
  }
  /** A business by name (GET /ai/businesses, read by console.js), else by number. */
  function businessName(id) {
    var og = window.OrderGraphConsole;
    var b = og && og.businesses && og.businesses.get(id);
    return b ? b.name : t('business_n', { id: i18n.n(id) });
  }
  document.addEventListener('console:place', function () {
    if (agents.length) render();
  });
  /** CONTRACT §13.7: why Meta's side disabled the agent (its number left the Cloud API). */
  function offboarded(a) {
    return !a.enabled && a.disabled_reason === 'offboarded' ? h('span', { class: 'muted offboarded' }, ' ' + t('offboarded')) : null;
  }
  /** CONTRACT §13.3/§13.7: how far the import of the phone's history got. */
  function historyNote(a) {
    var hs = a.history;
    if (!hs) return null;
    var text = hs.declined
      ? t('history_declined')
      : t('history_progress', { progress: i18n.n(hs.progress == null ? 0 : hs.progress), n: i18n.n(hs.messages || 0) });
    return [h('br'), h('span', { class: 'muted history' }, text)];
  }
  function credentialsCell(a) {
    var keys = Object.keys(a.credentials || {});
    if (!keys.length) return h('span', { class: 'muted' }, t('none'));
    return keys.map(function (k, i) {
      return [
        i ? h('br') : null,
        h('span', { class: 'nowrap' + (a.credentials[k] ? '' : ' muted') }, k + (a.credentials[k] ? ' ✓' : ' –')),
      ];
    });
  }
  function render() {
    var trs = agents.map(function (a) {
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
    var button = e.target.closest('button');
    if (!button) return;
    var tr = button.closest('tr');
    var id = Number(tr.getAttribute('data-id'));
    var agent = agents.filter(function (a) {
      return a.id === id;
    })[0];
    var out = tr.querySelector('.check-result');
    function show(cls, message) {
      results[id] = { cls: cls, text: message };
      out.className = 'check-result ' + cls;
      out.textContent = message;
    }
    if (button.getAttribute('data-action') === 'toggle') {
      (agent.enabled ? confirmDisable(agent) : Promise.resolve(true))
        .then(function (yes) {
          if (!yes) return null;
          button.disabled = true;
          return call('PATCH', '/ai/agents/' + id, { body: { enabled: !agent.enabled } });
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
          function (err) {
            button.disabled = false;
            show('error', err.message);
          },
        );
      return;
    }
    button.disabled = true;
    show('muted', t('asking'));
    call('POST', '/ai/agents/' + id + '/credentials/check').then(
      function (r) {
        button.disabled = false;
        var details = [r.display_phone_number, r.verified_name, r.quality_rating && t('quality', { q: r.quality_rating })];
        show('up', t('check_ok', { details: details.filter(Boolean).join(' · ') }));
      },
      function (err) {
        button.disabled = false;
        show('error', t('check_failed', { message: err.message }));
      },
    );
  });
  section.querySelector('#agents-reload').addEventListener('click', load);
  // an agent changed elsewhere (the inbox's stream: Meta offboarded it; a reply found it disabled): its row follows
  document.addEventListener('console:agent-updated', function (e) {
    var a = e.detail;
    var known = agents.some(function (x) {
      return x.id === a.id;
    });
    if (!known) return;
    agents = agents.map(function (x) {
      return x.id === a.id ? Object.assign({}, x, a) : x;
    });
    render();
  });

  // shown with the dashboard (console.js signs in and out by toggling its `hidden`)
  function sync() {
    if (dashboard.hidden) {
      agents = [];
      results = {};
      rows.replaceChildren();
      status.textContent = '';
      return;
    }
    load();
  }
  new MutationObserver(sync).observe(dashboard, { attributes: true, attributeFilter: ['hidden'] });
  if (!dashboard.hidden) load();
})();
