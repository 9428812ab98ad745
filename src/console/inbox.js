/* OrderGraph console: the inbox of live conversations (CONTRACT §9.5, §10.2): the list, a thread with
 * its delivery ticks, take over / hand back, the reply box. Plain JS, no build step. It runs while
 * console.js has a session: from its `console:signed-in` event (or at once after a reload) until
 * `console:signed-out`. */
(function () {
  'use strict';
  var $ = function (id) {
    return document.getElementById(id);
  };
  var og = window.OrderGraphConsole;
  var api = og.api,
    base = og.base,
    session = og.session,
    h = og.h,
    fill = og.fill,
    showError = og.showError;
  var state = {
    events: null,
    poll: null,
    clock: null,
    reopen: null,
    selected: null,
    conversations: [],
    messages: new Map(),
    counted: new Set(),
    lastEventId: null,
  };

  // ---- inbox: live conversations --------------------------------------------------------
  // Conversations and messages are kept by id, so a message that arrives from the stream and from a
  // list read (or twice, after a resume) is shown once; a status only ever moves a message forward.
  var EVENT_TYPES = ['conversation.created', 'conversation.closed', 'conversation.handoff', 'message.created', 'message.status'];
  var RANK = { pending: 1, accepted: 2, sent: 3, delivered: 4, read: 5, failed: 5 };
  var TICKS = {
    pending: ['🕓', 'pending'],
    accepted: ['✓', 'accepted'],
    sent: ['✓', 'sent'],
    delivered: ['✓✓', 'delivered'],
    read: ['✓✓', 'read'],
    failed: ['✗', 'failed'],
  };
  var REPLY_ERRORS = {
    ERROR_WHATSAPP_WINDOW_CLOSED:
      "Not sent: WhatsApp's 24-hour window is closed, because the customer has not written for more than 24 hours. Only a template message can reach them now.",
    ERROR_AI_CONVERSATION_CLOSED: 'Not sent: this conversation is closed.',
    ERROR_AI_CONVERSATION_HANDED_OFF: 'Not sent: a person is handling this conversation.',
    ERROR_AI_CONVERSATION_NOT_FOUND: 'Not sent: this conversation no longer exists for you.',
  };

  function credentialQuery() {
    var a = session();
    return a.key ? 'api_key=' + encodeURIComponent(a.key) : 'access_token=' + encodeURIComponent(a.token);
  }
  function streamUrl() {
    return (
      base() + '/ai/events?' + credentialQuery() + (state.lastEventId ? '&last_event_id=' + encodeURIComponent(state.lastEventId) : '')
    );
  }
  function startLive() {
    loadConversations();
    // EventSource cannot show a status: ask once whether the stream exists, then open it
    var ctl = new AbortController();
    fetch(streamUrl(), { signal: ctl.signal, headers: { Accept: 'text/event-stream' } }).then(
      function (res) {
        ctl.abort();
        var type = res.headers.get('content-type') || '';
        if (res.status !== 200 || type.indexOf('text/event-stream') !== 0) return startPolling();
        openStream();
      },
      function () {
        startPolling();
      },
    );
    state.clock = setInterval(renderThreadHead, 30000);
  }
  /**
   * A dropped stream is opened again, after a second, from the last event this page saw
   * (`last_event_id`): the server sends every event after it, none twice. (The browser's own retry is
   * not left to run: after a failed answer it gives up, and it would not say where it resumed.)
   */
  function openStream() {
    if (!session()) return;
    var es = new EventSource(streamUrl());
    state.events = es;
    es.onopen = function () {
      setMode('live (events)');
    };
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
    es.addEventListener('stream.reset', function () {
      loadConversations();
      if (state.selected) loadMessages(state.selected);
    });
  }
  /** Drops the stream and opens it again from the last event seen (also what a dropped stream does). */
  function reconnect() {
    if (state.events) state.events.close();
    state.events = null;
    openStream();
  }
  function startPolling() {
    if (state.poll || !session()) return;
    setMode('polling every 10 s');
    state.poll = setInterval(function () {
      loadConversations();
      if (state.selected) loadMessages(state.selected);
    }, 10000);
  }
  function stopLive() {
    if (state.events) state.events.close();
    [state.poll, state.clock].forEach(function (t) {
      if (t) clearInterval(t);
    });
    if (state.reopen) clearTimeout(state.reopen);
    state.events = null;
    state.poll = null;
    state.clock = null;
    state.selected = null;
    state.lastEventId = null;
    state.messages = new Map();
    state.counted = new Set();
  }
  function setMode(m) {
    $('live-mode').textContent = m;
  }

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
    if (c) {
      c.messages_count = (c.messages_count || 0) + 1;
      renderConversations();
    }
  }
  function find(id) {
    return state.conversations.filter(function (x) {
      return x.id === id;
    })[0];
  }
  function putConversation(c) {
    var known = find(c.id);
    if (known) Object.assign(known, c);
    else state.conversations = [c].concat(state.conversations).slice(0, 50);
    renderConversations();
    if (c.id === state.selected) renderThreadHead();
  }
  function loadConversations() {
    api('/ai/conversations', { where: JSON.stringify({ status: 'active' }), orderBy: '-id', page_size: '30' })
      .then(function (rows) {
        var open = state.selected && find(state.selected);
        state.conversations = rows.concat(
          open &&
            !rows.some(function (r) {
              return r.id === open.id;
            })
            ? [open]
            : [],
        );
        renderConversations();
        var first =
          rows.filter(function (c) {
            return c.messages_count > 0;
          })[0] || rows[0];
        if (!state.selected && first) select(first.id);
        else if (state.selected) renderThreadHead();
      })
      .catch(showError);
  }
  function handlerWords(c) {
    if (c.handler !== 'human') return 'Handled by the AI';
    if (c.assignee_id == null) return 'Handled by a person';
    return 'Handled by ' + (c.assignee_id === session().userId ? 'you' : 'user #' + c.assignee_id);
  }
  /** The WhatsApp window's time left, in words; '' for conversations that are not on WhatsApp. */
  function windowWords(c) {
    if (!c.contact) return '';
    var left = c.window_expires_at ? Date.parse(c.window_expires_at) - Date.now() : -1;
    if (left <= 0) return 'Window closed';
    var h = Math.floor(left / 3600000),
      m = Math.floor((left % 3600000) / 60000);
    return 'Window: ' + (h ? h + ' h ' : '') + m + ' min left';
  }
  function renderConversations() {
    var items = state.conversations.map(function (c) {
      return h(
        'li',
        null,
        h(
          'button',
          { type: 'button', 'data-id': c.id, 'aria-current': String(c.id === state.selected) },
          h(
            'span',
            null,
            '#' + c.id + ' ',
            c.handler === 'human' ? h('span', { class: 'badge human' }, 'person') : h('span', { class: 'badge' }, 'AI'),
            (c.contact ? ' +' + c.contact : '') +
              (c.status !== 'active' ? ' · ' + c.status : '') +
              (c.messages_count != null ? ' · ' + c.messages_count + ' msg' : ''),
          ),
          h('span', { class: 'muted' }, windowWords(c) || new Date(c.created_at).toLocaleString()),
        ),
      );
    });
    fill($('conversations'), items.length ? items : h('li', { class: 'muted' }, 'No live conversations.'));
  }
  $('conversations').addEventListener('click', function (e) {
    var b = e.target.closest('button');
    if (b) select(Number(b.getAttribute('data-id')));
  });
  function select(id) {
    state.selected = id;
    state.messages = new Map();
    $('messages').replaceChildren();
    $('reply-error').textContent = '';
    $('thread-error').textContent = '';
    renderConversations();
    renderThreadHead();
    loadMessages(id);
  }
  function renderThreadHead() {
    var c = state.selected && find(state.selected);
    if (!c) return;
    $('messages-title').textContent =
      'Conversation #' + c.id + (c.contact ? ' with +' + c.contact : '') + (c.status !== 'active' ? ' (' + c.status + ')' : '');
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
    api('/ai/conversations/' + id + '/handoff', null, { body: { handler: b.getAttribute('data-handler') } })
      .then(putConversation, function (err) {
        $('thread-error').textContent = REPLY_ERRORS[err.code] ? REPLY_ERRORS[err.code].replace('Not sent: ', '') : err.message;
      })
      .then(function () {
        b.disabled = false;
      });
  });
  function loadMessages(id) {
    api('/ai/conversations/' + id + '/messages', { page_size: '100', orderBy: '-id' })
      .then(function (rows) {
        if (id !== state.selected) return;
        rows.forEach(function (m) {
          state.counted.add(m.id);
        });
        rows.reverse().forEach(upsertMessage);
      })
      .catch(showError);
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
      var after = Array.prototype.filter.call(list.children, function (x) {
        return Number(x.getAttribute('data-id')) > m.id;
      })[0];
      list.insertBefore(li, after || null);
    }
    li.className = m.role;
    var by = m.author_id != null ? ' · by ' + (m.author_id === session().userId ? 'you' : 'user #' + m.author_id) : '';
    fill(
      li,
      h('span', { class: 'role' }, m.role + (m.public ? '' : ' · internal') + by + ' · ' + new Date(m.created_at).toLocaleTimeString()),
      m.content,
      tick(m),
    );
    if (!known) list.scrollTop = list.scrollHeight;
  }
  function tick(m) {
    if (!m.delivery_status) return null;
    var t = TICKS[m.delivery_status] || ['', m.delivery_status];
    var reason = m.delivery_status === 'failed' && m.delivery_error ? ': ' + m.delivery_error : '';
    return h('span', { class: 'tick ' + m.delivery_status, 'data-status': m.delivery_status }, t[0] + ' ' + t[1] + reason);
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
    if (!content) {
      $('reply-error').textContent = 'Write a reply first.';
      box.focus();
      return;
    }
    replyKey = replyKey || newKey();
    var button = $('reply').querySelector('button');
    button.disabled = true;
    $('reply-hint').textContent = 'Sending…';
    api('/ai/conversations/' + id + '/messages', null, {
      body: { role: 'assistant', content: content },
      headers: { 'Idempotency-Key': replyKey },
    })
      .then(
        function (m) {
          replyKey = null;
          box.value = '';
          $('reply-hint').textContent = '';
          countMessage(m);
          if (m.conversation_id === state.selected) upsertMessage(m);
        },
        function (err) {
          if (err.status && err.status < 500 && err.code !== 'ERROR_IDEMPOTENCY_IN_PROGRESS') replyKey = null;
          $('reply-hint').textContent = '';
          $('reply-error').textContent = REPLY_ERRORS[err.code] || 'Not sent: ' + (err.message || 'the server cannot be reached.');
          if (err.status === 401) showError(err);
        },
      )
      .then(function () {
        button.disabled = false;
      });
  });
  $('reply-text').addEventListener('input', function () {
    replyKey = null;
  });

  function begin() {
    startLive();
    $('reply').hidden = !session().token;
    $('reply-off').hidden = !!session().token;
  }
  document.addEventListener('console:signed-in', begin);
  document.addEventListener('console:signed-out', stopLive);
  // what other panels and the browser tests may use
  og.reconnect = reconnect;
  // a reload signed in again before this script ran
  if (session()) begin();
})();
