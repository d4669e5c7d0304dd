// Schema: view and edit the development schema (additions only), preview what a deploy adds to
// production, deploy it (two steps: no dialog to dismiss by accident); reset the development
// environment (the container's identifier typed as confirmation).
import { api } from './api.js';
import { h, field, select, announce } from './dom.js';
import { target } from './target.js';

export async function schemaPage(root) {
  const containers = await api('/containers');
  if (!containers.includes(target.container)) target.container = containers[0] || '';
  const container = select(containers, target.container);
  const development = h('textarea', { id: 'schema-development', rows: 16, 'aria-describedby': 'schema-help' });
  const production = h('pre', { id: 'schema-production' });
  const preview = h('ul', { id: 'schema-preview', 'aria-live': 'polite' });
  const message = h('p', { role: 'alert', id: 'schema-message' });
  const base = () => `/schema/${encodeURIComponent(container.value)}`;
  const load = async () => {
    target.container = container.value;
    message.textContent = '';
    development.value = JSON.stringify(await api(`${base()}/development`), null, 2);
    production.textContent = JSON.stringify(await api(`${base()}/production`), null, 2);
    const plan = await api(`${base()}/preview`);
    preview.replaceChildren(...(plan.changes.length ? plan.changes.map((c) => h('li', { text: c })) : [h('li', { class: 'muted', text: 'Production has everything development has.' })]));
    deploy.disabled = plan.changes.length === 0;
    confirmDeploy.hidden = true;
  };
  const saveDevelopment = async () => {
    try {
      const plan = await api(`${base()}/development`, { method: 'POST', body: JSON.parse(development.value) });
      announce(`Development schema saved: ${plan.changes.length} change(s)`);
      await load();
      message.className = 'ok';
      message.textContent = plan.changes.length ? `Saved: ${plan.changes.join('; ')}` : 'Nothing changed.';
    } catch (failure) {
      message.className = 'error';
      message.textContent = failure.message;
    }
  };
  const deploy = h('button', { type: 'button', id: 'deploy', onclick: () => { confirmDeploy.hidden = false; confirmDeploy.focus(); } }, 'Deploy to production…');
  const confirmDeploy = h('button', { type: 'button', class: 'danger', id: 'confirm-deploy', hidden: true, onclick: async () => {
    try {
      const plan = await api(`${base()}/deploy`, { method: 'POST' });
      await load();
      message.className = 'ok';
      message.textContent = `Deployed to production: ${plan.changes.join('; ') || 'nothing to add'}`;
    } catch (failure) {
      message.className = 'error';
      message.textContent = failure.message;
    }
  } }, 'Confirm: deploy these changes');
  const confirmReset = h('input', { autocomplete: 'off', 'aria-describedby': 'reset-help' });
  const reset = h('button', { type: 'button', class: 'danger', id: 'reset-development', onclick: async () => {
    try {
      const summary = await api(`/environments/${encodeURIComponent(container.value)}/development/reset`, { method: 'POST', body: { confirm: confirmReset.value } });
      confirmReset.value = '';
      await load();
      message.className = 'ok';
      message.textContent = `Development reset: ${summary.zones} zone(s), ${summary.subscriptions} subscription(s), ${summary.recordTypes} record type(s) removed.`;
    } catch (failure) {
      message.className = 'error';
      message.textContent = failure.message;
    }
  } }, 'Reset development environment');
  container.addEventListener('change', load);
  root.append(
    h('section', { class: 'card', 'aria-labelledby': 'schema-title' }, h('h1', { id: 'schema-title', text: 'Schema' }),
      field('schema-container', 'Container', container), message,
      h('h2', { text: 'Development' }),
      h('p', { class: 'muted', id: 'schema-help', text: 'Record types, fields, indexes and security roles. Fields and types can be added, never removed or retyped.' }),
      development, h('button', { type: 'button', id: 'save-schema', onclick: saveDevelopment }, 'Save development schema')),
    h('section', { class: 'card', 'aria-labelledby': 'deploy-title' }, h('h2', { id: 'deploy-title', text: 'Deploy to production' }),
      h('p', { class: 'muted', text: 'What a deploy adds to production:' }), preview, deploy, confirmDeploy),
    h('section', { class: 'card', 'aria-labelledby': 'production-title' }, h('h2', { id: 'production-title', text: 'Production' }), production),
    h('section', { class: 'card', 'aria-labelledby': 'reset-title' }, h('h2', { id: 'reset-title', text: 'Reset the development environment' }),
      h('p', { class: 'muted', id: 'reset-help', text: 'Deletes every development zone, record and subscription of the container, and puts the production schema back in place of the development one. Production is not touched. Type the container\'s identifier to confirm.' }),
      h('div', { class: 'row' }, field('reset-confirm', 'Container identifier', confirmReset), reset)));
  await load();
}
