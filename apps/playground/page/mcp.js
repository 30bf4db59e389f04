// The MCP view: each server of --mcp-config, its tools with their annotations, the permissions
// derived from them and the changes since the pin, and a form per tool built from its schema.
import { element } from '/timeline.js';

/** Renders `servers` into `container`; `call(tool, args)` resolves to the form call's result. */
export function renderServers(container, servers, call) {
  container.replaceChildren(
    ...servers.map((server) => {
      const section = element('section', 'mcp-server');
      section.dataset.server = server.name;
      section.append(
        element('h3', null, `${server.name}${server.version ? ` ${server.version}` : ''}`),
        element('p', 'meta', `${server.tools.length} tools`),
      );
      for (const tool of server.tools) section.append(toolBlock(tool, call));
      return section;
    }),
  );
}

function toolBlock(tool, call) {
  const block = element('details', 'mcp-tool');
  block.dataset.tool = tool.name;
  const permissions = tool.permissions.length > 0 ? tool.permissions.join(', ') : 'none';
  const summary = element('summary');
  summary.append(
    element('strong', null, tool.mcpName),
    element(
      'span',
      'meta',
      ` · ${permissions} · ${tool.allowed ? 'allowed' : 'refused by the policy'}`,
    ),
  );
  block.append(summary, element('p', 'description', tool.description));
  const facts = element('dl', 'facts');
  const fact = (name, value, key) => {
    const term = element('dt', null, name);
    const detail = element('dd', null, value);
    detail.dataset.fact = key;
    facts.append(term, detail);
  };
  fact('exposed as', tool.name, 'name');
  fact('annotations', annotationText(tool.annotations), 'annotations');
  fact(
    'permissions',
    `${permissions} (${tool.permissionsFrom === 'override' ? 'configured in mcp.json' : 'derived from the annotations'})`,
    'permissions',
  );
  fact(
    'pin',
    tool.changes.length === 0
      ? 'as first listed (no change)'
      : `changed ${tool.changes.length}×: ${tool.changes.at(-1).message}`,
    'pin',
  );
  block.dataset.changes = String(tool.changes.length);
  block.append(facts, callForm(tool, call));
  return block;
}

function annotationText(annotations) {
  const entries = Object.entries(annotations ?? {});
  return entries.length === 0
    ? 'none'
    : entries.map(([key, value]) => `${key}: ${JSON.stringify(value)}`).join(', ');
}

/** The input of one property: its kind decides the control and how the value is read. */
function fieldKind(schema) {
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  if (Array.isArray(schema.enum) && schema.enum.every((v) => typeof v === 'string')) return 'enum';
  if (type === 'string' || type === 'number' || type === 'integer' || type === 'boolean') {
    return type;
  }
  return 'json';
}

function callForm(tool, call) {
  const form = element('form', 'call-form');
  form.noValidate = true;
  form.append(element('h4', null, `Call ${tool.mcpName}`));
  const properties = tool.parameters?.properties ?? {};
  const required = new Set(tool.parameters?.required ?? []);
  const fields = Object.entries(properties).map(([name, schema]) =>
    field(form, tool, name, schema ?? {}, required.has(name)),
  );
  const submit = element('button', null, `Call ${tool.mcpName}`);
  submit.type = 'submit';
  const result = element('div', 'call-result');
  result.setAttribute('role', 'status');
  result.setAttribute('aria-live', 'polite');
  form.append(submit, result);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const args = {};
    let valid = true;
    for (const item of fields) {
      const read = item.read();
      item.showError(read.error);
      if (read.error) valid = false;
      else if (read.value !== undefined) args[item.name] = read.value;
    }
    if (!valid) {
      result.dataset.outcome = 'invalid';
      result.textContent = 'Fix the fields marked above.';
      return;
    }
    result.dataset.outcome = 'pending';
    result.textContent = 'calling…';
    showResult(result, await call(tool.name, args));
  });
  return form;
}

function showResult(result, answer) {
  result.replaceChildren();
  if (answer.ok) {
    result.dataset.outcome = 'ok';
    result.append(
      element('span', 'ok', `completed in ${Math.round(answer.durationMs)} ms`),
      Object.assign(element('pre', 'call-value', JSON.stringify(answer.value, null, 2)), {
        tabIndex: 0,
      }),
    );
  } else {
    result.dataset.outcome = 'error';
    result.dataset.code = answer.code;
    result.append(element('span', 'error', `${answer.code}: ${answer.message}`));
  }
}

function field(form, tool, name, schema, isRequired) {
  const kind = fieldKind(schema);
  const id = `arg-${tool.name}-${name}`.replace(/[^\w-]/g, '_');
  const row = element('div', `field field-${kind}`);
  const label = element('label', 'field-label', `${name}${isRequired ? ' (required)' : ''}`);
  label.htmlFor = id;
  let input;
  if (kind === 'enum') {
    input = element('select');
    if (!isRequired) input.append(element('option', null, ''));
    for (const value of schema.enum) {
      const option = element('option', null, value);
      option.value = value;
      input.append(option);
    }
  } else if (kind === 'json') {
    input = element('textarea');
    input.rows = 3;
    input.spellcheck = false;
    input.placeholder = schema.type === 'array' ? '[ ]' : '{ }';
  } else {
    input = element('input');
    input.type = kind === 'boolean' ? 'checkbox' : kind === 'string' ? 'text' : 'number';
    if (kind === 'integer') input.step = '1';
    if (kind === 'number') input.step = 'any';
    if (kind === 'string') input.autocomplete = 'off';
  }
  input.id = id;
  input.name = name;
  if (isRequired) input.setAttribute('aria-required', 'true');
  if (schema.default !== undefined && kind !== 'json') {
    if (kind === 'boolean') input.checked = schema.default === true;
    else input.value = String(schema.default);
  }
  const hint = element(
    'span',
    'hint',
    `${kind}${schema.description ? ` · ${schema.description}` : ''}`,
  );
  hint.id = `${id}-hint`;
  const error = element('span', 'field-error error');
  error.id = `${id}-error`;
  input.setAttribute('aria-describedby', `${hint.id} ${error.id}`);
  if (kind === 'boolean') row.append(input, label, hint, error);
  else row.append(label, input, hint, error);
  form.append(row);
  return {
    name,
    read: () => readField(kind, input, isRequired),
    showError(message) {
      error.textContent = message ?? '';
      if (message) input.setAttribute('aria-invalid', 'true');
      else input.removeAttribute('aria-invalid');
    },
  };
}

/** The value of one field, or why it is not one. */
function readField(kind, input, isRequired) {
  if (kind === 'boolean') return { value: input.checked };
  const text = input.value.trim();
  if (text === '') return isRequired ? { error: 'required' } : { value: undefined };
  if (kind === 'number' || kind === 'integer') {
    const value = Number(text);
    if (!Number.isFinite(value)) return { error: 'not a number' };
    if (kind === 'integer' && !Number.isInteger(value)) return { error: 'not a whole number' };
    return { value };
  }
  if (kind === 'json') {
    try {
      return { value: JSON.parse(text) };
    } catch (reason) {
      return { error: `not JSON: ${reason.message}` };
    }
  }
  return { value: input.value };
}
