/** The azure-openai cassette of the dialect corpus. */
import { type CorpusEntry, conversation, created, done, pieces, sse, stream } from './shared.js';

const filterSafe = {
  hate: { filtered: false, severity: 'safe' },
  self_harm: { filtered: false, severity: 'safe' },
  sexual: { filtered: false, severity: 'safe' },
  violence: { filtered: false, severity: 'safe' },
};
const azureBase = {
  id: 'chatcmpl-AzX4cE8TbQj6yVtn0mKc1pWq5LZr',
  object: 'chat.completion.chunk',
  created,
  model: 'gpt-4o-mini-2024-07-18',
  system_fingerprint: 'fp_b705f0c291',
};
const azurePromptFilter = sse({
  choices: [],
  created: 0,
  id: '',
  model: '',
  object: '',
  prompt_filter_results: [{ prompt_index: 0, content_filter_results: filterSafe }],
});
const azureChunk = (
  delta: Record<string, unknown>,
  finish: string | null = null,
  filters: unknown = {},
) =>
  sse({
    ...azureBase,
    choices: [
      { content_filter_results: filters, delta, finish_reason: finish, index: 0, logprobs: null },
    ],
  });

export const azure: CorpusEntry = {
  name: 'azure-openai',
  source:
    'learn.microsoft.com/azure/ai-services/openai/reference (the deployments path, the api-version query, the api-key header) and learn.microsoft.com/azure/ai-services/openai/concepts/content-filter (a first chunk with empty choices carrying prompt_filter_results, content_filter_results on each choice, a closing chunk of filter results)',
  baseURL: 'https://contoso.openai.azure.com/openai/deployments/gpt-4o-mini?api-version=2024-10-21',
  model: 'gpt-4o-mini',
  providerOptions: { headers: { 'api-key': 'azure-corpus-placeholder-key' } },
  answers: [
    stream([
      azurePromptFilter,
      azureChunk({
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            index: 0,
            id: 'call_Kf7xQm2Lr9TzW4bN1vYp6sHd',
            type: 'function',
            function: { name: 'get_weather', arguments: '' },
          },
        ],
      }),
      ...['{"ci', 'ty":"Pa', 'ris"}'].map((piece) =>
        azureChunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] }),
      ),
      azureChunk({}, 'tool_calls'),
      sse({
        ...azureBase,
        choices: [],
        usage: { prompt_tokens: 84, completion_tokens: 16, total_tokens: 100 },
      }),
      done,
    ]),
    stream([
      azurePromptFilter,
      azureChunk({ role: 'assistant', content: '', refusal: null }),
      ...pieces.map((piece) => azureChunk({ content: piece }, null, filterSafe)),
      azureChunk({}, 'stop'),
      sse({
        ...azureBase,
        choices: [{ content_filter_results: filterSafe, delta: {}, finish_reason: null, index: 0 }],
      }),
      sse({
        ...azureBase,
        choices: [],
        usage: { prompt_tokens: 120, completion_tokens: 9, total_tokens: 129 },
      }),
      done,
    ]),
  ],
  expect: {
    calls: [['get_weather', { city: 'Paris' }]],
    text: conversation.answer,
    totalTokens: 229,
  },
};
