// The Evenkeel console: plain DOM, no framework, no build step. Every value from the service is put in the page as
// text (textContent), never as markup.
'use strict';

const REFRESH_MS = 3000;
const KEY_STORE = 'evenkeel.apiKey';
const SVG = 'http://www.w3.org/2000/svg';

function $(id) {
  return document.getElementById(id);
}

function apiKey() {
  return sessionStorage.getItem(KEY_STORE) || '';
}

/** Calls the service; resolves to the JSON answer, or throws an Error naming the status and the service's reason. */
async function call(path, options = {}) {
  const headers = Object.assign({'Accept': 'application/json'}, options.headers || {});
  if (apiKey()) {
    headers['Authorization'] = 'Bearer ' + apiKey();
  }
  const response = await fetch(path, Object.assign({}, options, {headers}));
  let body;
  try {
    body = await response.json();
  } catch (e) {
    throw new Error(response.status + ': the answer is not JSON');
  }
  if (!response.ok) {
    let reason = body.error || JSON.stringify(body);
    if (response.status === 401) {
      reason += ' (type an API key above)';
    }
    const error = new Error(response.status + ': ' + reason);
    error.body = body;
    throw error;
  }
  return body;
}

function element(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) {
    node.textContent = String(text);
  }
  if (className) {
    node.className = className;
  }
  return node;
}

function row(cells) {
  const tr = document.createElement('tr');
  for (const cell of cells) {
    tr.appendChild(cell instanceof Node ? wrap(cell) : element('td', cell));
  }
  return tr;
}

function wrap(node) {
  const td = document.createElement('td');
  td.appendChild(node);
  return td;
}

function showStatus(id, message) {
  const node = $(id);
  node.textContent = message || '';
  node.hidden = !message;
}

function number(value) {
  return typeof value === 'number' ? value.toLocaleString('en-US') : String(value);
}

function bytes(value) {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (value >= 1024 && i < units.length - 1) {
    value /= 1024;
    i++;
  }
  return (i === 0 ? value : value.toFixed(1)) + ' ' + units[i];
}

function millis(value) {
  return value >= 10000 ? (value / 1000).toFixed(0) + ' s' : value + ' ms';
}

function time(epochMs) {
  return new Date(epochMs).toLocaleTimeString('en-GB', {hour12: false});
}

function dateTime(epochMs) {
  const d = new Date(epochMs);
  return d.toLocaleDateString('en-CA') + ' ' + d.toLocaleTimeString('en-GB', {hour12: false});
}

// ---------------------------------------------------------------- SQL

/** Answers shown so far: the result table carries the count (data-answers), so a reader knows a new one came. */
let answers = 0;

async function runSql(explain) {
  const text = $('sql').value.trim();
  showStatus('sql-error', '');
  $('sql-meta').textContent = 'running…';
  const table = $('sql-result');
  try {
    const sql = explain && !/^explain\s/i.test(text) ? 'EXPLAIN ' + text : text;
    const answer = await call('/sql', {
      method: 'POST',
      headers: {'Content-Type': 'application/json'},
      body: JSON.stringify({sql, allow_partial: true}),
    });
    table.replaceChildren();
    const head = document.createElement('thead');
    head.appendChild(headRow(answer.columns));
    table.appendChild(head);
    const body = document.createElement('tbody');
    for (const values of answer.rows) {
      body.appendChild(row(values.map(v => v === null ? element('span', 'NULL', 'null') : String(v))));
    }
    table.appendChild(body);
    table.classList.toggle('plan', answer.columns.length === 1 && answer.columns[0] === 'plan');
    let meta = number(answer.rows.length) + (answer.rows.length === 1 ? ' row' : ' rows') + ' in '
        + answer.took_ms + ' ms';
    if (answer.shards && answer.shards.total) {
      meta += ', ' + answer.shards.succeeded + ' of ' + answer.shards.total + ' shards';
    }
    $('sql-meta').textContent = meta;
    if (answer.partial) {
      showStatus('sql-error', 'partial answer: ' + answer.shards.failures.map(f => 'shard ' + f.shard + ' ('
          + f.server + '): ' + f.reason).join('; '));
    } else if (answer.possibly_stale) {
      showStatus('sql-error', answer.stale_reason);
    }
  } catch (e) {
    $('sql-meta').textContent = '';
    table.replaceChildren();
    showStatus('sql-error', e.message);
  } finally {
    table.dataset.answers = String(++answers);
  }
}

