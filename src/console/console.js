/* OrderGraph console: plain JS, no build step; every asset comes from this server. This script signs in and
 * out and draws the overview, the charts and the top products; the inbox is inbox.js, agents agents.js. */
(function () {
  'use strict';
  var $ = function (id) {
    return document.getElementById(id);
  };
  var h = window.OrderGraphDom.h,
    fill = window.OrderGraphDom.fill;
  var i18n = window.OrderGraphI18n,
    t = i18n.t,
    lang = i18n.lang;
  var zone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  var state = { auth: null, group: 'day', plots: {} };
  var STORE = 'ordergraph-console';

  // ---- calls ---------------------------------------------------------------------------
  function base() {
    return '/v400/' + lang + '/' + encodeURIComponent(state.auth.project);
  }
  function headers() {
    return state.auth.key ? { 'X-Api-Key': state.auth.key } : { Authorization: 'Bearer ' + state.auth.token };
  }
  /**
   * A call to the API; `send` = {method, body, headers} for writes, or {form} for a multipart upload (the
   * browser sets its Content-Type); `whole`: the envelope (with `pagination`) instead of its `result`.
   * Errors carry the status and the code.
   */
  function api(path, query, send, whole) {
    var qs = query ? '?' + new URLSearchParams(query).toString() : '';
    var init = { headers: headers() };
    if (send) {
      init.method = send.method || 'POST';
      if (!send.form) init.headers['Content-Type'] = 'application/json';
      Object.keys(send.headers || {}).forEach(function (h) {
        init.headers[h] = send.headers[h];
      });
      init.body = send.form || JSON.stringify(send.body || {});
    }
    return fetch(base() + path + qs, init).then(function (res) {
      return res
        .json()
        .catch(function () {
          return {};
        })
        .then(function (body) {
          if (!res.ok || body.error) {
            var err = new Error((body.result && body.result.join ? body.result.join(' ') : '') || res.statusText);
            err.status = res.status;
            err.code = body.code;
            throw err;
          }
          return whole ? body : body.result;
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
  // the language: a choice reloads the page in it (the tab's session is kept)
  Object.keys(i18n.names).forEach(function (code) {
    $('lang').appendChild(h('option', { value: code, lang: code, selected: code === lang }, i18n.names[code]));
  });
  $('lang').addEventListener('change', function () {
    i18n.choose($('lang').value);
  });
  var params = new URLSearchParams(location.search);
  $('project').value = params.get('project') || localStorage.getItem(STORE + ':project') || 'demo';

  form.addEventListener('submit', function (e) {
    e.preventDefault();
    $('signin-error').textContent = '';
    var project = $('project').value.trim();
    if (!project) return fail(t('enter_project'), $('project'));
    if (form.elements.method.value === 'key') {
      var key = $('key').value.trim();
      if (!key) return fail(t('enter_key'), $('key'));
      state.auth = { project: project, key: key };
      // a metrics read checks the key's level
      api('/ai/metrics/overview', { timezone: zone }).then(start, function (err) {
        fail(err.status === 401 || err.status === 403 ? t('key_refused') : err.message, $('key'));
      });
    } else {
      var email = $('email').value.trim();
      var password = $('password').value;
      if (!email || !password) return fail(t('enter_password'), $('email'));
      fetch('/v400/' + lang + '/' + encodeURIComponent(project) + '/auth', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ email: email, password: password }),
      })
        .then(function (res) {
          return res.json();
        })
        .then(
          function (body) {
            if (body.error) return fail(t('wrong_password'), $('password'));
            // administrators and business owners (who see only their businesses: the API scopes every read)
            if (body.result.level !== 0 && body.result.level !== 2) return fail(t('levels_only'), $('email'));
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
          function () {
            fail(t('unreachable'), $('email'));
          },
        );
    }
  });
  function fail(message, field) {
    state.auth = null;
    $('signin-error').textContent = message;
    if (field) field.focus();
  }
  $('signout').addEventListener('click', function () {
    document.dispatchEvent(new CustomEvent('console:signed-out'));
    // the session ends on the server too (CONTRACT §11): its token is refused from now on, its streams end
    if (state.auth && state.auth.token) {
      fetch(base() + '/auth/session', { method: 'DELETE', headers: headers(), keepalive: true }).catch(function () {
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

  function start() {
    localStorage.setItem(STORE + ':project', state.auth.project);
    sessionStorage.setItem(STORE, JSON.stringify(state.auth));
    $('signin').hidden = true;
    $('dashboard').hidden = false;
    $('signout').hidden = false;
    showWho(null);
    $('key').value = '';
    $('password').value = '';
    $('main').focus();
    // the restaurant's name and currency first: every amount is shown with its currency
    readPlace().then(function () {
      loadOverview();
      loadCharts();
      loadProducts();
    });
    // the hook for the inbox (inbox.js) and other panels (agents.js and the like): they read the same session
    document.dispatchEvent(new CustomEvent('console:signed-in', { detail: { project: state.auth.project } }));
  }

  // ---- who is signed in, where --------------------------------------------------------------
  /** The person's name (the email when the user has none; "server key" for a key) and the restaurant's. */
  function showWho(store) {
    var auth = state.auth;
    var person = auth.key ? t('who_key') : auth.name || auth.email;
    $('who').textContent = [person, store || t('project', { code: auth.project })].join(' · ');
    $('who').title = [auth.email, t('project', { code: auth.project }), zone].filter(Boolean).join(' · ');
  }
  /**
   * The restaurant: its name (the public config `store_name`, §5) and its currency (the newest order's, §15.3; the
   * businesses' default, EUR, before the first order).
   */
  function readPlace() {
    var name = api('/configs', { mode: 'dictionary' }).then(
      function (d) {
        var entry = d && d.store_name;
        return entry && typeof entry === 'object' ? entry.value : entry || null;
      },
      function () {
        return null;
      },
    );
    var businesses = api('/ai/businesses').then(
      function (list) {
        return list;
      },
      function () {
        return [];
      },
    );
    var newest = api('/ai/orders', { page_size: '1' }).then(
      function (rows) {
        return (rows[0] && rows[0].currency) || null;
      },
      function () {
        return null;
      },
    );
    return Promise.all([name, businesses, newest]).then(function (r) {
      if (!state.auth) return;
      var list = r[1];
      window.OrderGraphConsole.businesses = new Map(
        list.map(function (b) {
          return [b.id, b];
        }),
      );
      // the businesses' one currency; when they differ, the newest order's; EUR (§15.1's default) without either
      var codes = new Set(
        list.map(function (b) {
          return b.currency;
        }),
      );
      state.currency = codes.size === 1 ? list[0].currency : r[2] || 'EUR';
      // a business owner's restaurant is their business when the project names none
      showWho(r[0] || (list.length === 1 ? list[0].name : null));
      document.dispatchEvent(new CustomEvent('console:place'));
    });
  }
  var moneyBy = new Map();
  /** An amount with its currency in the page's language (22,50 €, €22.50); the plain number when the code is unknown. */
  function money(amount, currency) {
    var code = currency || state.currency || 'EUR';
    if (!moneyBy.has(code)) {
      try {
        moneyBy.set(code, new Intl.NumberFormat(lang, { style: 'currency', currency: code }));
      } catch {
        moneyBy.set(code, null);
      }
    }
    var f = moneyBy.get(code);
    return f ? f.format(Number(amount)) : decimals.format(Number(amount)) + ' ' + code;
  }
  /** `money` as a formatter (the overview's cards take one). */
  var moneyFormat = { format: money };

  // ---- overview ------------------------------------------------------------------------
  // The month so far against the same days of the previous month (1–25 Nov against 1–25 Oct), from
  // the series: comparing with the whole previous month would show every figure falling early on.
  var month = new Date().toISOString().slice(0, 7);
  var decimals = new Intl.NumberFormat(lang, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  var count = new Intl.NumberFormat(lang);
  function spans(now) {
    var y = now.getFullYear(),
      m = now.getMonth();
    var prevEnd = new Date(y, m - 1, Math.min(now.getDate(), new Date(y, m, 0).getDate()));
    return {
      current: { from: ymd(new Date(y, m, 1)), to: ymd(now), label: dayRange(new Date(y, m, 1), now) },
      previous: { from: ymd(new Date(y, m - 1, 1)), to: ymd(prevEnd), label: dayRange(new Date(y, m - 1, 1), prevEnd) },
    };
  }
  /** 'Nov 1–25' (or 'Nov 1' on the first day). */
  function dayRange(a, b) {
    var m = a.toLocaleDateString(lang, { month: 'short' }) + ' ';
    return m + count.format(a.getDate()) + (a.getDate() === b.getDate() ? '' : '–' + count.format(b.getDate()));
  }
  /** One figure over one span: the month bucket, partly inside the range, holds exactly the span's value. */
  function spanValue(metric, span) {
    return api('/ai/metrics/series', { metric: metric, group_by: 'month', from: span.from, to: span.to, timezone: zone }).then(
      function (s) {
        return s.points.reduce(function (a, p) {
          return a + p.value;
        }, 0);
      },
    );
  }
  function card(label, cur, prev, fmt, spanLabel, points) {
    var diff = points ? cur - prev : prev === 0 ? null : ((cur - prev) / prev) * 100;
    var cls = diff > 0 ? 'up' : diff < 0 ? 'down' : 'muted';
    var change =
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
  function loadOverview() {
    var sp = spans(new Date());
    $('overview-span').textContent = t('overview_span', { current: sp.current.label, previous: sp.previous.label });
    var metrics = ['orders', 'revenue', 'conversations', 'success_rate'];
    Promise.all(
      metrics.map(function (m) {
        return Promise.all([spanValue(m, sp.current), spanValue(m, sp.previous)]);
      }),
    )
      .then(function (r) {
        var v = {};
        metrics.forEach(function (m, i) {
          v[m] = { cur: r[i][0], prev: r[i][1] };
        });
        var avg = function (k) {
          return v.orders[k] ? v.revenue[k] / v.orders[k] : 0;
        };
        var l = sp.previous.label;
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
  function ymd(d) {
    return d.getFullYear() + '-' + String(d.getMonth() + 1).padStart(2, '0') + '-' + String(d.getDate()).padStart(2, '0');
  }
  function rangeFor(group) {
    var to = new Date();
    var from = new Date(to);
    if (group === 'day') from.setDate(from.getDate() - 29);
    else if (group === 'week') from.setDate(from.getDate() - 7 * 13 + 1);
    else {
      from.setMonth(from.getMonth() - 11);
      from.setDate(1);
    }
    return { from: ymd(from), to: ymd(to) };
  }
  var COLORS = { orders: '#0b5cad', revenue: '#116329', conversations: '#6f42c1', success_rate: '#b54708' };
  function loadCharts() {
    var group = state.group;
    var range = rangeFor(group);
    $('range').textContent = t('range_' + group, { from: range.from, to: range.to, zone: zone });
    document.querySelectorAll('.chart').forEach(function (fig) {
      var metric = fig.getAttribute('data-metric');
      api('/ai/metrics/series', { metric: metric, group_by: group, from: range.from, to: range.to, timezone: zone })
        .then(function (s) {
          if (group !== state.group) return;
          draw(fig, metric, s);
        })
        .catch(showError);
    });
  }
  function draw(fig, metric, s) {
    var el = fig.querySelector('.plot');
    var xs = s.points.map(function (p) {
      return Date.parse(p.start) / 1000;
    });
    var ys = s.points.map(function (p) {
      return p.value;
    });
    var total = ys.reduce(function (a, b) {
      return a + b;
    }, 0);
    var label = fig.querySelector('figcaption').textContent;
    el.setAttribute(
      'aria-label',
      label +
        ' by ' +
        s.group_by +
        ': ' +
        ys.length +
        ' points, ' +
        (metric === 'success_rate'
          ? 'highest ' + Math.max.apply(null, ys.concat(0)) + '%'
          : 'total ' + (metric === 'revenue' ? money(total) : count.format(total))) +
        '; the last point is the current ' +
        s.group_by +
        ' so far',
    );
    // the current bucket is partial: drawn apart, dashed and lighter, instead of a cliff towards zero
    var n = ys.length;
    var whole = ys.map(function (v, i) {
      return i < n - 1 ? v : null;
    });
    var partial = ys.map(function (v, i) {
      return i >= n - 2 ? v : null;
    });
    if (state.plots[metric]) state.plots[metric].destroy();
    var width = Math.max(240, el.clientWidth || fig.clientWidth - 32);
    var opts = {
      width: width,
      height: 220,
      scales: {
        x: { time: true },
        y: {
          range: function (u, min, max) {
            return [0, max > 0 ? max * 1.1 : 1];
          },
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
          values: function (u, splits) {
            return splits.map(function (v) {
              return metric === 'revenue' ? moneyShort.format(v) : count.format(v);
            });
          },
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
  var moneyShort = {
    format: function (v) {
      return money(v).replace(/[.,]00(?=\D*$)/, '');
    },
  };
  var axisFormats = {
    day: new Intl.DateTimeFormat(lang, { day: 'numeric', month: 'short' }),
    week: new Intl.DateTimeFormat(lang, { day: 'numeric', month: 'short' }),
    month: new Intl.DateTimeFormat(lang, { month: 'short', year: 'numeric' }),
  };
  function axisDates(group) {
    var f = axisFormats[group] || axisFormats.day;
    return function (u, splits) {
      return splits.map(function (v) {
        return f.format(new Date(v * 1000)).replace(/\.$/, '');
      });
    };
  }
  $('grouping').addEventListener('click', function (e) {
    var b = e.target.closest('button');
    if (!b) return;
    state.group = b.getAttribute('data-group');
    document.querySelectorAll('#grouping button').forEach(function (x) {
      x.setAttribute('aria-pressed', String(x === b));
    });
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
  function loadProducts() {
    api('/ai/metrics/products', { month: month, timezone: zone })
      .then(function (rows) {
        fill(
          $('products'),
          rows.length
            ? rows.map(function (p) {
                return h(
                  'tr',
                  null,
                  h('td', null, p.name),
                  h('td', { class: 'num' }, count.format(p.times_sold)),
                  h('td', { class: 'num' }, count.format(p.orders)),
                  h('td', { class: 'num' }, money(p.revenue)),
                );
              })
            : h('tr', null, h('td', { colspan: 4, class: 'muted' }, t('no_orders'))),
        );
      })
      .catch(showError);
  }

  // what the inbox, other panels and the browser tests may use (inbox.js adds `reconnect`)
  window.OrderGraphConsole = {
    api: function (path, query, send, whole) {
      return api(path, query, send, whole);
    },
    base: base,
    /** An amount with its currency (the restaurant's unless given), in the page's language. */
    money: money,
    /** The businesses the caller may see, by id: `{id, name, currency}` (GET /ai/businesses), once signed in. */
    businesses: new Map(),
    /** The charts (uPlot instances by metric), for the browser tests. */
    plots: state.plots,
    /** The credential's header (media are fetched with it, never with a token in a URL). */
    headers: headers,
    lang: lang,
    t: t,
    session: function () {
      return state.auth;
    },
    h: h,
    fill: fill,
    showError: showError,
  };

  function showError(err) {
    if (err && err.status === 401) {
      $('signout').click();
      $('signin-error').textContent = t('session_ended');
      return;
    }
    $('live-mode').textContent = t('error', { message: err && err.message ? err.message : '?' });
  }

  // a reload keeps the session of this tab
  try {
    var saved = JSON.parse(sessionStorage.getItem(STORE) || 'null');
    if (saved && saved.project) {
      state.auth = saved;
      start();
    }
  } catch {
    /* ignore */
  }
})();
