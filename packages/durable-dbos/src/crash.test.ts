import type { StreamEvent } from '@agcore/llm-cycle';
import type { DBOSClient } from '@dbos-inc/dbos-sdk';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DurableRuns } from './index.js';
import { client, startModel, startWorker, until, type Worker } from './test-support/harness.js';
import { freshDatabase, postgresUrl } from './test-support/postgres.js';

const server = postgresUrl();

describe.skipIf(server === undefined)('durable runs across killed workers', () => {
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
  const count = async (sql: string, values: unknown[]) =>
    (await pool.query(sql, values)).rowCount ?? 0;

  beforeAll(async () => {
    database = await freshDatabase(server ?? '');
    model = await startModel();
    dbos = await client(database.url);
    runs = new DurableRuns(dbos);
    pool = new pg.Pool({ connectionString: database.url, max: 2 });
  }, 60_000);

  afterAll(async () => {
    for (const worker of workers) await worker.kill();
    await dbos?.destroy();
    await pool?.end();
    await model?.close();
    await database?.drop();
  }, 30_000);

  it('kill mid-tool-call: the other worker continues, one effect per (run, call)', async () => {
    const a = await startWorker(env('worker-a', { TOOL_DELAY_MS: '3000' }));
    const b = await startWorker(env('worker-b', { TOOL_DELAY_MS: '3000' }));
    workers = [a, b];
    const ids = Array.from({ length: 20 }, (_, index) => `mid-${index}`);
    for (const runId of ids) await runs.start('mailer', { runId, prompt: 'Email Ada' });
    await until(async () =>
      (await count("SELECT 1 FROM attempts WHERE executor = 'worker-a'", [])) >= 5
        ? true
        : undefined,
    );
    await a.kill();
    // In flight at the kill: calls worker-a started whose step is not in the journal.
    const started = await pool.query("SELECT key FROM attempts WHERE executor = 'worker-a'");
    let inFlight = 0;
    for (const { key } of started.rows as { key: string }[]) {
      const journal = (await dbos.listWorkflowSteps(`${key.split(':')[0] ?? ''}:s0`)) ?? [];
      if (!journal.some((step) => step.name === 'agcore.tool.send_email')) inFlight += 1;
    }
    expect(inFlight).toBeGreaterThanOrEqual(5);
    const taken = await runs.takeOver('worker-a');
    expect(taken.length).toBeGreaterThanOrEqual(5);
    for (const runId of ids)
      expect((await runs.result(runId)).message.content).toBe('Sent the email.');
    for (const runId of ids) {
      expect(await count('SELECT 1 FROM effects WHERE key = $1', [`${runId}:call_1`])).toBe(1);
    }
    const attempts = await count("SELECT 1 FROM attempts WHERE key LIKE 'mid-%'", []);
    expect(attempts - ids.length).toBeLessThanOrEqual(inFlight);
    await b.kill();
  }, 180_000);

  it('kill during a model request: the same history as an uninterrupted run, no extra requests', async () => {
    model.settings.pauseMs = 0;
    let worker = await startWorker(env('worker-c'));
    workers = [worker];
    await runs.start('mailer', { runId: 'reference', prompt: 'Email Ada' });
    await runs.result('reference');
    const reference = (await runs.state('reference'))?.messages ?? [];
    model.settings.pauseMs = 400;
    const ids = ['model-0', 'model-1', 'model-2'];
    const before = model.requests.length;
    for (const runId of ids) await runs.start('mailer', { runId, prompt: 'Email Ada' });
    const cutBefore = model.disconnects();
    await until(async () => (model.requests.length - before >= 3 ? true : undefined), 20);
    await worker.kill();
    // In flight at the kill: requests the model got that no recorded step answers.
    const sentAtKill = model.requests.length - before;
    let recorded = 0;
    for (const runId of ids) {
      const journal = (await dbos.listWorkflowSteps(`${runId}:s0`)) ?? [];
      recorded += journal.filter((step) => step.name.startsWith('agcore.model.')).length;
    }
    const inFlight = sentAtKill - recorded;
    expect(inFlight).toBeGreaterThanOrEqual(1);
    await until(async () => (model.disconnects() > cutBefore ? true : undefined), 20);
    worker = await startWorker(env('worker-c'));
    workers = [worker];
    model.settings.pauseMs = 0;
    for (const runId of ids) await runs.result(runId);
    for (const runId of ids) {
      const messages = (await runs.state(runId))?.messages ?? [];
      expect(messages).toEqual(reference);
    }
    expect(model.requests.length - before).toBeLessThanOrEqual(ids.length * 2 + inFlight);
    await worker.kill();
  }, 180_000);

  it('streaming across a kill: a reader sees every text delta once and the final response', async () => {
    model.settings.text = Array.from({ length: 12 }, (_, index) => `w${index} `);
    model.settings.pauseMs = 150;
    let worker = await startWorker(env('worker-d'));
    workers = [worker];
    await runs.start('mailer', { runId: 'stream', prompt: 'Email Ada' });
    const events: StreamEvent[] = [];
    let killed: Promise<void> | undefined;
    for await (const event of runs.events('stream')) {
      events.push(event);
      const deltas = events.filter((seen) => seen.type === 'assistant_text_delta').length;
      if (deltas === 4 && killed === undefined) {
        killed = (async () => {
          await worker.kill();
          worker = await startWorker(env('worker-d'));
          workers = [worker];
        })();
      }
    }
    await killed;
    const text = events.flatMap((event) =>
      event.type === 'assistant_text_delta' ? [event.text] : [],
    );
    expect(text.join('')).toBe(model.settings.text.join(''));
    const ends = events.flatMap((event) => (event.type === 'turn_complete' ? [event.reason] : []));
    expect(ends).toEqual(['tool_calls', 'stop']);
    expect((await runs.result('stream')).message.content).toBe(model.settings.text.join(''));
    await worker.kill();
  }, 180_000);

  it('a call that came without an id keeps the id made for it across a kill mid-call', async () => {
    model.settings.callId = '';
    model.settings.pauseMs = 0;
    let worker = await startWorker(env('worker-e', { TOOL_DELAY_MS: '1500' }));
    workers = [worker];
    await runs.start('mailer', { runId: 'id-less', prompt: 'Email Ada' });
    await until(async () =>
      (await count("SELECT 1 FROM attempts WHERE key LIKE 'id-less:%'", [])) > 0 ? true : undefined,
    );
    await worker.kill();
    worker = await startWorker(env('worker-e', { TOOL_DELAY_MS: '1500' }));
    workers = [worker];
    await runs.result('id-less');
    const messages = (await runs.state('id-less'))?.messages ?? [];
    const call = messages.flatMap((message) =>
      message.role === 'assistant' ? (message.tool_calls ?? []) : [],
    )[0];
    expect(call?.id).toMatch(/^call_/);
    const keys = await pool.query("SELECT DISTINCT key FROM attempts WHERE key LIKE 'id-less:%'");
    expect(keys.rows).toEqual([{ key: `id-less:${call?.id}` }]);
    expect(await count('SELECT 1 FROM effects WHERE key = $1', [`id-less:${call?.id}`])).toBe(1);
    model.settings.callId = 'call_1';
    await worker.kill();
  }, 120_000);
});
