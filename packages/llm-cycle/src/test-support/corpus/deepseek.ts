/** The deepseek cassette of the dialect corpus. */
import { type CorpusEntry, conversation, created, done, pieces, sse, stream } from './shared.js';

const deepSeekBase = {
  id: '8b9f3c1e-2d4a-4f5b-9c6d-7e8f9a0b1c2d',
  object: 'chat.completion.chunk',
  created,
  model: 'deepseek-reasoner',
  system_fingerprint: 'fp_ffc7281d48_prod0820_fp8_kvcache',
};
const deepSeekChunk = (
  delta: Record<string, unknown>,
  finish: string | null = null,
  usage?: unknown,
) =>
  sse({
    ...deepSeekBase,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...(usage === undefined ? {} : { usage }),
  });
const deepSeekUsage = (prompt: number, completion: number, reasoning: number) => ({
  prompt_tokens: prompt,
  completion_tokens: completion,
  total_tokens: prompt + completion,
  prompt_tokens_details: { cached_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: reasoning },
  prompt_cache_hit_tokens: 0,
  prompt_cache_miss_tokens: prompt,
});

export const deepSeek: CorpusEntry = {
  name: 'deepseek',
  source:
    'api-docs.deepseek.com/api/create-chat-completion (chunks with reasoning_content next to content, usage with prompt_cache_hit_tokens on the finishing chunk, ": keep-alive" comments while the request waits) and api-docs.deepseek.com/guides/thinking_mode (in a tool loop, reasoning_content of the assistant message with tool calls must be sent back; HTTP 400 otherwise): the base URL on deepseek.com turns sendReasoning to tool-calls',
  baseURL: 'https://api.deepseek.com',
  model: 'deepseek-reasoner',
  answers: [
    stream([
      ': keep-alive\n\n',
      deepSeekChunk({ role: 'assistant', content: null, reasoning_content: '' }),
      ...['The user asks', ' about Paris;', ' I should call get_weather.'].map((piece) =>
        deepSeekChunk({ content: null, reasoning_content: piece }),
      ),
      deepSeekChunk({
        content: null,
        reasoning_content: null,
        tool_calls: [
          {
            index: 0,
            id: 'call_00_yE3pQ8xV2mN7kR4tZ1wL6',
            type: 'function',
            function: { name: 'get_weather', arguments: '' },
          },
        ],
      }),
      ...['{"city', '": "Paris', '"}'].map((piece) =>
        deepSeekChunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] }),
      ),
      deepSeekChunk(
        { content: '', reasoning_content: null },
        'tool_calls',
        deepSeekUsage(160, 42, 21),
      ),
      done,
    ]),
    stream([
      deepSeekChunk({ role: 'assistant', content: null, reasoning_content: '' }),
      ...['18 °C,', ' mild.'].map((piece) =>
        deepSeekChunk({ content: null, reasoning_content: piece }),
      ),
      ...pieces.map((piece) => deepSeekChunk({ content: piece, reasoning_content: null })),
      deepSeekChunk({ content: '', reasoning_content: null }, 'stop', deepSeekUsage(221, 15, 6)),
      done,
    ]),
  ],
  expect: {
    calls: [['get_weather', { city: 'Paris' }]],
    text: conversation.answer,
    reasoning: '18 °C, mild.',
    totalTokens: 438,
    reasoningSentBack: true,
  },
};
