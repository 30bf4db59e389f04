/**
 * `createOpenAICompatibleProvider` without streaming, its HTTP errors, and the `fetch` it is given.
 */
import { describe, expect, it } from 'vitest';
import { LlmError } from '../../llm-error.js';
import { hiRequest, useProviderServer } from '../../test-support/provider-kit.js';
import { collectChunks, finalResponse, rejection } from '../../test-support/results.js';
import {
  errorBody,
  startChatCompletionsServer,
  textCompletion,
  textStream,
  toolCallCompletion,
  usageChunk,
} from '../../testing/index.js';
import { createOpenAICompatibleProvider } from './openai-compatible-provider.js';

const apiKey = 'sk-test-SECRET-4f9a8b7c6d5e';
const wire = useProviderServer({ apiKey, headers: { 'x-app': 'agcore-test' } }, 'requests');
const { sent } = wire;
const request = hiRequest('gpt-4o-mini');

describe('createOpenAICompatibleProvider: non-streaming', () => {
  it('reads a text completion', async () => {
    wire.server.reply({ kind: 'json', body: textCompletion('Bonjour', [7, 3]) });
    const response = await wire.provider.chat(request);
    expect(response.message).toEqual({ role: 'assistant', content: 'Bonjour' });
    expect(response.usage).toEqual({ promptTokens: 7, completionTokens: 3, totalTokens: 10 });
    expect(sent(0).stream).toBeUndefined();
  });

  it("does not send a native provider's provider_state (a history begun on another provider)", async () => {
    wire.server.reply({ kind: 'json', body: textCompletion('ok', [7, 3]) });
    const assistant = {
      role: 'assistant' as const,
      content: 'Earlier answer',
      reasoning_content: 'not sent',
      provider_state: { provider: 'anthropic', items: [{ type: 'thinking', signature: 's' }] },
    };
    const messages = [...request.messages, assistant, { role: 'user' as const, content: 'More' }];
    await wire.provider.chat({ ...request, messages });
    const sentMessages = (sent(0) as { messages: Record<string, unknown>[] }).messages;
    // (the reasoning of a turn without tool calls is not sent back either: the default rule)
    expect(sentMessages[1]).toEqual({ role: 'assistant', content: 'Earlier answer' });
    expect(assistant.provider_state.items).toHaveLength(1);
  });

  it('reads tool calls, whatever finish_reason says', async () => {
    wire.server.reply({
      kind: 'json',
      body: toolCallCompletion([{ id: 'call_1', name: 'f', arguments: '{}' }], {
        finishReason: 'stop',
      }),
    });
    const response = await wire.provider.chat(request);
    expect(response.finishReason).toBe('stop');
    expect(response.message.tool_calls).toHaveLength(1);
  });

  it('rejects a body that is not a completion with invalid_response', async () => {
    wire.server.reply({ kind: 'json', body: { hello: 'world' } });
    expect((await rejection(wire.provider.chat(request))).code).toBe('invalid_response');
    wire.server.reply({ kind: 'text', status: 200, body: 'not json' });
    expect((await rejection(wire.provider.chat(request))).code).toBe('invalid_response');
  });
});

