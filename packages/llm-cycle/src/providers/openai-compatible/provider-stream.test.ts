/**
 * `createOpenAICompatibleProvider` streaming over the wire-format server: text, tool calls in
 * pieces and in parallel, writes cut anywhere, usage, SSE comments.
 */
import { describe, expect, it } from 'vitest';
import type { ChatChunk } from '../../chat-provider.js';
import { hiRequest, useProviderServer } from '../../test-support/provider-kit.js';
import { collectChunks, finalResponse } from '../../test-support/results.js';
import {
  completionChunk as chunk,
  completionId,
  sseDone as done,
  sseEvent as sse,
  textStream,
  toolCallStream,
} from '../../testing/index.js';

const apiKey = 'sk-test-SECRET-4f9a8b7c6d5e';
const wire = useProviderServer({ apiKey, headers: { 'x-app': 'agcore-test' } }, 'requests');
const request = hiRequest('gpt-4o-mini');

describe('createOpenAICompatibleProvider: streaming', () => {
  it('streams a text-only answer and sends a proper Chat Completions request', async () => {
    wire.server.reply({
      kind: 'sse',
      writes: textStream(['Hello', ', ', 'world', '!'], { usage: [12, 4] }),
    });
    const chunks = await collectChunks(wire.provider.chatStream(request));
    expect(
      chunks
        .filter((item) => item.type === 'assistant_text_delta')
        .map((item) => (item.type === 'assistant_text_delta' ? item.text : '')),
    ).toEqual(['Hello', ', ', 'world', '!']);
    const response = finalResponse(chunks);
    expect(response.message).toEqual({ role: 'assistant', content: 'Hello, world!' });
    expect(response.finishReason).toBe('stop');
    expect(response.usage).toEqual({ promptTokens: 12, completionTokens: 4, totalTokens: 16 });
    expect(response.id).toMatch(/^chatcmpl-/);
    expect(response.model).toBe('gpt-4o-mini-2024-07-18');
    const received = wire.server.requests[0];
    expect(received?.url).toBe('/v1/chat/completions');
    expect(received?.headers.authorization).toBe(`Bearer ${apiKey}`);
    expect(received?.headers['x-app']).toBe('agcore-test');
    expect(received?.body).toEqual({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('assembles one tool call whose arguments come in pieces', async () => {
    wire.server.reply({
      kind: 'sse',
      writes: toolCallStream([
        {
          id: 'call_DdmO9pD3xa9XTPNJ32zg2hcA',
          name: 'get_weather',
          pieces: ['{"', 'city', '":"', 'Paris', '"}'],
        },
      ]),
    });
    const chunks = await collectChunks(wire.provider.chatStream(request));
    const deltas = chunks.filter((item) => item.type === 'tool_call_delta');
    expect(deltas[0]).toEqual({
      type: 'tool_call_delta',
      index: 0,
      callId: 'call_DdmO9pD3xa9XTPNJ32zg2hcA',
      toolName: 'get_weather',
      argumentsDelta: '',
    });
    expect(
      deltas.slice(1).map((item) => (item.type === 'tool_call_delta' ? item.argumentsDelta : '')),
    ).toEqual(['{"', 'city', '":"', 'Paris', '"}']);
    const response = finalResponse(chunks);
    expect(response.finishReason).toBe('tool_calls');
    expect(response.message).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: 'call_DdmO9pD3xa9XTPNJ32zg2hcA',
          type: 'function',
          function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
        },
      ],
    });
  });

  it('assembles two parallel tool calls interleaved by index', async () => {
    wire.server.reply({
      kind: 'sse',
      writes: toolCallStream(
        [
          { id: 'call_a1', name: 'get_weather', pieces: ['{"ci', 'ty": "Pa', 'ris"}'] },
          { id: 'call_b2', name: 'get_time', pieces: ['{"zone":', ' "Europe/', 'Paris"', '}'] },
        ],
        { interleave: true },
      ),
    });
    const response = finalResponse(await collectChunks(wire.provider.chatStream(request)));
    expect(response.message.tool_calls).toEqual([
      {
        id: 'call_a1',
        type: 'function',
        function: { name: 'get_weather', arguments: '{"city": "Paris"}' },
      },
      {
        id: 'call_b2',
        type: 'function',
        function: { name: 'get_time', arguments: '{"zone": "Europe/Paris"}' },
      },
    ]);
  });

  it('survives SSE events and UTF-8 characters split across network writes', async () => {
    const id = completionId();
    const event = Buffer.from(sse(chunk(id, { content: 'Grüße, 東京 🌸' })));
    const emoji = event.indexOf(Buffer.from('🌸'));
    wire.server.reply({
      kind: 'sse',
      writes: [
        sse(chunk(id, { role: 'assistant', content: '' })),
        event.subarray(0, 9),
        event.subarray(9, emoji + 2),
        event.subarray(emoji + 2),
        sse(
          chunk(id, {
            tool_calls: [
              {
                index: 0,
                id: 'call_x',
                type: 'function',
                function: { name: 'echo', arguments: '{"text":"東' },
              },
            ],
          }),
        ),
        sse(chunk(id, { tool_calls: [{ index: 0, function: { arguments: '京"}' } }] })),
        sse(chunk(id, {}, 'tool_calls')).slice(0, 20),
        sse(chunk(id, {}, 'tool_calls')).slice(20),
        done,
      ],
    });
    const response = finalResponse(await collectChunks(wire.provider.chatStream(request)));
    expect(response.message.content).toBe('Grüße, 東京 🌸');
    expect(response.message.tool_calls?.[0]?.function.arguments).toBe('{"text":"東京"}');
  });

  it('hands over the first chunks of a large read before parsing all of it, in order', async () => {
    const pieces = Array.from({ length: 3000 }, (_, index) => `w${index} `);
    for (const newline of ['\n', '\r\n']) {
      const body = textStream(pieces).join('').replaceAll('\n', newline);
      wire.server.reply({ kind: 'sse', writes: [body] });
      const batches: (readonly ChatChunk[])[] = [];
      const batched = wire.provider.chatStreamBatches;
      if (batched === undefined) throw new Error('the provider streams in batches');
      for await (const batch of batched.call(wire.provider, request)) batches.push(batch);
      const chunks = batches.flat();
      expect(chunks.filter((item) => item.type === 'assistant_text_delta')).toEqual(
        pieces.map((text) => ({ type: 'assistant_text_delta', text })),
      );
      expect(finalResponse(chunks).message.content).toBe(pieces.join(''));
      expect(batches.length).toBeGreaterThan(3);
      expect(batches[0]?.length).toBeLessThan(20);
    }
  });

  it('reads usage from the final chunk with empty choices', async () => {
    wire.server.reply({ kind: 'sse', writes: textStream(['ok'], { usage: [1234, 56] }) });
    const response = finalResponse(await collectChunks(wire.provider.chatStream(request)));
    expect(response.usage).toEqual({ promptTokens: 1234, completionTokens: 56, totalTokens: 1290 });
  });

  it('ignores SSE comments and keep-alives', async () => {
    const writes = textStream(['a', 'b']);
    wire.server.reply({
      kind: 'sse',
      writes: [
        ': OPENROUTER PROCESSING\n\n',
        writes[0] ?? '',
        ': keep-alive\n\n',
        ...writes.slice(1, 3),
        ':\n\n',
        ...writes.slice(3),
      ],
    });
    const chunks = await collectChunks(wire.provider.chatStream(request));
    expect(finalResponse(chunks).message.content).toBe('ab');
    expect(chunks.filter((item) => item.type === 'assistant_text_delta')).toHaveLength(2);
  });
});
