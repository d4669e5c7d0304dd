// Records: query a zone with a filter and a sort, page through, view a record with every field
// typed, edit it (with its change tag: a stale one shows the conflict), create, delete, and copy
// a record as the JSON of a records/modify request.
import { cloudKit } from './api.js';
import { h, field, select, announce, date, table } from './dom.js';
import { target, targetPicker, rememberZone } from './target.js';

const comparators = ['EQUALS', 'NOT_EQUALS', 'LESS_THAN', 'LESS_THAN_OR_EQUALS', 'GREATER_THAN', 'GREATER_THAN_OR_EQUALS', 'BEGINS_WITH', 'CONTAINS_ALL_TOKENS', 'LIST_CONTAINS'];

export async function recordsPage(root) {
  const results = h('div', { id: 'record-results' });
  const detail = h('div', { id: 'record-detail' });
  const zone = select([target.zone], target.zone);
  const recordType = h('input', { value: sessionStorage.getItem('stratus-type') || '', placeholder: 'Note', required: true });
  const filterField = h('input', { placeholder: 'field (optional)' });
  const comparator = select(comparators, 'EQUALS');
  const filterValue = h('input', { placeholder: 'value' });
  const sortField = h('input', { placeholder: '___modTime' });
  const ascending = select([['false', 'descending'], ['true', 'ascending']], 'false');
  const loadZones = async () => {
    try {
      const answer = await cloudKit(target, 'zones/list', {});
      const names = answer.zones.map((z) => z.zoneID.zoneName);
      zone.replaceChildren(...names.map((name) => h('option', { value: name, selected: name === target.zone, text: name })));
      rememberZone(zone.value);
    } catch (error) {
      results.replaceChildren(h('p', { class: 'error', role: 'alert', text: error.message }));
    }
  };
  const picker = await targetPicker(loadZones);
  zone.addEventListener('change', () => rememberZone(zone.value));
  const run = async (marker) => {
    sessionStorage.setItem('stratus-type', recordType.value);
    const query = { recordType: recordType.value.trim() };
    if (filterField.value.trim()) {
      query.filterBy = [{ fieldName: filterField.value.trim(), comparator: comparator.value, fieldValue: { value: typed(filterValue.value) } }];
    }
    if (sortField.value.trim()) query.sortBy = [{ fieldName: sortField.value.trim(), ascending: ascending.value === 'true' }];
    const body = { zoneID: { zoneName: zone.value }, query, resultsLimit: 50 };
    if (marker) body.continuationMarker = marker;
    try {
      const answer = await cloudKit(target, 'records/query', body);
      showResults(results, detail, answer, () => run(answer.continuationMarker));
    } catch (error) {
      results.replaceChildren(h('p', { class: 'error', role: 'alert', text: error.message }));
    }
  };
  const form = h('form', { class: 'card', 'aria-labelledby': 'records-title', onsubmit: (event) => { event.preventDefault(); run(); } },
    h('h1', { id: 'records-title', text: 'Records' }), picker,
    h('div', { class: 'row' }, field('record-zone', 'Zone', zone), field('record-type', 'Record type', recordType)),
    h('div', { class: 'row' }, field('filter-field', 'Filter field', filterField), field('filter-comparator', 'Comparator', comparator),
      field('filter-value', 'Value', filterValue)),
    h('div', { class: 'row' }, field('sort-field', 'Sort by', sortField), field('sort-order', 'Order', ascending),
      h('button', { type: 'submit', id: 'query' }, 'Query'),
      h('button', { type: 'button', class: 'secondary', id: 'new-record', onclick: () => editor(detail, null, zone.value, recordType.value) }, 'New record')));
  root.append(form, results, detail);
  await loadZones();
}

function typed(text) {
  return text !== '' && !Number.isNaN(Number(text)) ? Number(text) : text;
}

function showResults(results, detail, answer, next) {
  const rows = answer.records.map((record) => h('tr', {},
    h('td', {}, h('a', { href: '#/records', 'data-record': record.recordName, onclick: (event) => { event.preventDefault(); view(detail, record); } }, record.recordName)),
    h('td', { text: record.recordType }),
    h('td', {}, h('code', { text: record.recordChangeTag })),
    h('td', { text: date(record.modified && record.modified.timestamp) }),
    h('td', { text: Object.keys(record.fields || {}).join(', ') })));
  results.replaceChildren(h('section', { class: 'card', 'aria-label': 'Query results' },
    table(['Record name', 'Type', 'Change tag', 'Modified', 'Fields'], rows, `${answer.records.length} record(s)`),
    answer.continuationMarker ? h('button', { type: 'button', id: 'next-page', onclick: next }, 'Next page') : null));
}

function valueView(value) {
  if (value && value.type === 'REFERENCE' && value.value) {
    return h('a', { href: '#/records', onclick: async (event) => {
      event.preventDefault();
      const answer = await cloudKit(target, 'records/lookup', { records: [{ recordName: value.value.recordName }], zoneID: value.value.zoneID });
      view(document.getElementById('record-detail'), answer.records[0]);
    } }, `→ ${value.value.recordName}`);
  }
  if (value && value.type === 'ASSETID' && value.value && value.value.downloadURL) {
    return h('a', { href: value.value.downloadURL, download: true }, `download (${value.value.size || '?'} bytes)`);
  }
  return h('code', { text: JSON.stringify(value && value.value) });
}

