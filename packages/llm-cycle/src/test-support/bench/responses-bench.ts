/**
 * `pnpm bench:responses`: the Responses provider's loop overhead against a bare `fetch` loop of
 * the same wire format (issue 22, target ≤ 1.10×), on a local Responses server run in a child
 * process (its work is billed to neither contender). The conversation is the cycle bench's: 4
 * tool turns (one with 2 parallel calls), each answer opening with a reasoning item, and a final
 * answer of 100 deltas; non-streamed and streamed. Rounds alternate the order of the two
 * contenders and the median of the per-round ratios is reported (see `measure.ts`).
 */
import { fork } from 'node:child_process';
import { LlmCycle } from '../../loop/llm-cycle.js';
import { createOpenAIResponsesProvider } from '../../providers/openai-responses/openai-responses-provider.js';
import { registry } from './conversation.js';
import { duel } from './measure.js';
import { bareResponsesLoop } from './responses-bare-loop.js';
import { serveResponses } from './responses-server.js';

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
  const tools = registry();
  const definitions = tools.definitions().map((tool) => ({ type: 'function', ...tool.function }));
  const provider = createOpenAIResponsesProvider({ baseURL, apiKey: 'sk-bench' });
  const cycle = () =>
    new LlmCycle({ provider, model: 'gpt-5-mini', systemPrompt: 'You are a helpful assistant.' });
  const json = await duel(
    () => bareResponsesLoop(baseURL, definitions, false),
    async () => {
      await cycle().submitWithTools('Plan my trip.', tools);
      return 0;
    },
    rounds,
    conversations,
  );
  const stream = await duel(
    () => bareResponsesLoop(baseURL, definitions, true),
    async () => {
      let events = 0;
      for await (const _event of cycle().submitStreamWithTools('Plan my trip.', tools)) events++;
      return events;
    },
    rounds,
    conversations,
  );
  child.disconnect();
  const line = (name: string, figures: typeof json): string =>
    `| ${name} | ${figures.bare.msPerConversation.toFixed(2)} | ${figures.cycle.msPerConversation.toFixed(2)} | ${figures.wallRatio.toFixed(3)}× | ${figures.cpuRatio.toFixed(3)}× |\n`;
  process.stdout.write(
    `Responses provider, 5-turn conversation, ${rounds} rounds × ${conversations} conversations (median ratios)\n\n` +
      '| mode | bare ms/conv | cycle ms/conv | wall ratio | CPU ratio |\n|---|---|---|---|---|\n' +
      line('not streamed', json) +
      line('streamed', stream),
  );
}

if (process.argv.includes('--server')) {
  void serveResponses();
} else {
  main().catch((error: unknown) => {
    process.stderr.write(
      `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  });
}
