/* OrderGraph console: plain JS, no build step; every asset comes from this server. */
(function () {
  'use strict';
  var $ = function (id) { return document.getElementById(id); };
  var zone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  var state = { auth: null, group: 'day', plots: {}, events: null, poll: null, selected: null, conversations: [] };
  var STORE = 'ordergraph-console';

  // ---- calls ---------------------------------------------------------------------------
  function base() { return '/v400/en/' + encodeURIComponent(state.auth.project); }
  function headers() {
    return state.auth.key ? { 'X-Api-Key': state.auth.key } : { Authorization: 'Bearer ' + state.auth.token };
  }
  function api(path, query) {
    var qs = query ? '?' + new URLSearchParams(query).toString() : '';
    return fetch(base() + path + qs, { headers: headers() }).then(function (res) {
      return res.json().catch(function () { return {}; }).then(function (body) {
        if (!res.ok || body.error) {
          var err = new Error((body.result && body.result.join ? body.result.join(' ') : '') || res.statusText);
          err.status = res.status;
          throw err;
        }
        return body.result;
      });
    });
  }

  // ---- sign-in -------------------------------------------------------------------------
  var form = $('signin-form');
  Array.prototype.forEach.call(form.elements.method, function (r) {
    r.addEventListener('change', function () {
      var byKey = form.elements.method.value === 'key';
      $('by-key').hidden = !byKey;
      $('by-password').hidden = byKey;
    });
  });
  var params = new URLSearchParams(location.search);
  $('project').value = params.get('project') || localStorage.getItem(STORE + ':project') || 'demo';

  form.addEventListener('submit', function (e) {
    e.preventDefault();
    $('signin-error').textContent = '';
    var project = $('project').value.trim();
    if (!project) return fail('Enter the project code.', $('project'));
    if (form.elements.method.value === 'key') {
      var key = $('key').value.trim();
      if (!key) return fail('Enter a server key.', $('key'));
      state.auth = { project: project, key: key };
      // a metrics read checks the key's level
      api('/ai/metrics/overview', { timezone: zone }).then(start, function (err) { fail(err.status === 401 || err.status === 403 ? 'That key cannot read this project\'s metrics.' : err.message, $('key')); });
    } else {
      var email = $('email').value.trim();
      var password = $('password').value;
      if (!email || !password) return fail('Enter the email and the password.', $('email'));
      fetch('/v400/en/' + encodeURIComponent(project) + '/auth', {
        method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email: email, password: password }),
      }).then(function (res) { return res.json(); }).then(function (body) {
        if (body.error) return fail('Wrong email or password.', $('password'));
        if (body.result.level !== 0) return fail('Only administrators (level 0) can use the console.', $('email'));
        state.auth = { project: project, token: body.result.session.access_token, email: email };
        start();
      }, function () { fail('The server cannot be reached.', $('email')); });
    }
  });
  function fail(message, field) {
    state.auth = null;
    $('signin-error').textContent = message;
    if (field) field.focus();
  }
  $('signout').addEventListener('click', function () {
    stopLive();
    sessionStorage.removeItem(STORE);
    state.auth = null;
    $('dashboard').hidden = true;
    $('signin').hidden = false;
    $('signout').hidden = true;
    $('who').textContent = '';
    $('project').focus();
  });

  function start() {
    localStorage.setItem(STORE + ':project', state.auth.project);
    sessionStorage.setItem(STORE, JSON.stringify(state.auth));
    $('signin').hidden = true;
    $('dashboard').hidden = false;
    $('signout').hidden = false;
    $('who').textContent = 'Project ' + state.auth.project + (state.auth.email ? ' · ' + state.auth.email : ' · server key') + ' · ' + zone;
    $('key').value = '';
    $('password').value = '';
    $('main').focus();
    loadOverview();
    loadCharts();
    loadProducts();
    startLive();
  }

  // ---- overview ------------------------------------------------------------------------
  var month = new Date().toISOString().slice(0, 7);
  var money = new Intl.NumberFormat(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  var count = new Intl.NumberFormat();
  function card(label, cmp, fmt) {
    var c = cmp.change_percentage;
    var cls = c > 0 ? 'up' : c < 0 ? 'down' : 'muted';
    var sign = c > 0 ? '▲ +' : c < 0 ? '▼ ' : '';
    return '<div class="card" role="group" aria-label="' + label + '"><div class="label">' + label + '</div><div class="value">' + fmt.format(cmp.current) +
      '</div><div class="' + cls + '">' + sign + money.format(c) + '% <span class="muted">(' + fmt.format(cmp.previous) + ' last month)</span></div></div>';
  }
  function loadOverview() {
    var q = { month: month, timezone: zone };
    Promise.all([api('/ai/metrics/overview', q), api('/ai/metrics/chats', q)]).then(function (r) {
      var o = r[0], c = r[1];
      $('cards').innerHTML = card('Orders', o.orders, count) + card('Revenue', o.revenue.total, money) + card('Average order', o.revenue.average, money) +
        card('Conversations', o.conversations.total, count) + card('Success rate %', c.success_rate, money);
    }).catch(showError);
  }

  // ---- charts --------------------------------------------------------------------------
  function ymd(d) { return d.getFullYear() + '-' + String(d.getMonth() + 1).padStart(2, '0') + '-' + String(d.getDate()).padStart(2, '0'); }
  function rangeFor(group) {
    var to = new Date();
    var from = new Date(to);
    if (group === 'day') from.setDate(from.getDate() - 29);
    else if (group === 'week') from.setDate(from.getDate() - 7 * 13 + 1);
    else { from.setMonth(from.getMonth() - 11); from.setDate(1); }
    return { from: ymd(from), to: ymd(to) };
  }
  var COLORS = { orders: '#0b5cad', revenue: '#116329', conversations: '#6f42c1', success_rate: '#b54708' };
  function loadCharts() {
    var group = state.group;
    var range = rangeFor(group);
    $('range').textContent = 'By ' + group + ', ' + range.from + ' to ' + range.to + ' (' + zone + ')';
    document.querySelectorAll('.chart').forEach(function (fig) {
      var metric = fig.getAttribute('data-metric');
      api('/ai/metrics/series', { metric: metric, group_by: group, from: range.from, to: range.to, timezone: zone }).then(function (s) {
        if (group !== state.group) return;
        draw(fig, metric, s);
      }).catch(showError);
    });
  }
  function draw(fig, metric, s) {
    var el = fig.querySelector('.plot');
    var xs = s.points.map(function (p) { return Date.parse(p.start) / 1000; });
    var ys = s.points.map(function (p) { return p.value; });
    var total = ys.reduce(function (a, b) { return a + b; }, 0);
    var label = fig.querySelector('figcaption').textContent;
    el.setAttribute('aria-label', label + ' by ' + s.group_by + ': ' + ys.length + ' points, ' +
      (metric === 'success_rate' ? 'highest ' + Math.max.apply(null, ys.concat(0)) + '%' : 'total ' + (metric === 'revenue' ? money.format(total) : count.format(total))));
    if (state.plots[metric]) state.plots[metric].destroy();
    var width = Math.max(240, el.clientWidth || fig.clientWidth - 32);
    var opts = {
      width: width, height: 220,
      scales: { x: { time: true }, y: { range: function (u, min, max) { return [0, max > 0 ? max * 1.1 : 1]; } } },
      legend: { show: false },
      cursor: { drag: { x: false, y: false } },
      axes: [{ stroke: '#4d5560', grid: { stroke: '#eceff3' } }, { stroke: '#4d5560', grid: { stroke: '#eceff3' }, size: 56 }],
      series: [{}, { label: label, stroke: COLORS[metric], width: 2, fill: COLORS[metric] + '22', points: { show: ys.length <= 40 } }],
    };
    el.innerHTML = '';
    state.plots[metric] = new uPlot(opts, [xs, ys], el);
    fig.setAttribute('data-group', s.group_by);
    fig.setAttribute('data-points', String(ys.length));
  }
  $('grouping').addEventListener('click', function (e) {
    var b = e.target.closest('button');
    if (!b) return;
    state.group = b.getAttribute('data-group');
    document.querySelectorAll('#grouping button').forEach(function (x) { x.setAttribute('aria-pressed', String(x === b)); });
    loadCharts();
  });
  var resizeTimer;
  window.addEventListener('resize', function () {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(function () {
      Object.keys(state.plots).forEach(function (m) {
        var el = document.querySelector('.chart[data-metric="' + m + '"] .plot');
        state.plots[m].setSize({ width: Math.max(240, el.clientWidth), height: 220 });
      });
    }, 150);
  });

  // ---- products ------------------------------------------------------------------------
  function text(s) { var d = document.createElement('div'); d.textContent = s == null ? '' : String(s); return d.innerHTML; }
  function loadProducts() {
    api('/ai/metrics/products', { month: month, timezone: zone }).then(function (rows) {
      $('products').innerHTML = rows.length ? rows.map(function (p) {
        return '<tr><td>' + text(p.name) + '</td><td class="num">' + count.format(p.times_sold) + '</td><td class="num">' + count.format(p.orders) +
          '</td><td class="num">' + money.format(p.revenue) + '</td></tr>';
      }).join('') : '<tr><td colspan="4" class="muted">No AI orders this month yet.</td></tr>';
    }).catch(showError);
  }

  // ---- live conversations --------------------------------------------------------------
  function credentialQuery() { return state.auth.key ? 'api_key=' + encodeURIComponent(state.auth.key) : 'access_token=' + encodeURIComponent(state.auth.token); }
  function startLive() {
    loadConversations();
    // EventSource cannot show a status: ask once whether the stream exists, then open it
    var url = base() + '/ai/events?' + credentialQuery();
    var ctl = new AbortController();
    fetch(url, { signal: ctl.signal, headers: { Accept: 'text/event-stream' } }).then(function (res) {
      ctl.abort();
      var type = res.headers.get('content-type') || '';
      if (res.status !== 200 || type.indexOf('text/event-stream') !== 0) return startPolling();
      var es = new EventSource(url);
      state.events = es;
      es.onopen = function () { setMode('live (events)'); };
      es.onerror = function () { if (es.readyState === EventSource.CLOSED) { state.events = null; startPolling(); } };
      ['conversation.created', 'conversation.closed', 'message.created'].forEach(function (t) {
        es.addEventListener(t, function (ev) { onEvent(JSON.parse(ev.data)); });
      });
    }, function () { startPolling(); });
  }
  function startPolling() {
    if (state.poll || !state.auth) return;
    setMode('polling every 10 s');
    state.poll = setInterval(function () {
      loadConversations();
      if (state.selected) loadMessages(state.selected);
    }, 10000);
  }
  function stopLive() {
    if (state.events) state.events.close();
    if (state.poll) clearInterval(state.poll);
    state.events = null;
    state.poll = null;
  }
  function setMode(m) { $('live-mode').textContent = m; }
  function onEvent(ev) {
    if (ev.type === 'message.created') {
      if (ev.data.conversation_id === state.selected) appendMessage(ev.data);
      return;
    }
    var c = ev.data;
    state.conversations = [c].concat(state.conversations.filter(function (x) { return x.id !== c.id; })).slice(0, 20);
    renderConversations();
  }
  function loadConversations() {
    api('/ai/conversations', { orderBy: '-created_at', page_size: '20' }).then(function (rows) {
      state.conversations = rows;
      renderConversations();
      var first = rows.filter(function (c) { return c.messages_count > 0; })[0] || rows[0];
      if (!state.selected && first) select(first.id);
    }).catch(showError);
  }
  function renderConversations() {
    var ul = $('conversations');
    ul.innerHTML = state.conversations.map(function (c) {
      var when = new Date(c.created_at).toLocaleString();
      return '<li><button type="button" data-id="' + c.id + '" aria-current="' + (c.id === state.selected) + '"><span>#' + c.id + ' · ' + text(c.status) +
        (c.status_reason ? ' (' + text(c.status_reason) + ')' : '') + (c.messages_count != null ? ' · ' + c.messages_count + ' msg' : '') +
        '</span><span class="muted">' + text(when) + '</span></button></li>';
    }).join('') || '<li class="muted">No conversations yet.</li>';
  }
  $('conversations').addEventListener('click', function (e) {
    var b = e.target.closest('button');
    if (b) select(Number(b.getAttribute('data-id')));
  });
  function select(id) {
    state.selected = id;
    renderConversations();
    $('messages-title').textContent = 'Messages of conversation #' + id;
    loadMessages(id);
  }
  function loadMessages(id) {
    api('/ai/conversations/' + id + '/messages', { page_size: '100' }).then(function (rows) {
      if (id !== state.selected) return;
      $('messages').innerHTML = '';
      rows.forEach(appendMessage);
    }).catch(showError);
  }
  function appendMessage(m) {
    var li = document.createElement('li');
    li.className = m.role;
    li.innerHTML = '<span class="role">' + text(m.role) + (m.public ? '' : ' · internal') + ' · ' + text(new Date(m.created_at).toLocaleTimeString()) + '</span>' + text(m.content);
    $('messages').appendChild(li);
  }

  function showError(err) {
    if (err && err.status === 401) { $('signout').click(); $('signin-error').textContent = 'The session ended: sign in again.'; return; }
    setMode('error: ' + (err && err.message ? err.message : 'unknown'));
  }

  // a reload keeps the session of this tab
  try {
    var saved = JSON.parse(sessionStorage.getItem(STORE) || 'null');
    if (saved && saved.project) { state.auth = saved; start(); }
  } catch (e) { /* ignore */ }
})();
