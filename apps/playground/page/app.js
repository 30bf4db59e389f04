// The page: follows the event stream, renders it, and sends the person's decisions.

import { renderServers } from '/mcp.js';
import { policyOfForm, showPolicy } from '/policy.js';
import { element, formatDuration, RunView } from '/timeline.js';
import { renderTrace } from '/trace.js';

const token = new URLSearchParams(location.search).get('token') ?? '';
const $ = (id) => document.getElementById(id);

/** What the page knows of the run in progress. */
const state = { runId: undefined, status: 'idle', views: new Map() };

function withToken(path) {
  return `${path}?token=${encodeURIComponent(token)}`;
}

async function api(path, body) {
  $('error').textContent = '';
  const response = await fetch(withToken(path), {
    method: body === undefined ? 'GET' : 'POST',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = await response.json();
  if (!response.ok) {
    $('error').textContent = answer.error ?? `${path}: ${response.status}`;
    throw new Error(answer.error);
  }
  return answer;
}

function setStatus(status, text) {
  state.status = status;
  document.body.dataset.status = status;
  $('status').textContent = text;
  const busy = status === 'running' || status === 'paused';
  $('start').disabled = busy;
  $('chat-send').disabled = busy;
  $('chat-new').disabled = busy;
  $('resume').disabled = status === 'running' || status === 'paused';
  $('cancel').disabled = !(status === 'running' || status === 'paused');
  $('save').disabled = status !== 'paused';
}

function showWaiting(waiting) {
  const list = $('approvals');
  list.replaceChildren(...waiting.map(approvalItem));
  $('waiting-count').textContent = String(waiting.length);
  $('approvals-empty').hidden = waiting.length > 0;
}

function approvalItem(call) {
  const item = element('li', 'approval');
  item.dataset.callId = call.callId;
  const id = `decide-${call.callId}`;
  item.append(
    element('strong', null, call.toolName),
    element('span', 'call-id', ` ${call.callId}`),
  );
  if (call.kind === 'input') item.append(element('p', 'question', call.prompt ?? ''));
  item.append(element('pre', 'arguments', JSON.stringify(call.input, null, 2)));
  const form = element('form', 'decide');
  const label = element(
    'label',
    null,
    call.kind === 'input' ? 'Answer' : 'Reason to deny (optional)',
  );
  label.htmlFor = id;
  const input = element('input');
  input.id = id;
  input.type = 'text';
  input.autocomplete = 'off';
  form.append(label, input);
  const send = (decision) =>
    api('/api/decide', { runId: state.runId, callId: call.callId, decision }).catch(() => {});
  if (call.kind === 'approval') {
    const approve = element('button', 'approve', `Approve ${call.toolName}`);
    approve.type = 'button';
    approve.addEventListener('click', () => send({ kind: 'approve' }));
    form.append(approve);
  } else {
    const answer = element('button', 'answer', 'Answer');
    answer.type = 'submit';
    form.append(answer);
  }
  const deny = element('button', 'deny', `Deny ${call.toolName}`);
  deny.type = 'button';
  deny.addEventListener('click', () => send({ kind: 'deny', reason: input.value }));
  form.append(deny);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (call.kind === 'input') send({ kind: 'answer', text: input.value });
  });
  item.append(form);
  return item;
}

function showSummary(record) {
  const s = record.summary;
  const cell = (name) => document.querySelector(`[data-stat="${name}"]`);
  cell('turns').textContent = String(s.turns);
  cell('toolCalls').textContent = String(s.toolCalls);
  cell('failures').textContent = String(s.failures);
  cell('tokens').textContent = s.usageReported
    ? `${s.promptTokens + s.completionTokens} (${s.promptTokens} prompt + ${s.completionTokens} completion)`
    : 'none reported';
  cell('wall').textContent = formatDuration(s.wallMs);
  const failure = record.failure
    ? ` — ${record.failure.code ?? 'error'}: ${record.failure.message}`
    : '';
  const what = record.chat ? `chat message ${record.chat.message}` : 'flow';
  $('outcome').textContent = `${what} ended: ${record.outcome}${failure}`;
  $('summary').dataset.outcome = record.outcome;
  $('summary').dataset.runId = record.runId;
}

/** A new run: the summary and the span tree are the previous run's no more. */
function resetRunPanels() {
  for (const cell of document.querySelectorAll('[data-stat]')) cell.textContent = '–';
  $('outcome').textContent = 'The run has not ended yet.';
  delete $('summary').dataset.outcome;
  delete $('summary').dataset.runId;
  delete $('trace').dataset.runId;
  $('trace').replaceChildren();
  $('trace-empty').hidden = false;
  $('saved').textContent = '';
  $('audit').replaceChildren();
  $('audit-count').textContent = '0';
  $('audit-empty').hidden = false;
}

/** One audit line of the run (the JSON `--audit FILE` writes), newest last. */
function showAudit(line) {
  const item = element('li', 'audit-line');
  item.append(element('code', null, line));
  try {
    const parsed = JSON.parse(line);
    item.dataset.tool = parsed.tool;
    item.dataset.outcome = parsed.outcome;
  } catch {
    // A line is JSON by construction; shown as it came otherwise.
  }
  $('audit').append(item);
  $('audit-count').textContent = String($('audit').children.length);
  $('audit-empty').hidden = true;
}

