// `pnpm bench` (in this package; needs AGCORE_TEST_POSTGRES_URL): what a durable run costs per
// step over a plain LlmCycle run. The same 5-request conversation (4 tool turns, then a streamed
// answer: 9 steps) against a local Chat Completions server that answers at once, plain and
// durable (DBOS launched in this process, a fresh database), interleaved in rounds; then 200
// durable runs at once. Prints medians; the target is ≤ 2 ms per step. First, the row "durable
// step vs bare DBOS step" (issue 32 §1, see test-support/step-bench.ts); BENCH_ONLY=steps
// prints only that row, BENCH_PAIRS sets its recorded pairs (default 20).
import { performance } from 'node:perf_hooks';
import { ratioText } from '@agcore/bench-method';
import { createOpenAICompatibleProvider, LlmCycle, type LlmCycleOptions } from '@agcore/llm-cycle';
import { startChatCompletionsServer, textStream, toolCallStream } from '@agcore/llm-cycle/testing';
import { defineTool } from '@agcore/tools-core';
import { ToolRegistry } from '@agcore/tools-registry';
import { DBOS, DBOSClient } from '@dbos-inc/dbos-sdk';
import pg from 'pg';
import { DurableRuns, defineDurableAgent } from './index.js';
import { freshDatabase, postgresUrl } from './test-support/postgres.js';
import { totalRoundTrips } from './test-support/round-trips.js';
import { bareStepWorkflow, compareSteps, type StepCost } from './test-support/step-bench.js';

const server = postgresUrl();
if (server === undefined) process.exit(0);

// Postgres round trips: every query any pg client of this process sends (DBOS's pools, the
// client's), counted at the driver.
let queries = 0;
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  queries += 1;
  return (query as (...rest: unknown[]) => unknown).apply(this, args);
} as typeof query;

const toolTurns = 4;
const steps = toolTurns * 2 + 1;
const model = await startChatCompletionsServer({ recordRequests: false });
model.fallback((request) => {
  const body = request.body as { messages: { role: string; content?: unknown }[] };
  const tools = body.messages.filter((message) => message.role === 'tool').length;
  // `calls:<n>` (the step row): n calls in one answer, run one after the other, then the text.
  const asked = /^calls:(\d+)$/.exec(String(body.messages[0]?.content ?? ''));
  if (asked !== null) {
    if (tools > 0) return { kind: 'sse', writes: textStream(['Done.']) };
    const calls = Array.from({ length: Number(asked[1]) }, (_, index) => ({
      id: `call_${index}`,
      name: 'get_time',
      pieces: ['{}'],
    }));
    return { kind: 'sse', writes: toolCallStream(calls) };
  }
  if (tools >= toolTurns) return { kind: 'sse', writes: textStream(['The ', 'time ', 'is noon.']) };
  return {
    kind: 'sse',
    writes: toolCallStream([{ id: `call_${tools}`, name: 'get_time', pieces: ['{}'] }]),
  };
});
const getTime = defineTool({
  name: 'get_time',
  description: 'The time',
  parameters: { type: 'object', properties: {} },
  execute: () => ({ time: '12:00' }),
});
const registry = () => new ToolRegistry().register(getTime);
const options = (): LlmCycleOptions => ({
  provider: createOpenAICompatibleProvider({ baseURL: model.baseURL, apiKey: 'sk-bench' }),
  model: 'bench',
  maxTurns: 20,
});

const database = await freshDatabase(server);
const agent = defineDurableAgent({ name: 'bench', cycle: options, registry });
const stepAgent = defineDurableAgent({
  name: 'steps',
  cycle: () => ({ ...options(), maxParallelToolCalls: 1 }),
  registry,
});
const bare = bareStepWorkflow(registry);
DBOS.setConfig({
  name: 'agcore-bench',
  systemDatabaseUrl: database.url,
  executorID: 'bench',
  applicationVersion: 'bench-1',
  runAdminServer: false,
  logLevel: 'error',
});
await DBOS.launch();
await agent.registerQueue();
await stepAgent.registerQueue();
await DBOS.registerQueue('bench-bare', { onConflict: 'always_update' });
const client = await DBOSClient.create({ systemDatabaseUrl: database.url });
const runs = new DurableRuns(client);

