/**
 * Issue 29 §4: `createGeminiProvider` against the local Gemini server (`startGeminiServer`,
 * which follows the API reference and refuses a tool-call turn whose thought signatures did
 * not come back): the request it sends, the answer it reads, whole and streamed.
 */
import type { ToolDefinition } from '@agcore/tools-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChatChunk, ChatRequest } from '../../chat-provider.js';
import { LlmError } from '../../llm-error.js';
import type { ChatMessage } from '../../messages.js';
import {
  type GeminiServer,
  geminiBody,
  geminiParts,
  geminiRateLimit,
  geminiSignature,
  geminiStream,
  startGeminiServer,
} from '../../testing/index.js';
import { createGeminiProvider, type GeminiProviderOptions } from './gemini-provider.js';

let server: GeminiServer;
beforeAll(async () => {
  server = await startGeminiServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.reset();
});
// biome-ignore lint/suspicious/noExplicitAny: the tests read the JSON bodies the server received
const sent = (index: number): any => server.requests[index]?.body;
const provider = (options: Partial<GeminiProviderOptions> = {}) =>
  createGeminiProvider({ apiKey: 'AIza-secret-key', baseURL: server.baseURL, ...options });

const weather: ToolDefinition = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Weather of a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};
const start: ChatMessage[] = [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: 'Weather in Paris and Oslo?' },
];
const request: ChatRequest = { model: 'gemini-3-pro-preview', messages: start, tools: [weather] };
const twoCalls = {
  thought: 'Two cities: two calls.',
  calls: [
    { name: 'get_weather', args: { city: 'Paris' }, id: 'fc_1' },
    { name: 'get_weather', args: { city: 'Oslo' } },
  ],
  usage: {
    promptTokenCount: 40,
    candidatesTokenCount: 10,
    thoughtsTokenCount: 25,
    cachedContentTokenCount: 32,
  },
};

