// A worker process for the tests: one agent, `mailer`, whose tool `send_email` records every
// attempt and writes one effect row per `context.idempotencyKey` (a unique key: a second write
// of the same key is a second side effect and fails the insert, which the test would see as a
// missing row... so it is `ON CONFLICT DO NOTHING` and the attempts table counts the tries, in
// the order they started: `seq`). `ask_user` asks a person first (`awaitInput`) and records the
// answer it got. TRACE_FILE registers the real OpenTelemetry SDK, spans to that file.
import { createOpenAICompatibleProvider } from '@agcore/llm-cycle';
import { createPostgresStores } from '@agcore/store-postgres';
import { awaitInput, defineTool } from '@agcore/tools-core';
import { ToolRegistry } from '@agcore/tools-registry';
import { DBOS } from '@dbos-inc/dbos-sdk';
import pg from 'pg';
import { defineDurableAgent } from '../index.js';
import { traceToFile } from './tracing.js';

const env = (name: string): string => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`worker: ${name} is not set`);
  return value;
};
const databaseUrl = env('DATABASE_URL');
if (process.env.TRACE_FILE !== undefined) traceToFile(process.env.TRACE_FILE);
// The load test's Postgres round trips: every query of this process, reported as it goes (a
// killed worker's last report is a little short of its count).
if (process.env.COUNT_QUERIES === '1') {
  let queries = 0;
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    queries += 1;
    return (query as (...rest: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  setInterval(() => process.stdout.write(`queries ${String(queries)}\n`), 200).unref();
}
const pool = new pg.Pool({
  connectionString: databaseUrl,
  max: Number(process.env.POOL_MAX ?? '4'),
});
const delayMs = Number(process.env.TOOL_DELAY_MS ?? '0');

/** `send_email` (approval per NEEDS_APPROVAL) and `send_gated` (always approved first) alike. */
const emailTool = (name: string, needsApproval: boolean) =>
  defineTool({
    name,
    description: 'Sends an email',
    parameters: { type: 'object', properties: { to: { type: 'string' } }, required: ['to'] },
    needsApproval,
    execute: async ({ to }: { to: string }, context) => {
      const key = context.idempotencyKey ?? 'none';
      await pool.query('INSERT INTO attempts (key, executor) VALUES ($1, $2)', [
        key,
        env('EXECUTOR_ID'),
      ]);
      process.stdout.write(`tool-started ${key}\n`);
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      const inserted = await pool.query(
        'INSERT INTO effects (key, recipient) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING',
        [key, to],
      );
      return { sent: to, first: inserted.rowCount === 1 };
    },
  });
const sendEmail = emailTool('send_email', process.env.NEEDS_APPROVAL === '1');
const sendGated = emailTool('send_gated', true);

const askUser = defineTool({
  name: 'ask_user',
  description: 'Asks the user before sending',
  parameters: { type: 'object', properties: { to: { type: 'string' } }, required: ['to'] },
  execute: async ({ to }: { to: string }, context) => {
    if (context.input === undefined) return awaitInput({ prompt: `Send to ${to}?`, data: { to } });
    const answer = JSON.stringify(context.input);
    await pool.query('INSERT INTO answers (key, answer) VALUES ($1, $2)', [
      context.idempotencyKey ?? 'none',
      answer,
    ]);
    return { answered: context.input.value };
  },
});

// `fetch_report` returns a long report whose last line is `FACT the end` (spilled past SPILL_BYTES).
const fetchReport = defineTool({
  name: 'fetch_report',
  description: 'Fetches the long report',
  parameters: { type: 'object', properties: {} },
  execute: async () =>
    Array.from({ length: 2000 }, (_, n) => `line ${n}: é-data ünïcode`)
      .concat('FACT the end')
      .join('\n'),
});

// SHARED_STORES=1: one pool for DBOS's system database and the Postgres stores (one set of tables).
const systemPool =
  process.env.SHARED_STORES === '1'
    ? new pg.Pool({ connectionString: databaseUrl, max: 6 })
    : undefined;
systemPool?.on('error', () => undefined);
const stores = systemPool === undefined ? undefined : createPostgresStores({ pool: systemPool });

// A tool with no side effect and no I/O: what a step costs around it is all bookkeeping.
const note = defineTool({
  name: 'note',
  description: 'Notes a recipient',
  parameters: { type: 'object', properties: { to: { type: 'string' } }, required: ['to'] },
  execute: ({ to }: { to: string }) => ({ noted: to }),
});

// `halt` kills its own worker process mid-step (SIGKILL, at once) when HALT=1: a crash at a
// known point of the stretch, with the events of the calls before it still pending.
const halt = defineTool({
  name: 'halt',
  description: 'Halts',
  parameters: { type: 'object', properties: { to: { type: 'string' } }, required: ['to'] },
  execute: ({ to }: { to: string }) => {
    if (process.env.HALT === '1') process.kill(process.pid, 'SIGKILL');
    return { halted: to };
  },
});

// TOOLS: the names of the tools this worker's registry has (default all but fetch_report, halt).
const toolNames = (process.env.TOOLS ?? 'send_email,send_gated,ask_user,note').split(',');
const tools = [sendEmail, sendGated, askUser, note, fetchReport, halt].filter((tool) =>
  toolNames.includes(tool.name),
);
const timeout = process.env.APPROVAL_TIMEOUT_SEC;
const parallel = process.env.MAX_PARALLEL;
const agent = defineDurableAgent({
  name: 'mailer',
  cycle: () => ({
    provider: createOpenAICompatibleProvider({ baseURL: env('MODEL_URL'), apiKey: 'sk-test' }),
    model: 'test',
    retry: { maxRetries: 0 },
    ...(parallel === undefined ? {} : { maxParallelToolCalls: Number(parallel) }),
    ...(process.env.STATE_SECRET === undefined ? {} : { stateSecret: process.env.STATE_SECRET }),
    ...(process.env.SPILL_BYTES === undefined
      ? {}
      : { maxToolResultBytes: Number(process.env.SPILL_BYTES) }),
  }),
  ...(stores === undefined ? {} : { stores }),
  registry: () => new ToolRegistry().registerAll(tools),
  queue: {
    workerConcurrency: Number(process.env.WORKER_CONCURRENCY ?? '10'),
    ...(process.env.QUEUE_NAME === undefined ? {} : { name: process.env.QUEUE_NAME }),
  },
  ...(timeout === undefined ? {} : { approvalTimeoutSec: Number(timeout) }),
  ...(process.env.AGENT_VERSION === undefined ? {} : { version: process.env.AGENT_VERSION }),
});

await pool.query('CREATE TABLE IF NOT EXISTS attempts (seq bigserial, key text, executor text)');
await pool.query('CREATE TABLE IF NOT EXISTS answers (key text, answer text)');
await pool.query('CREATE TABLE IF NOT EXISTS effects (key text PRIMARY KEY, recipient text)');
DBOS.setConfig({
  name: 'agcore-durable-test',
  systemDatabaseUrl: databaseUrl,
  ...(systemPool === undefined ? {} : { systemDatabasePool: systemPool }),
  executorID: env('EXECUTOR_ID'),
  applicationVersion: process.env.APP_VERSION ?? 'agcore-test-1',
  runAdminServer: false,
  logLevel: 'error',
});
await DBOS.launch();
await agent.registerQueue();
process.stdout.write('ready\n');
