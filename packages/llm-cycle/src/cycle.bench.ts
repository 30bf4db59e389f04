/**
 * `pnpm bench`: the cycle's own overhead per turn against a bare hand-written `fetch` loop, on
 * the same local server that answers instantly (run in a child process, so its work is not
 * billed to either client). The conversation has 5 turns: 4 tool turns (one with 2 parallel
 * calls) and a final answer of 100 deltas. Non-streaming and streaming, on the bench method
 * (`@agcore/bench-method`, docs/benchmarks.md): alternating passes, client CPU and wall per
 * conversation, the median of per-pair ratios with its 95 % interval. The library is loaded from
 * the built packages of a library root (`--root-b`, the working tree by default); with
 * `--root-a DIR` (`pnpm bench:compare <ref> --suite llm-cycle`) the cycle of DIR is A and the
 * cycle of the working tree B, and only the two duels run. Then a long streamed reply
 * (2 000 deltas, sent as the first event and then the rest at once): text deltas handed to the
 * caller per second, and the time from the response headers to the first delta. Last, what a
 * pause costs: the same non-streamed conversation with `get_time` needing approval (two pauses,
 * each resumed with 'approve'), in process and through `state()` as JSON into a new LlmCycle,
 * against the conversation without approval.
 *
 * The conversation, server, bare loops, measurement and report live in `test-support/bench/`.
 */
import { fork } from 'node:child_process';
import { flagValue, libraryRoots } from '@agcore/bench-method';
import type { ToolRegistry } from '@agcore/tools-registry';
import type { LlmCycle } from './loop/llm-cycle.js';
import type { RunState } from './runs/run-state.js';
import { bareLoop, bareSseLoop } from './test-support/bench/bare-loops.js';
import { duel, longReply } from './test-support/bench/measure.js';
import { compareReport, type Figures, report } from './test-support/bench/report.js';
import { type Library, loadLibrary } from './test-support/bench/roots.js';
import { serve } from './test-support/bench/server.js';

/** A non-streamed conversation that approves every call it pauses for; `throughState`: each resume in a new LlmCycle restored from `state()` as JSON. */
async function approvingConversation(
  newCycle: (state?: RunState) => LlmCycle,
  tools: ToolRegistry,
  throughState: boolean,
): Promise<number> {
  let cycle = newCycle();
  let response = await cycle.submitWithTools('Plan my trip.', tools);
  let pauses = 0;
  while (response.interruptions !== undefined) {
    pauses++;
    if (throughState) cycle = newCycle(JSON.parse(JSON.stringify(cycle.state())) as RunState);
    const decisions = Object.fromEntries(
      response.interruptions.map((item) => [item.callId, 'approve' as const]),
    );
    response = await cycle.resume(decisions, tools);
  }
  if (pauses !== 2) throw new Error(`expected 2 pauses, got ${pauses}`);
  return 0;
}

/**
 * `BENCH_TRACING=on`: the loop as a traced production service runs it, the real SDK registered
 * (AsyncLocalStorage context, a batch processor), the spans dropped instead of exported.
 */
async function registerTracing(): Promise<void> {
  const { NodeTracerProvider } = await import('@opentelemetry/sdk-trace-node');
  const { BatchSpanProcessor } = await import('@opentelemetry/sdk-trace-base');
  const exporter = {
    export: (_spans: unknown[], done: (result: { code: number }) => void) => done({ code: 0 }),
    shutdown: async () => undefined,
  };
  new NodeTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter)] }).register();
}

/** The two conversations of `library` against `baseURL`, resolving to their events. */
function contenders(library: Library, baseURL: string) {
  const tools = library.registry();
  const provider = library.createOpenAICompatibleProvider({ baseURL, apiKey: 'sk-bench' });
  const newCycle = (state?: RunState): LlmCycle =>
    new library.LlmCycle({
      provider,
      model: 'gpt-4o-mini',
      systemPrompt: 'You are a helpful assistant.',
      ...(state === undefined ? {} : { state }),
    });
  const plain = async (): Promise<number> => {
    await newCycle().submitWithTools('Plan my trip.', tools);
    return 0;
  };
  const streamed = async (): Promise<number> => {
    let events = 0;
    for await (const _event of newCycle().submitStreamWithTools('Plan my trip.', tools)) events++;
    return events;
  };
  return { tools, newCycle, plain, streamed };
}

/** Every duel and the long reply against the server at `baseURL`. */
async function run(
  library: Library,
  baseURL: string,
  settings: Pick<Figures, 'tracing' | 'rounds' | 'conversations'>,
): Promise<Figures> {
  const { rounds, conversations } = settings;
  const { tools, newCycle, plain, streamed } = contenders(library, baseURL);
  const definitions = tools.definitions();
  const json = await duel(() => bareLoop(baseURL, definitions), plain, rounds, conversations);
  const stream = await duel(
    () => bareSseLoop(baseURL, definitions),
    streamed,
    rounds,
    conversations,
  );
  const long = await longReply(
    library,
    baseURL,
    definitions,
    tools,
    Math.max(3, Math.round(rounds / 2)),
  );
  const approving = library.registry(true);
  const pauseRounds = rounds;
  const paused = (throughState: boolean) =>
    duel(
      plain,
      () => approvingConversation(newCycle, approving, throughState),
      pauseRounds,
      conversations,
    );
  const inProcess = await paused(false);
  const viaState = await paused(true);
  return { ...settings, json, stream, long, pauseRounds, inProcess, viaState };
}

/** `--root-a`: the cycle of A against the cycle of B, streamed and not. */
async function compareRoots(
  rootA: string,
  rootB: string,
  baseURL: string,
  pairs: number,
  conversations: number,
) {
  const a = contenders(await loadLibrary(rootA), baseURL);
  const b = contenders(await loadLibrary(rootB), baseURL);
  const json = await duel(a.plain, b.plain, pairs, conversations);
  const stream = await duel(a.streamed, b.streamed, pairs, conversations);
  return compareReport({ rootA, rootB, pairs, conversations, json, stream });
}

async function main(): Promise<void> {
  const tracing = process.env.BENCH_TRACING === 'on';
  if (tracing) await registerTracing();
  const roots = libraryRoots();
  const child = fork(process.argv[1] as string, ['--server'], {
    execArgv: process.execArgv.filter((flag) => !flag.includes('gc')),
    stdio: 'inherit',
  });
  const baseURL = await new Promise<string>((resolve) =>
    child.once('message', (message: { baseURL: string }) => resolve(message.baseURL)),
  );
  const setting = (flag: string, variable: string, fallback: number): number =>
    Number(flagValue(process.argv, flag) ?? process.env[variable] ?? fallback);
  const rounds = Math.max(20, setting('pairs', 'BENCH_PAIRS', 20));
  const conversations = setting('conversations', 'BENCH_CONVERSATIONS', 50);
  try {
    if (roots.compare)
      process.stdout.write(await compareRoots(roots.a, roots.b, baseURL, rounds, conversations));
    else {
      const library = await loadLibrary(roots.b);
      process.stdout.write(report(await run(library, baseURL, { tracing, rounds, conversations })));
    }
  } finally {
    child.disconnect();
  }
}

if (process.argv.includes('--server')) {
  void serve();
} else {
  main().catch((error: unknown) => {
    process.stderr.write(
      `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  });
}
