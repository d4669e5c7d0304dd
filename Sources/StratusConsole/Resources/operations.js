// Live operations (requests per second, latency p50/p99, errors, drawn in SVG from the server's
// metrics every two seconds) and the audit log of console changes.
import { api } from './api.js';
import { h, date, table } from './dom.js';

function parse(text) {
  const totals = { responses: 0, errors: 0, buckets: [] };
  for (const line of text.split('\n')) {
    let match = line.match(/^stratus_http_responses_total\{class="(\d)xx"\} (\d+)/);
    if (match) {
      totals.responses += Number(match[2]);
      if (match[1] === '5') totals.errors += Number(match[2]);
      continue;
    }
    match = line.match(/^stratus_http_request_duration_seconds_bucket\{le="([^"]+)"\} (\d+)/);
    if (match) totals.buckets.push([match[1] === '+Inf' ? Infinity : Number(match[1]), Number(match[2])]);
  }
  return totals;
}

function quantile(before, after, q) {
  const counts = after.buckets.map(([bound, count], i) => [bound, count - ((before.buckets[i] || [0, 0])[1])]);
  const total = counts.length ? counts[counts.length - 1][1] : 0;
  if (total <= 0) return null;
  const wanted = total * q;
  for (const [bound, count] of counts) if (count >= wanted) return bound;
  return null;
}

function chart(label, values, unit) {
  const max = Math.max(1e-9, ...values.map((v) => v || 0));
  const points = values.map((v, i) => `${(i / Math.max(1, values.length - 1)) * 300},${100 - ((v || 0) / max) * 95}`).join(' ');
  const last = values.length ? values[values.length - 1] : null;
  return h('figure', {},
    h('figcaption', { text: `${label}: ${last === null || last === undefined ? '—' : `${Number(last.toPrecision(3))} ${unit}`}` }),
    svg(points, label));
}

function svg(points, label) {
  const ns = 'http://www.w3.org/2000/svg';
  const element = document.createElementNS(ns, 'svg');
  element.setAttribute('viewBox', '0 0 300 100');
  element.setAttribute('class', 'chart');
  element.setAttribute('role', 'img');
  element.setAttribute('aria-label', label);
  element.setAttribute('preserveAspectRatio', 'none');
  const line = document.createElementNS(ns, 'polyline');
  line.setAttribute('points', points);
  element.append(line);
  return element;
}

function tailRow(entry) {
  return h('tr', {}, h('td', { text: date(entry.at) }), h('td', { text: entry.method }), h('td', {}, h('code', { text: entry.path })),
    h('td', { class: entry.status >= 500 ? 'error' : '', text: entry.status }), h('td', { text: `${entry.milliseconds} ms` }));
}

export async function operationsPage(root) {
  const charts = h('div', { id: 'charts' });
  const tail = h('tbody', { id: 'request-tail' });
  let after = 0;
  const follow = async () => {
    const entries = await api(`/requests?after=${after}`);
    for (const entry of entries) tail.prepend(tailRow(entry));
    while (tail.children.length > 100) tail.lastElementChild.remove();
    if (entries.length) after = entries[entries.length - 1].sequence;
  };
  root.append(h('section', { class: 'card', 'aria-labelledby': 'operations-title' }, h('h1', { id: 'operations-title', text: 'Operations' }),
    h('p', { class: 'muted', text: 'Requests answered by this server, sampled every two seconds.' }), charts),
    h('section', { class: 'card', 'aria-labelledby': 'tail-title' }, h('h2', { id: 'tail-title', text: 'Request log (live)' }),
      h('table', {}, h('thead', {}, h('tr', {}, ['When', 'Method', 'Path', 'Status', 'Time'].map((text) => h('th', { scope: 'col', text })))), tail)));
  await follow();
  const history = { rate: [], p50: [], p99: [], errors: [] };
  let previous = parse(await api('/metrics'));
  let previousAt = performance.now();
  const sample = async () => {
    const current = parse(await api('/metrics'));
    const now = performance.now();
    const seconds = (now - previousAt) / 1000;
    history.rate.push((current.responses - previous.responses) / seconds);
    history.errors.push(current.errors - previous.errors);
    history.p50.push(quantile(previous, current, 0.5));
    history.p99.push(quantile(previous, current, 0.99));
    for (const series of Object.values(history)) if (series.length > 60) series.shift();
    previous = current;
    previousAt = now;
    charts.replaceChildren(chart('Requests per second', history.rate, 'req/s'), chart('Latency p50 (bucket bound)', history.p50.map((v) => v === Infinity ? null : v), 's'),
      chart('Latency p99 (bucket bound)', history.p99.map((v) => v === Infinity ? null : v), 's'), chart('Server errors', history.errors, 'per sample'));
  };
  await sample();
  const timer = setInterval(() => { sample().catch(() => {}); follow().catch(() => {}); }, 2000);
  return () => clearInterval(timer);
}

// A change is logged before it is made; one still "started" may or may not have been made.
const outcomes = { done: 'done', failed: 'failed', started: 'started, not confirmed: check' };

export async function auditPage(root) {
  const entries = await api('/audit?limit=200');
  root.append(h('section', { class: 'card', 'aria-labelledby': 'audit-title' }, h('h1', { id: 'audit-title', text: 'Audit log' }),
    table(['When', 'Who', 'What', 'Target', 'Outcome', 'Detail'], entries.map((entry) => h('tr', {},
      h('td', { text: date(entry.at) }), h('td', { text: entry.administrator }), h('td', {}, h('code', { text: entry.action })),
      h('td', { text: entry.target }), h('td', { text: outcomes[entry.outcome] ?? entry.outcome }), h('td', { text: entry.detail }))),
      `${entries.length} most recent change(s)`)));
}
