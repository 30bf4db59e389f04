// Issue 23 §3.6, opt-in (AGCORE_DURABLE_LOAD=1): 200 concurrent runs on two workers, one killed
// while its calls are in flight; every run finishes, one effect per (run, call). Prints the wall
// time and the Postgres round trips per run (queries of both workers and of this client).
import type { DBOSClient } from '@dbos-inc/dbos-sdk';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DurableRuns } from './index.js';
import { client, startModel, startWorker, until, type Worker } from './test-support/harness.js';
import { freshDatabase, postgresUrl } from './test-support/postgres.js';

const server = process.env.AGCORE_DURABLE_LOAD === '1' ? postgresUrl() : undefined;

describe.skipIf(server === undefined)('200 durable runs, two workers, one killed', () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let model: Awaited<ReturnType<typeof startModel>>;
  let workers: Worker[] = [];
  let dbos: DBOSClient;
  let pool: pg.Pool;
  let queries = 0;
  const query = pg.Client.prototype.query;

  beforeAll(async () => {
    database = await freshDatabase(server ?? '');
    model = await startModel();
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      queries += 1;
      return (query as (...rest: unknown[]) => unknown).apply(this, args);
    } as typeof query;
    dbos = await client(database.url);
    pool = new pg.Pool({ connectionString: database.url, max: 2 });
  }, 60_000);

  afterAll(async () => {
    pg.Client.prototype.query = query;
    for (const worker of workers) await worker.kill();
    await dbos?.destroy();
    await pool?.end();
    await model?.close();
    await database?.drop();
  }, 60_000);

  const reported = (worker: Worker) =>
    Number(
      worker.output
        .filter((line) => line.startsWith('queries '))
        .at(-1)
        ?.slice(8) ?? '0',
    );

  it('all 200 finish, one effect each; wall time and round trips per run', async () => {
    const env = (executor: string) => ({
      DATABASE_URL: database.url,
      MODEL_URL: model.baseURL,
      EXECUTOR_ID: executor,
      TOOL_DELAY_MS: '500',
      WORKER_CONCURRENCY: '50',
      COUNT_QUERIES: '1',
    });
    const a = await startWorker(env('load-a'));
    const b = await startWorker(env('load-b'));
    workers = [a, b];
    const runs = new DurableRuns(dbos);
    const ids = Array.from({ length: 200 }, (_, index) => `load-${index}`);
    const before = queries;
    const started = performance.now();
    await Promise.all(ids.map((runId) => runs.start('mailer', { runId, prompt: 'Email Ada' })));
    await until(async () => {
      const rows = await pool.query("SELECT 1 FROM attempts WHERE executor = 'load-a'");
      return (rows.rowCount ?? 0) >= 20 ? true : undefined;
    });
    await a.kill();
    const taken = await runs.takeOver('load-a');
    const results = await Promise.all(ids.map((runId) => runs.result(runId)));
    const wallSec = (performance.now() - started) / 1000;
    expect(results.every((response) => response.message.content === 'Sent the email.')).toBe(true);
    const effects = await pool.query("SELECT key FROM effects WHERE key LIKE 'load-%'");
    expect(effects.rowCount).toBe(200);
    const perRun = (queries - before + reported(a) + reported(b)) / ids.length;
    process.stdout.write(
      `load: 200 runs, two workers, load-a killed (${String(taken.length)} workflows taken over): ${wallSec.toFixed(1)} s wall, ${perRun.toFixed(0)} Postgres round trips per run\n`,
    );
  }, 600_000);
});
