/** The mistral cassette of the dialect corpus. */
import { type CorpusEntry, conversation, created, done, sse, stream } from './shared.js';

const mistralBase = {
  id: 'cmpl-e5cc70bb28c444948073e77776eb30ef',
  object: 'chat.completion.chunk',
  created,
  model: 'magistral-medium-latest',
};
const mistralChunk = (
  delta: Record<string, unknown>,
  finish: string | null = null,
  usage?: unknown,
) =>
  sse({
    ...mistralBase,
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...(usage === undefined ? {} : { usage }),
  });
const thinking = (text: string) => [{ type: 'thinking', thinking: [{ type: 'text', text }] }];

export const mistral: CorpusEntry = {
  name: 'mistral',
  source:
    'docs.mistral.ai/api (chat completion streaming: whole tool calls with 9-character ids in one chunk, usage on the finishing chunk) and docs.mistral.ai/capabilities/reasoning (Magistral: content as an array of thinking and text parts)',
  baseURL: 'https://api.mistral.ai/v1',
  model: 'magistral-medium-latest',
  answers: [
    stream([
      mistralChunk({ role: 'assistant', content: '' }),
      mistralChunk({ content: thinking('I need the weather tool.') }),
      mistralChunk(
        {
          tool_calls: [
            {
              id: 'D681PevKs',
              function: { name: 'get_weather', arguments: '{"city": "Paris"}' },
              index: 0,
            },
          ],
        },
        'tool_calls',
        { prompt_tokens: 140, total_tokens: 171, completion_tokens: 31 },
      ),
      done,
    ]),
    stream([
      mistralChunk({ role: 'assistant', content: '' }),
      mistralChunk({ content: thinking('18 °C; say so.') }),
      mistralChunk({ content: [{ type: 'text', text: 'It is 18 °C' }] }),
      mistralChunk({ content: ' in Paris.' }),
      mistralChunk({ content: '' }, 'stop', {
        prompt_tokens: 190,
        total_tokens: 204,
        completion_tokens: 14,
      }),
      done,
    ]),
  ],
  expect: {
    calls: [['get_weather', { city: 'Paris' }]],
    text: conversation.answer,
    reasoning: '18 °C; say so.',
    totalTokens: 375,
  },
};
