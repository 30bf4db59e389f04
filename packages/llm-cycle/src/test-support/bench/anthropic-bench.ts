/**
 * `pnpm bench:anthropic`: the Anthropic provider's loop overhead against a bare `fetch` loop of
 * the same wire format (the conversation of `cycle.bench.ts`: 4 tool turns, one with 2 parallel
 * calls, then 100 deltas; the server in a child process; medians of per-round ratios), and what
 * the prompt cache saves over a 5-turn loop with a realistic tool set (12 tools, a long system
 * prompt), `cacheTools` on against off, as the server bills it (`billedUsage`).
 */
import { fork } from 'node:child_process';
import { defineTool } from '@agcore/tools-core';
import type { ToolRegistry } from '@agcore/tools-registry';
import type { ChatProvider, ChatResponse, Usage } from '../../chat-provider.js';
import { LlmCycle } from '../../loop/llm-cycle.js';
import { createAnthropicProvider } from '../../providers/anthropic/anthropic-provider.js';
import { startMessagesServer } from '../../testing/index.js';
import { bareMessagesLoop, bareMessagesSseLoop, type MessagesTool } from './anthropic-bare.js';
import { benchReply, serveMessages } from './anthropic-server.js';
import { registry } from './conversation.js';
import { type Duel, duel } from './measure.js';

const system = 'You are a helpful assistant.';

/** The overhead duels against the server at `baseURL`. */
async function overhead(baseURL: string, rounds: number, conversations: number) {
  const tools = registry();
  const definitions: MessagesTool[] = tools.definitions().map((tool) => ({
    name: tool.function.name,
    description: tool.function.description,
    input_schema: tool.function.parameters,
  }));
  const provider = createAnthropicProvider({ apiKey: 'sk-ant-bench', baseURL, cacheTools: false });
  const cycle = () => new LlmCycle({ provider, model: 'claude-bench', systemPrompt: system });
  const json = await duel(
    () => bareMessagesLoop(baseURL, definitions),
    async () => {
      await cycle().submitWithTools('Plan my trip.', tools);
      return 0;
    },
    rounds,
    conversations,
  );
  const stream = await duel(
    () => bareMessagesSseLoop(baseURL, definitions),
    async () => {
      let events = 0;
      for await (const _event of cycle().submitStreamWithTools('Plan my trip.', tools)) events++;
      return events;
    },
    rounds,
    conversations,
  );
  return { json, stream };
}

/** 12 tools of realistic size: the 2 of the conversation and 10 more with long descriptions. */
function largeRegistry(): ToolRegistry {
  const more = Array.from({ length: 10 }, (_, index) =>
    defineTool({
      name: `crm_action_${index}`,
      description: `${'Looks up, creates or updates records of the CRM: accounts, contacts, deals and their history, with the permissions of the signed-in user. '.repeat(4)}Variant ${index}.`,
      parameters: {
        type: 'object',
        properties: Object.fromEntries(
          ['account', 'contact', 'deal', 'stage', 'owner', 'note'].map((field) => [
            field,
            { type: 'string', description: `The ${field} to read or write, by id or exact name.` },
          ]),
        ),
      },
      execute: async () => 'ok',
    }),
  );
  return registry().registerAll(more);
}

/** A provider that adds up the usage of every response. */
function counting(inner: ChatProvider, totals: Record<keyof Usage, number>): ChatProvider {
  const add = (response: ChatResponse): ChatResponse => {
    for (const key of Object.keys(totals) as (keyof Usage)[])
      totals[key] += response.usage?.[key] ?? 0;
    return response;
  };
  return {
    chat: async (request, options) => add(await inner.chat(request, options)),
    chatStream: async function* (request, options) {
      for await (const chunk of inner.chatStream(request, options)) {
        if (chunk.type === 'response') add(chunk.response);
        yield chunk;
      }
    },
  };
}

/** The 5-turn loop's billed tokens with `cacheTools` on and off (in process: nothing is timed). */
async function cacheSaving() {
  const server = await startMessagesServer({ recordRequests: false });
  const seen = new Set<string>();
  server.fallback((request) => benchReply(request, seen));
  const long = `${system} ${'Answer in the language of the user, cite the records you used, and never invent an id. '.repeat(30)}`;
  const figures: Record<string, Record<keyof Usage, number>> = {};
  try {
    for (const cacheTools of [false, true]) {
      const totals = {
        promptTokens: 0,
        completionTokens: 0,
        totalTokens: 0,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        reasoningTokens: 0,
      };
      const provider = counting(
        createAnthropicProvider({ apiKey: 'sk-ant-bench', baseURL: server.baseURL, cacheTools }),
        totals,
      );
      await new LlmCycle({ provider, model: 'claude-bench', systemPrompt: long }).submitWithTools(
        'Plan my trip.',
        largeRegistry(),
      );
      figures[cacheTools ? 'on' : 'off'] = totals;
    }
  } finally {
    await server.close();
  }
  return figures;
}

/** Input billed in units of a base input token (cache writes 1.25×, reads 0.1×: the pricing page). */
function billedUnits(totals: Record<keyof Usage, number>): number {
  const uncached = totals.promptTokens - totals.cacheReadTokens - totals.cacheWriteTokens;
  return uncached + 1.25 * totals.cacheWriteTokens + 0.1 * totals.cacheReadTokens;
}

function line(name: string, result: Duel): string {
  return `${name}: bare ${result.bare.msPerConversation.toFixed(3)} ms, provider ${result.cycle.msPerConversation.toFixed(3)} ms per conversation; wall ratio ${result.wallRatio.toFixed(3)}×, CPU ratio ${result.cpuRatio.toFixed(3)}× (target ≤ 1.10×)`;
}

async function main(): Promise<void> {
  const child = fork(process.argv[1] as string, ['--server'], {
    execArgv: process.execArgv,
    stdio: 'inherit',
  });
  const baseURL = await new Promise<string>((resolve) =>
    child.once('message', (message: { baseURL: string }) => resolve(message.baseURL)),
  );
  const rounds = Number(process.env.BENCH_ROUNDS ?? 15);
  const conversations = Number(process.env.BENCH_CONVERSATIONS ?? 25);
  const { json, stream } = await overhead(baseURL, rounds, conversations);
  child.disconnect();
  const cache = await cacheSaving();
  const off = cache.off as Record<keyof Usage, number>;
  const on = cache.on as Record<keyof Usage, number>;
  const lines = [
    `Anthropic Messages, ${rounds} rounds × ${conversations} conversations of 5 turns`,
    line('not streamed', json),
    line('streamed', stream),
    `cache over the 5-turn loop (12 tools, long system prompt): prompt tokens ${off.promptTokens} either way;`,
    `  cacheTools off: ${off.promptTokens} uncached → ${billedUnits(off).toFixed(0)} billed input units`,
    `  cacheTools on: ${on.cacheWriteTokens} written, ${on.cacheReadTokens} read, ${on.promptTokens - on.cacheReadTokens - on.cacheWriteTokens} uncached → ${billedUnits(on).toFixed(0)} units (${((1 - billedUnits(on) / billedUnits(off)) * 100).toFixed(1)}% less)`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

if (process.argv.includes('--server')) {
  void serveMessages();
} else {
  main().catch((error: unknown) => {
    process.stderr.write(
      `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  });
}
