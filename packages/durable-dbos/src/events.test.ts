import type { StreamEvent } from '@agcore/llm-cycle';
import type { DBOSClient } from '@dbos-inc/dbos-sdk';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DurableRuns } from './index.js';
import { call, client, startModel, startWorker, type Worker } from './test-support/harness.js';
import { freshDatabase, postgresUrl } from './test-support/postgres.js';

const server = postgresUrl();

describe.skipIf(server === undefined)('the events of a durable run', () => {
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
      EXECUTOR_ID: 'worker-events',
    });
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

  it('writes a step’s events in one Postgres write (a fast model), each event read once, in order', async () => {
    model.settings.text = ['Sent ', 'the ', 'email ', 'to ', 'Ada.'];
    await runs.start('mailer', { runId: 'batched', prompt: 'Email Ada' });
    const events: StreamEvent[] = [];
    for await (const event of runs.events('batched')) events.push(event);
    expect(events.map((event) => event.type)).toEqual([
      'tool_call_delta',
      'tool_call_delta',
      'tool_call_delta',
      'turn_complete',
      'tool_execution_started',
      'tool_execution_completed',
      'assistant_text_delta',
      'assistant_text_delta',
      'assistant_text_delta',
      'assistant_text_delta',
      'assistant_text_delta',
      'turn_complete',
    ]);
    const text = events.flatMap((event) =>
      event.type === 'assistant_text_delta' ? [event.text] : [],
    );
    expect(text.join('')).toBe('Sent the email to Ada.');
    // 12 events: one write each before; now one per step (three: a model request, the tool
    // call, a model request) and the stream's end, more only when a step outlasts the batch
    // window (a loaded machine). The run ran as one segment, `batched:s0`.
    const rows = await pool.query(
      "SELECT 1 FROM dbos.streams WHERE workflow_uuid LIKE $1 AND key = 'agcore.events'",
      ['batched%'],
    );
    // The run's own stream: the segment's id and its end.
    expect(rows.rowCount).toBeLessThanOrEqual(9);
  }, 60_000);

  it('tool steps write no events of their own: 12 fast calls, their events in the next write, each once, in order', async () => {
    model.settings.text = ['Noted.'];
    model.settings.calls = Array.from({ length: 12 }, (_, index) =>
      call(`call_${index}`, 'note', `r${index}@example.com`),
    );
    try {
      await runs.start('mailer', { runId: 'many-calls', prompt: 'Note them' });
      const events: StreamEvent[] = [];
      for await (const event of runs.events('many-calls')) events.push(event);
      const tools = events.flatMap((event) =>
        event.type === 'tool_execution_started' || event.type === 'tool_execution_completed'
          ? [`${event.type === 'tool_execution_started' ? 'start' : 'end'} ${event.callId}`]
          : [],
      );
      // Calls run concurrently (the loop's default), so only per-call order is fixed.
      expect(tools).toHaveLength(24);
      for (let index = 0; index < 12; index++) {
        const mine = tools.filter((line) => line.endsWith(` call_${index}`));
        expect(mine).toEqual([`start call_${index}`, `end call_${index}`]);
      }
      const ends = events.flatMap((event) =>
        event.type === 'turn_complete' ? [event.reason] : [],
      );
      expect(ends).toEqual(['tool_calls', 'stop']);
      expect(events.at(-1)?.type).toBe('turn_complete');
      // Before: one write per tool step (12), plus the two model requests, the stretch's end and
      // the close (≥ 15). Now: the two model requests, the stretch's last write and the close,
      // a few more only when a step outlasts the 20 ms window (a loaded machine).
      const rows = await pool.query(
        "SELECT 1 FROM dbos.streams WHERE workflow_uuid = $1 AND key = 'agcore.events'",
        ['many-calls:s0'],
      );
      expect(rows.rowCount).toBeLessThanOrEqual(8);
      expect((await runs.result('many-calls')).message.content).toBe('Noted.');
    } finally {
      model.settings.calls = undefined;
    }
  }, 60_000);
});
