import { LlmError, type StreamEvent } from '@agcore/llm-cycle';
import type { DBOSClient } from '@dbos-inc/dbos-sdk';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DurableRuns } from './index.js';
import { client, startModel, startWorker, until, type Worker } from './test-support/harness.js';
import { freshDatabase, postgresUrl } from './test-support/postgres.js';

const server = postgresUrl();

describe.skipIf(server === undefined)('durable runs waiting for a person', () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let model: Awaited<ReturnType<typeof startModel>>;
  let worker: Worker;
  let dbos: DBOSClient;
  let runs: DurableRuns;
  let pool: pg.Pool;
  let env: Record<string, string>;

  beforeAll(async () => {
    database = await freshDatabase(server ?? '');
    model = await startModel();
    env = {
      DATABASE_URL: database.url,
      MODEL_URL: model.baseURL,
      EXECUTOR_ID: 'worker-a',
      NEEDS_APPROVAL: '1',
    };
    worker = await startWorker(env);
    dbos = await client(database.url);
    runs = new DurableRuns(dbos);
    pool = new pg.Pool({ connectionString: database.url, max: 2 });
  }, 60_000);

  afterAll(async () => {
    await worker?.kill();
    await dbos?.destroy();
    await pool?.end();
    await model?.close();
    await database?.drop();
  }, 30_000);

  const effects = async (runId: string) =>
    (await pool.query('SELECT key FROM effects WHERE key LIKE $1', [`${runId}:%`])).rowCount;
  const waiting = (runId: string) =>
    until(async () => {
      const calls = await runs.interruptions(runId);
      return calls.length > 0 ? calls : undefined;
    });

  it('refuses wrong decisions before sending, then applies a decision sent twice once', async () => {
    await runs.start('mailer', { runId: 'run-wrong', prompt: 'Email Ada' });
    const calls = await waiting('run-wrong');
    expect(calls).toMatchObject([{ kind: 'approval', callId: 'call_1', toolName: 'send_email' }]);
    await expect(runs.decide('run-wrong', { nope: 'approve' })).rejects.toThrow(TypeError);
    await expect(runs.decide('run-wrong', { call_1: { input: 'yes' } })).rejects.toThrow(
      /waits for approval/,
    );
    await expect(runs.decide('run-wrong', {})).rejects.toThrow(/has no decision/);
    expect(await effects('run-wrong')).toBe(0);
    expect(await runs.interruptions('run-wrong')).toHaveLength(1);

    await runs.decide('run-wrong', { call_1: 'approve' });
    await runs.decide('run-wrong', { call_1: 'approve' });
    const response = await runs.result('run-wrong');
    expect(response.message.content).toBe('Sent the email.');
    await runs.decide('run-wrong', { call_1: 'approve' }); // after the end: already applied
    expect(await effects('run-wrong')).toBe(1);
    const attempts = await pool.query('SELECT key FROM attempts WHERE key = $1', [
      'run-wrong:call_1',
    ]);
    expect(attempts.rowCount).toBe(1);

    const events: StreamEvent[] = [];
    for await (const event of runs.events('run-wrong')) events.push(event);
    const types = events.map((event) => event.type);
    expect(types.filter((type) => type === 'tool_approval_requested')).toHaveLength(1);
    expect(types.filter((type) => type === 'tool_execution_started')).toHaveLength(1);
    expect(types.filter((type) => type === 'tool_execution_completed')).toHaveLength(1);
    const text = events.flatMap((event) =>
      event.type === 'assistant_text_delta' ? [event.text] : [],
    );
    expect(text.join('')).toBe('Sent the email.');
    expect(types.at(-1)).toBe('turn_complete');
    const state = await runs.state('run-wrong');
    expect(state?.runId).toBe('run-wrong');
    expect(state?.pending).toBeNull();
  }, 60_000);

  it('cancels a run that waits: result() rejects with cancelled, the tool never ran', async () => {
    await runs.start('mailer', { runId: 'run-cancel', prompt: 'Email Ada' });
    await waiting('run-cancel');
    await runs.cancel('run-cancel');
    const failure = await runs.result('run-cancel').catch((error: unknown) => error);
    expect(LlmError.isInstance(failure) && failure.code).toBe('cancelled');
    expect(await effects('run-cancel')).toBe(0);
    const listed = await runs.list({ state: 'cancelled' });
    expect(listed.runs.map((run) => run.runId)).toContain('run-cancel');
  }, 60_000);

  it('keeps waiting runs across a killed worker; decisions from a fresh process, twice each', async () => {
    const ids = ['k0', 'k1', 'k2', 'k3', 'k4'];
    for (const runId of ids) await runs.start('mailer', { runId, prompt: 'Email Ada' });
    for (const runId of ids) await waiting(runId);
    await worker.kill();
    worker = await startWorker(env); // same executor id: DBOS recovers its runs on launch
    const fresh = await client(database.url);
    try {
      const other = new DurableRuns(fresh);
      expect(
        (await pool.query('SELECT key FROM attempts WHERE key LIKE $1', ['k%'])).rowCount,
      ).toBe(0);
      for (const runId of ids) {
        await other.decide(runId, { call_1: 'approve' });
        await other.decide(runId, { call_1: 'approve' });
      }
      for (const runId of ids)
        expect((await other.result(runId)).message.content).toBe('Sent the email.');
    } finally {
      await fresh.destroy();
    }
    const rows = await pool.query('SELECT key FROM attempts WHERE key LIKE $1 ORDER BY key', [
      'k%',
    ]);
    expect(rows.rows.map((row: { key: string }) => row.key)).toEqual(
      ids.map((id) => `${id}:call_1`),
    );
    for (const runId of ids) expect(await effects(runId)).toBe(1);
  }, 120_000);
});
