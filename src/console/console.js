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
  /** A call to the API; `send` = {method, body, headers} for writes. Errors carry the status and the code. */
  function api(path, query, send) {
    var qs = query ? '?' + new URLSearchParams(query).toString() : '';
    var init = { headers: headers() };
    if (send) {
      init.method = send.method || 'POST';
      init.headers['Content-Type'] = 'application/json';
      Object.keys(send.headers || {}).forEach(function (h) { init.headers[h] = send.headers[h]; });
      init.body = JSON.stringify(send.body || {});
    }
    return fetch(base() + path + qs, init).then(function (res) {
      return res.json().catch(function () { return {}; }).then(function (body) {
        if (!res.ok || body.error) {
          var err = new Error((body.result && body.result.join ? body.result.join(' ') : '') || res.statusText);
          err.status = res.status;
          err.code = body.code;
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
        state.auth = { project: project, token: body.result.session.access_token, email: email, userId: body.result.id };
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
    $('reply').hidden = !state.auth.token;
    $('reply-off').hidden = !!state.auth.token;
    // the hook for separate panels (agents.js and the like): they read the same session
    document.dispatchEvent(new CustomEvent('console:signed-in', { detail: { project: state.auth.project } }));
  }

  // ---- overview ------------------------------------------------------------------------
  // The month so far against the same days of the previous month (1–25 Nov against 1–25 Oct), from
  // the series: comparing with the whole previous month would show every figure falling early on.
  var month = new Date().toISOString().slice(0, 7);
  var money = new Intl.NumberFormat(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  var count = new Intl.NumberFormat();
  function spans(now) {
    var y = now.getFullYear(), m = now.getMonth();
    var prevEnd = new Date(y, m - 1, Math.min(now.getDate(), new Date(y, m, 0).getDate()));
    return {
      current: { from: ymd(new Date(y, m, 1)), to: ymd(now), label: dayRange(new Date(y, m, 1), now) },
      previous: { from: ymd(new Date(y, m - 1, 1)), to: ymd(prevEnd), label: dayRange(new Date(y, m - 1, 1), prevEnd) },
    };
  }
  /** 'Nov 1–25' (or 'Nov 1' on the first day). */
  function dayRange(a, b) {
    var m = a.toLocaleDateString('en', { month: 'short' }) + ' ';
    return m + a.getDate() + (a.getDate() === b.getDate() ? '' : '–' + b.getDate());
  }
  /** One figure over one span: the month bucket, partly inside the range, holds exactly the span's value. */
  function spanValue(metric, span) {
    return api('/ai/metrics/series', { metric: metric, group_by: 'month', from: span.from, to: span.to, timezone: zone })
      .then(function (s) { return s.points.reduce(function (a, p) { return a + p.value; }, 0); });
  }
  function card(label, cur, prev, fmt, spanLabel, points) {
    var diff = points ? cur - prev : prev === 0 ? null : ((cur - prev) / prev) * 100;
    var cls = diff > 0 ? 'up' : diff < 0 ? 'down' : 'muted';
    var change = diff === null ? (cur > 0 ? 'new' : '0%') : (diff > 0 ? '▲ +' : diff < 0 ? '▼ ' : '') + money.format(diff) + (points ? ' pts' : '%');
    return '<div class="card" role="group" aria-label="' + label + '"><div class="label">' + label + '</div><div class="value">' + fmt.format(cur) +
      '</div><div class="' + cls + '">' + change + ' <span class="muted">(' + fmt.format(prev) + ' in ' + text(spanLabel) + ')</span></div></div>';
  }
  function loadOverview() {
    var sp = spans(new Date());
    $('overview-span').textContent = sp.current.label + ', compared with the same days of last month (' + sp.previous.label + ')';
    var metrics = ['orders', 'revenue', 'conversations', 'success_rate'];
    Promise.all(metrics.map(function (m) { return Promise.all([spanValue(m, sp.current), spanValue(m, sp.previous)]); })).then(function (r) {
      var v = {};
      metrics.forEach(function (m, i) { v[m] = { cur: r[i][0], prev: r[i][1] }; });
      var avg = function (k) { return v.orders[k] ? v.revenue[k] / v.orders[k] : 0; };
      var l = sp.previous.label;
      $('cards').innerHTML = card('Orders', v.orders.cur, v.orders.prev, count, l) + card('Revenue', v.revenue.cur, v.revenue.prev, money, l) +
        card('Average order', avg('cur'), avg('prev'), money, l) + card('Conversations', v.conversations.cur, v.conversations.prev, count, l) +
        card('Success rate %', v.success_rate.cur, v.success_rate.prev, money, l, true);
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
    $('range').textContent = 'By ' + group + ', ' + range.from + ' to ' + range.to + ' (' + zone + '). The current ' + group + ' is not over: its point is dashed, the count so far.';
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
      (metric === 'success_rate' ? 'highest ' + Math.max.apply(null, ys.concat(0)) + '%' : 'total ' + (metric === 'revenue' ? money.format(total) : count.format(total))) +
      '; the last point is the current ' + s.group_by + ' so far');
    // the current bucket is partial: drawn apart, dashed and lighter, instead of a cliff towards zero
    var n = ys.length;
    var whole = ys.map(function (v, i) { return i < n - 1 ? v : null; });
    var partial = ys.map(function (v, i) { return i >= n - 2 ? v : null; });
    if (state.plots[metric]) state.plots[metric].destroy();
    var width = Math.max(240, el.clientWidth || fig.clientWidth - 32);
    var opts = {
      width: width, height: 220,
      scales: { x: { time: true }, y: { range: function (u, min, max) { return [0, max > 0 ? max * 1.1 : 1]; } } },
      legend: { show: false },
      cursor: { drag: { x: false, y: false } },
      axes: [{ stroke: '#4d5560', grid: { stroke: '#eceff3' } }, { stroke: '#4d5560', grid: { stroke: '#eceff3' }, size: 56 }],
      series: [{}, { label: label, stroke: COLORS[metric], width: 2, fill: COLORS[metric] + '22', points: { show: ys.length <= 40 } },
        { label: label + ' (so far)', stroke: COLORS[metric] + '88', width: 2, dash: [6, 5], fill: COLORS[metric] + '0d', points: { show: true, fill: '#fff' } }],
    };
    el.innerHTML = '';
    state.plots[metric] = new uPlot(opts, [xs, whole, partial], el);
    fig.setAttribute('data-partial', n ? new Date(xs[n - 1] * 1000).toISOString() : '');
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

  // ---- inbox: live conversations --------------------------------------------------------
  // Conversations and messages are kept by id, so a message that arrives from the stream and from a
  // list read (or twice, after a resume) is shown once; a status only ever moves a message forward.
  var EVENT_TYPES = ['conversation.created', 'conversation.closed', 'conversation.handoff', 'message.created', 'message.status'];
  var RANK = { pending: 1, accepted: 2, sent: 3, delivered: 4, read: 5, failed: 5 };
  var TICKS = {
    pending: ['🕓', 'pending'], accepted: ['✓', 'accepted'], sent: ['✓', 'sent'],
    delivered: ['✓✓', 'delivered'], read: ['✓✓', 'read'], failed: ['✗', 'failed'],
  };
  var REPLY_ERRORS = {
    ERROR_WHATSAPP_WINDOW_CLOSED: 'Not sent: WhatsApp\'s 24-hour window is closed, because the customer has not written for more than 24 hours. Only a template message can reach them now.',
    ERROR_AI_CONVERSATION_CLOSED: 'Not sent: this conversation is closed.',
    ERROR_AI_CONVERSATION_HANDED_OFF: 'Not sent: a person is handling this conversation.',
    ERROR_AI_CONVERSATION_NOT_FOUND: 'Not sent: this conversation no longer exists for you.',
  };
  state.messages = new Map();
  state.counted = new Set();
  state.lastEventId = null;

  function credentialQuery() { return state.auth.key ? 'api_key=' + encodeURIComponent(state.auth.key) : 'access_token=' + encodeURIComponent(state.auth.token); }
  function streamUrl() {
    return base() + '/ai/events?' + credentialQuery() + (state.lastEventId ? '&last_event_id=' + encodeURIComponent(state.lastEventId) : '');
  }
  function startLive() {
    loadConversations();
    // EventSource cannot show a status: ask once whether the stream exists, then open it
    var ctl = new AbortController();
    fetch(streamUrl(), { signal: ctl.signal, headers: { Accept: 'text/event-stream' } }).then(function (res) {
      ctl.abort();
      var type = res.headers.get('content-type') || '';
      if (res.status !== 200 || type.indexOf('text/event-stream') !== 0) return startPolling();
      openStream();
    }, function () { startPolling(); });
    state.clock = setInterval(renderThreadHead, 30000);
  }
  /**
   * A dropped stream is opened again, after a second, from the last event this page saw
   * (`last_event_id`): the server sends every event after it, none twice. (The browser's own retry is
   * not left to run: after a failed answer it gives up, and it would not say where it resumed.)
   */
  function openStream() {
    if (!state.auth) return;
    var es = new EventSource(streamUrl());
    state.events = es;
    es.onopen = function () { setMode('live (events)'); };
    es.onerror = function () {
      if (state.events !== es) return;
      es.close();
      state.events = null;
      setMode('reconnecting…');
      state.reopen = setTimeout(openStream, 1000);
    };
    EVENT_TYPES.forEach(function (t) {
      es.addEventListener(t, function (ev) {
        if (ev.lastEventId) state.lastEventId = ev.lastEventId;
        onEvent(JSON.parse(ev.data));
      });
    });
    es.addEventListener('stream.reset', function () { loadConversations(); if (state.selected) loadMessages(state.selected); });
  }
  /** Drops the stream and opens it again from the last event seen (also what a dropped stream does). */
  function reconnect() {
    if (state.events) state.events.close();
    state.events = null;
    openStream();
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
    [state.poll, state.clock].forEach(function (t) { if (t) clearInterval(t); });
    if (state.reopen) clearTimeout(state.reopen);
    state.events = null;
    state.poll = null;
    state.clock = null;
    state.selected = null;
    state.lastEventId = null;
    state.messages = new Map();
    state.counted = new Set();
  }
  function setMode(m) { $('live-mode').textContent = m; }

  function onEvent(ev) {
    if (ev.type === 'message.created' || ev.type === 'message.status') {
      var m = ev.data;
      if (ev.type === 'message.created') countMessage(m);
      if (m.conversation_id === state.selected) upsertMessage(m);
      return;
    }
    putConversation(ev.data);
  }
  /** messages_count follows new messages once each (the reply's answer and its event are one message). */
  function countMessage(m) {
    if (state.counted.has(m.id)) return;
    state.counted.add(m.id);
    var c = find(m.conversation_id);
    if (c) { c.messages_count = (c.messages_count || 0) + 1; renderConversations(); }
  }
  function find(id) { return state.conversations.filter(function (x) { return x.id === id; })[0]; }
  function putConversation(c) {
    var known = find(c.id);
    if (known) Object.assign(known, c);
    else state.conversations = [c].concat(state.conversations).slice(0, 50);
    renderConversations();
    if (c.id === state.selected) renderThreadHead();
  }
  function loadConversations() {
    api('/ai/conversations', { where: JSON.stringify({ status: 'active' }), orderBy: '-id', page_size: '30' }).then(function (rows) {
      var open = state.selected && find(state.selected);
      state.conversations = rows.concat(open && !rows.some(function (r) { return r.id === open.id; }) ? [open] : []);
      renderConversations();
      var first = rows.filter(function (c) { return c.messages_count > 0; })[0] || rows[0];
      if (!state.selected && first) select(first.id);
      else if (state.selected) renderThreadHead();
    }).catch(showError);
  }
  function handlerWords(c) {
    if (c.handler !== 'human') return 'Handled by the AI';
    if (c.assignee_id == null) return 'Handled by a person';
    return 'Handled by ' + (c.assignee_id === state.auth.userId ? 'you' : 'user #' + c.assignee_id);
  }
  /** The WhatsApp window's time left, in words; '' for conversations that are not on WhatsApp. */
  function windowWords(c) {
    if (!c.contact) return '';
    var left = c.window_expires_at ? Date.parse(c.window_expires_at) - Date.now() : -1;
    if (left <= 0) return 'Window closed';
    var h = Math.floor(left / 3600000), m = Math.floor((left % 3600000) / 60000);
    return 'Window: ' + (h ? h + ' h ' : '') + m + ' min left';
  }
  function renderConversations() {
    var ul = $('conversations');
    ul.innerHTML = state.conversations.map(function (c) {
      var badge = c.handler === 'human' ? '<span class="badge human">person</span>' : '<span class="badge">AI</span>';
      return '<li><button type="button" data-id="' + c.id + '" aria-current="' + (c.id === state.selected) + '"><span>#' + c.id + ' ' + badge +
        (c.contact ? ' +' + text(c.contact) : '') + (c.status !== 'active' ? ' · ' + text(c.status) : '') +
        (c.messages_count != null ? ' · ' + c.messages_count + ' msg' : '') + '</span><span class="muted">' + text(windowWords(c) || new Date(c.created_at).toLocaleString()) +
        '</span></button></li>';
    }).join('') || '<li class="muted">No live conversations.</li>';
  }
  $('conversations').addEventListener('click', function (e) {
    var b = e.target.closest('button');
    if (b) select(Number(b.getAttribute('data-id')));
  });
  function select(id) {
    state.selected = id;
    state.messages = new Map();
    $('messages').innerHTML = '';
    $('reply-error').textContent = '';
    $('thread-error').textContent = '';
    renderConversations();
    renderThreadHead();
    loadMessages(id);
  }
  function renderThreadHead() {
    var c = state.selected && find(state.selected);
    if (!c) return;
    $('messages-title').textContent = 'Conversation #' + c.id + (c.contact ? ' with +' + c.contact : '') + (c.status !== 'active' ? ' (' + c.status + ')' : '');
    $('window').textContent = windowWords(c);
    $('window').hidden = !c.contact;
    $('window').className = 'pill' + (windowWords(c) === 'Window closed' ? ' closed' : '');
    $('handler').textContent = handlerWords(c);
    var b = $('handoff');
    b.hidden = c.status !== 'active';
    b.textContent = c.handler === 'human' ? 'Hand back to the AI' : 'Take over';
    b.setAttribute('data-handler', c.handler === 'human' ? 'ai' : 'human');
  }
  $('handoff').addEventListener('click', function () {
    var id = state.selected;
    var b = $('handoff');
    b.disabled = true;
    $('thread-error').textContent = '';
    api('/ai/conversations/' + id + '/handoff', null, { body: { handler: b.getAttribute('data-handler') } }).then(putConversation, function (err) {
      $('thread-error').textContent = REPLY_ERRORS[err.code] ? REPLY_ERRORS[err.code].replace('Not sent: ', '') : err.message;
    }).then(function () { b.disabled = false; });
  });
  function loadMessages(id) {
    api('/ai/conversations/' + id + '/messages', { page_size: '100', orderBy: '-id' }).then(function (rows) {
      if (id !== state.selected) return;
      rows.forEach(function (m) { state.counted.add(m.id); });
      rows.reverse().forEach(upsertMessage);
    }).catch(showError);
  }
  function upsertMessage(m) {
    var known = state.messages.get(m.id);
    if (known && (RANK[known.delivery_status] || 0) > (RANK[m.delivery_status] || 0)) return;
    state.messages.set(m.id, m);
    var list = $('messages');
    var li = list.querySelector('li[data-id="' + m.id + '"]');
    if (!li) {
      li = document.createElement('li');
      li.setAttribute('data-id', String(m.id));
      var after = Array.prototype.filter.call(list.children, function (x) { return Number(x.getAttribute('data-id')) > m.id; })[0];
      list.insertBefore(li, after || null);
    }
    li.className = m.role;
    var by = m.author_id != null ? ' · by ' + (m.author_id === state.auth.userId ? 'you' : 'user #' + m.author_id) : '';
    li.innerHTML = '<span class="role">' + text(m.role) + (m.public ? '' : ' · internal') + by + ' · ' + text(new Date(m.created_at).toLocaleTimeString()) + '</span>' +
      text(m.content) + tick(m);
    if (!known) list.scrollTop = list.scrollHeight;
  }
  function tick(m) {
    if (!m.delivery_status) return '';
    var t = TICKS[m.delivery_status] || ['', m.delivery_status];
    var reason = m.delivery_status === 'failed' && m.delivery_error ? ': ' + text(m.delivery_error) : '';
    return '<span class="tick ' + text(m.delivery_status) + '" data-status="' + text(m.delivery_status) + '">' + t[0] + ' ' + t[1] + reason + '</span>';
  }

  // ---- reply box (administrators signed in with email and password) ---------------------
  // One Idempotency-Key per reply: a retry after a lost answer reuses it (the server runs it once);
  // a new key after any answer, so the next reply is a new message.
  var replyKey = null;
  function newKey() {
    return window.crypto && crypto.randomUUID ? crypto.randomUUID() : Date.now().toString(36) + Math.random().toString(36).slice(2);
  }
  $('reply').addEventListener('submit', function (e) {
    e.preventDefault();
    var id = state.selected;
    var box = $('reply-text');
    var content = box.value.trim();
    $('reply-error').textContent = '';
    if (!id) return;
    if (!content) { $('reply-error').textContent = 'Write a reply first.'; box.focus(); return; }
    replyKey = replyKey || newKey();
    var button = $('reply').querySelector('button');
    button.disabled = true;
    $('reply-hint').textContent = 'Sending…';
    api('/ai/conversations/' + id + '/messages', null, { body: { role: 'assistant', content: content }, headers: { 'Idempotency-Key': replyKey } }).then(function (m) {
      replyKey = null;
      box.value = '';
      $('reply-hint').textContent = '';
      countMessage(m);
      if (m.conversation_id === state.selected) upsertMessage(m);
    }, function (err) {
      if (err.status && err.status < 500 && err.code !== 'ERROR_IDEMPOTENCY_IN_PROGRESS') replyKey = null;
      $('reply-hint').textContent = '';
      $('reply-error').textContent = REPLY_ERRORS[err.code] || 'Not sent: ' + (err.message || 'the server cannot be reached.');
      if (err.status === 401) showError(err);
    }).then(function () { button.disabled = false; });
  });
  $('reply-text').addEventListener('input', function () { replyKey = null; });

  // what other panels and the browser tests may use
  window.OrderGraphConsole = { api: function (path, query, send) { return api(path, query, send); }, reconnect: reconnect };

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
