/**
 * `createOpenAICompatibleProvider` streaming: how a stream ends ([DONE], kept-alive connections,
 * cuts, error events, a JSON answer, a consumer that breaks) and the request options it sends.
 */
import { describe, expect, it } from 'vitest';
import type { ChatChunk } from '../../chat-provider.js';
import { hiRequest, useProviderServer } from '../../test-support/provider-kit.js';
import { collectChunks, finalResponse, rejection } from '../../test-support/results.js';
import {
  completionChunk as chunk,
  completionId,
  sseEvent as sse,
  startChatCompletionsServer,
  textCompletion,
  textStream,
  toolCallCompletion,
} from '../../testing/index.js';
import { createOpenAICompatibleProvider } from './openai-compatible-provider.js';

const apiKey = 'sk-test-SECRET-4f9a8b7c6d5e';
const wire = useProviderServer({ apiKey, headers: { 'x-app': 'agcore-test' } }, 'requests');
const { sent } = wire;
const request = hiRequest('gpt-4o-mini');

describe('createOpenAICompatibleProvider: streaming', () => {
  it('stops at [DONE] even when the server keeps the connection open, and cuts that connection', async () => {
    const own = await startChatCompletionsServer();
    try {
      const held = createOpenAICompatibleProvider({ baseURL: own.baseURL });
      // Data after [DONE], then the response stays open; then no data and still open.
      own.reply(
        { kind: 'sse', writes: [...textStream(['done']), ': still here\n\n'], finish: 'hold' },
        { kind: 'sse', writes: textStream(['again']), finish: 'hold' },
      );
      expect(finalResponse(await collectChunks(held.chatStream(request))).message.content).toBe(
        'done',
      );
      await expect.poll(() => own.disconnects()).toBe(1);
      expect(finalResponse(await collectChunks(held.chatStream(request))).message.content).toBe(
        'again',
      );
      await expect.poll(() => own.disconnects()).toBe(2);
    } finally {
      await own.close();
    }
  });

  it('keeps the connection alive across streamed requests (reads the end after [DONE])', async () => {
    // A server of its own: connections left by other tests would blur the count.
    const own = await startChatCompletionsServer();
    try {
      const fresh = createOpenAICompatibleProvider({ baseURL: own.baseURL });
      for (let index = 0; index < 4; index++) {
        own.reply({ kind: 'sse', writes: [textStream(['one', 'two']).join('')] });
        await collectChunks(fresh.chatStream(request));
      }
      own.reply({ kind: 'json', body: textCompletion('plain') });
      await fresh.chat(request);
      expect(own.requests).toHaveLength(5);
      expect(own.connections()).toBe(1);
    } finally {
      await own.close();
    }
  });

  it('accepts a stream that ends after finish_reason without [DONE] (some compatible servers)', async () => {
    const id = completionId();
    wire.server.reply({
      kind: 'sse',
      writes: [sse(chunk(id, { role: 'assistant', content: 'hi' })), sse(chunk(id, {}, 'stop'))],
    });
    expect(
      finalResponse(await collectChunks(wire.provider.chatStream(request))).message.content,
    ).toBe('hi');
  });

  it('rejects a stream that ends before the model finished with invalid_response', async () => {
    const id = completionId();
    wire.server.reply({
      kind: 'sse',
      writes: [sse(chunk(id, { role: 'assistant', content: 'hal' }))],
    });
    const error = await rejection(collectChunks(wire.provider.chatStream(request)));
    expect(error.code).toBe('invalid_response');
  });

  it('turns a connection cut mid-stream into a network error', async () => {
    wire.server.reply({
      kind: 'sse',
      writes: textStream(['one ', 'two ', 'three']).slice(0, 3),
      finish: 'cut',
    });
    const seen: ChatChunk[] = [];
    const error = await rejection(
      (async () => {
        for await (const item of wire.provider.chatStream(request)) seen.push(item);
      })(),
    );
    expect(error.code).toBe('network');
    expect(error.isRetryable).toBe(true);
    expect(seen.map((item) => item.type)).toEqual(['assistant_text_delta', 'assistant_text_delta']);
  });

  it('reports an error event inside the stream as stream_error', async () => {
    const id = completionId();
    wire.server.reply({
      kind: 'sse',
      writes: [
        sse(chunk(id, { role: 'assistant', content: 'x' })),
        sse({
          error: {
            message: 'The server had an error while processing your request.',
            type: 'server_error',
          },
        }),
      ],
    });
    const error = await rejection(collectChunks(wire.provider.chatStream(request)));
    expect(error.code).toBe('stream_error');
    expect(error.message).toContain('The server had an error');
  });

  it('accepts a JSON answer to a streaming request', async () => {
    wire.server.reply({
      kind: 'json',
      body: toolCallCompletion([{ id: 'call_1', name: 'lookup', arguments: '{"q":"x"}' }]),
    });
    const chunks = await collectChunks(wire.provider.chatStream(request));
    expect(chunks.map((item) => item.type)).toEqual(['tool_call_delta', 'response']);
    expect(finalResponse(chunks).message.tool_calls?.[0]?.function.name).toBe('lookup');
  });

  it('omits stream_options when includeUsage is false, and sends tools and parameters', async () => {
    const bare = createOpenAICompatibleProvider({
      baseURL: `${wire.server.baseURL}/`,
      includeUsage: false,
    });
    wire.server.reply({ kind: 'sse', writes: textStream(['ok']) });
    const tools = [
      {
        type: 'function' as const,
        function: { name: 'f', description: 'F', parameters: { type: 'object' as const } },
      },
    ];
    await collectChunks(bare.chatStream({ ...request, tools, parameters: { temperature: 0 } }));
    const body = sent(0);
    expect(body.stream_options).toBeUndefined();
    expect(body.tools).toEqual(tools);
    expect(body.temperature).toBe(0);
    expect(wire.server.requests[0]?.headers.authorization).toBeUndefined();
  });

  it('stops reading and tells the server when the consumer breaks', async () => {
    const writes = textStream(Array.from({ length: 50 }, (_, index) => `w${index} `));
    wire.server.reply({ kind: 'sse', writes, pause: 5 });
    let count = 0;
    for await (const item of wire.provider.chatStream(request)) {
      if (item.type === 'assistant_text_delta') count++;
      if (count === 2) break;
    }
    await expect.poll(() => wire.server.disconnects()).toBeGreaterThanOrEqual(1);
  });
});