/** Applies one record of the stream (replayed in order after a reload). */
function apply(record) {
  const view = state.views.get(record.runId);
  switch (record.type) {
    case 'run_started': {
      state.runId = record.runId;
      state.views.set(record.runId, new RunView($('timeline'), record));
      resetRunPanels();
      $('model').textContent = record.model;
      $('policy').textContent = `policy: ${record.policy}`;
      setStatus(
        'running',
        record.chat ? 'the chat model is answering' : `flow ${record.flow} is running`,
      );
      if (record.chat) showConversation(record.chat);
      showWaiting(record.waiting ?? []);
      if ((record.waiting ?? []).length > 0) setStatus('paused', 'the run waits for you');
      return;
    }
    case 'event':
      view?.event(record.event);
      return;
    case 'model':
      view?.model(record);
      return;
    case 'audit':
      if (record.runId === state.runId) showAudit(record.line);
      return;
    case 'policy':
      showPolicy(record.policyConfig, record.policy);
      $('policy').textContent = `policy: ${record.policy}`;
      return;
    case 'run_paused':
      showWaiting(record.waiting);
      setStatus('paused', `the run waits for you: ${record.waiting.length} call(s)`);
      return;
    case 'decision': {
      document.querySelector(`#approvals [data-call-id="${CSS.escape(record.callId)}"]`)?.remove();
      const left = $('approvals').children.length;
      $('waiting-count').textContent = String(left);
      $('approvals-empty').hidden = left > 0;
      if (left === 0) setStatus('running', 'the run goes on');
      return;
    }
    case 'run_saved':
      $('saved').textContent = `saved: ${record.path}`;
      $('resume-path').value = record.path;
      return;
    case 'run_finished':
      showWaiting([]);
      showSummary(record);
      setStatus('finished', `the run ended: ${record.outcome}`);
      return;
    case 'chat_reset':
      $('chat-conversation').textContent = 'a new one starts with the next message';
      return;
    case 'trace':
      $('trace-empty').hidden = true;
      renderTrace($('trace'), record.spans);
      $('trace').dataset.runId = record.runId;
      return;
  }
}

function showConversation(chat) {
  $('chat-conversation').textContent =
    chat.conversation === 0
      ? 'none yet'
      : `conversation ${chat.conversation}, ${chat.message} message${chat.message === 1 ? '' : 's'}`;
}

/** The chat box: Enter sends, Shift+Enter a new line; "New conversation" forgets the history. */
function initChat() {
  const box = $('chat-message');
  $('chat-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const message = box.value;
    if (message.trim() === '' || $('chat-send').disabled) return;
    api('/api/chat', { message })
      .then(() => {
        box.value = '';
      })
      .catch(() => {});
  });
  box.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      $('chat-form').requestSubmit();
    }
  });
  $('chat-new').addEventListener('click', () => api('/api/chat/new', {}).catch(() => {}));
}

/** Lists the servers of --mcp-config (started on the first look) into the MCP view. */
async function loadServers() {
  $('mcp-status').textContent = 'Starting the servers of --mcp-config…';
  const { servers } = await api('/api/mcp').catch((error) => {
    $('mcp-status').textContent = `The MCP servers could not be listed: ${error.message}`;
    throw error;
  });
  const call = (tool, args) =>
    api('/api/mcp/call', { tool, arguments: args }).catch((error) => ({
      ok: false,
      code: 'request_refused',
      message: error.message,
      durationMs: 0,
    }));
  renderServers($('mcp-servers'), servers, call);
  const tools = servers.reduce((sum, server) => sum + server.tools.length, 0);
  $('mcp-status').textContent = `${servers.length} server(s), ${tools} tools.`;
  $('mcp-view').dataset.loaded = 'true';
}

async function init() {
  const initial = await api('/api/state');
  const select = $('flow');
  for (const flow of initial.flows) {
    const option = element('option', null, flow.name);
    option.value = flow.name;
    option.title = flow.summary;
    select.append(option);
  }
  select.value = initial.selected;
  const describe = () => {
    $('flow-summary').textContent =
      initial.flows.find((flow) => flow.name === select.value)?.summary ?? '';
  };
  select.addEventListener('change', describe);
  describe();
  $('model').textContent = initial.model;
  $('policy').textContent = `policy: ${initial.policy}`;
  showPolicy(initial.policyConfig, initial.policy);
  setStatus('idle', 'Pick a flow and press Start, or send a chat message.');
  initChat();
  $('policy-form').addEventListener('submit', (event) => {
    event.preventDefault();
    $('policy-saved').textContent = '';
    api('/api/policy', policyOfForm())
      .then((answer) => {
        $('policy-saved').textContent = `applied: ${answer.policy}`;
      })
      .catch(() => {});
  });
  if (initial.mcp) {
    $('mcp-refresh').hidden = false;
    $('mcp-refresh').addEventListener('click', () => loadServers().catch(() => {}));
    loadServers().catch(() => {});
  }
  $('run-form').addEventListener('submit', (event) => {
    event.preventDefault();
    api('/api/run', { flow: select.value }).catch(() => {});
  });
  $('cancel').addEventListener('click', () =>
    api('/api/cancel', { runId: state.runId }).catch(() => {}),
  );
  $('save').addEventListener('click', () =>
    api('/api/save', { runId: state.runId }).catch(() => {}),
  );
  $('resume-form').addEventListener('submit', (event) => {
    event.preventDefault();
    api('/api/resume', { path: $('resume-path').value }).catch(() => {});
  });
  const events = new EventSource(withToken('/events'));
  events.addEventListener('message', (message) => apply(JSON.parse(message.data)));
  events.addEventListener('open', () => {
    document.body.dataset.connected = 'true';
  });
}

init().catch((error) => {
  $('error').textContent = `The page could not start: ${error.message}`;
});
