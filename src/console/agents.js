/* OrderGraph console: the agents page (CONTRACT §10.4): list, enable/disable, check credentials.
 * Plain JS, no build step. It reads the session console.js keeps for this tab and shows itself
 * while the dashboard is shown; credentials are only ever shown as "stored" or "missing". */
(function () {
  'use strict';
  var STORE = 'ordergraph-console';
  var dashboard = document.getElementById('dashboard');
  if (!dashboard) return;

  var section = document.createElement('section');
  section.id = 'agents';
  section.className = 'card';
  section.setAttribute('aria-labelledby', 'agents-title');
  section.innerHTML =
    '<div class="row"><h2 id="agents-title">Agents</h2><button type="button" id="agents-reload">Reload</button></div>' +
    '<p id="agents-status" class="muted" role="status" aria-live="polite"></p>' +
    '<table><thead><tr><th scope="col">Agent</th><th scope="col">Provider</th><th scope="col">Credentials</th><th scope="col">State</th><th scope="col">Actions</th></tr></thead>' +
    '<tbody id="agents-rows"></tbody></table>';
  dashboard.appendChild(section);
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
    if (!a) return Promise.reject(new Error('Not signed in.'));
    var headers = a.key ? { 'X-Api-Key': a.key } : { Authorization: 'Bearer ' + a.token };
    if (method !== 'GET') headers['Content-Type'] = 'application/json';
    var qs = query ? '?' + new URLSearchParams(query).toString() : '';
    var init = { method: method, headers: headers };
    if (method === 'PATCH') init.body = JSON.stringify(query && query.body);
    return fetch('/v400/en/' + encodeURIComponent(a.project) + path + (method === 'PATCH' ? '' : qs), init).then(function (res) {
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
    });
  }
  function text(s) {
    var d = document.createElement('div');
    d.textContent = s == null ? '' : String(s);
    return d.innerHTML;
  }

  function load() {
    status.textContent = 'Loading agents…';
    return call('GET', '/ai/agents', { page_size: '100', orderBy: 'name' }).then(
      function (list) {
        agents = list;
        render();
        status.textContent = list.length + (list.length === 1 ? ' agent' : ' agents');
      },
      function (err) {
        status.textContent = 'Agents cannot be loaded: ' + err.message;
      },
    );
  }
  function credentialsCell(a) {
    var keys = Object.keys(a.credentials || {});
    if (!keys.length) return '<span class="muted">none</span>';
    return keys
      .map(function (k) {
        return (
          '<span style="white-space: nowrap" class="' +
          (a.credentials[k] ? '' : 'muted') +
          '">' +
          text(k) +
          (a.credentials[k] ? ' ✓' : ' –') +
          '</span>'
        );
      })
      .join('<br>');
  }
  function render() {
    rows.innerHTML =
      agents
        .map(function (a) {
          return (
            '<tr data-id="' +
            a.id +
            '">' +
            '<td><strong>' +
            text(a.name) +
            '</strong><br><span class="muted">' +
            text(a.provider_external_id) +
            (a.business_id ? ' · business ' + a.business_id : '') +
            '</span></td>' +
            '<td>' +
            text(a.provider) +
            ' · ' +
            text(a.provider_type) +
            '</td>' +
            '<td>' +
            credentialsCell(a) +
            '</td>' +
            '<td><span class="pill">' +
            (a.enabled ? 'enabled' : 'disabled') +
            '</span></td>' +
            '<td><button type="button" data-action="toggle" aria-label="' +
            (a.enabled ? 'Disable ' : 'Enable ') +
            text(a.name) +
            '">' +
            (a.enabled ? 'Disable' : 'Enable') +
            '</button> ' +
            (a.provider === 'whatsapp'
              ? '<button type="button" data-action="check" aria-label="Check the credentials of ' +
                text(a.name) +
                '">Check credentials</button>'
              : '') +
            '<div class="check-result ' +
            (results[a.id] ? results[a.id].cls : '') +
            '" role="status" aria-live="polite">' +
            text(results[a.id] && results[a.id].text) +
            '</div></td></tr>'
          );
        })
        .join('') || '<tr><td colspan="5" class="muted">No agents yet.</td></tr>';
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
    button.disabled = true;
    if (button.getAttribute('data-action') === 'toggle') {
      call('PATCH', '/ai/agents/' + id, { body: { enabled: !agent.enabled } }).then(
        function (updated) {
          agents = agents.map(function (a) {
            return a.id === id ? updated : a;
          });
          render();
          status.textContent =
            updated.name + (updated.enabled ? ' is enabled.' : ' is disabled: it opens no new conversations and ignores inbound messages.');
        },
        function (err) {
          button.disabled = false;
          show('error', err.message);
        },
      );
      return;
    }
    show('muted', 'Asking WhatsApp…');
    call('POST', '/ai/agents/' + id + '/credentials/check').then(
      function (r) {
        button.disabled = false;
        show(
          'up',
          'OK: ' + [r.display_phone_number, r.verified_name, r.quality_rating && 'quality ' + r.quality_rating].filter(Boolean).join(' · '),
        );
      },
      function (err) {
        button.disabled = false;
        show('error', 'Failed: ' + err.message);
      },
    );
  });
  section.querySelector('#agents-reload').addEventListener('click', load);

  // shown with the dashboard (console.js signs in and out by toggling its `hidden`)
  function sync() {
    if (dashboard.hidden) {
      agents = [];
      results = {};
      rows.innerHTML = '';
      status.textContent = '';
      return;
    }
    load();
  }
  new MutationObserver(sync).observe(dashboard, { attributes: true, attributeFilter: ['hidden'] });
  if (!dashboard.hidden) load();
})();
