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
 */
import { fork } from 'node:child_process';
import { loadavg } from 'node:os';
import { defineTool } from '@agcore/tools-core';
import { ToolRegistry } from '@agcore/tools-registry';
import { LlmCycle } from './llm-cycle.js';
import { createOpenAICompatibleProvider } from './openai-compatible-provider.js';
import type { RunState } from './run-state.js';
import {
  type ReceivedRequest,
  type ServerReply,
  startChatCompletionsServer,
  textCompletion,
  textStream,
  toolCallCompletion,
  toolCallStream,
} from './testing/index.js';

const finalPieces = Array.from({ length: 100 }, (_, index) => `word${index} `);
const longPieces = Array.from({ length: 2000 }, (_, index) => `token${index} `);
const longModel = 'long-reply';
const turns: { name: string; arguments: string }[][] = [
  [{ name: 'get_weather', arguments: '{"city":"Paris"}' }],
  [
    { name: 'get_weather', arguments: '{"city":"Oslo"}' },
    { name: 'get_time', arguments: '{"zone":"CET"}' },
  ],
  [{ name: 'get_time', arguments: '{"zone":"UTC"}' }],
  [{ name: 'get_weather', arguments: '{"city":"Rome"}' }],
];

// ---- the server (child process) -------------------------------------------------------------

async function serve(): Promise<void> {
  const server = await startChatCompletionsServer({ recordRequests: false });
  const prebuilt = (stream: boolean): ServerReply[] => [
    ...turns.map((calls, turn): ServerReply => {
      const withIds = calls.map((call, index) => ({ ...call, id: `call_${turn}_${index}` }));
      if (!stream) return { kind: 'json', body: toolCallCompletion(withIds) };
      const pieces = withIds.map((call) => ({
        id: call.id,
        name: call.name,
        pieces: [call.arguments.slice(0, 5), call.arguments.slice(5, 11), call.arguments.slice(11)],
      }));
      return { kind: 'sse', writes: [toolCallStream(pieces, { interleave: true }).join('')] };
    }),
    stream
      ? { kind: 'sse', writes: [textStream(finalPieces).join('')] }
      : { kind: 'json', body: textCompletion(finalPieces.join('')) },
  ];
  const replies = { json: prebuilt(false), sse: prebuilt(true) };
  const long = textStream(longPieces);
  const longReply: ServerReply = {
    kind: 'sse',
    writes: [long.slice(0, 2).join(''), long.slice(2).join('')],
  };
  server.fallback((request: ReceivedRequest) => {
    const body = request.body as { model: string; stream?: boolean; messages: { role: string }[] };
    if (body.model === longModel) return longReply;
    const turn = body.messages.filter((message) => message.role === 'assistant').length;
    const list = body.stream === true ? replies.sse : replies.json;
    return list[turn] ?? list[list.length - 1] ?? { kind: 'text', status: 500, body: 'no reply' };
  });
  process.send?.({ baseURL: server.baseURL });
  process.on('disconnect', () => {
    void server.close().then(() => process.exit(0));
  });
}

// ---- the contenders -------------------------------------------------------------------------

const toolFunctions: Record<string, (args: Record<string, string>) => unknown> = {
  get_weather: ({ city }) => ({ city, temperature: 22, unit: 'C' }),
  get_time: ({ zone }) => ({ zone, time: '12:00' }),
};

function registry(approveTime = false): ToolRegistry {
  return new ToolRegistry().registerAll([
    defineTool({
      name: 'get_weather',
      description: 'Current weather for a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      execute: async ({ city }) => ({ city, temperature: 22, unit: 'C' }),
    }),
    defineTool({
      name: 'get_time',
      description: 'Current time in a time zone',
      parameters: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] },
      ...(approveTime ? { needsApproval: true } : {}),
      execute: async ({ zone }) => ({ zone, time: '12:00' }),
    }),
  ]);
}

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

interface WireCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}
interface WireMessage {
  role: string;
  content: string | null;
  tool_calls?: WireCall[];
  tool_call_id?: string;
}

