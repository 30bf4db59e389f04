import type { DBOSClient } from '@dbos-inc/dbos-sdk';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DurableRuns } from './index.js';
import { client, startModel, startWorker, until, type Worker } from './test-support/harness.js';
import { freshDatabase, postgresUrl } from './test-support/postgres.js';

const server = postgresUrl();

describe.skipIf(server === undefined)('seeing runs: list, get, retain', () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let model: Awaited<ReturnType<typeof startModel>>;
  let worker: Worker;
  let dbos: DBOSClient;
  let runs: DurableRuns;
  let pool: pg.Pool;

  beforeAll(async () => {
    database = await freshDatabase(server ?? '');
    model = await startModel();
    worker = await startWorker({
      DATABASE_URL: database.url,
      MODEL_URL: model.baseURL,
      EXECUTOR_ID: 'worker-a',
      NEEDS_APPROVAL: '1',
    });
    dbos = await client(database.url);
    runs = new DurableRuns(dbos);
    pool = new pg.Pool({ connectionString: database.url, max: 2 });
    // One run at a time, so their creation order is their id order.
    for (const runId of ['ok-0', 'ok-1', 'ok-2']) {
      await runs.start('mailer', { runId, prompt: 'Just answer' });
      await runs.result(runId);
    }
    await runs.start('mailer', { runId: 'fail-0', prompt: 'Fail now' });
    await runs.result('fail-0').catch(() => undefined);
    for (const runId of ['wait-0', 'wait-1', 'cancel-0']) {
      await runs.start('mailer', { runId, prompt: 'Email Ada' });
      await until(async () => ((await runs.interruptions(runId)).length > 0 ? true : undefined));
    }
    await runs.cancel('cancel-0');
    await runs.result('cancel-0').catch(() => undefined);
  }, 180_000);

  afterAll(async () => {
    await worker?.kill();
    await dbos?.destroy();
    await pool?.end();
    await model?.close();
    await database?.drop();
  }, 30_000);

  it('lists every run newest first with its state; filters by state, agent and age', async () => {
    const all = await runs.list();
    expect(all.cursor).toBeUndefined();
    expect(all.runs.map((run) => [run.runId, run.state])).toEqual([
      ['cancel-0', 'cancelled'],
      ['wait-1', 'waiting_approval'],
      ['wait-0', 'waiting_approval'],
      ['fail-0', 'failed'],
      ['ok-2', 'succeeded'],
      ['ok-1', 'succeeded'],
      ['ok-0', 'succeeded'],
    ]);
    expect(all.runs[1]).toMatchObject({
      agentName: 'mailer',
      status: 'PENDING',
      version: 'agcore-test-1',
      executorId: 'worker-a',
      waiting: 1,
    });
    const waiting = await runs.list({ state: 'waiting_approval' });
    expect(waiting.runs.map((run) => run.runId)).toEqual(['wait-1', 'wait-0']);
    const ended = await runs.list({ state: ['failed', 'cancelled'] });
    expect(ended.runs.map((run) => run.runId)).toEqual(['cancel-0', 'fail-0']);
    expect((await runs.list({ agent: 'other' })).runs).toEqual([]);
    const firstCreated = all.runs.at(-1)?.createdAt ?? new Date();
    expect((await runs.list({ olderThan: firstCreated })).runs).toEqual([]);
    const older = await runs.list({ olderThan: all.runs[0]?.createdAt ?? new Date() });
    expect(older.runs.map((run) => run.runId)).not.toContain('cancel-0');
  }, 60_000);

  it('pages with a keyset cursor, also when the state filter skips rows', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page += 1) {
      const result = await runs.list({
        state: 'succeeded',
        limit: 2,
        ...(cursor ? { cursor } : {}),
      });
      seen.push(...result.runs.map((run) => run.runId));
      cursor = result.cursor;
      if (cursor === undefined) break;
    }
    expect(seen).toEqual(['ok-2', 'ok-1', 'ok-0']);
    const first = await runs.list({ limit: 3 });
    const second = await runs.list({ limit: 3, cursor: first.cursor ?? '' });
    const third = await runs.list({ limit: 3, cursor: second.cursor ?? '' });
    expect([...first.runs, ...second.runs, ...third.runs].map((run) => run.runId)).toHaveLength(7);
    expect(third.cursor).toBeUndefined();
    await expect(runs.list({ cursor: 'nonsense' })).rejects.toThrow(TypeError);
    await expect(runs.list({ limit: 0 })).rejects.toThrow(/limit/);
    await expect(runs.list({ state: 'sleeping' as 'running' })).rejects.toThrow(/sleeping/);
  }, 60_000);

  it('get: one run, or undefined', async () => {
    expect(await runs.get('fail-0')).toMatchObject({ runId: 'fail-0', state: 'failed' });
    expect(await runs.get('nope')).toBeUndefined();
    expect(await runs.get('ok-0:s0')).toBeUndefined(); // a stretch is no run
  }, 60_000);

  it('events({ follow: false }) of a waiting run: what it wrote so far, then the end', async () => {
    const types: string[] = [];
    for await (const event of runs.events('wait-1', { follow: false })) types.push(event.type);
    expect(types).toContain('tool_approval_requested');
    expect(types.at(-1)).toBe('turn_complete');
    expect((await runs.get('wait-1'))?.state).toBe('waiting_approval');
  }, 60_000);

  it('retain removes finished runs with their stretches, events and journal; waiting runs stay', async () => {
    const rowsOf = async (prefix: string) => {
      let total = 0;
      for (const table of ['workflow_status', 'operation_outputs', 'workflow_events', 'streams'])
        total +=
          (
            await pool.query(`SELECT 1 FROM dbos.${table} WHERE workflow_uuid LIKE $1`, [
              `${prefix}%`,
            ])
          ).rowCount ?? 0;
      total +=
        (
          await pool.query('SELECT 1 FROM dbos.notifications WHERE destination_uuid LIKE $1', [
            `${prefix}%`,
          ])
        ).rowCount ?? 0;
      return total;
    };
    expect(await rowsOf('ok-0')).toBeGreaterThan(0);
    await expect(runs.retain({ olderThan: 'yesterday' as unknown as Date })).rejects.toThrow(
      TypeError,
    );
    const nothing = await runs.retain({ olderThan: new Date(0) });
    expect(nothing.runIds).toEqual([]);
    const first = await runs.retain({ olderThan: new Date(Date.now() + 60_000), limit: 3 });
    expect(first.runIds).toEqual(['ok-0', 'ok-1', 'ok-2']);
    const rest = await runs.retain({ olderThan: new Date(Date.now() + 60_000) });
    expect(rest.runIds.sort()).toEqual(['cancel-0', 'fail-0']);
    for (const prefix of ['ok-', 'fail-0', 'cancel-0']) expect(await rowsOf(prefix)).toBe(0);
    const left = await runs.list();
    expect(left.runs.map((run) => run.runId)).toEqual(['wait-1', 'wait-0']);
    await runs.decide('wait-0', { call_1: 'approve' });
    expect((await runs.result('wait-0')).message.content).toBe('Sent the email.');
  }, 60_000);
});
