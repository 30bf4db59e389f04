/**
 * `createOpenAIResponsesProvider` on hostile answers: HTTP errors with `retry-after`, errors
 * inside the stream, cuts, stalls, oversized and foreign bodies, secrets echoed back.
 */
import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../chat-provider.js';
import { useResponsesServer } from '../../test-support/dialects/openai-responses.js';
import { collectChunks, rejection } from '../../test-support/results.js';
import {
  messageItem,
  responseEvents,
  responseObject,
  responsesErrorEvent,
} from '../../testing/index.js';
import { createOpenAIResponsesProvider } from './openai-responses-provider.js';

const wire = useResponsesServer();
const apiKey = 'sk-proj-LEAKCHECK-0123456789abcdefghijklmnop';
const provider = (options: { idleTimeoutMs?: number; maxResponseBytes?: number } = {}) =>
  createOpenAIResponsesProvider({ baseURL: wire.server.baseURL, apiKey, ...options });
const request: ChatRequest = { model: 'gpt-5-mini', messages: [{ role: 'user', content: 'Hi' }] };
const streamed = (options?: { idleTimeoutMs?: number; maxResponseBytes?: number }) =>
  rejection(collectChunks(provider(options).chatStream(request)));

describe('createOpenAIResponsesProvider: errors', () => {
  it('maps 429 to rate_limited and 5xx to http_error, retryable, with the server retry-after and message', async () => {
    wire.server.reset().reply(
      {
        kind: 'json',
        status: 429,
        headers: { 'retry-after': '2' },
        body: {
          error: {
            message: 'Rate limit reached for gpt-5-mini',
            type: 'requests',
            code: 'rate_limit_exceeded',
          },
        },
      },
      {
        kind: 'json',
        status: 503,
        headers: { 'retry-after-ms': '150' },
        body: { error: { message: 'Overloaded', type: 'server_error' } },
      },
      {
        kind: 'json',
        status: 400,
        body: {
          error: {
            message: 'Unsupported parameter',
            type: 'invalid_request_error',
            code: 'unsupported_parameter',
          },
        },
      },
    );
    const limited = await rejection(provider().chat(request));
    expect(limited).toMatchObject({
      code: 'rate_limited',
      statusCode: 429,
      isRetryable: true,
      retryAfterMs: 2000,
    });
    expect(limited.message).toContain('Rate limit reached');
    expect(limited.responseBody).toContain('rate_limit_exceeded');
    expect(await streamed()).toMatchObject({
      code: 'http_error',
      statusCode: 503,
      isRetryable: true,
      retryAfterMs: 150,
    });
    expect(await rejection(provider().chat(request))).toMatchObject({
      statusCode: 400,
      isRetryable: false,
    });
  });

  it('turns an error event and a failed response mid-stream into stream_error with the vendor code', async () => {
    const start = responseEvents(responseObject({ output: [messageItem('Partial')] })).slice(0, 5);
    const failed = responseObject({
      status: 'failed',
      output: [],
      error: { code: 'server_error', message: 'The model crashed.' },
    });
    wire.server.reset().reply(
      {
        kind: 'sse',
        writes: [...start, responsesErrorEvent('ERR_SOMETHING', 'Something went wrong')],
      },
      {
        kind: 'sse',
        writes: [
          ...start,
          `event: response.failed\ndata: ${JSON.stringify({ type: 'response.failed', response: failed })}\n\n`,
        ],
      },
      { kind: 'json', body: failed },
    );
    const event = await streamed();
    expect(event.code).toBe('stream_error');
    expect(event.message).toContain('Something went wrong');
    expect(event.message).toContain('ERR_SOMETHING');
    const mid = await streamed();
    expect(mid).toMatchObject({ code: 'stream_error', isRetryable: false });
    expect(mid.message).toContain('server_error');
    expect((await rejection(provider().chat(request))).message).toContain('The model crashed.');
  });

  it('says the answer is incomplete when the stream ends without a terminal event, network when cut', async () => {
    const events = responseEvents(responseObject({ output: [messageItem('Never finished')] }));
    wire.server
      .reset()
      .reply(
        { kind: 'sse', writes: events.slice(0, -1) },
        { kind: 'sse', writes: events.slice(0, -1), finish: 'cut' },
      );
    const ended = await streamed();
    expect(ended.code).toBe('invalid_response');
    expect(ended.message).toContain('ended before the response finished');
    expect((await streamed()).code).toBe('network');
  });

  it('gives up on a stalled server within idleTimeoutMs, and on an oversized answer', async () => {
    const events = responseEvents(responseObject({ output: [messageItem('x'.repeat(5000))] }), 1);
    wire.server
      .reset()
      .reply(
        { kind: 'sse', writes: events.slice(0, 3), finish: 'hold' },
        { kind: 'hang' },
        { kind: 'sse', writes: events },
      );
    expect(await streamed({ idleTimeoutMs: 200 })).toMatchObject({ code: 'timeout' });
    expect(await rejection(provider({ idleTimeoutMs: 200 }).chat(request))).toMatchObject({
      code: 'timeout',
    });
    const large = await streamed({ maxResponseBytes: 4000 });
    expect(large.code).toBe('invalid_response');
    expect(large.message).toContain('maxResponseBytes');
  });

  it('refuses a body that is no Responses answer, naming what it got', async () => {
    wire.server.reset().reply(
      {
        kind: 'text',
        status: 200,
        headers: { 'content-type': 'text/html' },
        body: '<html>Sign in</html>',
      },
      {
        kind: 'json',
        body: { choices: [{ message: { role: 'assistant', content: 'chat completions' } }] },
      },
    );
    const portal = await streamed();
    expect(portal.code).toBe('invalid_response');
    expect(portal.message).toContain('/responses is appended');
    expect((await rejection(provider().chat(request))).code).toBe('invalid_response');
  });

  it('answers a broken history as the API does: function_call_output without its call is a 400', async () => {
    wire.server
      .reset()
      .reply({ kind: 'json', body: responseObject({ output: [messageItem('unused')] }) });
    const broken = await rejection(
      provider().chat({
        ...request,
        messages: [...request.messages, { role: 'tool', tool_call_id: 'call_x', content: '1' }],
      }),
    );
    expect(broken).toMatchObject({ code: 'http_error', statusCode: 400 });
    expect(broken.message).toContain(
      'No tool call found for function call output with call_id call_x',
    );
  });

  it('never lets the API key out: echoed in text deltas, in an error event, in an HTTP error', async () => {
    const echoed = responseObject({ output: [messageItem(`your key is ${apiKey}`)] });
    wire.server.reset().reply(
      { kind: 'sse', writes: responseEvents(echoed, 1) },
      {
        kind: 'sse',
        writes: [responsesErrorEvent('invalid_api_key', `Incorrect API key provided: ${apiKey}`)],
      },
      {
        kind: 'json',
        status: 401,
        body: {
          error: {
            message: `Incorrect API key provided: ${apiKey}`,
            type: 'invalid_request_error',
            code: 'invalid_api_key',
          },
        },
      },
    );
    const chunks = await collectChunks(provider().chatStream(request));
    expect(JSON.stringify(chunks)).not.toContain(apiKey);
    expect(JSON.stringify(chunks)).toContain('your key is');
    for (const error of [await streamed(), await rejection(provider().chat(request))]) {
      for (const text of [error.message, error.responseBody ?? '', JSON.stringify(error)])
        expect(text).not.toContain(apiKey.slice(0, 20));
    }
  });

  it('cancels with the caller signal', async () => {
    wire.server.reset().reply({ kind: 'hang' });
    const controller = new AbortController();
    const pending = rejection(provider().chat(request, { signal: controller.signal }));
    setTimeout(() => controller.abort(), 20);
    expect((await pending).code).toBe('cancelled');
  });
});
