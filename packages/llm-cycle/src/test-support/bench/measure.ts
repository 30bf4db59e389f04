/**
 * How the cycle bench measures: duels of two contenders in alternating order with medians of
 * per-round ratios, and the long streamed reply timed from the response headers.
 */
import type { ToolRegistry } from '@agcore/tools-registry';
import { LlmCycle } from '../../loop/llm-cycle.js';
import { createOpenAICompatibleProvider } from '../../providers/openai-compatible/openai-compatible-provider.js';
import { bareSseLoop } from './bare-loops.js';
import { longModel, longPieces } from './conversation.js';

/** A contender's figures: medians over the rounds. */
export interface Result {
  msPerConversation: number;
  cpuMsPerConversation: number;
  eventsPerSecond: number;
}

interface Sample {
  ms: number;
  cpuMs: number;
  events: number;
}

async function measure(run: () => Promise<number>, conversations: number): Promise<Sample> {
  let events = 0;
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (let index = 0; index < conversations; index++) events += await run();
  const ms = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { ms, cpuMs: (used.user + used.system) / 1000, events };
}

/** Two contenders measured round by round. */
export interface Duel {
  bare: Result;
  cycle: Result;
  /** Median over rounds of cycle/bare, each round measuring both back to back (robust to load drift). */
  wallRatio: number;
  cpuRatio: number;
}

/** The middle value (the upper one of an even count); `NaN` when empty. */
export function median(values: readonly number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
}

/** `bare` against `cycle`: 30 warm-up conversations each, then `rounds` in alternating order. */
export async function duel(
  bare: () => Promise<number>,
  cycle: () => Promise<number>,
  rounds: number,
  conversations: number,
): Promise<Duel> {
  await measure(bare, 30);
  await measure(cycle, 30);
  const bareRounds: Sample[] = [];
  const cycleRounds: Sample[] = [];
  for (let round = 0; round < rounds; round++) {
    if (round % 2 === 0) {
      bareRounds.push(await measure(bare, conversations));
      cycleRounds.push(await measure(cycle, conversations));
    } else {
      cycleRounds.push(await measure(cycle, conversations));
      bareRounds.push(await measure(bare, conversations));
    }
  }
  const summary = (list: Sample[]): Result => {
    const ms = median(list.map((sample) => sample.ms));
    return {
      msPerConversation: ms / conversations,
      cpuMsPerConversation: median(list.map((sample) => sample.cpuMs)) / conversations,
      eventsPerSecond: ((list[0]?.events ?? 0) / ms) * 1000,
    };
  };
  const ratios = (pick: (sample: Sample) => number): number =>
    median(cycleRounds.map((sample, index) => pick(sample) / pick(bareRounds[index] as Sample)));
  return {
    bare: summary(bareRounds),
    cycle: summary(cycleRounds),
    wallRatio: ratios((sample) => sample.ms),
    cpuRatio: ratios((sample) => sample.cpuMs),
  };
}

/** One long reply: deltas per second and the first delta, both from the response headers. */
export interface LongRun {
  deltasPerSecond: number;
  firstDeltaUs: number;
}

/** A `fetch` that notes when the response headers arrived. */
function timedFetch(): { fetch: typeof fetch; headersAt: () => number } {
  let headersAt = 0;
  return {
    fetch: (input, init) =>
      fetch(input, init).then((response) => {
        headersAt = performance.now();
        return response;
      }),
    headersAt: () => headersAt,
  };
}

/** Times one long reply; `run` calls `onText` per text delta. */
async function timeLongRun(
  run: (onText: () => void) => Promise<void>,
  headersAt: () => number,
): Promise<LongRun> {
  let count = 0;
  let firstAt = 0;
  await run(() => {
    if (count++ === 0) firstAt = performance.now();
  });
  const end = performance.now();
  if (count !== longPieces.length) throw new Error(`long reply: ${count} deltas`);
  return {
    deltasPerSecond: count / ((end - headersAt()) / 1000),
    firstDeltaUs: (firstAt - headersAt()) * 1000,
  };
}

/** The long reply, bare and through the cycle, alternating; times from the response headers. */
export async function longReply(
  baseURL: string,
  definitions: unknown,
  tools: ToolRegistry,
  rounds: number,
): Promise<{ bare: LongRun[]; cycle: LongRun[] }> {
  const timed = timedFetch();
  const provider = createOpenAICompatibleProvider({
    baseURL,
    apiKey: 'sk-bench',
    fetch: timed.fetch,
  });
  const runs = { bare: [] as LongRun[], cycle: [] as LongRun[] };
  const time = (run: (onText: () => void) => Promise<void>) => timeLongRun(run, timed.headersAt);
  const bare = (onText: () => void) =>
    bareSseLoop(baseURL, definitions, { model: longModel, fetch: timed.fetch, onText }).then(
      () => undefined,
    );
  const cycle = async (onText: () => void) => {
    const conversation = new LlmCycle({ provider, model: longModel });
    for await (const event of conversation.submitStreamWithTools('Tell me a story.', tools)) {
      if (event.type === 'assistant_text_delta') onText();
    }
  };
  for (let index = 0; index < 5; index++) {
    await time(bare);
    await time(cycle);
  }
  for (let round = 0; round < rounds; round++) {
    for (let index = 0; index < 3; index++) {
      if (round % 2 === 0) {
        runs.bare.push(await time(bare));
        runs.cycle.push(await time(cycle));
      } else {
        runs.cycle.push(await time(cycle));
        runs.bare.push(await time(bare));
      }
    }
  }
  return runs;
}
