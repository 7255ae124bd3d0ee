// Basalt's page: plain JavaScript, no library, nothing from the network but this server's /api.
'use strict';

const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') e.className = v; else if (k === 'style') e.style.cssText = v; else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return e;
}

function checked(id) {
  return Array.from($(id).querySelectorAll('input:checked')).map((i) => i.value);
}

function showError(message) {
  $('error').textContent = message;
  $('error').hidden = !message;
}

async function loadInfo() {
  const info = await (await fetch('api/info')).json();
  for (const c of info.cpus) {
    const box = el('input', { type: 'checkbox', value: c.name, id: 'cpu-' + c.name });
    box.checked = info.default_cpus.includes(c.name);
    $('cpus').append(el('label', { title: c.title + ' (' + c.evidence + ')' }, box, ' ' + c.name));
  }
  for (const name of info.estimators) {
    const box = el('input', { type: 'checkbox', value: name, id: 'est-' + name });
    box.checked = name === info.default_estimator;
    $('estimators').append(el('label', {}, box, ' ' + name));
  }
}

function permalink() {
  const p = new URLSearchParams({ t: $('code').value, f: $('format').value,
    c: checked('cpus').join(','), e: checked('estimators').join(',') });
  return '#' + p.toString();
}

function restore() {
  if (location.hash.length < 2) return false;
  const p = new URLSearchParams(location.hash.substring(1));
  if (!p.has('t')) return false;
  $('code').value = p.get('t');
  $('format').value = p.get('f') || 'auto';
  const cpus = (p.get('c') || '').split(',');
  const ests = (p.get('e') || '').split(',');
  $('cpus').querySelectorAll('input').forEach((i) => { i.checked = cpus.includes(i.value); });
  $('estimators').querySelectorAll('input').forEach((i) => { i.checked = ests.includes(i.value); });
  return true;
}

async function call(url, options) {
  $('busy').hidden = false;
  try {
    const response = await fetch(url, options);
    const body = await response.json();
    if (!response.ok) { showError(body.error || ('HTTP ' + response.status)); return null; }
    showError('');
    return body;
  } catch (e) {
    showError('the server did not answer: ' + e);
    return null;
  } finally {
    $('busy').hidden = true;
  }
}

async function predict() {
  const body = { text: $('code').value, format: $('format').value, cpus: checked('cpus'),
    estimators: checked('estimators') };
  const link = permalink();
  history.replaceState(null, '', link);
  $('permalink').href = link;
  const result = await call('api/predict', { method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body) });
  if (result) render(result);
}

async function upload(file) {
  const q = new URLSearchParams({ name: file.name });
  checked('cpus').forEach((c) => q.append('cpu', c));
  checked('estimators').forEach((e) => q.append('estimator', e));
  const result = await call('api/upload?' + q, { method: 'POST', body: await file.arrayBuffer(),
    headers: { 'Content-Type': 'application/octet-stream' } });
  if (result) render(result);
}

function fmt(x) { return x === undefined || x === null ? '' : Number(x).toFixed(2); }

function render(result) {
  const out = $('results');
  out.replaceChildren();
  for (const b of result.blocks) {
    const div = el('div', { class: 'block' });
    div.append(el('div', { class: 'input' }, b.input), el('div', { class: 'hex' }, b.hex));
    if (b.error) { div.append(el('div', { class: 'error-cell' }, b.error)); out.append(div); continue; }
    const preds = el('table', { class: 'predictions' },
      el('tr', {}, el('th', {}, 'CPU'), el('th', {}, 'estimator'), el('th', {}, 'cycles/iteration'),
        el('th', {}, '90% interval'), el('th', { class: 'text' }, 'notes')));
    for (const p of b.predictions) {
      preds.append(el('tr', {}, el('td', { class: 'text' }, p.cpu), el('td', { class: 'text' }, p.estimator),
        p.error ? el('td', { class: 'error-cell' }, 'error') : el('td', { class: 'cycles' }, fmt(p.cycles)),
        el('td', {}, p.low !== undefined ? fmt(p.low) + '–' + fmt(p.high) : ''),
        el('td', { class: 'text' }, p.error || (p.notes || []).join('; '))));
    }
    div.append(preds);
    for (const d of b.details) div.append(details(b, d));
    out.append(div);
  }
}

