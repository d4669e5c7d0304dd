// Usage: each database's stored bytes (records and assets) against its quota, per container and user.
import { api } from './api.js';
import { h, field, select, table } from './dom.js';
import { target } from './target.js';

function bytes(count) {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = count;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) { value /= 1024; unit += 1; }
  return `${unit ? value.toFixed(1) : value} ${units[unit]}`;
}

function meter(used, quota) {
  const share = quota > 0 ? Math.min(1, used / quota) : 0;
  return h('meter', { min: 0, max: 1, value: share.toFixed(4), high: 0.8, 'aria-label': `${(share * 100).toFixed(1)}% of the quota` });
}

export async function usagePage(root) {
  const containers = await api('/containers');
  const container = select(containers, containers.includes(target.container) ? target.container : containers[0]);
  const environment = select(['development', 'production'], target.environment);
  const body = h('div', { id: 'usage' });
  const load = async () => {
    const usage = await api(`/usage/${encodeURIComponent(container.value)}/${environment.value}`);
    body.replaceChildren(
      h('p', { class: 'muted', text: `Request budget: ${usage.requestsPerSecond || 'unlimited'} requests per second for the container.` }),
      table(['Database', 'User', 'Records', 'Assets', 'Quota', 'Used', 'Requests'], usage.lines.map((line) => h('tr', {},
        h('td', { text: line.database }), h('td', { text: line.user || '—' }), h('td', { text: bytes(line.recordBytes) }),
        h('td', { text: bytes(line.assetBytes) }), h('td', { text: bytes(line.quotaBytes) }),
        h('td', {}, meter(line.recordBytes + (line.database === 'private' ? line.assetBytes : 0), line.quotaBytes)),
        h('td', { text: line.requests === undefined || line.requests === null ? '—' : String(line.requests) })))),
      h('p', { class: 'muted', text: 'Requests: each user\'s requests admitted by this node since it started.' }),
      usage.requestCountsFull ? h('p', { class: 'muted', text: 'The request table is full: users first seen since are not counted.' }) : '',
      usage.truncated ? h('p', { class: 'muted', text: 'Only the first 500 users are shown.' }) : '');
  };
  container.addEventListener('change', load);
  environment.addEventListener('change', load);
  root.append(h('section', { class: 'card', 'aria-labelledby': 'usage-title' }, h('h1', { id: 'usage-title', text: 'Usage' }),
    h('div', { class: 'row' }, field('usage-container', 'Container', container), field('usage-environment', 'Environment', environment)), body));
  await load();
}
