import type { DBOSClient } from '@dbos-inc/dbos-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DurableRuns, DurableRunsError } from './index.js';
import { client, startModel, startWorker, until, type Worker } from './test-support/harness.js';
import { freshDatabase, postgresUrl } from './test-support/postgres.js';

const server = postgresUrl();

describe.skipIf(server === undefined)('the agent catalog: clients find the queue', () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let model: Awaited<ReturnType<typeof startModel>>;
  let worker: Worker | undefined;
  let dbos: DBOSClient;
  const env = (executor: string, extra: Record<string, string> = {}) => ({
    DATABASE_URL: database.url,
    MODEL_URL: model.baseURL,
    EXECUTOR_ID: executor,
    ...extra,
  });

  beforeAll(async () => {
    database = await freshDatabase(server ?? '');
    model = await startModel();
    dbos = await client(database.url);
  }, 60_000);

  afterAll(async () => {
    await worker?.kill();
    await dbos?.destroy();
    await model?.close();
    await database?.drop();
  }, 30_000);

  it('an agent no worker ever registered: start rejects with unknown_agent and enqueues nothing', async () => {
    const runs = new DurableRuns(dbos);
    const failure = await runs
      .start('mailer', { runId: 'early', prompt: 'Email Ada' })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(DurableRunsError);
    expect((failure as DurableRunsError).code).toBe('unknown_agent');
    expect((failure as DurableRunsError).message).toMatch(/"mailer".*registerQueue/);
  }, 60_000);

  it('a worker with a named queue, a client without `queues`: every run finishes', async () => {
    worker = await startWorker(env('worker-a', { QUEUE_NAME: 'mail' }));
    const runs = new DurableRuns(dbos);
    const ids = Array.from({ length: 5 }, (_, index) => `named-${index}`);
    for (const runId of ids) await runs.start('mailer', { runId, prompt: 'Email Ada' });
    for (const runId of ids)
      expect((await runs.result(runId)).message.content).toBe('Sent the email.');
    for (const runId of ids) expect((await dbos.getWorkflow(runId))?.queueName).toBe('mail');
    const typo = await runs
      .start('mailr', { runId: 'typo', prompt: 'Email Ada' })
      .catch((error: unknown) => error);
    expect((typo as DurableRunsError).code).toBe('unknown_agent');
    expect(await dbos.getWorkflow('typo')).toBeUndefined();
    const [record] = await runs.agents();
    expect(record).toMatchObject({
      name: 'mailer',
      executorId: 'worker-a',
      version: 'agcore-test-1',
      queue: 'mail',
      tools: ['send_email', 'send_gated', 'ask_user', 'note'],
      live: true,
    });
  }, 120_000);

  it('an agent whose workers are all gone: start enqueues, the run waits for a worker', async () => {
    await worker?.kill();
    worker = undefined;
    const runs = new DurableRuns(dbos, { staleAfterSec: 1 });
    await until(async () => ((await runs.agents()).some((agent) => agent.live) ? undefined : true));
    await runs.start('mailer', { runId: 'orphan', prompt: 'Email Ada' });
    expect((await dbos.getWorkflow('orphan'))?.status).toBe('ENQUEUED');
    const listed = await runs.list({ state: 'no_worker' });
    expect(listed.runs.map((run) => [run.runId, run.state])).toEqual([['orphan', 'no_worker']]);
    worker = await startWorker(env('worker-b', { QUEUE_NAME: 'mail' }));
    expect((await runs.result('orphan')).message.content).toBe('Sent the email.');
    expect((await runs.get('orphan'))?.state).toBe('succeeded');
  }, 120_000);
});
