import type { DBOSClient } from '@dbos-inc/dbos-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DurableRuns } from './index.js';
import { client, startModel, startWorker, until, type Worker } from './test-support/harness.js';
import { freshDatabase, postgresUrl } from './test-support/postgres.js';

const server = postgresUrl();

describe.skipIf(server === undefined)('workerConcurrency counts running runs only', () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let model: Awaited<ReturnType<typeof startModel>>;
  let worker: Worker;
  let dbos: DBOSClient;
  let runs: DurableRuns;

  beforeAll(async () => {
    database = await freshDatabase(server ?? '');
    model = await startModel();
    worker = await startWorker({
      DATABASE_URL: database.url,
      MODEL_URL: model.baseURL,
      EXECUTOR_ID: 'worker-slot',
      NEEDS_APPROVAL: '1',
      WORKER_CONCURRENCY: '1',
    });
    dbos = await client(database.url);
    runs = new DurableRuns(dbos);
  }, 60_000);

  afterAll(async () => {
    await worker?.kill();
    await dbos?.destroy();
    await model?.close();
    await database?.drop();
  }, 30_000);

  it('a run waiting for approval leaves the slot to another run, then finishes once decided', async () => {
    await runs.start('mailer', { runId: 'waits', prompt: 'Email Ada' });
    const calls = await until(async () => {
      const waiting = await runs.interruptions('waits');
      return waiting.length > 0 ? waiting : undefined;
    });
    expect(calls.map((call) => call.callId)).toEqual(['call_1']);
    // With the only slot held by the waiting run, this one would stay ENQUEUED for ever.
    await runs.start('mailer', { runId: 'passes', prompt: 'Just answer' });
    expect((await runs.result('passes')).message.content).toBe('Sent the email.');
    const waitingRuns = await runs.list({ state: 'waiting_approval' });
    expect(waitingRuns.runs.map((run) => run.runId)).toEqual(['waits']);
    await runs.decide('waits', { call_1: 'approve' });
    expect((await runs.result('waits')).message.content).toBe('Sent the email.');
  }, 60_000);
});
