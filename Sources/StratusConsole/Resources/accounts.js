// API tokens (create: shown once; list; revoke) and server-to-server keys.
import { api } from './api.js';
import { h, field, select, announce, date, table } from './dom.js';
import { target } from './target.js';

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
      } }, 'Revoke')))), `${serverKeys.length} server-to-server key(s)`));
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
  const keyName = h('input', { required: true, placeholder: 'backend' });
  const keyPEM = h('textarea', { required: true, rows: 5, placeholder: '-----BEGIN PUBLIC KEY-----', 'aria-describedby': 'key-help' });
  const keyAdded = h('p', { id: 'key-added', 'aria-live': 'polite' });
  const addKey = async (event) => {
    event.preventDefault();
    keyAdded.className = '';
    try {
      const key = await api('/keys', { method: 'POST', body: { container: container.value, environment: environment.value, name: keyName.value.trim(), publicKeyPEM: keyPEM.value } });
      keyAdded.textContent = `Added. Sign requests with the key ID ${key.keyID}`;
      keyPEM.value = '';
      load();
    } catch (failure) { keyAdded.className = 'error'; keyAdded.textContent = failure.message; }
  };
  container.addEventListener('change', load);
  root.append(h('section', { class: 'card', 'aria-labelledby': 'tokens-title' }, h('h1', { id: 'tokens-title', text: 'API tokens' }),
    h('form', { class: 'row', onsubmit: create }, field('token-container', 'Container', container), field('token-environment', 'Environment', environment),
      field('token-name', 'Name', name), h('button', { type: 'submit', id: 'create-token' }, 'Create token')),
    error, created, list),
    h('section', { class: 'card', 'aria-labelledby': 'keys-title' }, h('h2', { id: 'keys-title', text: 'Server-to-server keys' }),
      h('form', { onsubmit: addKey }, field('key-name', 'Name', keyName), field('key-pem', 'Public key (PEM)', keyPEM),
        h('p', { class: 'muted', id: 'key-help', text: 'A P-256 public key: openssl ec -in eckey.pem -pubout. It is added to the container and environment chosen above.' }),
        h('button', { type: 'submit', id: 'add-key' }, 'Add key')),
      keyAdded, keys));
  await load();
}
