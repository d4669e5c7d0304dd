// Users (sign out everywhere) and API tokens (create: shown once; list; revoke).
import { api } from './api.js';
import { h, field, select, announce, date, table } from './dom.js';
import { target } from './target.js';

export async function usersPage(root) {
  const users = await api('/users');
  const rows = users.map((user) => h('tr', {},
    h('td', { text: user.email }), h('td', {}, h('code', { text: user.userRecordName })),
    h('td', {}, h('input', { type: 'checkbox', checked: user.discoverable, 'aria-label': `${user.email} is discoverable`, onchange: async (event) => {
      await api(`/users/${encodeURIComponent(user.userRecordName)}/discoverable`, { method: 'POST', body: { discoverable: event.target.checked } });
      announce(`${user.email} is ${event.target.checked ? '' : 'not '}discoverable`);
    } })), h('td', { text: user.verified ? 'yes' : 'no' }), h('td', { text: date(user.createdAt) }),
    h('td', {}, h('button', { type: 'button', class: 'secondary', onclick: async () => {
      await api(`/users/${encodeURIComponent(user.userRecordName)}/signout`, { method: 'POST' });
      announce(`Signed ${user.email} out everywhere`);
    } }, 'Sign out everywhere'))));
  root.append(h('section', { class: 'card', 'aria-labelledby': 'users-title' }, h('h1', { id: 'users-title', text: 'Users' }),
    table(['E-mail', 'User record name', 'Discoverable', 'Verified', 'Created', ''], rows, `${users.length} account(s)`)));
}

export async function tokensPage(root) {
  const containers = await api('/containers');
  const container = select(containers, containers.includes(target.container) ? target.container : containers[0]);
  const environment = select(['development', 'production'], target.environment);
  const name = h('input', { required: true, placeholder: 'web app' });
  const list = h('div', { id: 'token-list' });
  const created = h('div', { id: 'token-created', 'aria-live': 'polite' });
  const error = h('p', { class: 'error', role: 'alert' });
  const keys = h('div', { id: 'key-list' });
  const load = async () => {
    const serverKeys = await api(`/keys?container=${encodeURIComponent(container.value)}`);
    keys.replaceChildren(table(['Key ID', 'Name', 'Environment', 'Created', 'Revoked', ''], serverKeys.map((key) => h('tr', {},
      h('td', {}, h('code', { text: key.keyID })), h('td', { text: key.name }), h('td', { text: key.environment }),
      h('td', { text: date(key.createdAt) }), h('td', { text: date(key.revokedAt) }),
      h('td', {}, key.revokedAt ? null : h('button', { type: 'button', class: 'danger', onclick: async () => {
        await api(`/keys/${encodeURIComponent(key.keyID)}/revoke`, { method: 'POST' });
        announce(`Revoked key ${key.keyID}`);
        load();
      } }, 'Revoke')))), `${serverKeys.length} server-to-server key(s); add one with stratus key add`));
    const tokens = await api(`/tokens?container=${encodeURIComponent(container.value)}`);
    list.replaceChildren(table(['Prefix', 'Name', 'Environment', 'Created', 'Revoked', ''], tokens.map((token) => h('tr', { 'data-prefix': token.prefix },
      h('td', {}, h('code', { text: `${token.prefix}…` })), h('td', { text: token.name }), h('td', { text: token.environment }),
      h('td', { text: date(token.createdAt) }), h('td', { text: date(token.revokedAt) }),
      h('td', {}, token.revokedAt ? null : h('button', { type: 'button', class: 'danger', 'data-revoke': token.prefix, onclick: async () => {
        await api(`/tokens/${token.prefix}/revoke`, { method: 'POST' });
        announce(`Revoked ${token.prefix}…`);
        load();
      } }, 'Revoke'))))));
  };
  const create = async (event) => {
    event.preventDefault();
    error.textContent = '';
    try {
      const token = await api('/tokens', { method: 'POST', body: { container: container.value, environment: environment.value, name: name.value.trim() } });
      created.replaceChildren(h('p', { text: 'The new token, shown only now:' }), h('p', { class: 'secret', id: 'new-token', text: token.token }));
      load();
    } catch (failure) { error.textContent = failure.message; }
  };
  container.addEventListener('change', load);
  root.append(h('section', { class: 'card', 'aria-labelledby': 'tokens-title' }, h('h1', { id: 'tokens-title', text: 'API tokens' }),
    h('form', { class: 'row', onsubmit: create }, field('token-container', 'Container', container), field('token-environment', 'Environment', environment),
      field('token-name', 'Name', name), h('button', { type: 'submit', id: 'create-token' }, 'Create token')),
    error, created, list),
    h('section', { class: 'card', 'aria-labelledby': 'keys-title' }, h('h2', { id: 'keys-title', text: 'Server-to-server keys' }), keys));
  await load();
}