function details(b, d) {
  const box = el('div', { class: 'details' });
  box.append(el('h3', {}, 'simulator on ' + d.cpu + (d.cycles !== undefined ? ': ' + fmt(d.cycles) + ' cycles/iteration' : '')));
  if (d.error) { box.append(el('div', { class: 'error-cell' }, d.error)); return box; }
  box.append(el('div', { class: 'bottleneck' }, 'bottleneck: ' + d.bottleneck.description));
  const bounds = Object.entries(d.bounds).filter(([k]) => k !== 'winner' && k !== 'port_set')
    .map(([k, v]) => k + ' ' + fmt(v)).join(' · ');
  box.append(el('div', { class: 'bounds' }, 'bounds: ' + bounds + ' → ' + d.bounds.winner));
  // the instruction table as a heat map: each port cell shaded by its share of the busiest port
  const max = Math.max(1e-9, ...d.port_loads);
  const head = el('tr', {}, el('th', {}, '#'), el('th', { class: 'text' }, 'instruction'), el('th', {}, 'uops'),
    el('th', {}, 'fused'), el('th', {}, 'lat'), el('th', {}, 'waits'));
  d.ports.forEach((p) => head.append(el('th', {}, p)));
  head.append(el('th', { class: 'text' }, 'share of the bottleneck'));
  const table = el('table', { class: 'heat' }, head);
  const maxShare = Math.max(1e-9, ...d.shares);
  d.table.forEach((row, i) => {
    const tr = el('tr', {}, el('td', {}, i), el('td', { class: 'text' }, b.instructions[i]), el('td', {}, row.uops),
      el('td', {}, row.fused), el('td', {}, row.latency), el('td', {}, row.waits.toFixed(1)));
    row.ports.forEach((v) => {
      const alpha = (v / max).toFixed(3);
      tr.append(el('td', { class: 'port', style: 'background: rgba(220, 53, 69, ' + alpha + ')' },
        v > 1e-9 ? fmt(v) : ''));
    });
    tr.append(el('td', { class: 'text' }, el('span', { class: 'share',
      style: 'width:' + Math.round(80 * d.shares[i] / maxShare) + 'px' }), ' ' + fmt(d.shares[i])));
    table.append(tr);
  });
  const total = el('tr', {}, el('td', {}), el('td', { class: 'text' }, 'ports, cycles/iteration'), el('td', {}),
    el('td', {}), el('td', {}), el('td', {}));
  d.port_loads.forEach((v) => total.append(el('td', {}, fmt(v))));
  table.append(total);
  box.append(table);
  box.append(trace(b, d));
  return box;
}

// The pipeline trace: a row per instance, a column per cycle, a colour per stage (scrolls both ways).
function trace(b, d) {
  const rows = d.timeline;
  const wrap = el('div', { class: 'trace' });
  if (!rows.length) return wrap;
  let first = Infinity, last = 0;
  for (const r of rows) { first = Math.min(first, r[3] >= 0 ? r[3] : r[4]); last = Math.max(last, r[7]); }
  const table = el('table', {});
  const head = el('tr', {}, el('td', { class: 'text' }, '[it,i]'));
  for (let c = first; c <= last; c++) head.append(el('td', {}, c % 10));
  head.append(el('td', { class: 'text' }, 'instruction'));
  table.append(head);
  for (const r of rows) {
    const tr = el('tr', { class: 'instance' }, el('td', { class: 'text' }, '[' + r[0] + ',' + r[1] + ']'));
    for (let c = first; c <= last; c++) {
      let s = '';
      if (c === r[3]) s = 'D'; else if (c > r[3] && c < r[4]) s = 'q';
      if (c === r[4]) s = 'i'; else if (c > r[4] && c < r[5]) s = 'w';
      if (c >= r[5] && c < r[6]) s = 'e';
      if (c === r[6]) s = 'E'; else if (c > r[6] && c < r[7]) s = 'r';
      if (c === r[7]) s = 'R';
      const label = { D: 'D', q: '.', i: 'i', w: '=', e: 'e', E: 'E', r: '-', R: 'R' }[s] || '';
      tr.append(el('td', s ? { class: 'stage-' + s, title: 'cycle ' + c } : {}, label));
    }
    tr.append(el('td', { class: 'text' }, b.instructions[r[1]]));
    table.append(tr);
  }
  wrap.append(table);
  const legend = el('div', { class: 'legend' }, 'trace: ');
  [['D', 'decoded'], ['q', 'queued'], ['i', 'issued'], ['w', 'waiting'], ['e', 'executing'], ['E', 'executed'],
    ['r', 'waiting to retire'], ['R', 'retired']].forEach(([s, t]) => legend.append(el('span', { class: 'stage-' + s }, t)));
  const box = el('div', {}, wrap, legend);
  return box;
}

$('predict').addEventListener('click', predict);
$('upload').addEventListener('change', (e) => { if (e.target.files.length) upload(e.target.files[0]); });
loadInfo().then(() => { if (restore()) predict(); });
