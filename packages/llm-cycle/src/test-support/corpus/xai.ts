/** The xai cassette of the dialect corpus. */
import { type CorpusEntry, conversation, created, done, pieces, sse, stream } from './shared.js';

const xaiBase = {
  id: 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d',
  object: 'chat.completion.chunk',
  created,
  model: 'grok-3-mini',
  system_fingerprint: 'fp_6c4b3c2d1a',
};
const xaiChunk = (delta: Record<string, unknown>, finish?: string, usage?: unknown) =>
  sse({
    ...xaiBase,
    choices: [{ index: 0, delta, ...(finish === undefined ? {} : { finish_reason: finish }) }],
    ...(usage === undefined ? {} : { usage }),
  });

export const xai: CorpusEntry = {
  name: 'xai',
  source:
    'docs.x.ai/docs/guides/function-calling (the whole function call in one chunk, ids call_…), docs.x.ai/docs/guides/reasoning (reasoning_content from grok-3-mini, streamed too) and docs.x.ai/docs/guides/streaming-response (finish_reason only on the last chunk, usage there)',
  baseURL: 'https://api.x.ai/v1',
  model: 'grok-3-mini',
  answers: [
    stream([
      xaiChunk({ role: 'assistant', reasoning_content: 'Weather in Paris:' }),
      xaiChunk({ reasoning_content: ' call the tool.' }),
      xaiChunk({
        tool_calls: [
          {
            id: 'call_27432498',
            function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
            index: 0,
            type: 'function',
          },
        ],
      }),
      xaiChunk({}, 'tool_calls', {
        prompt_tokens: 270,
        completion_tokens: 21,
        total_tokens: 291,
        completion_tokens_details: { reasoning_tokens: 14 },
        num_sources_used: 0,
      }),
      done,
    ]),
    stream([
      xaiChunk({ role: 'assistant', reasoning_content: 'Report it.' }),
      ...pieces.map((piece) => xaiChunk({ content: piece })),
      xaiChunk({}, 'stop', {
        prompt_tokens: 310,
        completion_tokens: 12,
        total_tokens: 322,
        num_sources_used: 0,
      }),
      done,
    ]),
  ],
  expect: {
    calls: [['get_weather', { city: 'Paris' }]],
    text: conversation.answer,
    reasoning: 'Report it.',
    totalTokens: 613,
    reasoningSentBack: true,
  },
};
