/** The openai cassette of the dialect corpus. */
import {
  type CorpusEntry,
  conversation,
  created,
  done,
  openAIChunk,
  pieces,
  sse,
  stream,
} from './shared.js';

const openAIBase = {
  id: 'chatcmpl-BxQ1n7Kq3xq2mYVZ8e4FQ5r9wTzL',
  object: 'chat.completion.chunk',
  created,
  model: 'gpt-4o-mini-2024-07-18',
  service_tier: 'default',
  system_fingerprint: 'fp_560af6e559',
};

export const openAI: CorpusEntry = {
  name: 'openai',
  source:
    'platform.openai.com/docs/api-reference/chat-streaming (chat.completion.chunk fields, usage: null on each chunk and a last chunk with empty choices when stream_options.include_usage is set) and platform.openai.com/docs/guides/function-calling (a streamed call: index, id, type and name first, then pieces of the arguments by index)',
  baseURL: 'https://api.openai.com/v1',
  model: 'gpt-4o-mini',
  answers: [
    stream([
      openAIChunk(
        { ...openAIBase, usage: null },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              index: 0,
              id: 'call_DdmO9pD3xa9XTPNJ32zg2hcA',
              type: 'function',
              function: { name: 'get_weather', arguments: '' },
            },
          ],
          refusal: null,
        },
      ),
      ...['{"', 'city', '":"', 'Paris', '"}'].map((piece) =>
        openAIChunk(
          { ...openAIBase, usage: null },
          { tool_calls: [{ index: 0, function: { arguments: piece } }] },
        ),
      ),
      openAIChunk({ ...openAIBase, usage: null }, {}, 'tool_calls'),
      sse({
        ...openAIBase,
        choices: [],
        usage: {
          prompt_tokens: 81,
          completion_tokens: 15,
          total_tokens: 96,
          prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
          completion_tokens_details: {
            reasoning_tokens: 0,
            audio_tokens: 0,
            accepted_prediction_tokens: 0,
            rejected_prediction_tokens: 0,
          },
        },
      }),
      done,
    ]),
    stream([
      openAIChunk(
        { ...openAIBase, usage: null },
        { role: 'assistant', content: '', refusal: null },
      ),
      ...pieces.map((piece) => openAIChunk({ ...openAIBase, usage: null }, { content: piece })),
      openAIChunk({ ...openAIBase, usage: null }, {}, 'stop'),
      sse({
        ...openAIBase,
        choices: [],
        usage: { prompt_tokens: 117, completion_tokens: 9, total_tokens: 126 },
      }),
      done,
    ]),
  ],
  expect: {
    calls: [['get_weather', { city: 'Paris' }]],
    text: conversation.answer,
    totalTokens: 222,
  },
};