/** The floor: a hand-written non-streaming loop over fetch, no validation, no retries. */
async function bareLoop(baseURL: string, definitions: unknown): Promise<number> {
  const messages: WireMessage[] = [
    { role: 'system', content: 'You are a helpful assistant.' },
    { role: 'user', content: 'Plan my trip.' },
  ];
  for (;;) {
    const response = await fetch(`${baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages, tools: definitions }),
    });
    const body = (await response.json()) as { choices: { message: WireMessage }[] };
    const message = body.choices[0]?.message as WireMessage;
    messages.push(message);
    if (message.tool_calls === undefined || message.tool_calls.length === 0) return 0;
    const results = await Promise.all(
      message.tool_calls.map(async (call) =>
        toolFunctions[call.function.name]?.(JSON.parse(call.function.arguments || '{}')),
      ),
    );
    message.tool_calls.forEach((call, index) => {
      messages.push({
        role: 'tool',
        tool_call_id: call.id,
        content: JSON.stringify(results[index]),
      });
    });
  }
}

/** The floor for streaming: a hand-written SSE loop (split on blank lines, JSON.parse each data line). */
async function bareSseLoop(
  baseURL: string,
  definitions: unknown,
  options: {
    model?: string;
    fetch?: typeof fetch;
    onText?: (text: string) => void;
  } = {},
): Promise<number> {
  const fetchImpl = options.fetch ?? fetch;
  const messages: WireMessage[] = [
    { role: 'system', content: 'You are a helpful assistant.' },
    { role: 'user', content: 'Plan my trip.' },
  ];
  let events = 0;
  for (;;) {
    const response = await fetchImpl(`${baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench' },
      body: JSON.stringify({
        model: options.model ?? 'gpt-4o-mini',
        messages,
        tools: definitions,
        stream: true,
        stream_options: { include_usage: true },
      }),
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    let content = '';
    const calls: WireCall[] = [];
    let done = false;
    for (;;) {
      const read = await reader.read();
      if (read.done) break;
      buffer += decoder.decode(read.value, { stream: true });
      let end = buffer.indexOf('\n\n');
      while (end !== -1) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        end = buffer.indexOf('\n\n');
        if (!line.startsWith('data: ')) continue;
        const data = line.slice(6);
        if (data === '[DONE]') {
          // Read on to the end of the response (it follows at once) so the connection is reused.
          done = true;
          continue;
        }
        const chunk = JSON.parse(data) as {
          choices: {
            delta: {
              content?: string | null;
              tool_calls?: {
                index: number;
                id?: string;
                function?: { name?: string; arguments?: string };
              }[];
            };
          }[];
        };
        const delta = chunk.choices[0]?.delta;
        if (delta === undefined) continue;
        events++;
        if (typeof delta.content === 'string') {
          content += delta.content;
          if (delta.content !== '') options.onText?.(delta.content);
        }
        for (const piece of delta.tool_calls ?? []) {
          let call = calls[piece.index];
          if (call === undefined) {
            call = {
              id: piece.id ?? '',
              type: 'function',
              function: { name: piece.function?.name ?? '', arguments: '' },
            };
            calls[piece.index] = call;
          }
          call.function.arguments += piece.function?.arguments ?? '';
        }
      }
    }
    if (!done) throw new Error('stream ended without [DONE]');
    const message: WireMessage = {
      role: 'assistant',
      content: calls.length > 0 && content === '' ? null : content,
    };
    if (calls.length > 0) message.tool_calls = calls;
    messages.push(message);
    if (calls.length === 0) return events;
    const results = await Promise.all(
      calls.map(async (call) =>
        toolFunctions[call.function.name]?.(JSON.parse(call.function.arguments || '{}')),
      ),
    );
    calls.forEach((call, index) => {
      messages.push({
        role: 'tool',
        tool_call_id: call.id,
        content: JSON.stringify(results[index]),
      });
    });
  }
}

// ---- measurement ----------------------------------------------------------------------------

interface Result {
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

interface Duel {
  bare: Result;
  cycle: Result;
  /** Median over rounds of cycle/bare, each round measuring both back to back (robust to load drift). */
  wallRatio: number;
  cpuRatio: number;
}

async function duel(
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
  const middleOf = (values: number[]): number =>
    [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
  const summary = (list: Sample[]): Result => {
    const ms = middleOf(list.map((sample) => sample.ms));
    return {
      msPerConversation: ms / conversations,
      cpuMsPerConversation: middleOf(list.map((sample) => sample.cpuMs)) / conversations,
      eventsPerSecond: ((list[0]?.events ?? 0) / ms) * 1000,
    };
  };
  const ratios = (pick: (sample: Sample) => number): number =>
    middleOf(cycleRounds.map((sample, index) => pick(sample) / pick(bareRounds[index] as Sample)));
  return {
    bare: summary(bareRounds),
    cycle: summary(cycleRounds),
    wallRatio: ratios((sample) => sample.ms),
    cpuRatio: ratios((sample) => sample.cpuMs),
  };
}

interface LongRun {
  deltasPerSecond: number;
  firstDeltaUs: number;
}

function median(values: readonly number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
}

/** The long reply, bare and through the cycle, alternating; times from the response headers. */
async function longReply(
  baseURL: string,
  definitions: unknown,
  tools: ToolRegistry,
  rounds: number,
): Promise<{ bare: LongRun[]; cycle: LongRun[] }> {
  let headersAt = 0;
  const timedFetch: typeof fetch = (input, init) =>
    fetch(input, init).then((response) => {
      headersAt = performance.now();
      return response;
    });
  const provider = createOpenAICompatibleProvider({
    baseURL,
    apiKey: 'sk-bench',
    fetch: timedFetch,
  });
  const runs = { bare: [] as LongRun[], cycle: [] as LongRun[] };
  const measure = async (run: (onText: () => void) => Promise<void>): Promise<LongRun> => {
    let count = 0;
    let firstAt = 0;
    await run(() => {
      if (count++ === 0) firstAt = performance.now();
    });
    const end = performance.now();
    if (count !== longPieces.length) throw new Error(`long reply: ${count} deltas`);
    return {
      deltasPerSecond: count / ((end - headersAt) / 1000),
      firstDeltaUs: (firstAt - headersAt) * 1000,
    };
  };
  const bare = (onText: () => void) =>
    bareSseLoop(baseURL, definitions, { model: longModel, fetch: timedFetch, onText }).then(
      () => undefined,
    );
  const cycle = async (onText: () => void) => {
    const conversation = new LlmCycle({ provider, model: longModel });
    for await (const event of conversation.submitStreamWithTools('Tell me a story.', tools)) {
      if (event.type === 'assistant_text_delta') onText();
    }
  };
  for (let index = 0; index < 5; index++) {
    await measure(bare);
    await measure(cycle);
  }
  for (let round = 0; round < rounds; round++) {
    for (let index = 0; index < 3; index++) {
      if (round % 2 === 0) {
        runs.bare.push(await measure(bare));
        runs.cycle.push(await measure(cycle));
      } else {
        runs.cycle.push(await measure(cycle));
        runs.bare.push(await measure(bare));
      }
    }
  }
  return runs;
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
  const tools = registry();
  const definitions = tools.definitions();
  const provider = createOpenAICompatibleProvider({ baseURL, apiKey: 'sk-bench' });
  const newCycle = (): LlmCycle =>
    new LlmCycle({ provider, model: 'gpt-4o-mini', systemPrompt: 'You are a helpful assistant.' });

  const json = await duel(
    () => bareLoop(baseURL, definitions),
    async () => {
      await newCycle().submitWithTools('Plan my trip.', tools);
      return 0;
    },
    rounds,
    conversations,
  );
  const stream = await duel(
    () => bareSseLoop(baseURL, definitions),
    async () => {
      let events = 0;
      for await (const _event of newCycle().submitStreamWithTools('Plan my trip.', tools)) events++;
      return events;
    },
    rounds,
    conversations,
  );
  const long = await longReply(baseURL, definitions, tools, Math.max(3, Math.round(rounds / 2)));
  const approving = registry(true);
  const stateCycle = (state?: RunState): LlmCycle =>
    new LlmCycle({
      provider,
      model: 'gpt-4o-mini',
      systemPrompt: 'You are a helpful assistant.',
      ...(state === undefined ? {} : { state }),
    });
  const plain = async (): Promise<number> => {
    await newCycle().submitWithTools('Plan my trip.', tools);
    return 0;
  };
  const pauseRounds = Math.max(5, Math.round(rounds / 2));
  const inProcess = await duel(
    plain,
    () => approvingConversation(stateCycle, approving, false),
    pauseRounds,
    conversations,
  );
  const viaState = await duel(
    plain,
    () => approvingConversation(stateCycle, approving, true),
    pauseRounds,
    conversations,
  );
  child.disconnect();

  const turnsPerConversation = turns.length + 1;
  const row = (
    name: string,
    result: Result,
    ratios: Duel | undefined,
    target: number | undefined,
    withEvents: boolean,
  ): string[] => [
    name,
    result.msPerConversation.toFixed(3),
    (result.msPerConversation / turnsPerConversation).toFixed(3),
    ratios === undefined ? '1.00 (floor)' : `${ratios.wallRatio.toFixed(2)}x`,
    target === undefined || ratios === undefined
      ? ''
      : `<= ${target}x ${ratios.wallRatio <= target ? 'ok' : 'MISSED'}`,
    result.cpuMsPerConversation.toFixed(3),
    ratios === undefined ? '1.00 (floor)' : `${ratios.cpuRatio.toFixed(2)}x`,
    withEvents ? Math.round(result.eventsPerSecond).toLocaleString('en-US') : '',
  ];
  const rows = [
    [
      'contender',
      'ms/conversation',
      'ms/turn',
      'wall ratio',
      'target',
      'client CPU ms/conv',
      'CPU ratio',
      'events/s',
    ],
    row('bare fetch loop', json.bare, undefined, undefined, false),
    row('LlmCycle.submitWithTools', json.cycle, json, 1.15, false),
    row('bare SSE loop', stream.bare, undefined, undefined, true),
    row('LlmCycle.submitStreamWithTools', stream.cycle, stream, 1.3, true),
  ];
  const widths =
    rows[0]?.map((_, column) => Math.max(...rows.map((cells) => (cells[column] ?? '').length))) ??
    [];
  const lines = rows.map(
    (cells) => `| ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(' | ')} |`,
  );
  lines.splice(1, 0, `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`);
  const longLines = [
    `Long streamed reply (${longPieces.length} deltas), medians of ${long.bare.length} replies each, interleaved:`,
    `  bare SSE loop:                  ${Math.round(median(long.bare.map((run) => run.deltasPerSecond))).toLocaleString('en-US')} deltas/s, first delta ${Math.round(median(long.bare.map((run) => run.firstDeltaUs)))} µs after the response headers`,
    `  LlmCycle.submitStreamWithTools: ${Math.round(median(long.cycle.map((run) => run.deltasPerSecond))).toLocaleString('en-US')} deltas/s (${median(long.cycle.map((run, index) => run.deltasPerSecond / (long.bare[index] as LongRun).deltasPerSecond)).toFixed(2)}x the floor), first delta ${Math.round(median(long.cycle.map((run) => run.firstDeltaUs)))} µs after the response headers`,
  ];
  const perPause = (result: Duel): string =>
    `${(((result.cycle.msPerConversation - result.bare.msPerConversation) / 2) * 1000).toFixed(0)} µs per pause and resume (${result.wallRatio.toFixed(2)}x the conversation without approval; CPU ${result.cpuRatio.toFixed(2)}x)`;
  const pauseLines = [
    `Pause + resume (the conversation above, get_time needing approval: 2 pauses, each resumed with 'approve'; ${pauseRounds} rounds):`,
    `  in the same LlmCycle:                            ${perPause(inProcess)}`,
    `  through state() as JSON into a new LlmCycle:     ${perPause(viaState)}`,
  ];
  process.stdout.write(
    `\n@agcore/llm-cycle bench — Node ${process.version}, OpenTelemetry tracing ${tracing ? 'ON (SDK registered, batch processor, spans dropped)' : 'off (no tracer provider)'}, ${turnsPerConversation}-turn conversation (4 tool turns, one with 2 parallel calls; 100-delta answer), ${rounds} rounds x ${conversations} conversations; ratios are medians of per-round ratios; load average ${loadavg()
      .map((load) => load.toFixed(1))
      .join(
        ' ',
      )}\n\n${lines.join('\n')}\n\n${longLines.join('\n')}\n\n${pauseLines.join('\n')}\n\n${whereFigures()}\n\n`,
  );
}

/** Which published figures this run compares with: they depend on the Node version. */
function whereFigures(): string {
  return [
    `Targets above are this bench's own (both loops in one process). Compare this run with the table for Node ${process.versions.node.split('.')[0]} in`,
    'packages/llm-cycle/README.md#bench. The root README and docs/benchmarks.md publish `pnpm bench:peers` (each framework in',
    'its own process, Node 22): in packages/llm-cycle, `npx -y node@22 --import tsx src/cycle.bench.ts` runs this bench on that Node.',
  ].join('\n');
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
