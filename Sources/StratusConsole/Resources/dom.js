// Builds elements from data without ever parsing it as HTML: record fields are other people's text.
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on')) element.addEventListener(name.slice(2), value);
    else if (name === 'text') element.textContent = value;
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

export function field(id, label, control) {
  control.id = id;
  return h('div', {}, h('label', { for: id, text: label }), control);
}

export function select(options, value) {
  const element = h('select');
  for (const option of options) {
    const [optionValue, text] = Array.isArray(option) ? option : [option, option];
    element.append(h('option', { value: optionValue, selected: optionValue === value, text }));
  }
  return element;
}

let clearing = null;

export function announce(message) {
  const status = document.getElementById('status');
  status.textContent = message;
  clearTimeout(clearing);
  clearing = setTimeout(() => { status.textContent = ''; }, 4000);
}

export function date(milliseconds) {
  return milliseconds ? new Date(milliseconds).toISOString().replace('T', ' ').slice(0, 19) : '—';
}

export function table(headings, rows, caption) {
  return h('table', {},
    caption ? h('caption', { class: 'muted', text: caption }) : null,
    h('thead', {}, h('tr', {}, headings.map((text) => h('th', { scope: 'col', text })))),
    h('tbody', {}, rows));
}
