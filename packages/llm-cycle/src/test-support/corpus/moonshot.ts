/** The moonshot cassette of the dialect corpus. */
import { type CorpusEntry, conversation, created, done, pieces, sse, stream } from './shared.js';

const moonshotBase = {
  id: 'chatcmpl-6a1f0e9d8c7b4a3f2e1d0c9b',
  object: 'chat.completion.chunk',
  created,
  model: 'kimi-k2-thinking',
};
const moonshotChunk = (
  delta: Record<string, unknown>,
  finish: string | null = null,
  usage?: unknown,
) =>
  sse({
    ...moonshotBase,
    choices: [
      { index: 0, delta, finish_reason: finish, ...(usage === undefined ? {} : { usage }) },
    ],
  });

export const moonshot: CorpusEntry = {
  name: 'moonshot',
  source:
    'platform.moonshot.ai/docs/api/chat (streaming: the finishing chunk carries usage inside choices[0]; tool calls by index with ids such as get_weather:0) and platform.moonshot.ai/docs/guide/use-kimi-k2-thinking-model (reasoning_content, kept in the context of a tool loop: sendReasoning tool-calls)',
  baseURL: 'https://api.moonshot.ai/v1',
  model: 'kimi-k2-thinking',
  providerOptions: { sendReasoning: 'tool-calls' },
  answers: [
    stream([
      moonshotChunk({ role: 'assistant', content: '' }),
      ...['The weather', ' tool answers this.'].map((piece) =>
        moonshotChunk({ reasoning_content: piece }),
      ),
      moonshotChunk({
        tool_calls: [
          {
            index: 0,
            id: 'get_weather:0',
            type: 'function',
            function: { name: 'get_weather', arguments: '' },
          },
        ],
      }),
      ...['{"city":', '"Paris"}'].map((piece) =>
        moonshotChunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] }),
      ),
      moonshotChunk({}, 'tool_calls', {
        prompt_tokens: 201,
        completion_tokens: 33,
        total_tokens: 234,
        cached_tokens: 0,
      }),
      done,
    ]),
    stream([
      moonshotChunk({ role: 'assistant', content: '' }),
      moonshotChunk({ reasoning_content: 'Now answer.' }),
      ...pieces.map((piece) => moonshotChunk({ content: piece })),
      moonshotChunk({}, 'stop', {
        prompt_tokens: 250,
        completion_tokens: 12,
        total_tokens: 262,
        cached_tokens: 0,
      }),
      done,
    ]),
  ],
  expect: {
    calls: [['get_weather', { city: 'Paris' }]],
    text: conversation.answer,
    reasoning: 'Now answer.',
    totalTokens: 496,
    reasoningSentBack: true,
  },
};
