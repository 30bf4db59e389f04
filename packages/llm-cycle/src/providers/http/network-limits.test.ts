/**
 * Networks that stall and answers that never end: the idle limit, the total limit and the size
 * limit, on both request paths. Outcomes only (which error, which message), never elapsed time.
 */
import { defineTool } from '@agcore/tools-core';
import { ToolRegistry } from '@agcore/tools-registry';
import { describe, expect, it } from 'vitest';
import type { ChatProvider } from '../../chat-provider.js';
import { LlmError } from '../../llm-error.js';
import { LlmCycle } from '../../loop/llm-cycle.js';
import { useChatServer } from '../../test-support/chat-server.js';
import { collectChunks, rejection } from '../../test-support/results.js';
import {
  completionChunk,
  sseEvent,
  startChatCompletionsServer,
  textCompletion,
  textStream,
} from '../../testing/index.js';
import { createOpenAICompatibleProvider } from '../openai-compatible/openai-compatible-provider.js';

const fixture = useChatServer({ resetBeforeEach: true });

const request = { model: 'm', messages: [{ role: 'user' as const, content: 'Hi' }] };

function provider(options: Record<string, unknown> = {}): ChatProvider {
  return createOpenAICompatibleProvider({
    baseURL: fixture.server.baseURL,
    apiKey: 'sk-x',
    ...options,
  });
}

