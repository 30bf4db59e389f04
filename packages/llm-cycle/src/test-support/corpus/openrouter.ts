/** The openrouter cassette of the dialect corpus. */
import { type CorpusEntry, conversation, created, done, pieces, sse, stream } from './shared.js';

const routerBase = {
  id: 'gen-1767225600-Zk3pQ9wXr2Lm8Tn4',
  provider: 'OpenAI',
  model: 'openai/gpt-4o-mini',
  object: 'chat.completion.chunk',
  created,
};
const routerChunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  sse({
    ...routerBase,
    choices: [
      {
        index: 0,
        delta: { role: 'assistant', content: '', ...delta },
        finish_reason: finish,
        native_finish_reason: finish,
        logprobs: null,
      },
    ],
  });
const reasoningDelta = (text: string) => ({
  reasoning: text,
  reasoning_details: [{ type: 'reasoning.text', text, format: 'unknown', index: 0 }],
});

export const openRouter: CorpusEntry = {
  name: 'openrouter',
  source:
    'openrouter.ai/docs/api-reference/streaming (": OPENROUTER PROCESSING" comments, usage on the last chunk), openrouter.ai/docs/use-cases/reasoning-tokens (`reasoning` deltas with reasoning_details) and openrouter.ai/docs/api-reference/overview (provider, native_finish_reason)',
  baseURL: 'https://openrouter.ai/api/v1',
  model: 'openai/gpt-4o-mini',
  answers: [
    stream([
      ': OPENROUTER PROCESSING\n\n',
      ': OPENROUTER PROCESSING\n\n',
      routerChunk(reasoningDelta('Look up the weather.')),
      routerChunk({
        tool_calls: [
          {
            index: 0,
            id: 'call_Xq8vR2mN5tL7kP3wZ9yB4cF1',
            type: 'function',
            function: { name: 'get_weather', arguments: '' },
          },
        ],
      }),
      ...['{"city"', ':"Paris"}'].map((piece) =>
        routerChunk({
          tool_calls: [{ index: 0, type: 'function', function: { arguments: piece } }],
        }),
      ),
      routerChunk({}, 'tool_calls'),
      sse({
        ...routerBase,
        choices: [],
        usage: { prompt_tokens: 88, completion_tokens: 17, total_tokens: 105, cost: 0.0000234 },
      }),
      done,
    ]),
    stream([
      ': OPENROUTER PROCESSING\n\n',
      routerChunk(reasoningDelta('Say it plainly.')),
      ...pieces.map((piece) => routerChunk({ content: piece })),
      routerChunk({}, 'stop'),
      sse({
        ...routerBase,
        choices: [],
        usage: { prompt_tokens: 124, completion_tokens: 9, total_tokens: 133, cost: 0.000024 },
      }),
      done,
    ]),
  ],
  expect: {
    calls: [['get_weather', { city: 'Paris' }]],
    text: conversation.answer,
    reasoning: 'Say it plainly.',
    totalTokens: 238,
  },
};
