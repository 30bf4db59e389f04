// The bench row "durable step vs bare DBOS step": what one durable tool step costs next to a
// bare `DBOS.runStep` doing the same work (the tool's `invoke`). Both run as a workflow on a
// queue of this process; each variant runs with `few` and with `many` steps, and a step's cost
// is the difference divided by `many - few`, so what is paid once per workflow (its start, the
// model requests around the calls, queue polling) cancels. Time is the workflow's own
// (DBOS's `dequeuedAt` to `completedAt`), CPU the process's over the run, round trips those
// the workflow's code sent (see round-trips.ts). Passes alternate which variant goes first.
import { performance } from 'node:perf_hooks';
import type { ToolRegistry } from '@agcore/tools-registry';
import { DBOS, type DBOSClient } from '@dbos-inc/dbos-sdk';
import type { DurableRuns } from '../index.js';
import { countRoundTrips, noRoundTrips, perUnit, type RoundTrips } from './round-trips.js';

/** One variant's cost of a step. */
export interface StepCost {
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly roundTrips: RoundTrips;
}

interface Sample {
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly roundTrips: RoundTrips;
}

/** Registers the bare workflow (before `DBOS.launch()`); `steps(n)` starts one of `n` steps. */
export function bareStepWorkflow(registry: () => ToolRegistry) {
  const workflow = DBOS.registerWorkflow(
    async (count: number) => {
      const tools = registry();
      for (let index = 0; index < count; index++) {
        await DBOS.runStep(
          async () => {
            const invocation = await tools.invoke('get_time', {}, { context: { toolCallId: 'x' } });
            return invocation.output.ok ? invocation.output.value : null;
          },
          { name: 'bare.get_time', retriesAllowed: false },
        );
      }
      return count;
    },
    { name: 'bench.bare' },
  );
  return (workflowID: string, count: number) =>
    DBOS.startWorkflow(workflow, { workflowID, queueName: 'bench-bare' })(count);
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

async function timed(
  client: DBOSClient,
  workflowId: string,
  run: () => Promise<unknown>,
  trips: ReturnType<typeof countRoundTrips>,
): Promise<Sample> {
  const cpu = process.cpuUsage();
  await run();
  const used = process.cpuUsage(cpu);
  const status = await client.getWorkflow(workflowId);
  const wallMs = (status?.completedAt ?? Number.NaN) - (status?.dequeuedAt ?? Number.NaN);
  return { wallMs, cpuMs: (used.user + used.system) / 1000, roundTrips: trips.of(workflowId) };
}

function cost(many: Sample[], few: Sample[], steps: number): StepCost {
  const kinds = Object.keys(noRoundTrips()) as (keyof RoundTrips)[];
  const a = noRoundTrips();
  const b = noRoundTrips();
  for (const kind of kinds) {
    a[kind] = median(many.map((s) => s.roundTrips[kind]));
    b[kind] = median(few.map((s) => s.roundTrips[kind]));
  }
  return {
    wallMs: (median(many.map((s) => s.wallMs)) - median(few.map((s) => s.wallMs))) / steps,
    cpuMs: (median(many.map((s) => s.cpuMs)) - median(few.map((s) => s.cpuMs))) / steps,
    roundTrips: perUnit(a, b, steps),
  };
}

/** Runs `passes` alternating passes and returns each variant's cost of one step. */
export async function compareSteps(input: {
  readonly client: DBOSClient;
  readonly runs: DurableRuns;
  readonly agentName: string;
  readonly bare: ReturnType<typeof bareStepWorkflow>;
  readonly passes: number;
  readonly few: number;
  readonly many: number;
}): Promise<{ durable: StepCost; bare: StepCost; wallMs: number }> {
  const { client, runs, agentName, bare, few, many } = input;
  const trips = countRoundTrips();
  const started = performance.now();
  const samples = { durable: new Map<number, Sample[]>(), bare: new Map<number, Sample[]>() };
  let counter = 0;
  const durableRun = async (count: number) => {
    const runId = `steps-${counter++}`;
    const sample = await timed(
      client,
      `${runId}:s0`,
      async () => {
        await runs.start(agentName, { runId, prompt: `calls:${count}` });
        await runs.result(runId);
      },
      trips,
    );
    samples.durable.set(count, [...(samples.durable.get(count) ?? []), sample]);
  };
  const bareRun = async (count: number) => {
    const id = `bare-${counter++}`;
    const sample = await timed(client, id, async () => (await bare(id, count)).getResult(), trips);
    samples.bare.set(count, [...(samples.bare.get(count) ?? []), sample]);
  };
  try {
    for (let pass = 0; pass < input.passes; pass++) {
      for (const count of [few, many]) {
        const order = pass % 2 === 0 ? [durableRun, bareRun] : [bareRun, durableRun];
        for (const run of order) await run(count);
      }
    }
  } finally {
    trips.stop();
  }
  const steps = many - few;
  const pick = (map: Map<number, Sample[]>, count: number) => (map.get(count) ?? []).slice(1);
  return {
    durable: cost(pick(samples.durable, many), pick(samples.durable, few), steps),
    bare: cost(pick(samples.bare, many), pick(samples.bare, few), steps),
    wallMs: performance.now() - started,
  };
}