describe('idleTimeoutMs: time without a byte', () => {
  it('a server that accepts the connection and never answers fails in idleTimeoutMs (streamed)', async () => {
    fixture.server.reply({ kind: 'hang' });
    const error = await rejection(
      collectChunks(provider({ idleTimeoutMs: 150 }).chatStream(request)),
    );
    expect(error.code).toBe('timeout');
    expect(error.isRetryable).toBe(true);
    expect(error.message).toContain('idleTimeoutMs');
    expect(error.message).toContain('150 ms');
    expect(error.message).toMatch(/raise idleTimeoutMs/);
  });

  it('non-streamed: a server that accepts and never answers fails in idleTimeoutMs (tool loop)', async () => {
    // The total limit (10 min by default) must not be what ends it: the idle limit runs from
    // the moment the request is sent, as for streams. A server of its own that hangs on every
    // request: a late request of an earlier test cannot take its reply.
    const own = await startChatCompletionsServer();
    try {
      own.fallback({ kind: 'hang' });
      const cycle = new LlmCycle({
        provider: createOpenAICompatibleProvider({ baseURL: own.baseURL }),
        model: 'm',
        retry: { maxRetries: 0 },
      });
      const registry = new ToolRegistry();
      const error = await rejection(
        cycle.submitWithTools('Hello?', registry, { idleTimeoutMs: 300 }),
      );
      expect(error).toBeInstanceOf(LlmError);
      expect(error.code).toBe('timeout');
      expect(error.message).toContain('idleTimeoutMs (300 ms)');
      expect(error.message).toContain('while waiting for the answer');
      expect(cycle.messages()).toEqual([]);
    } finally {
      await own.close();
    }
  });

  it('non-streamed: a whole answer that takes longer than idleTimeoutMs to come needs a larger one', async () => {
    // Such a server sends nothing until the whole answer is ready: the README says so.
    fixture.server.reply({ kind: 'json', body: textCompletion('Thought long.'), delayMs: 400 });
    const error = await rejection(provider({ idleTimeoutMs: 100 }).chat(request));
    expect(error.code).toBe('timeout');
    expect(error.message).toContain('idleTimeoutMs (100 ms)');
    fixture.server.reply({ kind: 'json', body: textCompletion('Thought long.'), delayMs: 400 });
    const response = await provider({ idleTimeoutMs: 100 }).chat(request, { idleTimeoutMs: 5_000 });
    expect(response.message.content).toBe('Thought long.');
  });

  it('non-streamed: the total limit still applies when it is the shorter one', async () => {
    fixture.server.reply({ kind: 'hang' });
    const error = await rejection(
      provider({ idleTimeoutMs: 60_000 }).chat(request, { timeoutMs: 200 }),
    );
    expect(error.code).toBe('timeout');
    expect(error.message).toContain('timeoutMs (200 ms, the total limit)');
  });

  it('non-streamed: a body that stalls after the headers fails with the idle limit', async () => {
    const body = JSON.stringify(textCompletion('Half'));
    fixture.server.reply({
      kind: 'sse',
      headers: { 'content-type': 'application/json' },
      writes: [body.slice(0, 20)],
      finish: 'hold',
    });
    const error = await rejection(provider({ idleTimeoutMs: 150 }).chat(request));
    expect(error.code).toBe('timeout');
    expect(error.message).toContain('idleTimeoutMs (150 ms)');
  });

  it('a stream that stops sending mid-answer fails with the idle limit, not "connection was cut"', async () => {
    const id = 'chatcmpl-stall';
    fixture.server.reply({
      kind: 'sse',
      writes: [sseEvent(completionChunk(id, { content: 'Half an ans' }))],
      finish: 'hold',
    });
    const error = await rejection(
      collectChunks(provider({ idleTimeoutMs: 150 }).chatStream(request)),
    );
    expect(error.code).toBe('timeout');
    expect(error.message).toContain('idleTimeoutMs');
    expect(error.message).not.toContain('cut');
  });

  it('a slow but steady stream is not cut by the idle limit (it is no total limit)', async () => {
    // 28 writes 100 ms apart outlast the idle limit almost three times; none is late by itself,
    // even on a loaded machine (a pause may stretch to 10x before the limit is met).
    const writes = textStream(Array.from({ length: 24 }, (_, index) => `w${index} `));
    fixture.server.reply({ kind: 'sse', writes, pause: 100 });
    const chunks = await collectChunks(provider({ idleTimeoutMs: 1_000 }).chatStream(request));
    const final = chunks.at(-1);
    expect(final?.type === 'response' && final.response.message.content).toBe(
      Array.from({ length: 24 }, (_, index) => `w${index} `).join(''),
    );
  });

  it('per request: ChatCallOptions.idleTimeoutMs overrides the provider default', async () => {
    fixture.server.reply({ kind: 'hang' });
    const error = await rejection(
      collectChunks(provider().chatStream(request, { idleTimeoutMs: 120 })),
    );
    expect(error.code).toBe('timeout');
    expect(error.message).toContain('120 ms');
  });

  it('per submit: SubmitOptions.idleTimeoutMs reaches the provider, and the history is untouched', async () => {
    const cycle = new LlmCycle({ provider: provider(), model: 'm', retry: { maxRetries: 0 } });
    fixture.server.reply({ kind: 'hang' });
    const stream = cycle.submitStream('Hello?', { idleTimeoutMs: 120 });
    const error = await rejection(stream.next());
    expect(error.code).toBe('timeout');
    expect(error.message).toContain('idleTimeoutMs');
    expect(cycle.messages()).toEqual([]);
  });

  it('refuses an idle limit that is not a positive number', () => {
    expect(() => provider({ idleTimeoutMs: 0 })).toThrow(RangeError);
    expect(() => provider({ idleTimeoutMs: -5 })).toThrow(RangeError);
    expect(() => provider({ timeoutMs: Number.NaN })).toThrow(RangeError);
  });
});

describe('timeoutMs: a total limit', () => {
  it('cuts a healthy stream that runs longer than timeoutMs, naming timeoutMs', async () => {
    const writes = textStream(Array.from({ length: 50 }, (_, index) => `w${index} `));
    fixture.server.reply({ kind: 'sse', writes, pause: 30 });
    const error = await rejection(collectChunks(provider({ timeoutMs: 200 }).chatStream(request)));
    expect(error.code).toBe('timeout');
    expect(error.message).toContain('timeoutMs');
    expect(error.message).toContain('200 ms');
    expect(error.message).not.toContain('idleTimeoutMs');
  });

  it('applies to the non-streamed path as well, per request', async () => {
    fixture.server.reply({ kind: 'hang' });
    const error = await rejection(
      provider({ idleTimeoutMs: 60_000 }).chat(request, { timeoutMs: 100 }),
    );
    expect(error.code).toBe('timeout');
    expect(error.message).toContain('timeoutMs');
  });
});

