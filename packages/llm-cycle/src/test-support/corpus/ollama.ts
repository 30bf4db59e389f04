/** The ollama cassette of the dialect corpus. */
import { type CorpusEntry, conversation, created, done, pieces, sse, stream } from './shared.js';

const ollamaBase = {
  id: 'chatcmpl-721',
  object: 'chat.completion.chunk',
  created,
  model: 'qwen3:8b',
  system_fingerprint: 'fp_ollama',
};
const ollamaChunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  sse({
    ...ollamaBase,
    choices: [
      { index: 0, delta: { role: 'assistant', content: '', ...delta }, finish_reason: finish },
    ],
  });
const ollamaCall = (id: string, city: string) => ({
  id,
  index: 0,
  type: 'function',
  function: { name: 'get_weather', arguments: JSON.stringify({ city }) },
});

export const ollama: CorpusEntry = {
  name: 'ollama',
  source:
    'docs.ollama.com/api/openai-compatibility (chat.completion.chunk with system_fingerprint fp_ollama and role on every delta, `reasoning` for thinking models, whole tool calls, a last chunk with empty choices and usage when include_usage is set); Ollama 0.20.x streams parallel calls one chunk each, all with index 0 and distinct ids (as reported in issue 10)',
  baseURL: 'http://127.0.0.1:11434/v1',
  model: 'qwen3:8b',
  answers: [
    stream([
      ollamaChunk({ reasoning: 'Two cities, two calls.' }),
      ollamaChunk({ tool_calls: [ollamaCall('call_k3hfxm2p', 'Paris')] }),
      ollamaChunk({ tool_calls: [ollamaCall('call_w8ynb5qa', 'Lyon')] }),
      ollamaChunk({}, 'tool_calls'),
      sse({
        ...ollamaBase,
        choices: [],
        usage: { prompt_tokens: 190, completion_tokens: 44, total_tokens: 234 },
      }),
      done,
    ]),
    stream([
      ...pieces.map((piece) => ollamaChunk({ content: piece })),
      ollamaChunk({}, 'stop'),
      sse({
        ...ollamaBase,
        choices: [],
        usage: { prompt_tokens: 260, completion_tokens: 9, total_tokens: 269 },
      }),
      done,
    ]),
  ],
  expect: {
    calls: [
      ['get_weather', { city: 'Paris' }],
      ['get_weather', { city: 'Lyon' }],
    ],
    text: conversation.answer,
    totalTokens: 503,
  },
};