let counter = 0;
async function plain(): Promise<number> {
  const start = performance.now();
  const cycle = new LlmCycle(options());
  for await (const _ of cycle.submitStreamWithTools('What time is it?', registry())) {
    // drain
  }
  return performance.now() - start;
}
/** Start to result (queue polling included), and the run's stretch dequeued to completed. */
async function durable(): Promise<{ total: number; run: number; queries: number }> {
  const start = performance.now();
  const before = queries;
  const runId = `bench-${counter++}`;
  await runs.start('bench', { runId, prompt: 'What time is it?' });
  await runs.result(runId);
  const total = performance.now() - start;
  const sent = queries - before;
  // The run's one stretch (no pause), `<runId>:s0`, is where its steps ran.
  const status = await client.getWorkflow(`${runId}:s0`);
  const end = status?.completedAt ?? status?.updatedAt ?? Number.NaN;
  return { total, run: end - (status?.dequeuedAt ?? Number.NaN), queries: sent };
}
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

// The row "durable step vs bare DBOS step".
const pairs = Number(process.env.BENCH_PAIRS ?? '20');
const stepRow = await compareSteps({
  client,
  runs,
  agentName: 'steps',
  bare,
  pairs,
  few: 2,
  many: 12,
});
const trips = (cost: StepCost) =>
  `${totalRoundTrips(cost.roundTrips).toFixed(1)} (${Object.entries(cost.roundTrips)
    .map(([kind, n]) => `${kind} ${n.toFixed(1)}`)
    .join(', ')})`;
process.stdout.write(
  `durable step vs bare DBOS step (${String(stepRow.pairs)} alternating pairs after 3 warm-up pairs, 2 vs 12 calls a run; ratio durable ÷ bare: median of the pairs, 95 % interval):\n` +
    `  wall per step: ${ratioText(stepRow.wall)} (target ≤ 1.5×); medians durable ${stepRow.durable.wallMs.toFixed(2)} ms, bare ${stepRow.bare.wallMs.toFixed(2)} ms\n` +
    `  CPU per step: ${ratioText(stepRow.cpu)}; medians durable ${stepRow.durable.cpuMs.toFixed(2)} ms, bare ${stepRow.bare.cpuMs.toFixed(2)} ms\n` +
    `  round trips per step: durable ${trips(stepRow.durable)}; bare ${trips(stepRow.bare)} (target ≤ 4)\n`,
);
if (process.env.BENCH_ONLY === 'steps') {
  await client.destroy();
  await DBOS.shutdown();
  await model.close();
  await database.drop();
  process.exit(0);
}

for (let warm = 0; warm < 3; warm++) {
  await plain();
  await durable();
}
const rounds = 15;
const plainTimes: number[] = [];
const durableTimes: number[] = [];
const totalTimes: number[] = [];
const queryCounts: number[] = [];
for (let round = 0; round < rounds; round++) {
  plainTimes.push(await plain());
  const times = await durable();
  durableTimes.push(times.run);
  totalTimes.push(times.total);
  queryCounts.push(times.queries);
}
const perStep = (median(durableTimes) - median(plainTimes)) / steps;
process.stdout.write(
  `Node ${process.version}, ${rounds} interleaved rounds, ${steps} steps a run\n` +
    `plain LlmCycle run: ${median(plainTimes).toFixed(1)} ms; durable run (its stretch, dequeued to completed): ${median(durableTimes).toFixed(1)} ms; start to result, queue and result polling included: ${median(totalTimes).toFixed(0)} ms\n` +
    `per-step overhead: ${perStep.toFixed(2)} ms (target ≤ 2 ms)\n` +
    `Postgres round trips per durable run, start to result (queue and result polling included): ${median(queryCounts)}\n`,
);

const load = 200;
const loadStart = performance.now();
const ids = Array.from({ length: load }, (_, index) => `load-${index}`);
await Promise.all(ids.map((runId) => runs.start('bench', { runId, prompt: 'What time is it?' })));
await Promise.all(ids.map((runId) => runs.result(runId)));
process.stdout.write(
  `${load} concurrent durable runs, one worker: ${((performance.now() - loadStart) / 1000).toFixed(1)} s\n`,
);

await client.destroy();
await DBOS.shutdown();
await model.close();
await database.drop();