async function collect(stream: AsyncIterable<ChatChunk>): Promise<ChatChunk[]> {
  const chunks: ChatChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

describe('the Gemini request', () => {
  it('goes to models/{model}:generateContent with x-goog-api-key, contents, systemInstruction, tools and the thinking config', async () => {
    server.reply({ kind: 'json', body: geminiBody({ text: 'Hi.' }) });
    await provider({ thinking: { budget: 1024, includeThoughts: true } }).chat(request);
    const received = server.requests[0];
    expect(received?.url).toBe('/v1beta/models/gemini-3-pro-preview:generateContent');
    expect(received?.headers['x-goog-api-key']).toBe('AIza-secret-key');
    expect(received?.headers.authorization).toBeUndefined();
    expect(sent(0)).toEqual({
      contents: [{ role: 'user', parts: [{ text: 'Weather in Paris and Oslo?' }] }],
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
      tools: [
        {
          functionDeclarations: [
            {
              name: 'get_weather',
              description: 'Weather of a city',
              parametersJsonSchema: weather.function.parameters,
            },
          ],
        },
      ],
      generationConfig: { thinkingConfig: { thinkingBudget: 1024, includeThoughts: true } },
    });
  });

  it("merges the request's generationConfig over the options' (thinkingLevel for Gemini 3)", async () => {
    server.reply({ kind: 'json', body: geminiBody({ text: 'Hi.' }) });
    await provider({ thinking: { level: 'high' } }).chat({
      ...request,
      parameters: {
        generationConfig: { temperature: 0, thinkingConfig: { thinkingLevel: 'low' } },
      },
    });
    expect(sent(0).generationConfig).toEqual({
      temperature: 0,
      thinkingConfig: { thinkingLevel: 'low' },
    });
  });

  it('refuses, before sending, a tool whose schema is not an object or whose name Gemini refuses', async () => {
    const bad = (name: string, parameters: unknown): ToolDefinition =>
      ({ type: 'function', function: { name, description: 'x', parameters } }) as ToolDefinition;
    for (const tool of [bad('lookup', { type: 'string' }), bad('look up!', { type: 'object' })]) {
      const error = await provider()
        .chat({ ...request, tools: [tool] })
        .catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(LlmError);
      expect((error as LlmError).code).toBe('http_error');
      expect((error as LlmError).isRetryable).toBe(false);
      expect((error as LlmError).message).toMatch(/Gemini refuses the tool .*not sent/);
    }
    expect(server.requests).toHaveLength(0);
  });
});

describe('the Gemini answer', () => {
  it('reads text, parallel calls (an id made when none came), thoughts and usage', async () => {
    server.reply({ kind: 'json', body: geminiBody(twoCalls) });
    const answer = await provider().chat(request);
    expect(answer.finishReason).toBe('tool_calls');
    expect(answer.reasoning).toBe('Two cities: two calls.');
    const calls = answer.message.tool_calls ?? [];
    expect(calls.map((call) => [call.function.name, call.function.arguments])).toEqual([
      ['get_weather', '{"city":"Paris"}'],
      ['get_weather', '{"city":"Oslo"}'],
    ]);
    expect(calls[0]?.id).toBe('fc_1');
    expect(calls[1]?.id).toMatch(/^gemini-call-/);
    expect(answer.usage).toEqual({
      promptTokens: 40,
      completionTokens: 35,
      totalTokens: 75,
      cacheReadTokens: 32,
      reasoningTokens: 25,
    });
    expect(answer.model).toBe('gemini-test');
  });

  it('keeps the parts with their thoughtSignature in provider_state and sends them back exactly, results by name and id', async () => {
    server.reply(
      { kind: 'json', body: geminiBody(twoCalls) },
      { kind: 'json', body: geminiBody({ text: 'Both 22 °C.' }) },
    );
    const chat = provider();
    const first = await chat.chat(request);
    const state = first.message.provider_state;
    expect(state?.provider).toBe('gemini');
    const [paris, oslo] = first.message.tool_calls ?? [];
    const history: ChatMessage[] = [
      ...start,
      first.message,
      { role: 'tool', tool_call_id: paris?.id ?? '', content: '22 °C' },
      { role: 'tool', tool_call_id: oslo?.id ?? '', content: '22 °C' },
    ];
    // Through JSON, as a RunState or a cassette carries it.
    const revived = JSON.parse(JSON.stringify(history)) as ChatMessage[];
    const second = await chat.chat({ ...request, messages: revived });
    expect(second.message.content).toBe('Both 22 °C.');
    const model = sent(1).contents[1];
    expect(model.role).toBe('model');
    expect(model.parts).toEqual(geminiParts(twoCalls));
    expect(sent(1).contents[2]).toEqual({
      role: 'user',
      parts: [
        { functionResponse: { id: 'fc_1', name: 'get_weather', response: { result: '22 °C' } } },
        { functionResponse: { name: 'get_weather', response: { result: '22 °C' } } },
      ],
    });
  });

  it('is refused by the server (400 INVALID_ARGUMENT) when the signatures did not come back', async () => {
    server.reply(
      { kind: 'json', body: geminiBody(twoCalls) },
      { kind: 'json', body: geminiBody({ text: 'unreachable' }) },
    );
    const chat = provider();
    const first = await chat.chat(request);
    const { provider_state: _dropped, ...stripped } = first.message;
    const ids = (first.message.tool_calls ?? []).map((call) => call.id);
    const error = await chat
      .chat({
        ...request,
        messages: [
          ...start,
          stripped,
          ...ids.map((id): ChatMessage => ({ role: 'tool', tool_call_id: id, content: '1' })),
        ],
      })
      .catch((thrown: unknown) => thrown);
    expect((error as LlmError).code).toBe('http_error');
    expect((error as LlmError).statusCode).toBe(400);
    expect((error as LlmError).message).toMatch(/INVALID_ARGUMENT/);
    expect((error as LlmError).message).toMatch(/thought_signature/);
  });

  it.each([
    ['SAFETY', 'content_filter'],
    ['RECITATION', 'content_filter'],
    ['PROHIBITED_CONTENT', 'content_filter'],
    ['MALFORMED_FUNCTION_CALL', 'malformed_function_call'],
    ['MAX_TOKENS', 'length'],
  ])('maps finishReason %s to %s', async (reason, expected) => {
    server.reply({ kind: 'json', body: geminiBody({ text: '', finishReason: reason }) });
    expect((await provider().chat(request)).finishReason).toBe(expected);
  });

  it('reads a blocked prompt (promptFeedback.blockReason, no candidate) as content_filter', async () => {
    server.reply({
      kind: 'json',
      body: { promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: { promptTokenCount: 7 } },
    });
    const answer = await provider().chat(request);
    expect(answer.finishReason).toBe('content_filter');
    expect(answer.message.content).toBe('');
  });

  it('turns a 429 into rate_limited with the retryDelay of its RetryInfo', async () => {
    server.reply({ kind: 'json', status: 429, body: geminiRateLimit('2.5s') });
    const error = await provider()
      .chat(request)
      .catch((thrown: unknown) => thrown);
    expect((error as LlmError).code).toBe('rate_limited');
    expect((error as LlmError).retryAfterMs).toBe(2500);
    expect((error as LlmError).message).toMatch(/RESOURCE_EXHAUSTED/);
    expect(JSON.stringify(error)).not.toContain('AIza-secret-key');
  });
});

describe('the streamed Gemini answer', () => {
  it('goes to :streamGenerateContent?alt=sse and streams text, thoughts, calls and usage', async () => {
    server.reply({
      kind: 'sse',
      writes: geminiStream({ text: 'Hello there.' }, ['Hel', 'lo there.']),
    });
    const chunks = await collect(provider().chatStream(request));
    expect(server.requests[0]?.url).toBe(
      '/v1beta/models/gemini-3-pro-preview:streamGenerateContent?alt=sse',
    );
    expect(chunks.filter((chunk) => chunk.type === 'assistant_text_delta')).toEqual([
      { type: 'assistant_text_delta', text: 'Hel' },
      { type: 'assistant_text_delta', text: 'lo there.' },
    ]);
    const last = chunks[chunks.length - 1];
    expect(last?.type === 'response' && last.response.message.content).toBe('Hello there.');
  });

  it('assembles streamed parallel calls with their signature, sent back on the next turn', async () => {
    server.reply(
      { kind: 'sse', writes: geminiStream(twoCalls) },
      { kind: 'sse', writes: geminiStream({ text: 'Done.' }) },
    );
    const chat = provider();
    const chunks = await collect(chat.chatStream(request));
    expect(chunks.filter((chunk) => chunk.type === 'tool_call_delta')).toHaveLength(2);
    const last = chunks[chunks.length - 1];
    if (last?.type !== 'response') throw new Error('no response chunk');
    const answer = last.response;
    expect(answer.usage?.reasoningTokens).toBe(25);
    const history: ChatMessage[] = [
      ...start,
      answer.message,
      ...(answer.message.tool_calls ?? []).map(
        (call): ChatMessage => ({ role: 'tool', tool_call_id: call.id, content: '22 °C' }),
      ),
    ];
    await collect(chat.chatStream({ ...request, messages: history }));
    const first = sent(1).contents[1].parts.find(
      (part: { functionCall?: unknown }) => part.functionCall !== undefined,
    );
    expect(first.thoughtSignature).toBe(geminiSignature(twoCalls.calls[0] as never));
  });

  it('fails with invalid_response when the stream ends before a finishReason, stream_error on an error chunk', async () => {
    const events = geminiStream({ text: 'cut' }, ['cu', 't']);
    server.reply(
      { kind: 'sse', writes: events.slice(0, 2) },
      {
        kind: 'sse',
        writes: [
          events[0] ?? '',
          'data: {"error":{"code":500,"status":"INTERNAL","message":"boom"}}\n\n',
        ],
      },
    );
    const cut = await collect(provider().chatStream(request)).catch((thrown: unknown) => thrown);
    expect((cut as LlmError).code).toBe('invalid_response');
    const failed = await collect(provider().chatStream(request)).catch((thrown: unknown) => thrown);
    expect((failed as LlmError).code).toBe('stream_error');
    expect((failed as LlmError).message).toMatch(/INTERNAL.*boom/);
  });
});