describe('maxResponseBytes', () => {
  const big = 'x'.repeat(3 * 1024 * 1024);

  it('refuses a non-streamed body over the limit with invalid_response naming it', async () => {
    fixture.server.reply({ kind: 'json', body: textCompletion(big) });
    const error = await rejection(provider({ maxResponseBytes: 1024 * 1024 }).chat(request));
    expect(error.code).toBe('invalid_response');
    expect(error.message).toContain('maxResponseBytes');
    expect(error.message).toContain('1048576');
  });

  it('refuses a body without content-length that grows over the limit', async () => {
    fixture.server.reply({
      kind: 'sse',
      headers: { 'content-type': 'application/json' },
      writes: [JSON.stringify(textCompletion(big))],
    });
    const error = await rejection(provider({ maxResponseBytes: 1024 * 1024 }).chat(request));
    expect(error.code).toBe('invalid_response');
    expect(error.message).toContain('maxResponseBytes');
  });

  it('refuses a stream that grows over the limit', async () => {
    const pieces = Array.from({ length: 400 }, () => 'y'.repeat(8 * 1024));
    fixture.server.reply({ kind: 'sse', writes: textStream(pieces) });
    const error = await rejection(
      collectChunks(provider({ maxResponseBytes: 1024 * 1024 }).chatStream(request)),
    );
    expect(error.code).toBe('invalid_response');
    expect(error.message).toContain('maxResponseBytes');
  });

  it('keeps memory within a small multiple of the default limit (32 MB) for a 50 MB answer', async () => {
    const body = JSON.stringify(textCompletion('z'.repeat(50 * 1024 * 1024)));
    const writes: string[] = [];
    for (let start = 0; start < body.length; start += 1024 * 1024)
      writes.push(body.slice(start, start + 1024 * 1024));
    // Sent without content-length, so the limit must hold while reading.
    fixture.server.reply({ kind: 'sse', headers: { 'content-type': 'application/json' }, writes });
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 2);
    try {
      const error = await rejection(provider().chat(request));
      expect(error.code).toBe('invalid_response');
      expect(error.message).toContain('maxResponseBytes');
    } finally {
      clearInterval(sampler);
    }
    // Generous bound: the body is refused at 32 MB; before, the 50 MB answer took ~755 MB.
    expect(peak - before).toBeLessThan(6 * 32 * 1024 * 1024);
  });
});

describe('tool loops keep the limits per request', () => {
  it('the idle limit applies to each model request of a tool loop, not to the tools', async () => {
    const slow = defineTool({
      name: 'slow',
      description: 'Takes longer than the idle limit',
      parameters: { type: 'object', properties: {} },
      execute: () => new Promise<string>((resolve) => setTimeout(() => resolve('done'), 300)),
    });
    const registry = new ToolRegistry().register(slow);
    const cycle = new LlmCycle({
      provider: provider({ idleTimeoutMs: 150 }),
      model: 'm',
      retry: { maxRetries: 0 },
    });
    fixture.server.reply(
      {
        kind: 'json',
        body: {
          id: 'c1',
          choices: [
            {
              index: 0,
              message: {
                role: 'assistant',
                content: null,
                tool_calls: [
                  { id: 'call_1', type: 'function', function: { name: 'slow', arguments: '{}' } },
                ],
              },
              finish_reason: 'tool_calls',
            },
          ],
        },
      },
      { kind: 'json', body: textCompletion('All done.') },
    );
    const response = await cycle.submitWithTools('Go', registry);
    expect(response.message.content).toBe('All done.');
  });
});
