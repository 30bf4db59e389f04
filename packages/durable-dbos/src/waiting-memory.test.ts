// Issue 32 §2: a worker's memory stays bounded while runs wait for people. DBOS in this
// process (so its handles can be counted), 10 runs waiting for approval, then 200 (1 000 with
// AGCORE_SCALE=1, a few minutes on a loaded machine): the
// timers and handles of the process do not grow with the waiting runs (a count, not a time),
// and the heap grows by a few kilobytes a run. Then some are approved and finish.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createOpenAICompatibleProvider } from '@agcore/llm-cycle';
import { startChatCompletionsServer, textStream, toolCallStream } from '@agcore/llm-cycle/testing';
import { defineTool } from '@agcore/tools-core';
import { ToolRegistry } from '@agcore/tools-registry';
import { DBOS, DBOSClient } from '@dbos-inc/dbos-sdk';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DurableRuns, defineDurableAgent } from './index.js';
import { until } from './test-support/harness.js';
import { freshDatabase, postgresUrl } from './test-support/postgres.js';
import { waitingRuns } from './wait-room.js';

const server = postgresUrl();
/** How many runs wait at the second count. */
const many = process.env.AGCORE_SCALE === '1' ? 1000 : 200;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** The process's timers and other handles, and its heap after a collection. */
function measure() {
  gc();
  gc();
  const resources = process.getActiveResourcesInfo();
  return {
    timers: resources.filter((name) => name === 'Timeout').length,
    handles: resources.length,
    heapBytes: process.memoryUsage().heapUsed,
  };
}

describe.skipIf(server === undefined)(`a worker while ${String(many)} runs wait`, () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let model: Awaited<ReturnType<typeof startChatCompletionsServer>>;
  let client: DBOSClient;
  let pool: pg.Pool;
  let launched = false;

  beforeAll(async () => {
    database = await freshDatabase(server ?? '');
    model = await startChatCompletionsServer({ recordRequests: false });
    model.fallback((request) => {
      const body = request.body as { messages: { role: string }[] };
      if (body.messages.at(-1)?.role === 'tool')
        return { kind: 'sse', writes: textStream(['Sent.']) };
      return {
        kind: 'sse',
        writes: toolCallStream([{ id: 'call_1', name: 'send', pieces: ['{}'] }]),
      };
    });
    const send = defineTool({
      name: 'send',
      description: 'Sends',
      parameters: { type: 'object', properties: {} },
      needsApproval: true,
      execute: () => ({ sent: true }),
    });
    const agent = defineDurableAgent({
      name: 'waiter',
      cycle: () => ({
        provider: createOpenAICompatibleProvider({ baseURL: model.baseURL, apiKey: 'sk-test' }),
        model: 'test',
        retry: { maxRetries: 0 },
      }),
      registry: () => new ToolRegistry().register(send),
      queue: { workerConcurrency: 100 },
    });
    DBOS.setConfig({
      name: 'agcore-waiting-memory',
      systemDatabaseUrl: database.url,
      executorID: 'memory',
      applicationVersion: 'memory-1',
      runAdminServer: false,
      logLevel: 'error',
    });
    await DBOS.launch();
    launched = true;
    await agent.registerQueue();
    client = await DBOSClient.create({ systemDatabaseUrl: database.url });
    pool = new pg.Pool({ connectionString: database.url, max: 1 });
  }, 120_000);

  afterAll(async () => {
    await client?.destroy();
    await pool?.end();
    if (launched) await DBOS.shutdown();
    await model?.close();
    await database?.drop();
  }, 60_000);

  const delayed = async () =>
    Number(
      (await pool.query("SELECT count(*) AS n FROM dbos.workflow_status WHERE status = 'DELAYED'"))
        .rows[0]?.n ?? 0,
    );
  /** Starts runs `from`…`to - 1` and waits until every run so far waits for approval. */
  const startWaiting = async (runs: DurableRuns, from: number, to: number) => {
    for (let index = from; index < to; index += 50) {
      const ids = Array.from({ length: Math.min(50, to - index) }, (_, n) => `wait-${index + n}`);
      await Promise.all(ids.map((runId) => runs.start('waiter', { runId, prompt: 'Send it' })));
    }
    await until(
      async () => ((await delayed()) === to && waitingRuns() === to ? true : undefined),
      250,
    );
  };

  it('holds no timer or handle per waiting run, a few kB of heap each; decided runs finish', async () => {
    const runs = new DurableRuns(client);
    await startWaiting(runs, 0, 10);
    const few = measure();
    await startWaiting(runs, 10, many);
    const after = measure();
    const perRunKb = (after.heapBytes - few.heapBytes) / (many - 10) / 1024;
    process.stdout.write(
      `waiting runs 10 → ${String(many)}: timers ${few.timers} → ${after.timers}, handles ${few.handles} → ${after.handles}, heap +${perRunKb.toFixed(1)} kB a waiting run\n`,
    );
    // A timer or a listener per waiting run would add one per run (190 at least); DBOS's own
    // pools and pollers do not grow with the runs (its pool may open a few more connections).
    expect(after.timers - few.timers).toBeLessThanOrEqual(5);
    expect(after.handles - few.handles).toBeLessThanOrEqual(30);
    expect(perRunKb).toBeLessThan(64);

    // The waits are real: decided runs go on (all of them finishing is the scale test's part).
    const step = many / 20;
    const ids = Array.from({ length: 20 }, (_, index) => `wait-${index * step}`);
    await Promise.all(ids.map((runId) => runs.decide(runId, { call_1: 'approve' })));
    const results = await Promise.all(ids.map((runId) => runs.result(runId)));
    expect(results.every((response) => response.message.content === 'Sent.')).toBe(true);
    expect(await runs.interruptions('wait-1')).toHaveLength(1);
  }, 600_000);
});
