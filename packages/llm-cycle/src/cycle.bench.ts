/**
 * `pnpm bench`: the cycle's own overhead per turn against a bare hand-written `fetch` loop, on
 * the same local server that answers instantly (run in a child process, so its work is not
 * billed to either client). The conversation has 5 turns: 4 tool turns (one with 2 parallel
 * calls) and a final answer of 100 deltas. Non-streaming and streaming; rounds alternate the
 * order of the two contenders and the median round is reported. Then a long streamed reply
 * (2 000 deltas, sent as the first event and then the rest at once): text deltas handed to the
 * caller per second, and the time from the response headers to the first delta. Last, what a
 * pause costs: the same non-streamed conversation with `get_time` needing approval (two pauses,
 * each resumed with 'approve'), in process and through `state()` as JSON into a new LlmCycle,
 * against the conversation without approval.
 *
 * The conversation, server, bare loops, measurement and report live in `test-support/bench/`.
 */
import { fork } from 'node:child_process';
import type { ToolRegistry } from '@agcore/tools-registry';
import { LlmCycle } from './loop/llm-cycle.js';
import { createOpenAICompatibleProvider } from './providers/openai-compatible/openai-compatible-provider.js';
import type { RunState } from './runs/run-state.js';
import { bareLoop, bareSseLoop } from './test-support/bench/bare-loops.js';
import { registry } from './test-support/bench/conversation.js';
import { duel, longReply } from './test-support/bench/measure.js';
import { type Figures, report } from './test-support/bench/report.js';
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

/** Every duel and the long reply against the server at `baseURL`. */
async function run(
  baseURL: string,
  settings: Pick<Figures, 'tracing' | 'rounds' | 'conversations'>,
): Promise<Figures> {
  const { rounds, conversations } = settings;
  const tools = registry();
  const definitions = tools.definitions();
  const provider = createOpenAICompatibleProvider({ baseURL, apiKey: 'sk-bench' });
  const stateCycle = (state?: RunState): LlmCycle =>
    new LlmCycle({
      provider,
      model: 'gpt-4o-mini',
      systemPrompt: 'You are a helpful assistant.',
      ...(state === undefined ? {} : { state }),
    });
  const plain = async (): Promise<number> => {
    await stateCycle().submitWithTools('Plan my trip.', tools);
    return 0;
  };
  const streamed = async (): Promise<number> => {
    let events = 0;
    for await (const _event of stateCycle().submitStreamWithTools('Plan my trip.', tools)) events++;
    return events;
  };
  const json = await duel(() => bareLoop(baseURL, definitions), plain, rounds, conversations);
  const stream = await duel(
    () => bareSseLoop(baseURL, definitions),
    streamed,
    rounds,
    conversations,
  );
  const long = await longReply(baseURL, definitions, tools, Math.max(3, Math.round(rounds / 2)));
  const approving = registry(true);
  const pauseRounds = Math.max(5, Math.round(rounds / 2));
  const paused = (throughState: boolean) =>
    duel(
      plain,
      () => approvingConversation(stateCycle, approving, throughState),
      pauseRounds,
      conversations,
    );
  const inProcess = await paused(false);
  const viaState = await paused(true);
  return { ...settings, json, stream, long, pauseRounds, inProcess, viaState };
}

async function main(): Promise<void> {
  const tracing = process.env.BENCH_TRACING === 'on';
  if (tracing) await registerTracing();
  const child = fork(process.argv[1] as string, ['--server'], {
    execArgv: process.execArgv,
    stdio: 'inherit',
  });
  const baseURL = await new Promise<string>((resolve) =>
    child.once('message', (message: { baseURL: string }) => resolve(message.baseURL)),
  );
  const rounds = Number(process.env.BENCH_ROUNDS ?? 15);
  const conversations = Number(process.env.BENCH_CONVERSATIONS ?? 25);
  const figures = await run(baseURL, { tracing, rounds, conversations });
  child.disconnect();
  process.stdout.write(report(figures));
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
