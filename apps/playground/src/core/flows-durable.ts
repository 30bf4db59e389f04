// `--flow durable`: the approval flow as a durable run on Postgres (@agcore/durable-dbos). This
// process is only a client: a worker child process runs the agent, the run pauses for
// approval, and a second child process (not the one that started the run) sends the decision.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { DurableRuns } from '@agcore/durable-dbos';
import type { StreamEvent } from '@agcore/llm-cycle';
import { describeThrown } from '@agcore/tools-core';
import { DBOSClient } from '@dbos-inc/dbos-sdk';
import type { Flow, ScriptedTurn } from './flow-types.js';
import type { Terminal } from './output.js';
import { ExitCode, PlaygroundError } from './playground-error.js';
import type { RunSettings } from './run-settings.js';

/** The durable agent's name (its DBOS workflow is `agcore.agent.playground-approve`). */
export const durableAgentName = 'playground-approve';

/** What the scripted model answers in the durable flow, by turn. */
export const durableScript: readonly ScriptedTurn[] = [
  {
    text: 'I will check the weather and delete access.log; deleting needs your approval.',
    toolCalls: [
      { name: 'get_weather', arguments: { city: 'Paris' } },
      { name: 'delete_file', arguments: { path: 'access.log' } },
    ],
  },
  { text: 'Done. Paris is 18 °C; the result above says whether access.log was deleted.' },
];

const howToStart =
  'Start one and set DATABASE_URL, e.g. as root on Debian: apt-get install -y postgresql && ' +
  'pg_ctlcluster 15 main start, then DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres ' +
  '(the flow creates its own database, agcore_playground, beside it).';

const workerPath = fileURLToPath(new URL('./flows-durable-worker.js', import.meta.url));

/** The system database of the flow: `agcore_playground` on the server of `DATABASE_URL`. */
function systemDatabaseUrl(): string {
  const given = process.env.DATABASE_URL ?? process.env.AGCORE_TEST_POSTGRES_URL;
  if (given === undefined || given === '') {
    throw new PlaygroundError(`--flow durable needs Postgres. ${howToStart}`, {
      exitCode: ExitCode.failed,
    });
  }
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw new PlaygroundError(`DATABASE_URL is not a URL. ${howToStart}`, {
      exitCode: ExitCode.failed,
    });
  }
  url.pathname = '/agcore_playground';
  return url.toString();
}

/** Starts a child of the worker entry and resolves to its first line of status. */
function child(args: readonly string[], databaseUrl: string): Promise<[ChildProcess, string]> {
  // pg's deprecation notices would land on the user's terminal (stderr is shared).
  const process_ = spawn(process.execPath, ['--no-deprecation', workerPath, ...args], {
    env: { ...process.env, DATABASE_URL: databaseUrl },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let buffered = '';
    process_.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const line = buffered.split('\n')[0];
      if (buffered.includes('\n') && line !== undefined) resolve([process_, line]);
    });
    process_.once('exit', (code) =>
      reject(new Error(buffered.trim() || `exited with code ${String(code)}`)),
    );
  });
}

function unreachable(error: unknown, databaseUrl: string): PlaygroundError {
  const { password } = new URL(databaseUrl);
  let reason = describeThrown(error).replace(/^error /, '');
  if (password !== '') reason = reason.replaceAll(password, '***');
  return new PlaygroundError(`Postgres is not reachable (${reason}). ${howToStart}`, {
    exitCode: ExitCode.failed,
  });
}

function print(terminal: Terminal, event: StreamEvent): void {
  const out = terminal.out;
  if (event.type === 'assistant_text_delta') out.write(event.text);
  else if (event.type === 'tool_execution_started')
    out.write(`\n→ ${event.toolName} ${JSON.stringify(event.input)}\n`);
  else if (event.type === 'tool_execution_completed')
    out.write(
      `← ${event.toolName} ${event.error === undefined ? JSON.stringify(event.output) : String(event.error)}\n`,
    );
  else if (event.type === 'tool_approval_requested')
    out.write(`\n⏸ waits for approval: ${event.toolName} (${event.callId})\n`);
}

async function runDurable(settings: RunSettings): Promise<number> {
  const databaseUrl = systemDatabaseUrl();
  const out = settings.terminal.out;
  const [worker, ready] = await child(['worker'], databaseUrl).catch((error: unknown) => {
    throw unreachable(error, databaseUrl);
  });
  if (!ready.startsWith('ready')) throw unreachable(ready, databaseUrl);
  out.write(`worker: process ${String(worker.pid)}, Postgres database agcore_playground\n`);
  const client = await DBOSClient.create({ systemDatabaseUrl: databaseUrl });
  try {
    const runs = new DurableRuns(client);
    const runId = `playground-${randomUUID().slice(0, 8)}`;
    await runs.start(durableAgentName, { runId, prompt: durableFlow.prompt(noContext) });
    out.write(`run ${runId} started\n`);
    let approver: Promise<[ChildProcess, string]> | undefined;
    for await (const event of runs.events(runId)) {
      if (settings.json) out.write(`${JSON.stringify(event)}\n`);
      else print(settings.terminal, event);
      if (event.type === 'tool_approval_requested' && approver === undefined) {
        const answer = settings.decisions.approve ?? 'yes';
        approver = child(['approve', runId, answer], databaseUrl);
        const [decider] = await approver;
        out.write(`decided '${answer}' from another process (${String(decider.pid)})\n`);
      }
    }
    const response = await runs.result(runId);
    out.write(
      `\n● complete: run ${runId} (${String(response.message.content?.length ?? 0)} characters)\n`,
    );
    return ExitCode.ok;
  } finally {
    await client.destroy();
    worker.kill('SIGTERM');
  }
}

const noContext = { sandboxDir: '', allows: () => true, resuming: false };

/** `durable`: the approval flow as a durable run (a worker process, a second process approves). */
export const durableFlow: Flow = {
  name: 'durable',
  summary:
    'The approval flow as a durable run on Postgres (DATABASE_URL): a worker process runs it, a second process approves (--approve yes|no).',
  servers: [],
  allow: ['delete'],
  prompt: () => 'What is the weather in Paris? Then delete access.log.',
  script: () => [...durableScript],
  expects: () => 'complete',
  run: runDurable,
};
