// Which container, environment, database and user a page works on; remembered across pages.
import { api } from './api.js';
import { h, field, select } from './dom.js';

const saved = JSON.parse(sessionStorage.getItem('stratus-target') || '{}');
export const target = Object.assign({ container: '', environment: 'development', database: 'private', user: '', zone: '_defaultZone' }, saved);

function remember() {
  sessionStorage.setItem('stratus-target', JSON.stringify(target));
}

export async function targetPicker(onChange) {
  const containers = await api('/containers');
  if (!containers.includes(target.container)) target.container = containers[0] || '';
  let users = [];
  try { users = await api('/users'); } catch { /* open mode: no accounts */ }
  const container = select(containers, target.container);
  const environment = select(['development', 'production'], target.environment);
  const database = select(['private', 'public', 'shared'], target.database);
  const user = h('input', { list: 'user-choices', value: target.user, placeholder: 'e-mail or user record name', autocomplete: 'off' });
  const choices = h('datalist', { id: 'user-choices' }, users.map((u) => h('option', { value: u.email })));
  const update = () => {
    Object.assign(target, { container: container.value, environment: environment.value, database: database.value, user: user.value.trim() });
    userField.hidden = target.database === 'public';
    remember();
  };
  const userField = field('target-user', 'User', user);
  for (const control of [container, environment, database]) control.addEventListener('change', () => { update(); onChange(); });
  user.addEventListener('change', () => { update(); onChange(); });
  update();
  return h('div', { class: 'row', role: 'group', 'aria-label': 'Database' },
    field('target-container', 'Container', container),
    field('target-environment', 'Environment', environment),
    field('target-database', 'Database', database),
    userField, choices);
}

export function rememberZone(zone) {
  target.zone = zone;
  remember();
}
