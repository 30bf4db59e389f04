// Tool events re-made on a replay: a worker killed mid-stretch after tool calls whose events
// were batched but not written yet (fast calls write nothing of their own). The worker that
// recovers the stretch replays those calls from the journal and must write their events: the
// run's event list equals an uninterrupted run's, no duplicates, no gaps.
import type { StreamEvent } from '@agcore/llm-cycle';
import type { DBOSClient } from '@dbos-inc/dbos-sdk';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DurableRuns } from './index.js';
import { call, client, startModel, startWorker, type Worker } from './test-support/harness.js';
import { freshDatabase, postgresUrl } from './test-support/postgres.js';

const server = postgresUrl();

/** An event without what differs between two runs of the same conversation (timings). */
function comparable(event: StreamEvent): unknown {
  if (event.type !== 'tool_execution_completed') return event;
  const { durationMs: _, ...rest } = event;
  return rest;
}

describe.skipIf(server === undefined)('tool events re-made on a replay', () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let model: Awaited<ReturnType<typeof startModel>>;
  let worker: Worker | undefined;
  let dbos: DBOSClient;
  let runs: DurableRuns;
  let pool: pg.Pool;
  const start = (halt: boolean) =>
    startWorker({
      DATABASE_URL: database.url,
      MODEL_URL: model.baseURL,
      EXECUTOR_ID: 'worker-replay',
      TOOLS: 'note,halt',
      MAX_PARALLEL: '1',
      ...(halt ? { HALT: '1' } : {}),
    });
  const read = async (runId: string) => {
    const events: StreamEvent[] = [];
    for await (const event of runs.events(runId)) events.push(event);
    return events;
  };

  beforeAll(async () => {
    database = await freshDatabase(server ?? '');
    model = await startModel();
    model.settings.text = ['All ', 'done.'];
    model.settings.calls = [
      call('call_0', 'note', 'a@example.com'),
      call('call_1', 'note', 'b@example.com'),
      call('call_2', 'note', 'c@example.com'),
      call('call_3', 'halt', 'd@example.com'),
    ];
    dbos = await client(database.url);
    runs = new DurableRuns(dbos);
    pool = new pg.Pool({ connectionString: database.url, max: 1 });
  }, 60_000);

  afterAll(async () => {
    await worker?.kill();
    await dbos?.destroy();
    await pool?.end();
    await model?.close();
    await database?.drop();
  }, 30_000);

  it('killed after three fast calls: after recovery the events equal an uninterrupted run’s', async () => {
    worker = await start(false);
    await runs.start('mailer', { runId: 'whole', prompt: 'Note them' });
    const reference = await read('whole');
    await worker.kill();

    // The same conversation on a worker that kills itself in the fourth call's step.
    worker = await start(true);
    const exited = new Promise<void>((resolve) => worker?.child.once('exit', () => resolve()));
    await runs.start('mailer', { runId: 'cut', prompt: 'Note them' });
    await exited;
    // The three calls before it are in the journal, and none of their events is in the stream:
    // they were pending in the stretch's batch when the worker died.
    const journal = (await dbos.listWorkflowSteps('cut:s0')) ?? [];
    expect(journal.filter((step) => step.name === 'agcore.tool.note')).toHaveLength(3);
    const written = await pool.query(
      "SELECT value FROM dbos.streams WHERE workflow_uuid = 'cut:s0' AND key = 'agcore.events'",
    );
    const keys = written.rows.flatMap(({ value }: { value: string }) =>
      [...value.matchAll(/"key":"([^"]+)"/g)].map((match) => match[1]),
    );
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.filter((key) => key?.startsWith('t:'))).toEqual([]);

    // A worker with the same executor id recovers the stretch; `halt` lets it through now.
    worker = await start(false);
    expect((await runs.result('cut')).message.content).toBe('All done.');
    const events = await read('cut');
    expect(events.map(comparable)).toEqual(reference.map(comparable));
    const tools = events.flatMap((event) =>
      event.type === 'tool_execution_started' || event.type === 'tool_execution_completed'
        ? [`${event.type === 'tool_execution_started' ? 'start' : 'end'} ${event.callId}`]
        : [],
    );
    expect(tools).toEqual(
      [0, 1, 2, 3].flatMap((index) => [`start call_${index}`, `end call_${index}`]),
    );
  }, 180_000);
});
