// Zones (list, create, delete) and subscriptions (list, delete) of one database.
import { cloudKit } from './api.js';
import { h, field, announce, table } from './dom.js';
import { target, targetPicker } from './target.js';

export async function zonesPage(root) {
  const zones = h('div', { id: 'zones' });
  const subscriptions = h('div', { id: 'subscriptions' });
  const error = h('p', { class: 'error', role: 'alert' });
  const load = async () => {
    error.textContent = '';
    try {
      const zoneAnswer = await cloudKit(target, 'zones/list', {});
      zones.replaceChildren(table(['Zone', ''], zoneAnswer.zones.map((zone) => h('tr', {},
        h('td', { text: zone.zoneID.zoneName }),
        h('td', {}, zone.zoneID.zoneName === '_defaultZone' ? null : h('button', { type: 'button', class: 'danger', onclick: () => change('delete', zone.zoneID.zoneName) }, 'Delete'))))));
      const subscriptionAnswer = await cloudKit(target, 'subscriptions/list', {});
      subscriptions.replaceChildren(table(['Subscription', 'Type', 'Zone / record type', ''], subscriptionAnswer.subscriptions.map((s) => h('tr', {},
        h('td', { text: s.subscriptionID }), h('td', { text: s.subscriptionType }),
        h('td', { text: (s.zoneID && s.zoneID.zoneName) || (s.query && s.query.recordType) || '' }),
        h('td', {}, h('button', { type: 'button', class: 'danger', onclick: () => deleteSubscription(s.subscriptionID) }, 'Delete'))))));
    } catch (failure) {
      error.textContent = failure.message;
    }
  };
  const change = async (operationType, zoneName) => {
    try {
      await cloudKit(target, 'zones/modify', { operations: [{ operationType, zone: { zoneID: { zoneName } } }] });
      announce(`${operationType === 'create' ? 'Created' : 'Deleted'} zone ${zoneName}`);
    } catch (failure) { error.textContent = failure.message; }
    load();
  };
  const deleteSubscription = async (subscriptionID) => {
    try {
      await cloudKit(target, 'subscriptions/modify', { operations: [{ operationType: 'delete', subscription: { subscriptionID } }] });
    } catch (failure) { error.textContent = failure.message; }
    load();
  };
  const newZone = h('input', { placeholder: 'NotesZone' });
  root.append(
    h('section', { class: 'card', 'aria-labelledby': 'zones-title' }, h('h1', { id: 'zones-title', text: 'Zones' }), await targetPicker(load), error, zones,
      h('form', { class: 'row', onsubmit: (event) => { event.preventDefault(); change('create', newZone.value.trim()); } },
        field('new-zone', 'New zone', newZone), h('button', { type: 'submit' }, 'Create zone'))),
    h('section', { class: 'card', 'aria-labelledby': 'subscriptions-title' }, h('h2', { id: 'subscriptions-title', text: 'Subscriptions' }), subscriptions));
  await load();
}
