// The bench row "durable step vs bare DBOS step": what one durable tool step costs next to a
// bare `DBOS.runStep` doing the same work (the tool's `invoke`). Both run as a workflow on a
// queue of this process. A pass of a variant runs it with `few` and with `many` steps, and
// its step cost is the difference divided by `many - few`, so what is paid once per workflow
// (its start, the model requests around the calls, queue polling) cancels. The method of
// `apps/bench` (`@agcore/bench-method`): a pair is a durable pass and a bare pass back to
// back, pairs alternate which goes first, three warm-up pairs are not recorded, and each figure
// is the median of the per-pair ratios durable ÷ bare with its distribution-free 95 % interval.
// Time is the workflow's own (DBOS's `dequeuedAt` to `completedAt`), CPU the process's over
// the run, round trips those the workflow's code sent (see round-trips.ts).
import { type MedianInterval, median, medianInterval, pairRatios } from '@agcore/bench-method';
import type { ToolRegistry } from '@agcore/tools-registry';
import { DBOS, type DBOSClient } from '@dbos-inc/dbos-sdk';
import type { DurableRuns } from '../index.js';
import { countRoundTrips, noRoundTrips, perUnit, type RoundTrips } from './round-trips.js';

/** One variant's cost of a step, in one pass. */
export interface StepCost {
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly roundTrips: RoundTrips;
}

/** The row: per variant the median step cost, and the per-pair ratios durable ÷ bare. */
export interface StepComparison {
  readonly durable: StepCost;
  readonly bare: StepCost;
  readonly wall: MedianInterval;
  readonly cpu: MedianInterval;
  readonly pairs: number;
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

async function timed(
  client: DBOSClient,
  workflowId: string,
  run: () => Promise<unknown>,
  trips: ReturnType<typeof countRoundTrips>,
): Promise<StepCost> {
  const cpu = process.cpuUsage();
  await run();
  const used = process.cpuUsage(cpu);
  const status = await client.getWorkflow(workflowId);
  const wallMs = (status?.completedAt ?? Number.NaN) - (status?.dequeuedAt ?? Number.NaN);
  return { wallMs, cpuMs: (used.user + used.system) / 1000, roundTrips: trips.of(workflowId) };
}

function perStep(many: StepCost, few: StepCost, steps: number): StepCost {
  return {
    wallMs: (many.wallMs - few.wallMs) / steps,
    cpuMs: (many.cpuMs - few.cpuMs) / steps,
    roundTrips: perUnit(many.roundTrips, few.roundTrips, steps),
  };
}

function medianCost(costs: readonly StepCost[]): StepCost {
  const roundTrips = noRoundTrips();
  for (const kind of Object.keys(roundTrips) as (keyof RoundTrips)[])
    roundTrips[kind] = median(costs.map((cost) => cost.roundTrips[kind]));
  return {
    wallMs: median(costs.map((cost) => cost.wallMs)),
    cpuMs: median(costs.map((cost) => cost.cpuMs)),
    roundTrips,
  };
}

/** Runs `pairs` recorded pairs (after three warm-up pairs) and returns the row. */
export async function compareSteps(input: {
  readonly client: DBOSClient;
  readonly runs: DurableRuns;
  readonly agentName: string;
  readonly bare: ReturnType<typeof bareStepWorkflow>;
  readonly pairs: number;
  readonly few: number;
  readonly many: number;
}): Promise<StepComparison> {
  const { client, runs, agentName, bare, few, many } = input;
  const trips = countRoundTrips();
  let counter = 0;
  const durableRun = (count: number) => {
    const runId = `steps-${counter++}`;
    return timed(
      client,
      `${runId}:s0`,
      async () => {
        await runs.start(agentName, { runId, prompt: `calls:${count}` });
        await runs.result(runId);
      },
      trips,
    );
  };
  const bareRun = (count: number) => {
    const id = `bare-${counter++}`;
    return timed(client, id, async () => (await bare(id, count)).getResult(), trips);
  };
  const pass = async (run: (count: number) => Promise<StepCost>) =>
    perStep(await run(many), await run(few), many - few);
  const durable: StepCost[] = [];
  const bareCosts: StepCost[] = [];
  try {
    for (let pair = -3; pair < input.pairs; pair++) {
      const durableFirst = pair % 2 === 0;
      const first = await pass(durableFirst ? durableRun : bareRun);
      const second = await pass(durableFirst ? bareRun : durableRun);
      if (pair < 0) continue;
      durable.push(durableFirst ? first : second);
      bareCosts.push(durableFirst ? second : first);
    }
  } finally {
    trips.stop();
  }
  const of = (costs: StepCost[], key: 'wallMs' | 'cpuMs') => costs.map((cost) => cost[key]);
  return {
    durable: medianCost(durable),
    bare: medianCost(bareCosts),
    wall: medianInterval(pairRatios(of(bareCosts, 'wallMs'), of(durable, 'wallMs'))),
    cpu: medianInterval(pairRatios(of(bareCosts, 'cpuMs'), of(durable, 'cpuMs'))),
    pairs: durable.length,
  };
}
