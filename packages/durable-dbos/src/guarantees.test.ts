// Issue 23's guarantees that replay demands of the loop, each on real worker processes: an
// ask-back pause is a durable wait answered from anywhere; queued calls start in call order, so
// a replay after a kill starts them in the same order; ids made for id-less calls are in the
// recorded model step, so a takeover has the history of an uninterrupted run; and the spans of
// a durable run carry the run id as `gen_ai.conversation.id`.
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChatChunk, ChatMessage } from '@agcore/llm-cycle';
import type { DBOSClient } from '@dbos-inc/dbos-sdk';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DurableRuns } from './index.js';
import {
  call,
  client,
  startModel,
  startWorker,
  until,
  type Worker,
} from './test-support/harness.js';
import { freshDatabase, postgresUrl } from './test-support/postgres.js';
import type { SpanLine } from './test-support/tracing.js';

const server = postgresUrl();

/** The history with every tool-call id replaced by its order of appearance. */
function withNumberedIds(messages: readonly ChatMessage[]): unknown {
  const numbers = new Map<string, string>();
  const number = (id: string) => {
    if (!numbers.has(id)) numbers.set(id, `id#${numbers.size}`);
    return numbers.get(id);
  };
  return messages.map((message) => {
    if (message.role === 'assistant' && message.tool_calls !== undefined)
      return {
        ...message,
        tool_calls: message.tool_calls.map((toolCall) => ({
          ...toolCall,
          id: number(toolCall.id),
        })),
      };
    if (message.role === 'tool') return { ...message, tool_call_id: number(message.tool_call_id) };
    return message;
  });
}

