// Users: discoverability, disable and enable, sessions (sign out one or all).
import { api } from './api.js';
import { h, announce, date, table } from './dom.js';

const path = (user) => `/users/${encodeURIComponent(user.userRecordName)}`;

async function showSessions(user, panel) {
  const sessions = await api(`${path(user)}/sessions`);
  const rows = sessions.map((session) => h('tr', { 'data-session': session.sessionID },
    h('td', {}, h('code', { text: session.sessionID })), h('td', { text: session.container }),
    h('td', { text: date(session.createdAt) }), h('td', { text: date(session.lastUsedAt) }), h('td', { text: date(session.revokedAt) }),
    h('td', {}, session.revokedAt ? null : h('button', { type: 'button', class: 'secondary', onclick: async () => {
      await api(`${path(user)}/sessions/${encodeURIComponent(session.sessionID)}/signout`, { method: 'POST' });
      announce(`Signed out session ${session.sessionID} of ${user.email}`);
      showSessions(user, panel);
    } }, 'Sign out'))));
  panel.replaceChildren(h('h2', { id: 'sessions-title', text: `Sessions of ${user.email}` }),
    table(['Session', 'Container', 'Signed in', 'Last token', 'Signed out', ''], rows, `${sessions.length} session(s)`));
  panel.hidden = false;
}

export async function usersPage(root) {
  const panel = h('section', { class: 'card', id: 'user-sessions', 'aria-labelledby': 'sessions-title', hidden: true });
  const list = h('div', { id: 'user-list' });
  const load = async () => {
    const users = await api('/users');
    const rows = users.map((user) => h('tr', { 'data-user': user.email },
      h('td', { text: user.email }), h('td', {}, h('code', { text: user.userRecordName })),
      h('td', {}, h('input', { type: 'checkbox', checked: user.discoverable, 'aria-label': `${user.email} is discoverable`, onchange: async (event) => {
        await api(`${path(user)}/discoverable`, { method: 'POST', body: { discoverable: event.target.checked } });
        announce(`${user.email} is ${event.target.checked ? '' : 'not '}discoverable`);
      } })), h('td', { text: user.verified ? 'yes' : 'no' }), h('td', { text: user.disabled ? 'disabled' : 'active' }),
      h('td', { text: date(user.createdAt) }),
      h('td', { class: 'row' },
        h('button', { type: 'button', class: 'secondary', onclick: () => showSessions(user, panel) }, 'Sessions'),
        h('button', { type: 'button', class: 'secondary', onclick: async () => {
          await api(`${path(user)}/signout`, { method: 'POST' });
          announce(`Signed ${user.email} out everywhere`);
        } }, 'Sign out everywhere'),
        h('button', { type: 'button', class: user.disabled ? 'secondary' : 'danger', 'data-disable': user.email, onclick: async () => {
          await api(`${path(user)}/disabled`, { method: 'POST', body: { disabled: !user.disabled } });
          announce(`${user.email} is ${user.disabled ? 'enabled' : 'disabled'}`);
          load();
        } }, user.disabled ? 'Enable' : 'Disable'))));
    list.replaceChildren(table(['E-mail', 'User record name', 'Discoverable', 'Verified', 'State', 'Created', ''], rows, `${users.length} account(s)`));
  };
  root.append(h('section', { class: 'card', 'aria-labelledby': 'users-title' }, h('h1', { id: 'users-title', text: 'Users' }), list), panel);
  await load();
}
