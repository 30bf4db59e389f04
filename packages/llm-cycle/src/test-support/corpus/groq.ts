/** The groq cassette of the dialect corpus. */
import { type CorpusEntry, conversation, created, done, pieces, sse, stream } from './shared.js';

const groqBase = {
  id: 'chatcmpl-3f7a9c2e-1b4d-4e6f-8a0c-5d7e9f1b3c5a',
  object: 'chat.completion.chunk',
  created,
  model: 'llama-3.3-70b-versatile',
  system_fingerprint: 'fp_3f3b593e33',
};
const groqUsage = (prompt: number, completion: number) => ({
  queue_time: 0.021,
  prompt_tokens: prompt,
  prompt_time: 0.012,
  completion_tokens: completion,
  completion_time: 0.058,
  total_tokens: prompt + completion,
  total_time: 0.07,
});

export const groq: CorpusEntry = {
  name: 'groq',
  source:
    'console.groq.com/docs/api-reference (chat.completion.chunk with x_groq.id on the first chunk and the usage in x_groq.usage on the last) and console.groq.com/docs/tool-use (tool calls streamed whole, in one chunk)',
  baseURL: 'https://api.groq.com/openai/v1',
  model: 'llama-3.3-70b-versatile',
  answers: [
    stream([
      sse({
        ...groqBase,
        choices: [
          {
            index: 0,
            delta: { role: 'assistant', content: null },
            logprobs: null,
            finish_reason: null,
          },
        ],
        x_groq: { id: 'req_01jq6b8k2efz9tn3v7x4y5w6z7' },
      }),
      sse({
        ...groqBase,
        choices: [
          {
            index: 0,
            delta: {
              tool_calls: [
                {
                  id: 'call_9ztv',
                  type: 'function',
                  function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
                  index: 0,
                },
              ],
            },
            logprobs: null,
            finish_reason: null,
          },
        ],
      }),
      sse({
        ...groqBase,
        choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: 'tool_calls' }],
        x_groq: { id: 'req_01jq6b8k2efz9tn3v7x4y5w6z7', usage: groqUsage(224, 18) },
      }),
      done,
    ]),
    stream([
      sse({
        ...groqBase,
        choices: [
          {
            index: 0,
            delta: { role: 'assistant', content: '' },
            logprobs: null,
            finish_reason: null,
          },
        ],
        x_groq: { id: 'req_01jq6b8m4hg1ap5x9z6b7c8d9e' },
      }),
      ...pieces.map((piece) =>
        sse({
          ...groqBase,
          choices: [{ index: 0, delta: { content: piece }, logprobs: null, finish_reason: null }],
        }),
      ),
      sse({
        ...groqBase,
        choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }],
        x_groq: { id: 'req_01jq6b8m4hg1ap5x9z6b7c8d9e', usage: groqUsage(260, 9) },
      }),
      done,
    ]),
  ],
  expect: {
    calls: [['get_weather', { city: 'Paris' }]],
    text: conversation.answer,
    totalTokens: 511,
  },
};
