import type { DBOSClient } from '@dbos-inc/dbos-sdk';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DurableRuns, DurableRunsError } from './index.js';
import { client, startModel, startWorker, until, type Worker } from './test-support/harness.js';
import { freshDatabase, postgresUrl } from './test-support/postgres.js';

const server = postgresUrl();

describe.skipIf(server === undefined)('versions: side by side, stranded, fork', () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let model: Awaited<ReturnType<typeof startModel>>;
  const workers: Worker[] = [];
  let dbos: DBOSClient;
  let runs: DurableRuns;
  let pool: pg.Pool;
  const worker = async (executor: string, version: string, extra: Record<string, string> = {}) => {
    const started = await startWorker({
      DATABASE_URL: database.url,
      MODEL_URL: model.baseURL,
      EXECUTOR_ID: executor,
      APP_VERSION: version,
      AGENT_VERSION: version,
      NEEDS_APPROVAL: '1',
      ...extra,
    });
    workers.push(started);
    return started;
  };
  const waiting = (runId: string) =>
    until(async () => ((await runs.interruptions(runId)).length > 0 ? true : undefined));
  const executors = async (runId: string) =>
    (await pool.query('SELECT executor FROM attempts WHERE key = $1', [`${runId}:call_1`])).rows;
  const code = (error: unknown) => (error instanceof DurableRunsError ? error.code : error);

  beforeAll(async () => {
    database = await freshDatabase(server ?? '');
    model = await startModel();
    dbos = await client(database.url);
    // Beats come every 5 s: 12 s is stale for a killed worker only.
    runs = new DurableRuns(dbos, { staleAfterSec: 12 });
    pool = new pg.Pool({ connectionString: database.url, max: 2 });
  }, 60_000);

  afterAll(async () => {
    for (const started of workers) await started.kill();
    await dbos?.destroy();
    await pool?.end();
    await model?.close();
    await database?.drop();
  }, 30_000);

  it('a version that is not DBOS applicationVersion: registerQueue refuses, naming both', async () => {
    await expect(worker('worker-x', 'v1', { AGENT_VERSION: 'v1-typo' })).rejects.toThrow(
      /version "v1-typo" differs from DBOS's applicationVersion "v1"/,
    );
  }, 60_000);

  it('old and new workers side by side: a paused run resumes on the version that started it', async () => {
    const v1 = await worker('worker-v1', 'v1');
    for (const runId of ['old', 'old-2']) {
      await runs.start('mailer', { runId, prompt: 'Email Ada' });
      await waiting(runId);
    }
    expect((await runs.get('old'))?.version).toBe('v1');
    await worker('worker-v2', 'v2', { TOOLS: 'send_email' });
    await runs.start('mailer', { runId: 'new', prompt: 'Email Ada' });
    await waiting('new');
    expect((await runs.get('new'))?.version).toBe('v2');
    await runs.decide('old', { call_1: 'approve' });
    await runs.decide('new', { call_1: 'approve' });
    expect((await runs.result('old')).message.content).toBe('Sent the email.');
    expect((await runs.result('new')).message.content).toBe('Sent the email.');
    expect(await executors('old')).toEqual([{ executor: 'worker-v1' }]);
    expect(await executors('new')).toEqual([{ executor: 'worker-v2' }]);

    // While a v1 worker lives, the run is its: fork would race it.
    const racing = await runs.fork('old-2', { version: 'v2' }).catch((error: unknown) => error);
    expect(code(racing)).toBe('not_stranded');
    // v1 goes away with a run still waiting: the run is stranded, with its version.
    await v1.kill();
    const stranded = await until(async () => {
      const page = await runs.list({ state: 'stranded' });
      return page.runs.length > 0 ? page.runs : undefined;
    });
    expect(stranded.map((run) => [run.runId, run.version])).toEqual([['old-2', 'v1']]);
  }, 180_000);

  it('fork: refused for a version without the tool, an unknown version, a finished run', async () => {
    await worker('worker-v3', 'v3', { TOOLS: 'ask_user' });
    const missing = await runs.fork('old-2', { version: 'v3' }).catch((error: unknown) => error);
    expect(code(missing)).toBe('tool_missing');
    expect((missing as Error).message).toMatch(/"v3" of "mailer" has no send_email/);
    expect(code(await runs.fork('old-2', { version: 'v9' }).catch((e: unknown) => e))).toBe(
      'unknown_version',
    );
    expect(code(await runs.fork('old', { version: 'v2' }).catch((e: unknown) => e))).toBe(
      'not_paused',
    );
    expect(code(await runs.fork('nope', { version: 'v2' }).catch((e: unknown) => e))).toBe(
      'not_found',
    );
    await expect(
      runs.fork('old-2', { version: 'v2', decisions: { call_9: 'approve' } }),
    ).rejects.toThrow(TypeError);
    expect((await runs.get('old-2'))?.state).toBe('stranded');
  }, 60_000);

  it('fork moves the stranded run to v2 from its last step: it finishes there, one effect', async () => {
    const modelRequests = model.requests.length;
    await runs.fork('old-2', { version: 'v2', decisions: { call_1: 'approve' } });
    expect((await runs.result('old-2')).message.content).toBe('Sent the email.');
    expect(await executors('old-2')).toEqual([{ executor: 'worker-v2' }]);
    const effects = await pool.query('SELECT key FROM effects WHERE key = $1', ['old-2:call_1']);
    expect(effects.rowCount).toBe(1);
    // The first request's answer was replayed from the journal: one request only (the last).
    expect(model.requests.length - modelRequests).toBe(1);
    expect(await runs.get('old-2')).toMatchObject({ state: 'succeeded', version: 'v2' });
    const types: string[] = [];
    for await (const event of runs.events('old-2')) types.push(event.type);
    expect(types.filter((type) => type === 'tool_approval_requested')).toHaveLength(1);
    expect(types.filter((type) => type === 'tool_execution_completed')).toHaveLength(1);
  }, 120_000);
});
