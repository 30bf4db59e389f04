/**
 * The dialect corpus: one two-turn tool conversation per provider (the model calls
 * `get_weather`, then answers), with the answers written from that provider's public
 * documentation of its wire format. `write-cassettes.ts` records them into
 * `cassettes/<name>.json` through the real provider and the cassette recorder;
 * `cassette-corpus.test.ts` replays each through both loops. Each entry's `source` says where
 * its shape comes from (the README lists them too).
 */
import { defineTool } from '@agcore/tools-core';
import { ToolRegistry } from '@agcore/tools-registry';
import type { ServerReply } from '../testing/index.js';

/** What the cycle is set up with, the same for every provider. */
export const conversation = {
  systemPrompt: 'You are a weather assistant. Use the tools.',
  prompt: 'What is the weather in Paris?',
  answer: 'It is 18 °C in Paris.',
} as const;

/** One provider of the corpus. */
export interface CorpusEntry {
  /** The cassette's file name (without `.json`). */
  readonly name: string;
  /** The documentation the answers' shape comes from. */
  readonly source: string;
  /** The provider's real API root (the replaying provider's `baseURL`). */
  readonly baseURL: string;
  readonly model: string;
  /** Provider options beyond the base URL (credentials are placeholders; they are not recorded). */
  readonly providerOptions?: {
    readonly headers?: Readonly<Record<string, string>>;
    readonly sendReasoning?: 'never' | 'tool-calls' | 'always';
  };
  /** The raw answers: the tool-call turn, then the final turn. */
  readonly answers: readonly ServerReply[];
  /** What the replay must give. */
  readonly expect: {
    readonly calls: readonly (readonly [string, Record<string, unknown>])[];
    readonly text: string;
    readonly reasoning?: string;
    readonly totalTokens: number;
    /** Whether the second request sends the first answer's reasoning back. */
    readonly reasoningSentBack?: boolean;
  };
}

const created = 1_767_225_600;
const sse = (payload: unknown): string => `data: ${JSON.stringify(payload)}\n\n`;
const done = 'data: [DONE]\n\n';
const stream = (writes: readonly string[]): ServerReply => ({ kind: 'sse', writes });
const pieces = ['It', ' is', ' 18', ' °C', ' in', ' Paris', '.'];

/** An OpenAI-style chunk envelope with one choice. */
function openAIChunk(
  base: Record<string, unknown>,
  delta: Record<string, unknown>,
  finish: string | null = null,
  extra: Record<string, unknown> = {},
): string {
  return sse({
    ...base,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish, ...extra }],
  });
}

const openAIBase = {
  id: 'chatcmpl-BxQ1n7Kq3xq2mYVZ8e4FQ5r9wTzL',
  object: 'chat.completion.chunk',
  created,
  model: 'gpt-4o-mini-2024-07-18',
  service_tier: 'default',
  system_fingerprint: 'fp_560af6e559',
};

const openAI: CorpusEntry = {
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

const azure: CorpusEntry = {
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

const deepSeek: CorpusEntry = {
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

const qwen: CorpusEntry = {
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
  },
};

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

const ollama: CorpusEntry = {
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

const vllm: CorpusEntry = {
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

const mistral: CorpusEntry = {
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

const groq: CorpusEntry = {
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

const xai: CorpusEntry = {
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
  },
};

const moonshotBase = {
  id: 'chatcmpl-6a1f0e9d8c7b4a3f2e1d0c9b',
  object: 'chat.completion.chunk',
  created,
  model: 'kimi-k2-thinking',
};
const moonshotChunk = (
  delta: Record<string, unknown>,
  finish: string | null = null,
  usage?: unknown,
) =>
  sse({
    ...moonshotBase,
    choices: [
      { index: 0, delta, finish_reason: finish, ...(usage === undefined ? {} : { usage }) },
    ],
  });

const moonshot: CorpusEntry = {
  name: 'moonshot',
  source:
    'platform.moonshot.ai/docs/api/chat (streaming: the finishing chunk carries usage inside choices[0]; tool calls by index with ids such as get_weather:0) and platform.moonshot.ai/docs/guide/use-kimi-k2-thinking-model (reasoning_content, kept in the context of a tool loop: sendReasoning tool-calls)',
  baseURL: 'https://api.moonshot.ai/v1',
  model: 'kimi-k2-thinking',
  providerOptions: { sendReasoning: 'tool-calls' },
  answers: [
    stream([
      moonshotChunk({ role: 'assistant', content: '' }),
      ...['The weather', ' tool answers this.'].map((piece) =>
        moonshotChunk({ reasoning_content: piece }),
      ),
      moonshotChunk({
        tool_calls: [
          {
            index: 0,
            id: 'get_weather:0',
            type: 'function',
            function: { name: 'get_weather', arguments: '' },
          },
        ],
      }),
      ...['{"city":', '"Paris"}'].map((piece) =>
        moonshotChunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] }),
      ),
      moonshotChunk({}, 'tool_calls', {
        prompt_tokens: 201,
        completion_tokens: 33,
        total_tokens: 234,
        cached_tokens: 0,
      }),
      done,
    ]),
    stream([
      moonshotChunk({ role: 'assistant', content: '' }),
      moonshotChunk({ reasoning_content: 'Now answer.' }),
      ...pieces.map((piece) => moonshotChunk({ content: piece })),
      moonshotChunk({}, 'stop', {
        prompt_tokens: 250,
        completion_tokens: 12,
        total_tokens: 262,
        cached_tokens: 0,
      }),
      done,
    ]),
  ],
  expect: {
    calls: [['get_weather', { city: 'Paris' }]],
    text: conversation.answer,
    reasoning: 'Now answer.',
    totalTokens: 496,
    reasoningSentBack: true,
  },
};

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

const openRouter: CorpusEntry = {
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

/** Every provider of the corpus. */
export const corpus: readonly CorpusEntry[] = [
  openAI,
  azure,
  deepSeek,
  qwen,
  ollama,
  vllm,
  mistral,
  groq,
  xai,
  moonshot,
  openRouter,
];

/** The tools of the corpus conversation: `get_weather`, the same answer for any city. */
export function corpusRegistry(): ToolRegistry {
  return new ToolRegistry().register(
    defineTool({
      name: 'get_weather',
      description: 'Current weather for a city',
      parameters: {
        type: 'object',
        properties: { city: { type: 'string' } },
        required: ['city'],
      },
      execute: async ({ city }) => ({ city, temperature: 18, unit: 'C' }),
    }),
  );
}
