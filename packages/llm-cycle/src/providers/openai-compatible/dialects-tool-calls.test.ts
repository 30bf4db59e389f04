/**
 * The Chat Completions dialects of real servers, at the provider level: streamed and not, whole
 * and cut into small reads. Each test names the server whose habit it reproduces.
 *
 * This file: tool calls that reuse an index, carry neither index nor id, or bad indices.
 */
import { describe, expect, it } from 'vitest';
import { hiRequest, streamEachCut, useProviderServer } from '../../test-support/provider-kit.js';
import { collectChunks, finalResponse, rejection } from '../../test-support/results.js';
import { completionChunk, sseDone, sseEvent } from '../../testing/index.js';

const wire = useProviderServer({ apiKey: 'sk-dialects' }, 'reset');
const request = hiRequest('m');

describe('tool calls that reuse an index (Ollama 0.20.x, Gemini bridges)', () => {
  const id = 'chatcmpl-ollama';
  const events = [
    sseEvent(
      completionChunk(id, {
        role: 'assistant',
        content: '',
        tool_calls: [
          {
            id: 'call_a',
            index: 0,
            type: 'function',
            function: { name: 'read', arguments: '{"path":"alpha.txt"}' },
          },
        ],
      }),
    ),
    sseEvent(
      completionChunk(id, {
        role: 'assistant',
        content: '',
        tool_calls: [
          {
            id: 'call_b',
            index: 0,
            type: 'function',
            function: { name: 'read', arguments: '{"path":"beta.txt"}' },
          },
        ],
      }),
    ),
    sseEvent(
      completionChunk(id, {
        role: 'assistant',
        content: '',
        tool_calls: [
          {
            id: 'call_c',
            index: 0,
            type: 'function',
            function: { name: 'clock', arguments: '{"tz":"UTC"}' },
          },
        ],
      }),
    ),
    sseEvent(completionChunk(id, { role: 'assistant', content: '' }, 'tool_calls')),
    sseDone,
  ];

  it('a new id on an occupied index starts a new call; deltas carry the position', async () => {
    for (const chunks of await streamEachCut(wire, request, events)) {
      const calls = finalResponse(chunks).message.tool_calls;
      expect(calls?.map((call) => [call.id, call.function.name, call.function.arguments])).toEqual([
        ['call_a', 'read', '{"path":"alpha.txt"}'],
        ['call_b', 'read', '{"path":"beta.txt"}'],
        ['call_c', 'clock', '{"tz":"UTC"}'],
      ]);
      const deltas = chunks.filter((chunk) => chunk.type === 'tool_call_delta');
      expect(deltas.map((delta) => [delta.index, delta.callId])).toEqual([
        [0, 'call_a'],
        [1, 'call_b'],
        [2, 'call_c'],
      ]);
    }
  });
});

describe('complete calls with neither index nor id (one chunk per call)', () => {
  it('makes each chunk its own call, with generated ids', async () => {
    const id = 'chatcmpl-noindex';
    const events = [
      sseEvent(
        completionChunk(id, {
          tool_calls: [{ type: 'function', function: { name: 'read', arguments: '{"p":1}' } }],
        }),
      ),
      sseEvent(
        completionChunk(id, {
          tool_calls: [{ type: 'function', function: { name: 'read', arguments: '{"p":2}' } }],
        }),
      ),
      sseEvent(completionChunk(id, {}, 'tool_calls')),
      sseDone,
    ];
    for (const chunks of await streamEachCut(wire, request, events)) {
      const calls = finalResponse(chunks).message.tool_calls ?? [];
      expect(calls.map((call) => call.function.arguments)).toEqual(['{"p":1}', '{"p":2}']);
      expect(calls[0]?.id).toMatch(/^call_/);
      expect(new Set(calls.map((call) => call.id)).size).toBe(2);
    }
  });

  it('still appends argument pieces without index or id to the call they continue', async () => {
    const id = 'chatcmpl-pieces';
    wire.server.reply({
      kind: 'sse',
      writes: [
        sseEvent(
          completionChunk(id, {
            tool_calls: [{ id: 'call_x', function: { name: 'read', arguments: '' } }],
          }),
        ),
        sseEvent(completionChunk(id, { tool_calls: [{ function: { arguments: '{"p":' } }] })),
        sseEvent(completionChunk(id, { tool_calls: [{ function: { arguments: '3}' } }] })),
        sseEvent(completionChunk(id, {}, 'tool_calls')),
        sseDone,
      ],
    });
    const calls = finalResponse(await collectChunks(wire.provider.chatStream(request))).message
      .tool_calls;
    expect(calls).toEqual([
      { id: 'call_x', type: 'function', function: { name: 'read', arguments: '{"p":3}' } },
    ]);
  });
});

describe('bad tool-call indices', () => {
  for (const index of [-1, 1.5, 2e7 + 0.5, '0', Number.MAX_SAFE_INTEGER + 2]) {
    it(`refuses index ${JSON.stringify(index)} with invalid_response naming it`, async () => {
      wire.server.reply({
        kind: 'sse',
        writes: [
          sseEvent(
            completionChunk('chatcmpl-bad', {
              tool_calls: [
                { index, id: 'call_1', function: { name: 'read', arguments: '{"p":1}' } },
              ],
            }),
          ),
          sseEvent(completionChunk('chatcmpl-bad', {}, 'tool_calls')),
          sseDone,
        ],
      });
      const error = await rejection(collectChunks(wire.provider.chatStream(request)));
      expect(error.code).toBe('invalid_response');
      expect(error.message).toContain(JSON.stringify(index));
    });
  }

  it('files a large index (2e7) in a dense list, at once', async () => {
    wire.server.reply({
      kind: 'sse',
      writes: [
        sseEvent(
          completionChunk('chatcmpl-big', {
            tool_calls: [
              { index: 2e7, id: 'call_big', function: { name: 'read', arguments: '{}' } },
            ],
          }),
        ),
        sseEvent(completionChunk('chatcmpl-big', {}, 'tool_calls')),
        sseDone,
      ],
    });
    const chunks = await collectChunks(wire.provider.chatStream(request));
    expect(finalResponse(chunks).message.tool_calls?.map((call) => call.id)).toEqual(['call_big']);
    expect(chunks.find((chunk) => chunk.type === 'tool_call_delta')).toMatchObject({ index: 0 });
  });
});
