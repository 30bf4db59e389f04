/** The vllm cassette of the dialect corpus. */
import { type CorpusEntry, conversation, created, done, pieces, sse, stream } from './shared.js';

const vllmBase = {
  id: 'chatcmpl-b3f24c6e8a1d4f0e9c7b5a3d1e2f4a6b',
  object: 'chat.completion.chunk',
  created,
  model: 'Qwen/Qwen3-8B',
};
const vllmChunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  sse({
    ...vllmBase,
    choices: [
      {
        index: 0,
        delta,
        logprobs: null,
        finish_reason: finish,
        ...(finish === null ? {} : { stop_reason: null }),
      },
    ],
  });

export const vllm: CorpusEntry = {
  name: 'vllm',
  source:
    'docs.vllm.ai/en/latest/features/tool_calling (streamed calls: id chatcmpl-tool-…, the name first, then pieces of the arguments) and docs.vllm.ai/en/v0.11.2/features/reasoning_outputs (the `reasoning` field, formerly reasoning_content); stop_reason on the finishing choice, usage in a last chunk with empty choices',
  baseURL: 'http://127.0.0.1:8000/v1',
  model: 'Qwen/Qwen3-8B',
  answers: [
    stream([
      vllmChunk({ role: 'assistant', content: '' }),
      ...['I need', ' the weather tool.'].map((piece) => vllmChunk({ reasoning: piece })),
      vllmChunk({
        tool_calls: [
          {
            id: 'chatcmpl-tool-5a1b9e0c7d3f4e2a',
            type: 'function',
            index: 0,
            function: { name: 'get_weather' },
          },
        ],
      }),
      vllmChunk({ tool_calls: [{ index: 0, function: { arguments: '{"city": ' } }] }),
      vllmChunk({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }),
      vllmChunk({ content: '' }, 'tool_calls'),
      sse({
        ...vllmBase,
        choices: [],
        usage: {
          prompt_tokens: 301,
          total_tokens: 337,
          completion_tokens: 36,
          prompt_tokens_details: null,
        },
      }),
      done,
    ]),
    stream([
      vllmChunk({ role: 'assistant', content: '' }),
      vllmChunk({ reasoning: 'Answer briefly.' }),
      ...pieces.map((piece) => vllmChunk({ content: piece })),
      vllmChunk({ content: '' }, 'stop'),
      sse({
        ...vllmBase,
        choices: [],
        usage: {
          prompt_tokens: 350,
          total_tokens: 362,
          completion_tokens: 12,
          prompt_tokens_details: null,
        },
      }),
      done,
    ]),
  ],
  expect: {
    calls: [['get_weather', { city: 'Paris' }]],
    text: conversation.answer,
    reasoning: 'Answer briefly.',
    totalTokens: 699,
  },
};
