import type { ToolDefinition } from '@agcore/tools-core';
import { describe, expect, it } from 'vitest';
import type { ChatChunk, ChatRequest, ChatResponse } from '../../chat-provider.js';
import type { ChatMessage } from '../../messages.js';
import { choppedFetch, useMessagesServer } from '../../test-support/dialects/messages-fixture.js';
import { messagesBody, messagesStream } from '../../testing/index.js';
import { createAnthropicProvider } from './anthropic-provider.js';

const fixture = useMessagesServer();
const provider = (options: Parameters<typeof createAnthropicProvider>[0] | object = {}) =>
  createAnthropicProvider({
    apiKey: 'sk-ant-test-key',
    baseURL: fixture.server.baseURL,
    ...options,
  });

const weather: ToolDefinition = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Weather of a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } } },
  },
};
const clock: ToolDefinition = {
  type: 'function',
  function: { name: 'get_time', description: 'Time', parameters: { type: 'object' } },
};

/** A history after a turn of two parallel calls and their results. */
const afterTools: ChatMessage[] = [
  { role: 'system', content: 'You are terse.' },
  { role: 'user', content: 'Weather and time in Paris?' },
  {
    role: 'assistant',
    content: 'Looking.',
    tool_calls: [
      {
        id: 'toolu_1',
        type: 'function',
        function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
      },
      { id: 'toolu_2', type: 'function', function: { name: 'get_time', arguments: '{}' } },
    ],
  },
  { role: 'tool', tool_call_id: 'toolu_1', content: '{"temperature":22}' },
  { role: 'tool', tool_call_id: 'toolu_2', content: '12:00' },
];
const request: ChatRequest = {
  model: 'claude-sonnet-4-5',
  messages: afterTools,
  tools: [weather, clock],
};

async function collect(stream: AsyncIterable<ChatChunk>): Promise<ChatChunk[]> {
  const chunks: ChatChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

function responseOf(chunks: readonly ChatChunk[]): ChatResponse {
  const last = chunks[chunks.length - 1];
  if (last?.type !== 'response') throw new Error('no response chunk');
  return last.response;
}

describe('the request', () => {
  it('maps the history to Messages: system, tool_use, merged tool_result turn, headers, max_tokens', async () => {
    fixture.server.reply({ kind: 'json', body: messagesBody({ text: 'Sunny, noon.' }) });
    await provider({ beta: ['interleaved-thinking-2025-05-14'] }).chat(request);
    const received = fixture.server.requests[0];
    expect(received?.url).toBe('/v1/messages');
    expect(received?.headers['x-api-key']).toBe('sk-ant-test-key');
    expect(received?.headers['anthropic-version']).toBe('2023-06-01');
    expect(received?.headers['anthropic-beta']).toBe('interleaved-thinking-2025-05-14');
    expect(received?.headers.authorization).toBeUndefined();
    const body = fixture.sent(0);
    expect(body.max_tokens).toBe(4096);
    expect(body.system).toEqual([
      { type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } },
    ]);
    expect(body.tools.map((tool: { cache_control?: unknown }) => tool.cache_control)).toEqual([
      undefined,
      { type: 'ephemeral' },
    ]);
    expect(body.tools[0].input_schema).toEqual(weather.function.parameters);
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather and time in Paris?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Looking.' },
          { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
          { type: 'tool_use', id: 'toolu_2', name: 'get_time', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: '{"temperature":22}' },
          { type: 'tool_result', tool_use_id: 'toolu_2', content: '12:00' },
        ],
      },
    ]);
  });

  it('sets no cache breakpoint with cacheTools: false, and parameters override max_tokens', async () => {
    fixture.server.reply({ kind: 'json', body: messagesBody({ text: 'ok' }) });
    await provider({ cacheTools: false }).chat({ ...request, parameters: { max_tokens: 64 } });
    const body = fixture.sent(0);
    expect(body.max_tokens).toBe(64);
    expect(JSON.stringify(body)).not.toContain('cache_control');
  });

  it('sends image parts as image blocks: a data URL as base64, any other by URL', async () => {
    fixture.server.reply({ kind: 'json', body: messagesBody({ text: 'A cat.' }) });
    await provider().chat({
      model: 'claude-sonnet-4-5',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
          ],
        },
      ],
    });
    expect(fixture.sent(0).messages[0].content).toEqual([
      { type: 'text', text: 'What is this?' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
      { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
    ]);
  });

  it('appends /messages (not /v1/messages) when baseURL ends with /v1', async () => {
    fixture.server.reply({ kind: 'json', body: messagesBody({ text: 'ok' }) });
    await provider({ baseURL: `${fixture.server.baseURL}/v1` }).chat(request);
    expect(fixture.server.requests[0]?.url).toBe('/v1/messages');
  });
});