function headRow(columns) {
  const tr = document.createElement('tr');
  columns.forEach(c => tr.appendChild(element('th', c)));
  return tr;
}

// ---------------------------------------------------------------- hot tenants

async function refreshHotTenants() {
  try {
    const hot = await call('/hot-tenants');
    showStatus('hot-status', hot.status);
    $('hot-window').textContent = hot.window_end
        ? 'window ' + time(hot.window_start) + '–' + time(hot.window_end) + ', ' + number(hot.total_writes) + ' writes'
          + (hot.topic ? ' (' + hot.topic + ')' : '')
        : '';
    const body = $('hot-tenants').tBodies[0];
    body.replaceChildren();
    for (const tenant of hot.tenants) {
      body.appendChild(row([String(tenant.tenant), number(tenant.writes), shareBar(tenant.share),
          String(tenant.spread_now)]));
    }
    drawThroughput(hot.windows);
  } catch (e) {
    showStatus('hot-status', e.message);
  }
}

function shareBar(share) {
  const box = element('div', null, 'share');
  const bar = element('div', null, 'bar');
  bar.style.width = Math.max(0.5, share * 100).toFixed(1) + '%';
  box.appendChild(bar);
  box.appendChild(element('span', (share * 100).toFixed(1) + '%'));
  return box;
}

/** Writes per window as bars, the newest on the right; a bar's dark part is the top tenant's share. */
function drawThroughput(windows) {
  const svg = $('throughput');
  svg.replaceChildren();
  if (!windows.length) {
    return;
  }
  const max = Math.max(1, ...windows.map(w => w.total_writes));
  const slots = 60;
  const width = 600 / slots;
  windows.slice(-slots).forEach((w, i, shown) => {
    const x = (slots - shown.length + i) * width;
    const h = 76 * w.total_writes / max;
    svg.appendChild(rect(x + 1, 78 - h, width - 2, h, 'total'));
    svg.appendChild(rect(x + 1, 78 - h * w.top_share, width - 2, h * w.top_share, 'top'));
    const title = document.createElementNS(SVG, 'title');
    title.textContent = time(w.window_end) + ': ' + number(w.total_writes) + ' writes, top tenant '
        + w.top_tenant + ' ' + (w.top_share * 100).toFixed(1) + '%';
    svg.lastChild.appendChild(title);
  });
}

function rect(x, y, width, height, className) {
  const r = document.createElementNS(SVG, 'rect');
  r.setAttribute('x', x);
  r.setAttribute('y', y);
  r.setAttribute('width', Math.max(0, width));
  r.setAttribute('height', Math.max(0, height));
  r.setAttribute('class', className);
  return r;
}

// ---------------------------------------------------------------- cluster

async function refreshCluster() {
  try {
    const answer = await call('/cluster');
    const cluster = answer.cluster;
    showStatus('cluster-status', '');
    $('cluster-time').textContent = cluster.servers.length + ' servers, ' + cluster.shards.length + ' shards, at '
        + time(cluster.taken_ms);
    links(answer.links);
    const servers = $('servers').tBodies[0];
    servers.replaceChildren();
    for (const server of cluster.servers) {
      servers.appendChild(row([server.address, server.started_ms ? dateTime(server.started_ms) : '–',
          String(server.primaries), String(server.replicas)]));
    }
    const shards = $('shards').tBodies[0];
    shards.replaceChildren();
    for (const shard of cluster.shards) {
      shard.copies.forEach((copy, i) => {
        const s = copy.stats;
        const role = copy.role + (copy.role !== 'primary' && copy.in_sync ? ' (in sync)' : '');
        const cells = [i === 0 ? String(shard.shard) : '', i === 0 ? String(shard.term) : '', copy.server, role];
        if (s) {
          cells.push(number(s.docs), bytes(s.bytes), s.writes_per_second.toFixed(1), millis(s.refresh_lag_ms),
              copy.role === 'primary' ? '–' : millis(s.replica_lag_ms), number(s.unindexed_rows));
        } else {
          const error = element('td', copy.error, 'error');
          error.colSpan = 6;
          cells.push(error);
        }
        const tr = document.createElement('tr');
        cells.forEach(c => tr.appendChild(c instanceof Node ? c : element('td', c)));
        if (i === 0) {
          tr.className = 'first';
        }
        shards.appendChild(tr);
      });
      if (shard.moving) {
        const tr = document.createElement('tr');
        const td = element('td', 'moving: ' + shard.moving, 'meta');
        td.colSpan = 10;
        tr.appendChild(td);
        shards.appendChild(tr);
      }
    }
  } catch (e) {
    showStatus('cluster-status', e.message);
  }
}

