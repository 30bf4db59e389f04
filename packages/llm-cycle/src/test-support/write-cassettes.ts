/**
 * `pnpm cassettes`: writes `cassettes/<name>.json` for every provider of the corpus, by running
 * the corpus conversation (streamed) against the local Chat Completions server playing that
 * provider's documented answers, through the cassette recorder. The base URL is then set to the
 * provider's real one, so a replay follows the same rules (DeepSeek's is recognised by host).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { LlmCycle } from '../loop/llm-cycle.js';
import { isDeepSeekHost } from '../providers/openai-compatible/dialects.js';
import { createOpenAICompatibleProvider } from '../providers/openai-compatible/openai-compatible-provider.js';
import { recordCassette, startChatCompletionsServer } from '../testing/index.js';
import { conversation, corpus, corpusRegistry } from './corpus/index.js';

const directory = new URL('../../cassettes/', import.meta.url);
mkdirSync(directory, { recursive: true });
const server = await startChatCompletionsServer();
try {
  for (const entry of corpus) {
    // One event per network read, so the cassette keeps realistic read boundaries.
    server
      .reset()
      .reply(
        ...entry.answers.map((answer) =>
          typeof answer === 'object' && answer.kind === 'sse'
            ? { ...answer, pause: 'next-turn' as const }
            : answer,
        ),
      );
    const real = new URL(entry.baseURL);
    const local = new URL(server.baseURL);
    local.pathname = real.pathname;
    local.search = real.search;
    const recorder = recordCassette({ source: entry.source });
    const provider = createOpenAICompatibleProvider({
      baseURL: local.toString(),
      apiKey: 'sk-corpus-recording-key',
      ...entry.providerOptions,
      ...(isDeepSeekHost(real.hostname) ? { deepseek: true } : {}),
      fetch: recorder.fetch,
    });
    const cycle = new LlmCycle({
      provider,
      model: entry.model,
      systemPrompt: conversation.systemPrompt,
    });
    for await (const _event of cycle.submitStreamWithTools(conversation.prompt, corpusRegistry()));
    const cassette = { ...recorder.cassette(), baseURL: entry.baseURL };
    writeFileSync(
      new URL(`${entry.name}.json`, directory),
      `${JSON.stringify(cassette, null, 2)}\n`,
    );
    process.stdout.write(`cassettes/${entry.name}.json: ${cassette.exchanges.length} exchanges\n`);
  }
} finally {
  await server.close();
}
