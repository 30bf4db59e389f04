// The policy view: the permission policy in force, editable for the rest of the session.
import { element } from '/timeline.js';

/** The built-in permissions, always offered; a `custom:NAME` of the policy is added. */
const builtin = ['read', 'write', 'delete', 'network', 'shell', 'filesystem'];

const choices = [
  ['allowed', 'allowed'],
  ['denied', 'denied'],
  ['unlisted', 'not listed'],
];

/**
 * Fills the policy form from `config` ({ allowed, denied, allowUnspecified }) and the one-line
 * text; `send(config)` posts an edit and resolves to the policy the server put in force.
 */
export function showPolicy(config, text) {
  document.getElementById('policy-text').textContent = text;
  const rows = document.getElementById('policy-rows');
  const names = [...new Set([...builtin, ...config.allowed, ...config.denied])];
  rows.replaceChildren(
    ...names.map((name) => {
      const row = element('div', 'policy-row');
      const id = `policy-${name.replace(/[^\w-]/g, '_')}`;
      const label = element('label', null, name);
      label.htmlFor = id;
      const select = element('select');
      select.id = id;
      select.dataset.permission = name;
      for (const [value, caption] of choices) {
        const option = element('option', null, caption);
        option.value = value;
        select.append(option);
      }
      select.value = config.allowed.includes(name)
        ? 'allowed'
        : config.denied.includes(name)
          ? 'denied'
          : 'unlisted';
      row.append(label, select);
      return row;
    }),
  );
  document.getElementById('policy-unspecified').checked = config.allowUnspecified;
}

/** The policy the form shows now. */
export function policyOfForm() {
  const config = { allowed: [], denied: [], allowUnspecified: false };
  for (const select of document.querySelectorAll('#policy-rows select')) {
    if (select.value === 'allowed') config.allowed.push(select.dataset.permission);
    if (select.value === 'denied') config.denied.push(select.dataset.permission);
  }
  config.allowUnspecified = document.getElementById('policy-unspecified').checked;
  return config;
}
