// Issue 30 §7: `defineDurableAgent({ stores })` with `createPostgresStores({ pool })` on the pool
// of DBOS's system database (worker.ts, SHARED_STORES=1): one Postgres, one set of tables. A
// tool result spilled in a worker is read back by `read_result` in the next worker, after the
// first was killed while the run waited for a person.
import { textStream, toolCallStream } from '@agcore/llm-cycle/testing';
import type { DBOSClient } from '@dbos-inc/dbos-sdk';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DurableRuns } from './index.js';
import {
  call,
  client,
  startModel,
  startWorker,
  until,
  type Worker,
} from './test-support/harness.js';
import { freshDatabase, postgresUrl } from './test-support/postgres.js';

const server = postgresUrl();

interface Message {
  readonly role: string;
  readonly content?: unknown;
  readonly tool_call_id?: string;
}

describe.skipIf(server === undefined)('a durable agent on one Postgres', () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let model: Awaited<ReturnType<typeof startModel>>;
  let worker: Worker | undefined;
  let dbos: DBOSClient;
  let pool: pg.Pool;
  /** What the model was given back for its read_result call. */
  let readBack: string | undefined;

  beforeAll(async () => {
    database = await freshDatabase(server ?? '');
    model = await startModel();
    // fetch_report (spilled), then send_email (waits for approval), then read_result of the
    // handle the cut report gave, then the answer.
    model.fallback((request) => {
      const messages = (request.body as { messages: Message[] }).messages;
      const last = messages.at(-1);
      const tool = (id: string) => messages.find((item) => item.tool_call_id === id);
      if (last?.role === 'user') {
        return { kind: 'sse', writes: toolCallStream([call('call_fetch', 'fetch_report', 'x')]) };
      }
      if (tool('call_read') !== undefined) {
        readBack = String(tool('call_read')?.content);
        return { kind: 'sse', writes: textStream(['Read ', 'it.']) };
      }
      if (tool('call_send') !== undefined) {
        const found = /read_result\(\{"handle":("(?:[^"\\]|\\.)*")\}\)/.exec(
          String(tool('call_fetch')?.content),
        )?.[1];
        const handle = found === undefined ? 'none' : (JSON.parse(found) as string);
        const args = JSON.stringify({ handle, grep: 'FACT' });
        return {
          kind: 'sse',
          writes: toolCallStream([{ id: 'call_read', name: 'read_result', pieces: [args] }]),
        };
      }
      return { kind: 'sse', writes: toolCallStream([call('call_send', 'send_email', 'ada@x')]) };
    });
    dbos = await client(database.url);
    pool = new pg.Pool({ connectionString: database.url, max: 2 });
  }, 60_000);

  afterAll(async () => {
    await worker?.kill();
    await dbos?.destroy();
    await pool?.end();
    await model?.close();
    await database?.drop();
  }, 30_000);

  it('spills in one worker; read_result reads it in the next, after the first was killed', async () => {
    const env = {
      DATABASE_URL: database.url,
      MODEL_URL: model.baseURL,
      NEEDS_APPROVAL: '1',
      SHARED_STORES: '1',
      SPILL_BYTES: '4096',
      TOOLS: 'send_email,fetch_report',
    };
    worker = await startWorker({ ...env, EXECUTOR_ID: 'worker-a' });
    // registerQueue ran the stores' migrate(): their tables sit beside DBOS's, in one database.
    const schemas = await pool.query(
      "SELECT DISTINCT table_schema AS name FROM information_schema.tables WHERE table_schema IN ('agcore', 'dbos') ORDER BY 1",
    );
    expect(schemas.rows.map((row: { name: string }) => row.name)).toEqual(['agcore', 'dbos']);
    const runs = new DurableRuns(dbos);
    await runs.start('mailer', { runId: 'run-spill', prompt: 'Fetch the report, then email it' });
    await until(async () => {
      const calls = await runs.interruptions('run-spill');
      return calls.length > 0 ? calls : undefined;
    });
    const kept = await pool.query('SELECT count(*)::int AS n FROM agcore.results');
    expect(kept.rows[0]).toEqual({ n: 1 });
    await worker.kill();
    // The same executor id: DBOS recovers the run on launch; the new process has no memory of the old.
    worker = await startWorker({ ...env, EXECUTOR_ID: 'worker-a' });
    await runs.decide('run-spill', { call_send: 'approve' });
    const response = await runs.result('run-spill');
    expect(response.message.content).toBe('Read it.');
    expect(readBack).toContain('FACT the end');
    expect(readBack).not.toMatch(/unknown or expired/);
  }, 120_000);
});