describe.skipIf(server === undefined)('durable guarantees the loop owes a replay', () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let model: Awaited<ReturnType<typeof startModel>>;
  let workers: Worker[] = [];
  let dbos: DBOSClient;
  let runs: DurableRuns;
  let pool: pg.Pool;
  const env = (executor: string, extra: Record<string, string> = {}) => ({
    DATABASE_URL: database.url,
    MODEL_URL: model.baseURL,
    EXECUTOR_ID: executor,
    ...extra,
  });
  const worker = async (executor: string, extra: Record<string, string> = {}) => {
    const started = await startWorker(env(executor, extra));
    workers.push(started);
    return started;
  };
  /** The tool's starts for a run, in the order they started: `[callId, executor]`. */
  const starts = async (runId: string) =>
    (
      await pool.query('SELECT key, executor FROM attempts WHERE key LIKE $1 ORDER BY seq', [
        `${runId}:%`,
      ])
    ).rows.map((row: { key: string; executor: string }) => [
      row.key.slice(runId.length + 1),
      row.executor,
    ]);
  const history = async (runId: string) => (await runs.state(runId))?.messages ?? [];

  beforeAll(async () => {
    database = await freshDatabase(server ?? '');
    model = await startModel();
    dbos = await client(database.url);
    runs = new DurableRuns(dbos);
    pool = new pg.Pool({ connectionString: database.url, max: 2 });
  }, 60_000);

  afterEach(async () => {
    for (const started of workers) await started.kill();
    workers = [];
    model.settings.calls = undefined;
  }, 30_000);

  afterAll(async () => {
    await dbos?.destroy();
    await pool?.end();
    await model?.close();
    await database?.drop();
  }, 30_000);

  it('an ask-back pause waits durably, a fresh client answers it, a wrong kind is refused unsent', async () => {
    model.settings.calls = [call('call_ask', 'ask_user', 'ada@example.com')];
    await worker('worker-ask');
    await runs.start('mailer', { runId: 'ask', prompt: 'Email Ada' });
    const waiting = await until(async () => {
      const calls = await runs.interruptions('ask');
      return calls.length > 0 ? calls : undefined;
    });
    expect(waiting).toEqual([
      {
        kind: 'input',
        callId: 'call_ask',
        toolName: 'ask_user',
        input: { to: 'ada@example.com' },
        prompt: 'Send to ada@example.com?',
      },
    ]);
    // The wait is in the journal, not in a process: kill the worker, start another.
    for (const started of workers) await started.kill();
    await worker('worker-ask');
    const fresh = await client(database.url);
    try {
      const other = new DurableRuns(fresh);
      expect(await other.interruptions('ask')).toEqual(waiting);
      const sent = async () =>
        (await pool.query('SELECT 1 FROM dbos.notifications WHERE destination_uuid = $1', ['ask']))
          .rowCount;
      const before = await sent();
      await expect(other.decide('ask', { call_ask: 'approve' })).rejects.toThrow(TypeError);
      await expect(other.decide('ask', { call_ask: 'approve' })).rejects.toThrow(
        /asked a question/,
      );
      expect(await sent()).toBe(before);
      expect(await other.interruptions('ask')).toEqual(waiting);

      await other.decide('ask', { call_ask: { input: 'yes' } });
      expect((await other.result('ask')).message.content).toBe('Sent the email.');
    } finally {
      await fresh.destroy();
    }
    const answers = await pool.query('SELECT key, answer FROM answers');
    expect(answers.rows).toEqual([
      {
        key: 'ask:call_ask',
        answer: JSON.stringify({ value: 'yes', data: { to: 'ada@example.com' } }),
      },
    ]);
    const messages = await history('ask');
    expect(messages.filter((message) => message.role === 'tool')).toMatchObject([
      { tool_call_id: 'call_ask', content: JSON.stringify({ answered: 'yes' }) },
    ]);
    expect(await runs.interruptions('ask')).toEqual([]);
  }, 90_000);

  it('queued calls start in call order; a replay after a kill starts them in the same order', async () => {
    const ids = ['c1', 'c2', 'c3', 'c4'];
    model.settings.calls = ids.map((id, index) =>
      call(id, 'send_email', `user${index}@example.com`),
    );
    const slow = await worker('worker-slow', { MAX_PARALLEL: '1', TOOL_DELAY_MS: '3000' });
    await runs.start('mailer', { runId: 'order', prompt: 'Email them' });
    // Kill while the second call runs: the first is recorded, the second is in flight.
    await until(async () => ((await starts('order')).length >= 2 ? true : undefined));
    await slow.kill();
    await worker('worker-fast', { MAX_PARALLEL: '1' });
    await runs.takeOver('worker-slow');
    await runs.result('order');
    await runs.start('mailer', { runId: 'order-ref', prompt: 'Email them' });
    await runs.result('order-ref');

    expect((await starts('order-ref')).map(([id]) => id)).toEqual(ids);
    const seen = await starts('order');
    const before = seen.filter(([, executor]) => executor === 'worker-slow').map(([id]) => id);
    const after = seen.filter(([, executor]) => executor === 'worker-fast').map(([id]) => id);
    // Each worker started calls in call order; the replay began with the call cut by the kill.
    expect(before.length).toBeGreaterThanOrEqual(2);
    expect(before).toEqual(ids.slice(0, before.length));
    expect(after).toEqual(ids.slice(before.length - 1));
    expect(seen.slice(0, before.length).map(([, executor]) => executor)).toEqual(
      before.map(() => 'worker-slow'),
    );
    expect(await history('order')).toEqual(await history('order-ref'));
  }, 90_000);

  it('ids made for id-less calls are recorded: a takeover has the history of an uninterrupted run', async () => {
    model.settings.calls = [
      call('', 'send_email', 'ada@example.com'),
      call('', 'send_email', 'bob@example.com'),
    ];
    const slow = await worker('worker-slow-ids', { TOOL_DELAY_MS: '3000' });
    await runs.start('mailer', { runId: 'ids', prompt: 'Email them' });
    await until(async () => ((await starts('ids')).length >= 2 ? true : undefined));
    await slow.kill();
    await worker('worker-fast-ids');
    await runs.takeOver('worker-slow-ids');
    await runs.result('ids');
    await runs.start('mailer', { runId: 'ids-ref', prompt: 'Email them' });
    await runs.result('ids-ref');

    const messages = await history('ids');
    expect(withNumberedIds(messages)).toEqual(withNumberedIds(await history('ids-ref')));
    const made = messages.flatMap((message) =>
      message.role === 'assistant' ? (message.tool_calls ?? []).map((toolCall) => toolCall.id) : [],
    );
    expect(made).toHaveLength(2);
    expect(new Set(made).size).toBe(2);
    // The calls cut by the kill and their replay on the other worker used the same ids, the
    // ones in history (a fresh id on replay would be a second key: a second side effect).
    const seen = await starts('ids');
    const keysOf = (executor: string) =>
      [...new Set(seen.filter(([, by]) => by === executor).map(([id]) => id))].sort();
    expect(keysOf('worker-slow-ids')).toEqual([...made].sort());
    expect(keysOf('worker-fast-ids')).toEqual([...made].sort());
    const effects = await pool.query('SELECT key FROM effects WHERE key LIKE $1 ORDER BY key', [
      'ids:%',
    ]);
    expect(effects.rows).toEqual([...made].sort().map((id) => ({ key: `ids:${id}` })));
    // And they are the ids in the journal's record of the model step.
    const steps = (await dbos.listWorkflowSteps('ids:s0')) ?? [];
    const first = steps.find((step) => step.name.startsWith('agcore.model.'));
    const chunks = (first?.output as { value: ChatChunk[] } | undefined)?.value ?? [];
    const recorded = chunks.flatMap((chunk) =>
      chunk.type === 'response'
        ? (chunk.response.message.tool_calls ?? []).map((toolCall) => toolCall.id)
        : [],
    );
    expect(recorded).toEqual(made);
  }, 90_000);

  it('spans of a durable run carry gen_ai.conversation.id = the run id (the OTel SDK in the worker)', async () => {
    const file = join(tmpdir(), `agcore-durable-spans-${process.pid}.jsonl`);
    rmSync(file, { force: true });
    try {
      // A run that pauses: two stretches, each a fresh LlmCycle in the worker.
      model.settings.calls = [call('call_ask', 'ask_user', 'ada@example.com')];
      await worker('worker-traced', { TRACE_FILE: file });
      await runs.start('mailer', { runId: 'traced', prompt: 'Email Ada' });
      await until(async () => ((await runs.interruptions('traced')).length > 0 ? true : undefined));
      await runs.decide('traced', { call_ask: { input: 'yes' } });
      await runs.result('traced');
      const spans = await until(async () => {
        let text = '';
        try {
          text = readFileSync(file, 'utf8');
        } catch {
          return undefined;
        }
        const lines = text.split('\n').filter((line) => line !== '');
        const parsed = lines.map((line) => JSON.parse(line) as SpanLine);
        const submits = parsed.filter((span) => span.name.startsWith('invoke_agent'));
        return submits.length === 2 ? parsed : undefined;
      });
      expect(spans.map((span) => span.attributes['gen_ai.operation.name']).sort()).toEqual([
        'chat',
        'chat',
        'execute_tool',
        'execute_tool',
        'invoke_agent',
        'invoke_agent',
      ]);
      for (const span of spans)
        expect([span.name, span.attributes['gen_ai.conversation.id']]).toEqual([
          span.name,
          'traced',
        ]);
    } finally {
      rmSync(file, { force: true });
    }
  }, 60_000);
});