describe('createOpenAICompatibleProvider: HTTP errors', () => {
  it('turns 400 with an error body into http_error with the server message and no API key', async () => {
    wire.server.reply({
      kind: 'json',
      status: 400,
      body: errorBody(
        `Invalid 'messages[0].content': string too long. Expected a string with maximum length 1048576. Key was ${apiKey}`,
        'invalid_request_error',
        'string_above_max_length',
        'messages[0].content',
      ),
    });
    const error = await rejection(wire.provider.chat(request));
    expect(error).toBeInstanceOf(LlmError);
    expect(error.code).toBe('http_error');
    expect(error.statusCode).toBe(400);
    expect(error.isRetryable).toBe(false);
    expect(error.message).toContain("Invalid 'messages[0].content': string too long");
    expect(error.message).not.toContain(apiKey);
    expect(error.responseBody).not.toContain(apiKey);
    expect(JSON.stringify(error)).not.toContain(apiKey);
  });

  it('reads Retry-After (seconds) and retry-after-ms on 429', async () => {
    wire.server.reply({
      kind: 'json',
      status: 429,
      headers: { 'retry-after': '2' },
      body: errorBody(
        'Rate limit reached for gpt-4o-mini on tokens per min (TPM).',
        'tokens',
        'rate_limit_exceeded',
      ),
    });
    let error = await rejection(wire.provider.chat(request));
    expect([error.code, error.statusCode, error.isRetryable, error.retryAfterMs]).toEqual([
      'rate_limited',
      429,
      true,
      2000,
    ]);
    wire.server.reply({
      kind: 'json',
      status: 429,
      headers: { 'retry-after-ms': '150', 'retry-after': '1' },
      body: errorBody('slow down', 'requests', null),
    });
    error = await rejection(wire.provider.chat(request));
    expect(error.retryAfterMs).toBe(150);
  });

  it('marks 5xx retryable and reads plain-text and Ollama-style bodies', async () => {
    wire.server.reply({ kind: 'text', status: 503, body: 'upstream connect error' });
    let error = await rejection(collectChunks(wire.provider.chatStream(request)));
    expect([error.code, error.statusCode, error.isRetryable]).toEqual(['http_error', 503, true]);
    expect(error.message).toContain('upstream connect error');
    wire.server.reply({
      kind: 'json',
      status: 404,
      body: { error: 'model "llama9" not found, try pulling it first' },
    });
    error = await rejection(wire.provider.chat(request));
    expect([error.statusCode, error.isRetryable]).toEqual([404, false]);
    expect(error.message).toContain('model "llama9" not found');
  });

  it('turns a refused connection into a network error', async () => {
    const closed = await startChatCompletionsServer();
    const url = closed.baseURL;
    await closed.close();
    const error = await rejection(createOpenAICompatibleProvider({ baseURL: url }).chat(request));
    expect([error.code, error.isRetryable]).toEqual(['network', true]);
  });

  it('cancels a request in flight when the signal aborts', async () => {
    wire.server.reply({ kind: 'hang' });
    const controller = new AbortController();
    const pending = collectChunks(wire.provider.chatStream(request, { signal: controller.signal }));
    await expect.poll(() => wire.server.requests.length).toBe(1);
    controller.abort();
    const error = await rejection(pending);
    expect(error.code).toBe('cancelled');
    await expect.poll(() => wire.server.disconnects()).toBeGreaterThanOrEqual(1);
  });

  it('gives up after timeoutMs with a retryable timeout error', async () => {
    wire.server.reply({ kind: 'hang' });
    const slow = createOpenAICompatibleProvider({ baseURL: wire.server.baseURL, timeoutMs: 100 });
    const error = await rejection(collectChunks(slow.chatStream(request)));
    expect([error.code, error.isRetryable]).toEqual(['timeout', true]);
  });
});

it('keeps usage chunk helpers honest', () => {
  expect(usageChunk('x', 1, 2).choices).toEqual([]);
});

it('sends every request through the fetch it was given', async () => {
  const seen: string[] = [];
  const counting: typeof fetch = (input, init) => {
    seen.push(`${init?.method} ${String(input)}`);
    return fetch(input, init);
  };
  const own = createOpenAICompatibleProvider({ baseURL: wire.server.baseURL, fetch: counting });
  wire.server.reply(
    { kind: 'json', body: textCompletion('one') },
    { kind: 'sse', writes: textStream(['two']) },
  );
  expect((await own.chat(request)).message.content).toBe('one');
  expect(finalResponse(await collectChunks(own.chatStream(request))).message.content).toBe('two');
  expect(seen).toEqual([
    `POST ${wire.server.baseURL}/chat/completions`,
    `POST ${wire.server.baseURL}/chat/completions`,
  ]);
});