describe('the answer', () => {
  const calls = [
    {
      id: 'toolu_a',
      name: 'get_weather',
      input: { city: 'Paris' },
      pieces: ['{"ci', 'ty":"Par', 'is"}'],
    },
    { id: 'toolu_b', name: 'get_time', input: {} },
  ];
  const usage = { input: 12, output: 30, cacheRead: 1800, cacheWrite: 0 };

  it('reads parallel tool_use blocks, stop_reason tool_use and the cache usage, whole', async () => {
    fixture.server.reply({
      kind: 'json',
      body: messagesBody({ text: 'Let me check.', calls, usage }),
    });
    const answer = await provider().chat(request);
    expect(answer.finishReason).toBe('tool_calls');
    expect(answer.message.content).toBe('Let me check.');
    expect(
      answer.message.tool_calls?.map((call) => [
        call.id,
        call.function.name,
        JSON.parse(call.function.arguments),
      ]),
    ).toEqual([
      ['toolu_a', 'get_weather', { city: 'Paris' }],
      ['toolu_b', 'get_time', {}],
    ]);
    expect(answer.usage).toEqual({
      promptTokens: 1812,
      completionTokens: 30,
      totalTokens: 1842,
      cacheReadTokens: 1800,
      cacheWriteTokens: 0,
    });
  });

  it('streams the loop events and assembles the same response, in whole reads and in 1–48-byte reads', async () => {
    const whole = await (async () => {
      fixture.server.reply({
        kind: 'json',
        body: messagesBody({ text: 'Let me check.', calls, usage }),
      });
      return provider().chat(request);
    })();
    for (const seed of [undefined, 1, 7, 42, 1234]) {
      fixture.server.reply({
        kind: 'sse',
        writes: messagesStream({ text: 'Let me check.', calls, usage }),
      });
      const fetch = seed === undefined ? undefined : choppedFetch(seed);
      const chunks = await collect(
        provider(fetch === undefined ? {} : { fetch }).chatStream(request),
      );
      const text = chunks.flatMap((chunk) =>
        chunk.type === 'assistant_text_delta' ? [chunk.text] : [],
      );
      expect(text.join('')).toBe('Let me check.');
      const deltas = chunks.filter((chunk) => chunk.type === 'tool_call_delta');
      expect(deltas[0]).toEqual({
        type: 'tool_call_delta',
        index: 0,
        callId: 'toolu_a',
        toolName: 'get_weather',
        argumentsDelta: '',
      });
      expect(
        deltas
          .filter((delta) => delta.index === 0)
          .map((delta) => delta.argumentsDelta)
          .join(''),
      ).toBe('{"city":"Paris"}');
      const { id: _id, ...streamed } = responseOf(chunks);
      const { id: _wholeId, ...expected } = whole;
      expect(streamed).toEqual(expected);
    }
  });

  it('keeps thinking with its signature in provider_state and sends it back unchanged', async () => {
    const thinking = 'The user wants Paris weather. I will call the tool.';
    fixture.server.reply({
      kind: 'sse',
      writes: messagesStream({ thinking, calls: [calls[0] as (typeof calls)[0]] }),
    });
    const chunks = await collect(
      provider().chatStream({ ...request, messages: afterTools.slice(0, 2) }),
    );
    const reasoning = chunks.flatMap((chunk) =>
      chunk.type === 'assistant_reasoning_delta' ? [chunk.text] : [],
    );
    expect(reasoning.join('')).toBe(thinking);
    const answer = responseOf(chunks);
    expect(answer.reasoning).toBe(thinking);
    const state = answer.message.provider_state;
    expect(state?.provider).toBe('anthropic');
    expect(state?.items).toEqual([
      { type: 'thinking', thinking, signature: expect.stringMatching(/^EqQB/) },
    ]);
    // The next turn: the server refuses (400) a thinking block that is missing or altered.
    fixture.server.reply({ kind: 'json', body: messagesBody({ text: 'Sunny.' }) });
    const next = [
      ...afterTools.slice(0, 2),
      answer.message,
      { role: 'tool' as const, tool_call_id: 'toolu_a', content: '22' },
    ];
    const final = await provider().chat({
      ...request,
      messages: next,
      parameters: { thinking: { type: 'enabled', budget_tokens: 1024 } },
    });
    expect(final.message.content).toBe('Sunny.');
    expect(fixture.sent(1).messages[1].content[0]).toEqual(state?.items[0]);
  });

  it('normalizes stop_reason: end_turn → stop, max_tokens → length, refusal → content_filter', async () => {
    for (const [stopReason, expected] of [
      ['end_turn', 'stop'],
      ['stop_sequence', 'stop'],
      ['max_tokens', 'length'],
      ['refusal', 'content_filter'],
      ['pause_turn', 'pause_turn'],
    ] as const) {
      fixture.server.reply({ kind: 'sse', writes: messagesStream({ text: 'x', stopReason }) });
      const answer = responseOf(await collect(provider().chatStream(request)));
      expect(answer.finishReason).toBe(expected);
    }
  });
});
