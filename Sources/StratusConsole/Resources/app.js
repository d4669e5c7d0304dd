// The console's shell: sign-in, navigation between pages (#/records, #/tokens, …), sign-out.
import { api, setSession, APIError } from './api.js';
import { h, announce } from './dom.js';
import { recordsPage } from './records.js';
import { zonesPage } from './zones.js';
import { schemaPage } from './schema.js';
import { tokensPage } from './accounts.js';
import { usersPage } from './users.js';
import { operationsPage, auditPage } from './operations.js';
import { usagePage } from './usage.js';

const pages = {
  records: recordsPage, zones: zonesPage, schema: schemaPage, users: usersPage, tokens: tokensPage,
  usage: usagePage, operations: operationsPage, audit: auditPage,
};
let session = null;
let stopPage = null;

function showSignIn() {
  session = null;
  setSession(null);
  document.getElementById('signin').hidden = false;
  document.getElementById('page').hidden = true;
  document.getElementById('nav').hidden = true;
  document.getElementById('who').replaceChildren();
  document.getElementById('signin-email').focus();
}

async function showPage() {
  if (!session) return;
  const name = (location.hash.replace(/^#\//, '') || 'records').split('/')[0];
  const page = pages[name] || recordsPage;
  for (const link of document.querySelectorAll('nav a')) {
    if (link.getAttribute('href') === `#/${name}`) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  if (stopPage) stopPage();
  stopPage = null;
  const container = document.getElementById('page');
  container.hidden = false;
  container.replaceChildren();
  try {
    stopPage = await page(container, session);
  } catch (error) {
    if (error instanceof APIError && error.status === 401) return showSignIn();
    container.append(h('p', { class: 'error', role: 'alert', text: error.message }));
  }
}

function signedIn(answer) {
  session = answer;
  setSession(answer);
  document.getElementById('signin').hidden = true;
  document.getElementById('nav').hidden = false;
  const signOut = h('button', { class: 'secondary', id: 'signout', type: 'button', onclick: async () => {
    try { await api('/signout', { method: 'POST' }); } finally { showSignIn(); }
  } }, 'Sign out');
  document.getElementById('who').replaceChildren(h('span', { id: 'who-email', text: answer.email }), signOut);
  showPage();
}

document.getElementById('signin-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const error = document.getElementById('signin-error');
  error.textContent = '';
  try {
    const answer = await api('/signin', { method: 'POST', body: {
      email: document.getElementById('signin-email').value,
      password: document.getElementById('signin-password').value,
    } });
    document.getElementById('signin-password').value = '';
    announce(`Signed in as ${answer.email}`);
    signedIn(answer);
  } catch (failure) {
    error.textContent = failure.message;
  }
});

window.addEventListener('hashchange', showPage);

api('/session').then(signedIn).catch(showSignIn);
