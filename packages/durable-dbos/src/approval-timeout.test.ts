import { LlmError } from '@agcore/llm-cycle';
import type { DBOSClient } from '@dbos-inc/dbos-sdk';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DurableRuns } from './index.js';
import { client, startModel, startWorker, until, type Worker } from './test-support/harness.js';
import { freshDatabase, postgresUrl } from './test-support/postgres.js';

const server = postgresUrl();

describe.skipIf(server === undefined)('approvalTimeoutSec', () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let model: Awaited<ReturnType<typeof startModel>>;
  let worker: Worker;
  let dbos: DBOSClient;
  let pool: pg.Pool;

  beforeAll(async () => {
    database = await freshDatabase(server ?? '');
    model = await startModel();
    worker = await startWorker({
      DATABASE_URL: database.url,
      MODEL_URL: model.baseURL,
      EXECUTOR_ID: 'worker-t',
      NEEDS_APPROVAL: '1',
      APPROVAL_TIMEOUT_SEC: '1',
      STATE_SECRET: 'a-test-secret-of-at-least-32-bytes!',
    });
    dbos = await client(database.url);
    pool = new pg.Pool({ connectionString: database.url, max: 1 });
  }, 60_000);

  afterAll(async () => {
    await worker?.kill();
    await dbos?.destroy();
    await pool?.end();
    await model?.close();
    await database?.drop();
  }, 30_000);

  it('abandons the waiting calls and ends the run cancelled; a late decision is refused', async () => {
    const runs = new DurableRuns(dbos);
    await runs.start('mailer', { runId: 'slow-person', prompt: 'Email Ada' });
    await until(async () =>
      (await runs.interruptions('slow-person')).length > 0 ? true : undefined,
    );
    const failure = await runs.result('slow-person').catch((error: unknown) => error);
    expect(LlmError.isInstance(failure) && failure.code).toBe('cancelled');
    expect(String((failure as Error).message)).toMatch(/approvalTimeoutSec/);
    expect(await runs.interruptions('slow-person')).toEqual([]);
    await expect(runs.decide('slow-person', { call_1: 'approve' })).rejects.toThrow(TypeError);
    const state = await runs.state('slow-person');
    expect(state?.mac).toEqual(expect.any(String));
    const tool = state?.messages.find((message) => message.role === 'tool');
    expect(tool?.content).toMatch(/^Error \[cancelled\]/);
    expect((await pool.query('SELECT 1 FROM effects')).rowCount).toBe(0);
    expect((await pool.query('SELECT 1 FROM attempts')).rowCount).toBe(0);
  }, 60_000);
});