function links(given) {
  const nav = $('links');
  if (nav.childElementCount || !given || !given.flink_ui) {
    return;
  }
  const a = element('a', 'Flink UI (ingest job)');
  a.href = given.flink_ui;
  a.target = '_blank';
  a.rel = 'noopener';
  nav.appendChild(a);
}

// ---------------------------------------------------------------- rules

async function refreshRules() {
  try {
    const answer = await call('/rules');
    showStatus('rules-status', answer.rules.length ? '' : 'no rule yet: every tenant writes to one shard (L = 1)');
    $('rules-policy').textContent = 'policy ' + answer.policy + ', ' + answer.num_shards + ' shards, '
        + answer.rules.length + ' rules';
    const body = $('rules').tBodies[0];
    body.replaceChildren();
    for (const rule of answer.rules.slice().reverse()) {
      const tr = row([dateTime(rule.effective_time) + (rule.effective_time > answer.now ? ' (pending)' : ''),
          kind(rule), rule.table_shards ? 'table of ' + rule.table_shards.length : String(rule.offset_size),
          rule.tenants.join(', ')]);
      if (rule.effective_time > answer.now) {
        tr.className = 'pending';
      }
      body.appendChild(tr);
    }
    drawTimeline(answer.rules, answer.now);
  } catch (e) {
    showStatus('rules-status', e.message);
  }
}

function kind(rule) {
  return rule.table_shards ? 'table' : rule.cool_down ? 'narrow' : 'widen';
}

/**
 * Each rule as a mark at its effective time, its height L (on a log scale); the red line is now. The axis runs from
 * the first rule (or a minute ago) to a little after the last rule or now, whichever is later.
 */
function drawTimeline(rules, now) {
  const svg = $('rules-timeline');
  svg.replaceChildren();
  $('rules-from').textContent = '';
  $('rules-to').textContent = '';
  if (!rules.length) {
    return;
  }
  const first = Math.min(now - 60000, ...rules.map(r => r.effective_time));
  const last = Math.max(now, ...rules.map(r => r.effective_time));
  const span = (last - first) * 1.05;
  const x = t => 5 + 590 * (t - first) / span;
  const maxL = Math.max(2, ...rules.map(r => r.table_shards ? r.table_shards.length : r.offset_size));
  for (const rule of rules) {
    const l = rule.table_shards ? rule.table_shards.length : rule.offset_size;
    const h = 8 + 70 * Math.log2(Math.max(1, l)) / Math.log2(maxL);
    const mark = rect(x(rule.effective_time) - 1.5, 84 - h, 3, h, 'rule ' + kind(rule));
    const title = document.createElementNS(SVG, 'title');
    title.textContent = dateTime(rule.effective_time) + ': ' + kind(rule) + ' to ' + l + ' shards, tenants '
        + rule.tenants.join(', ');
    mark.appendChild(title);
    svg.appendChild(mark);
  }
  svg.appendChild(rect(x(now) - 0.5, 0, 1, 90, 'now'));
  $('rules-from').textContent = dateTime(first);
  $('rules-to').textContent = dateTime(first + span);
}

// ---------------------------------------------------------------- wiring

function refreshViews() {
  if (document.hidden) {
    return;
  }
  refreshHotTenants();
  refreshCluster();
  refreshRules();
}

document.addEventListener('DOMContentLoaded', () => {
  $('api-key').value = apiKey();
  $('key-form').addEventListener('submit', event => {
    event.preventDefault();
    sessionStorage.setItem(KEY_STORE, $('api-key').value.trim());
    refreshViews();
  });
  $('run').addEventListener('click', () => runSql(false));
  $('explain').addEventListener('click', () => runSql(true));
  $('sql').addEventListener('keydown', event => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      runSql(false);
    }
  });
  refreshViews();
  setInterval(refreshViews, REFRESH_MS);
});
