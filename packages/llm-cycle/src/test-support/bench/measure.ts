/**
 * How the cycle bench measures: duels of two contenders on the bench method (alternating
 * passes, medians of per-pair ratios with their 95 % interval), and the long streamed reply
 * timed from the response headers.
 */
import { alternate, type MedianInterval, minorCollect, type Pass } from '@agcore/bench-method';
import type { ToolRegistry } from '@agcore/tools-registry';
import { bareSseLoop } from './bare-loops.js';
import { longModel, longPieces } from './conversation.js';
import type { Library } from './roots.js';

/** A contender's figures: medians over the passes, per conversation. */
export interface Result {
  msPerConversation: number;
  cpuMsPerConversation: number;
  eventsPerSecond: number;
}

/** Two contenders measured in alternating passes (`@agcore/bench-method`). */
export interface Duel {
  bare: Result;
  cycle: Result;
  /** Median over pairs of cycle ÷ bare wall time per conversation. */
  wallRatio: number;
  /** Median over pairs of cycle ÷ bare client CPU per conversation. */
  cpuRatio: number;
  /** The wall ratio with its distribution-free 95 % interval. */
  wall: MedianInterval;
  /** The CPU ratio with its distribution-free 95 % interval. */
  cpu: MedianInterval;
  pairs: number;
}

/** The middle value (the upper one of an even count); `NaN` when empty. */
export function median(values: readonly number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
}

/**
 * `bare` (A) against `cycle` (B) by the bench method: 3 warm-up pairs, then `pairs` (at least
 * 20) pairs of passes of `conversations` conversations, A B, B A, …; ratios are medians of the
 * per-pair ratios. Each contender resolves to the events of a conversation.
 */
export async function duel(
  bare: () => Promise<number>,
  cycle: () => Promise<number>,
  pairs: number,
  conversations: number,
): Promise<Duel> {
  const events = { bare: await bare(), cycle: await cycle() };
  const result = await alternate(bare, cycle, {
    pairs: Math.max(20, pairs),
    warmupPairs: 3,
    conversations,
    // A minor GC before each pass, not the method's full one: that deoptimizes hot code and
    // the pass after it measures V8 re-optimizing (see docs/benchmarks.md).
    collect: minorCollect() ?? null,
  });
  const of = (pass: Pass, count: number): Result => ({
    msPerConversation: pass.wallMs,
    cpuMsPerConversation: pass.cpuMs,
    eventsPerSecond: (count / pass.wallMs) * 1000,
  });
  return {
    bare: of(result.a, events.bare),
    cycle: of(result.b, events.cycle),
    wallRatio: result.wallRatio.median,
    cpuRatio: result.cpuRatio.median,
    wall: result.wallRatio,
    cpu: result.cpuRatio,
    pairs: result.pairs,
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
  library: Library,
  baseURL: string,
  definitions: unknown,
  tools: ToolRegistry,
  rounds: number,
): Promise<{ bare: LongRun[]; cycle: LongRun[] }> {
  const timed = timedFetch();
  const provider = library.createOpenAICompatibleProvider({
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
    const conversation = new library.LlmCycle({ provider, model: longModel });
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
