// The durable view (`web --durable URL`): the runs on a system database by state, the
// timeline of the one picked (from its events), and approve/deny for the calls it waits on.

import { element } from '/timeline.js';

const token = new URLSearchParams(location.search).get('token') ?? '';
const $ = (id) => document.getElementById(id);
const view = { runId: undefined, busy: false };
const stateNames = {
  waiting_approval: 'Waiting for approval',
  running: 'Running',
  pending: 'Pending',
  stranded: 'Stranded (no worker of its version)',
  no_worker: 'No worker',
  failed: 'Failed',
  cancelled: 'Cancelled',
  succeeded: 'Succeeded',
};

async function api(path, body, query = '') {
  const response = await fetch(`${path}?token=${encodeURIComponent(token)}${query}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = await response.json();
  if (!response.ok) {
    $('error').textContent = answer.error ?? `${path}: ${response.status}`;
    throw new Error(answer.error);
  }
  $('error').textContent = '';
  return answer;
}

function renderRuns(runs, more) {
  const groups = new Map(Object.keys(stateNames).map((state) => [state, []]));
  for (const run of runs) groups.get(run.state)?.push(run);
  const sections = [];
  for (const [state, members] of groups) {
    if (members.length === 0) continue;
    const section = element('section', 'state-group');
    section.dataset.state = state;
    const heading = element('h3', null, `${stateNames[state]} (${members.length})`);
    const list = element('ul', 'run-list');
    for (const run of members) {
      const item = element('li');
      const button = element('button', 'run-link', `${run.runId} · ${run.agentName}`);
      button.type = 'button';
      button.dataset.runId = run.runId;
      button.setAttribute('aria-pressed', String(run.runId === view.runId));
      button.addEventListener('click', () => pick(run.runId));
      item.append(button);
      list.append(item);
    }
    section.append(heading, list);
    sections.push(section);
  }
  $('states').replaceChildren(...sections);
  $('runs-empty').hidden = runs.length > 0;
  const summary = `${runs.length}${more ? '+' : ''} runs, newest first`;
  $('durable-summary').textContent = summary;
}

function eventLine(event) {
  switch (event.type) {
    case 'tool_execution_started':
      return `→ ${event.toolName} ${JSON.stringify(event.input)}`;
    case 'tool_execution_completed':
      return `← ${event.toolName} ${event.error === undefined ? JSON.stringify(event.output) : `error: ${event.error}`}`;
    case 'tool_approval_requested':
      return `⏸ ${event.toolName} waits for approval (${event.callId})`;
    case 'tool_input_requested':
      return `⏸ ${event.toolName} asks: ${event.prompt ?? ''}`;
    case 'turn_complete':
      return `● turn complete: ${event.reason}`;
    default:
      return event.type;
  }
}

/** The events as timeline lines: a turn's text deltas joined into one line. */
function timelineItems(events) {
  const items = [];
  let text;
  for (const event of events) {
    if (event.type === 'assistant_text_delta') {
      if (text === undefined) {
        text = element('li', 'event-text', '');
        text.dataset.type = 'assistant_text';
        items.push(text);
      }
      text.textContent += event.text;
      continue;
    }
    if (event.type.endsWith('_delta')) continue;
    text = undefined;
    const item = element('li', null, eventLine(event));
    item.dataset.type = event.type;
    items.push(item);
  }
  return items;
}

function waitingItem(call) {
  const item = element('li', 'approval');
  item.dataset.callId = call.callId;
  const reasonId = `reason-${call.callId}`;
  const asks = call.kind === 'input';
  const label = element(
    'label',
    null,
    asks ? 'Answer, or reason to deny' : 'Reason to deny (optional)',
  );
  label.htmlFor = reasonId;
  const reason = element('input');
  reason.id = reasonId;
  reason.type = 'text';
  const approve = element('button', 'approve', `${asks ? 'Answer' : 'Approve'} ${call.toolName}`);
  approve.type = 'button';
  const deny = element('button', 'deny', `Deny ${call.toolName}`);
  deny.type = 'button';
  approve.addEventListener('click', () => decide(call, asks ? { input: reason.value } : 'approve'));
  deny.addEventListener('click', () =>
    decide(call, { deny: reason.value || 'denied on the page' }),
  );
  const args = element('pre', null, JSON.stringify(call.input ?? null, null, 2));
  if (asks && call.prompt) item.append(element('p', null, call.prompt));
  item.append(
    element('strong', null, call.toolName),
    element('span', 'call-id', ` ${call.callId}`),
  );
  item.append(args, label, reason, approve, deny);
  return item;
}

async function decide(call, decision) {
  const runId = view.runId;
  for (const button of $('waiting').querySelectorAll('button')) button.disabled = true;
  try {
    await api('/api/durable/decide', { runId, decisions: { [call.callId]: decision } });
  } finally {
    await refresh();
  }
}

async function showRun() {
  if (view.runId === undefined) return;
  const { run, events, waiting } = await api(
    '/api/durable/run',
    undefined,
    `&id=${encodeURIComponent(view.runId)}`,
  );
  $('run-none').hidden = true;
  $('run').hidden = false;
  $('run').dataset.runId = run.runId;
  $('run').dataset.state = run.state;
  $('run-id').textContent = run.runId;
  $('run-agent').textContent = run.agentName;
  $('run-state').textContent = stateNames[run.state] ?? run.state;
  $('run-version').textContent = run.version ?? '?';
  $('waiting').replaceChildren(...waiting.map(waitingItem));
  $('waiting-none').hidden = waiting.length > 0;
  $('timeline').replaceChildren(...timelineItems(events));
}

async function pick(runId) {
  view.runId = runId;
  await refresh();
}

async function refresh() {
  if (view.busy) return;
  view.busy = true;
  try {
    const { runs, more } = await api('/api/durable/runs');
    renderRuns(runs, more);
    await showRun();
  } catch {
    // shown in #error
  } finally {
    view.busy = false;
  }
}

await refresh();
setInterval(refresh, 2000);
