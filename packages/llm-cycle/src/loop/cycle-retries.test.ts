import { describe, expect, it } from 'vitest';
import type { RetryDetails } from '../retry.js';
import type { StreamEvent } from '../stream-events.js';
import { json, registry, roles, useCycleServer, withoutSystem } from '../test-support/cycle-kit.js';
import { collectEvents, rejection, streamError } from '../test-support/results.js';
import { errorBody, type ServerReply, textCompletion, textStream } from '../testing/index.js';

const wire = useCycleServer();
const { makeCycle } = wire;

describe('LlmCycle retries', () => {
  it('retries 429 honouring Retry-After, then succeeds', async () => {
    const retries: RetryDetails[] = [];
    const cycle = makeCycle({
      retry: { initialDelayMs: 1, onRetry: (details) => retries.push(details) },
    });
    wire.server.reply(
      {
        kind: 'json',
        status: 429,
        headers: { 'retry-after-ms': '30' },
        body: errorBody('Rate limit reached', 'requests', 'rate_limit_exceeded'),
      },
      json(textCompletion('ok')),
    );
    expect((await cycle.submit('hi')).message.content).toBe('ok');
    expect(wire.server.requests).toHaveLength(2);
    expect(retries.map((retry) => [retry.attempt, retry.delayMs, retry.error.statusCode])).toEqual([
      [1, 30, 429],
    ]);
    expect(roles(withoutSystem(cycle))).toEqual(['user', 'assistant']);
  });

  it('retries 500 twice then succeeds, with growing backoff', async () => {
    const retries: RetryDetails[] = [];
    const cycle = makeCycle({
      retry: { initialDelayMs: 2, jitter: false, onRetry: (details) => retries.push(details) },
    });
    const failure: ServerReply = {
      kind: 'json',
      status: 500,
      body: errorBody(
        'The server had an error while processing your request.',
        'server_error',
        null,
      ),
    };
    wire.server.reply(failure, failure, { kind: 'sse', writes: textStream(['fine']) });
    const { response } = await collectEvents(cycle.submitStream('hi'));
    expect(response.message.content).toBe('fine');
    expect(retries.map((retry) => retry.delayMs)).toEqual([2, 4]);
    expect(wire.server.requests).toHaveLength(3);
  });

  it('gives up after maxRetries and leaves the history as it was', async () => {
    const cycle = makeCycle({ retry: { maxRetries: 1, initialDelayMs: 1 } });
    const failure: ServerReply = {
      kind: 'json',
      status: 503,
      body: errorBody('overloaded', 'server_error', null),
    };
    wire.server.reply(failure, failure);
    const error = await rejection(cycle.submit('hi'));
    expect([error.code, error.statusCode]).toEqual(['http_error', 503]);
    expect(withoutSystem(cycle)).toEqual([]);
  });

  it('never retries a 400 and reports the server message', async () => {
    const cycle = makeCycle();
    wire.server.reply({
      kind: 'json',
      status: 400,
      body: errorBody(
        "Invalid value for 'model'",
        'invalid_request_error',
        'invalid_value',
        'model',
      ),
    });
    const error = await rejection(cycle.submit('hi'));
    expect([error.code, error.statusCode, error.isRetryable]).toEqual(['http_error', 400, false]);
    expect(error.message).toContain("Invalid value for 'model'");
    expect(wire.server.requests).toHaveLength(1);
  });

  it('does not retry a stream cut after it yielded events; history unchanged', async () => {
    const cycle = makeCycle();
    wire.server.reply({
      kind: 'sse',
      writes: textStream(['par', 'tial', 'never']).slice(0, 3),
      finish: 'cut',
    });
    const events: StreamEvent[] = [];
    const error = await streamError(cycle.submitStreamWithTools('hi', registry()), events);
    expect(error.code).toBe('network');
    expect(events).toEqual([
      { type: 'assistant_text_delta', text: 'par' },
      { type: 'assistant_text_delta', text: 'tial' },
    ]);
    expect(wire.server.requests).toHaveLength(1);
    expect(withoutSystem(cycle)).toEqual([]);
  });

  it('retries a stream that failed before yielding anything', async () => {
    const cycle = makeCycle();
    wire.server.reply(
      { kind: 'sse', writes: [], finish: 'cut' },
      { kind: 'sse', writes: textStream(['second try']) },
    );
    const { response } = await collectEvents(cycle.submitStreamWithTools('hi', registry()));
    expect(response.message.content).toBe('second try');
    expect(wire.server.requests).toHaveLength(2);
  });
});

describe('LlmCycle retries: which statuses', () => {
  it('retries 408 and 409, and a non-streamed request whose connection was cut', async () => {
    const retried: number[] = [];
    const cycle = makeCycle({
      retry: {
        initialDelayMs: 1,
        onRetry: (details) => retried.push(details.error.statusCode ?? 0),
      },
    });
    wire.server.reply(
      { kind: 'json', status: 408, body: errorBody('Request timed out', 'timeout', null) },
      { kind: 'json', status: 409, body: errorBody('Conflict, retry', 'conflict', null) },
      { kind: 'sse', writes: [], finish: 'cut' },
      json(textCompletion('at last')),
    );
    expect((await cycle.submit('hi')).message.content).toBe('at last');
    expect(retried).toEqual([408, 409, 0]);
    expect(wire.server.requests).toHaveLength(4);
  });

  it('never retries 401, 403, 404 or 422', async () => {
    for (const status of [401, 403, 404, 422]) {
      wire.server.requests.length = 0;
      let retries = 0;
      const cycle = makeCycle({ retry: { initialDelayMs: 1, onRetry: () => retries++ } });
      wire.server.reply({
        kind: 'json',
        status,
        body: errorBody(`status ${status}`, 'invalid', null),
      });
      const error = await rejection(cycle.submit('hi'));
      expect([error.code, error.statusCode, error.isRetryable]).toEqual([
        'http_error',
        status,
        false,
      ]);
      expect(retries).toBe(0);
      expect(wire.server.requests).toHaveLength(1);
      expect(withoutSystem(cycle)).toEqual([]);
    }
  });

  it('honours Retry-After in seconds', async () => {
    const delays: number[] = [];
    const cycle = makeCycle({
      retry: {
        initialDelayMs: 1,
        maxDelayMs: 5_000,
        onRetry: (details) => delays.push(details.delayMs),
      },
    });
    wire.server.reply(
      {
        kind: 'json',
        status: 429,
        headers: { 'retry-after': '1' },
        body: errorBody('Rate limit reached', 'requests', 'rate_limit_exceeded'),
      },
      json(textCompletion('ok')),
    );
    expect((await cycle.submit('hi')).message.content).toBe('ok');
    expect(delays).toEqual([1000]);
    expect(wire.server.requests).toHaveLength(2);
  });
});
