/** The qwen-dashscope cassette of the dialect corpus. */
import { type CorpusEntry, conversation, created, done, pieces, sse, stream } from './shared.js';

const qwenBase = {
  object: 'chat.completion.chunk',
  usage: null,
  created,
  system_fingerprint: null,
  model: 'qwen-plus',
  id: 'chatcmpl-6f3d2a1b-9c8e-4b7a-a5d4-3e2f1a0b9c8d',
  service_tier: null,
};
const qwenChunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  sse({
    ...qwenBase,
    choices: [
      {
        delta: {
          content: null,
          function_call: null,
          refusal: null,
          role: null,
          tool_calls: null,
          ...delta,
        },
        finish_reason: finish,
        index: 0,
        logprobs: null,
      },
    ],
  });

export const qwen: CorpusEntry = {
  name: 'qwen-dashscope',
  source:
    'alibabacloud.com/help/en/model-studio/qwen-function-calling (streamed calls: the first delta with index, id and name, later ones with id "" and name null) and alibabacloud.com/help/en/model-studio/deep-thinking (reasoning_content with enable_thinking); chunks carry function_call/refusal/tool_calls null, service_tier and system_fingerprint null, usage null, then a last chunk with empty choices and usage',
  baseURL: 'https://dashscope-intl.aliyuncs.com/compatible-mode/v1',
  model: 'qwen-plus',
  answers: [
    stream([
      qwenChunk({ role: 'assistant', reasoning_content: '' }),
      ...['Paris weather', ' is needed.'].map((piece) => qwenChunk({ reasoning_content: piece })),
      qwenChunk({
        tool_calls: [
          {
            index: 0,
            id: 'call_8f08d2b0fc0c4d8fab7123',
            function: { arguments: '', name: 'get_weather' },
            type: 'function',
          },
        ],
      }),
      qwenChunk({
        tool_calls: [
          { index: 0, id: '', function: { arguments: '{"city": "', name: null }, type: 'function' },
        ],
      }),
      qwenChunk({
        tool_calls: [
          { index: 0, id: '', function: { arguments: 'Paris"}', name: null }, type: 'function' },
        ],
      }),
      qwenChunk({ content: '' }, 'tool_calls'),
      sse({
        ...qwenBase,
        choices: [],
        usage: {
          prompt_tokens: 226,
          completion_tokens: 30,
          total_tokens: 256,
          completion_tokens_details: { reasoning_tokens: 8 },
          prompt_tokens_details: { cached_tokens: 0 },
        },
      }),
      done,
    ]),
    stream([
      qwenChunk({ role: 'assistant', content: '' }),
      ...pieces.map((piece) => qwenChunk({ content: piece })),
      qwenChunk({ content: '' }, 'stop'),
      sse({
        ...qwenBase,
        choices: [],
        usage: { prompt_tokens: 270, completion_tokens: 9, total_tokens: 279 },
      }),
      done,
    ]),
  ],
  expect: {
    calls: [['get_weather', { city: 'Paris' }]],
    text: conversation.answer,
    totalTokens: 535,
    reasoningSentBack: true,
  },
};
