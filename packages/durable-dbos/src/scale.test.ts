// Issue 32 §2: runs at scale on two worker processes, one SIGKILLed and replaced (a new process
// with its executor id, which recovers its runs on launch). Some of the runs wait for approval,
// all at once; then each is approved. Every run finishes, each effect happens once (one row per
// idempotency key in `effects`), and the wall time and table sizes are printed.
// Full size (10 000 runs, 1 000 waiting) with AGCORE_SCALE=1; with the service tests a reduced
// one (120 runs, 40 waiting), under a minute on a loaded machine.
import type { DBOSClient } from '@dbos-inc/dbos-sdk';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DurableRuns } from './index.js';
import { client, startModel, startWorker, until, type Worker } from './test-support/harness.js';
import { freshDatabase, postgresUrl } from './test-support/postgres.js';

const server = postgresUrl();
const full = process.env.AGCORE_SCALE === '1';
// AGCORE_SCALE_RUNS / AGCORE_SCALE_WAITING set other sizes (a machine too busy for the full one).
const total = Number(process.env.AGCORE_SCALE_RUNS ?? (full ? 10_000 : 120));
const gated = Number(process.env.AGCORE_SCALE_WAITING ?? (full ? 1_000 : 40));
const batch = 100;

describe.skipIf(server === undefined)(`${total} runs, ${gated} waiting, a worker killed`, () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let model: Awaited<ReturnType<typeof startModel>>;
  let workers: Worker[] = [];
  let dbos: DBOSClient;
  let pool: pg.Pool;
  const env = (executor: string) => ({
    DATABASE_URL: database.url,
    MODEL_URL: model.baseURL,
    EXECUTOR_ID: executor,
    WORKER_CONCURRENCY: process.env.SCALE_CONCURRENCY ?? '50',
    POOL_MAX: '8',
  });
  const count = async (sql: string) => Number((await pool.query(sql)).rows[0]?.n ?? 0);

  beforeAll(async () => {
    database = await freshDatabase(server ?? '');
    model = await startModel();
    dbos = await client(database.url);
    pool = new pg.Pool({ connectionString: database.url, max: 2 });
  }, 60_000);

  afterAll(async () => {
    for (const worker of workers) await worker.kill();
    await dbos?.destroy();
    await pool?.end();
    await model?.close();
    await database?.drop();
  }, 60_000);

  /** `work` over `ids` in batches of `batch` at once. */
  const inBatches = async <T>(ids: string[], work: (id: string) => Promise<T>): Promise<T[]> => {
    const out: T[] = [];
    for (let index = 0; index < ids.length; index += batch)
      out.push(...(await Promise.all(ids.slice(index, index + batch).map(work))));
    return out;
  };

  it('all finish, each effect once; wall time and table sizes', async () => {
    const a = await startWorker(env('scale-a'));
    const b = await startWorker(env('scale-b'));
    workers = [a, b];
    const runs = new DurableRuns(dbos);
    const ids = Array.from({ length: total }, (_, index) => `scale-${index}`);
    const waiting = ids.filter((_, index) => index % Math.round(total / gated) === 0);
    const isGated = new Set(waiting);
    const started = performance.now();
    await inBatches(ids, (runId) =>
      runs.start('mailer', { runId, prompt: isGated.has(runId) ? 'Gated email' : 'Email Ada' }),
    );
    // SIGKILL worker A once it has sent some emails, and replace it.
    await until(async () =>
      (await count("SELECT count(*) AS n FROM attempts WHERE executor = 'scale-a'")) >= total / 20
        ? true
        : undefined,
    );
    await a.kill();
    const replacement = await startWorker(env('scale-a'));
    workers = [replacement, b];
    // Every gated run waits for approval, at once (its next stretch is a DELAYED workflow).
    await until(
      async () =>
        (await count("SELECT count(*) AS n FROM dbos.workflow_status WHERE status = 'DELAYED'")) ===
        waiting.length
          ? true
          : undefined,
      500,
    );
    const waitedAtOnce = waiting.length;
    await inBatches(waiting, (runId) => runs.decide(runId, { call_1: 'approve' }));
    const results = await inBatches(ids, (runId) => runs.result(runId));
    const wallSec = (performance.now() - started) / 1000;
    expect(results.every((response) => response.message.content === 'Sent the email.')).toBe(true);
    expect(await count('SELECT count(*) AS n FROM effects')).toBe(total);
    expect(await count('SELECT count(DISTINCT key) AS n FROM attempts')).toBe(total);
    const sizes = await pool.query(
      `SELECT relname AS name, n_live_tup AS rows, pg_total_relation_size(relid) AS bytes
         FROM pg_stat_user_tables WHERE schemaname = 'dbos' ORDER BY bytes DESC`,
    );
    const attempts = await count('SELECT count(*) AS n FROM attempts');
    process.stdout.write(
      `scale: ${total} runs, ${waitedAtOnce} waiting for approval at once, worker scale-a SIGKILLed and replaced: ${wallSec.toFixed(1)} s wall; ${total} effects (one per run), ${attempts} tool attempts\n` +
        sizes.rows
          .map(
            (row: { name: string; rows: string; bytes: string }) =>
              `  dbos.${row.name}: ${row.rows} rows, ${(Number(row.bytes) / 1024 / 1024).toFixed(1)} MB\n`,
          )
          .join(''),
    );
  }, 3_600_000);
});