function view(detail, record) {
  if (!record || record.serverErrorCode) {
    detail.replaceChildren(h('p', { class: 'error', role: 'alert', text: record ? record.reason : 'not found' }));
    return;
  }
  const rows = Object.entries(record.fields || {}).map(([name, value]) =>
    h('tr', {}, h('th', { scope: 'row', text: name }), h('td', { text: value.type || '' }), h('td', {}, valueView(value))));
  const json = h('pre', { id: 'modify-json', hidden: true });
  detail.replaceChildren(h('section', { class: 'card', 'aria-labelledby': 'record-title' },
    h('h2', { id: 'record-title', text: `${record.recordType} ${record.recordName}` }),
    h('p', { class: 'muted' }, 'Change tag ', h('code', { id: 'record-tag', text: record.recordChangeTag }), ` · modified ${date(record.modified && record.modified.timestamp)}`),
    table(['Field', 'Type', 'Value'], rows),
    h('div', { class: 'row' },
      h('button', { type: 'button', id: 'edit-record', onclick: () => editor(detail, record) }, 'Edit'),
      h('button', { type: 'button', class: 'secondary', id: 'copy-json', onclick: () => {
        json.textContent = JSON.stringify({ operations: [{ operationType: 'update', record: modifyRecord(record) }] }, null, 2);
        json.hidden = false;
        navigator.clipboard?.writeText(json.textContent).catch(() => {});
        announce('records/modify JSON copied');
      } }, 'Copy as records/modify'),
      h('button', { type: 'button', class: 'danger', id: 'delete-record', onclick: () => remove(detail, record) }, 'Delete')),
    json));
}

function modifyRecord(record) {
  return { recordName: record.recordName, recordType: record.recordType, recordChangeTag: record.recordChangeTag, fields: record.fields };
}

// Simple fields (strings, numbers, timestamps) get an input each; the rest as JSON.
function editor(detail, record, zone, recordType) {
  const isNew = !record;
  const fields = record ? record.fields || {} : {};
  const name = h('input', { value: record ? record.recordName : '', required: true });
  const type = h('input', { value: record ? record.recordType : recordType || '', required: true });
  const inputs = Object.entries(fields).map(([fieldName, value]) => {
    const input = h('input', { 'data-field': fieldName, value: typeof value.value === 'object' ? JSON.stringify(value.value) : value.value });
    return { fieldName, value, input, element: field(`field-${fieldName}`, `${fieldName} (${value.type || 'untyped'})`, input) };
  });
  const extra = h('textarea', { placeholder: '{"title": {"value": "Hello"}}' });
  const error = h('p', { class: 'error', role: 'alert', id: 'edit-error' });
  const save = async (event) => {
    event.preventDefault();
    const updated = {};
    for (const { fieldName, value, input } of inputs) {
      let parsed = input.value;
      if (typeof value.value === 'number') parsed = Number(input.value);
      else if (typeof value.value === 'object') parsed = JSON.parse(input.value);
      updated[fieldName] = value.type ? { value: parsed, type: value.type } : { value: parsed };
    }
    if (extra.value.trim()) Object.assign(updated, JSON.parse(extra.value));
    const body = { recordName: name.value.trim(), recordType: type.value.trim(), fields: updated };
    if (!isNew) body.recordChangeTag = record.recordChangeTag;
    try {
      const answer = await cloudKit(target, 'records/modify', {
        zoneID: { zoneName: record ? (record.zoneID && record.zoneID.zoneName) || target.zone : zone },
        operations: [{ operationType: isNew ? 'create' : 'update', record: body }],
      });
      const result = answer.records[0];
      if (result.serverErrorCode) {
        const server = result.serverRecord ? ` The server has change tag ${result.serverRecord.recordChangeTag}: reload the record and edit again.` : '';
        error.textContent = `${result.serverErrorCode}: ${result.reason || ''}${server}`;
        return;
      }
      announce(`Saved ${result.recordName}`);
      view(detail, result);
    } catch (failure) {
      error.textContent = failure.message;
    }
  };
  detail.replaceChildren(h('form', { class: 'card', 'aria-labelledby': 'editor-title', onsubmit: save },
    h('h2', { id: 'editor-title', text: isNew ? 'New record' : `Edit ${record.recordName}` }),
    h('div', { class: 'row' }, field('edit-name', 'Record name', name), field('edit-type', 'Record type', type)),
    inputs.map((i) => i.element),
    field('edit-extra', isNew ? 'Fields (JSON)' : 'More fields (JSON)', extra),
    h('button', { type: 'submit', id: 'save-record' }, 'Save'), error));
  if (!isNew) name.readOnly = true;
}

async function remove(detail, record) {
  const confirmButton = h('button', { type: 'button', class: 'danger', id: 'confirm-delete', onclick: async () => {
    const answer = await cloudKit(target, 'records/modify', {
      zoneID: record.zoneID || { zoneName: target.zone },
      operations: [{ operationType: 'delete', record: { recordName: record.recordName, recordChangeTag: record.recordChangeTag } }],
    });
    const result = answer.records[0];
    detail.replaceChildren(h('p', { role: 'alert', class: result.serverErrorCode ? 'error' : 'ok',
      text: result.serverErrorCode ? `${result.serverErrorCode}: ${result.reason}` : `Deleted ${record.recordName}` }));
  } }, `Really delete ${record.recordName}`);
  detail.append(confirmButton);
  confirmButton.focus();
}
