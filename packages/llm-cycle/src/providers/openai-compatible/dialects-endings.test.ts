/**
 * The Chat Completions dialects of real servers, at the provider level: streamed and not, whole
 * and cut into small reads. Each test names the server whose habit it reproduces.
 *
 * This file: finish reasons and ids, and answers that are not Chat Completions.
 */
import { describe, expect, it } from 'vitest';
import { hiRequest, useProviderServer } from '../../test-support/provider-kit.js';
import { collectChunks, finalResponse, rejection } from '../../test-support/results.js';
import { completionChunk, sseDone, sseEvent, usageChunk } from '../../testing/index.js';

const wire = useProviderServer({ apiKey: 'sk-dialects' }, 'reset');
const request = hiRequest('m');

describe('finish reasons and ids', () => {
  it("normalizes finish_reason 'tool_calls' without any call to 'stop'", async () => {
    wire.server.reply({
      kind: 'sse',
      writes: [
        sseEvent(completionChunk('c', { content: 'Done.' })),
        sseEvent(completionChunk('c', {}, 'tool_calls')),
        sseDone,
      ],
    });
    expect(finalResponse(await collectChunks(wire.provider.chatStream(request))).finishReason).toBe(
      'stop',
    );
    wire.server.reply({
      kind: 'json',
      body: {
        id: 'c',
        choices: [
          { index: 0, message: { role: 'assistant', content: 'x' }, finish_reason: 'tool_calls' },
        ],
      },
    });
    expect((await wire.provider.chat(request)).finishReason).toBe('stop');
  });

  it('makes duplicate call ids of one turn unique (suffix _2, _3, …)', async () => {
    const call = (index: number) => ({
      index,
      id: 'call_same',
      type: 'function',
      function: { name: 'read', arguments: `{"n":${index}}` },
    });
    wire.server.reply({
      kind: 'sse',
      writes: [
        sseEvent(completionChunk('d', { tool_calls: [call(0), call(1), call(2)] })),
        sseEvent(completionChunk('d', {}, 'tool_calls')),
        sseDone,
      ],
    });
    const calls = finalResponse(await collectChunks(wire.provider.chatStream(request))).message
      .tool_calls;
    expect(calls?.map((item) => item.id)).toEqual(['call_same', 'call_same_2', 'call_same_3']);
    wire.server.reply({
      kind: 'json',
      body: {
        id: 'd',
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: null,
              tool_calls: [call(0), call(1)].map(({ index: _, ...rest }) => rest),
            },
            finish_reason: 'tool_calls',
          },
        ],
      },
    });
    const whole = await wire.provider.chat(request);
    expect(whole.message.tool_calls?.map((item) => item.id)).toEqual(['call_same', 'call_same_2']);
  });

  it('reads usage from Groq (x_groq.usage) and Moonshot (choices[0].usage)', async () => {
    wire.server.reply({
      kind: 'sse',
      writes: [
        sseEvent(completionChunk('g', { content: 'Hi' })),
        sseEvent({
          ...completionChunk('g', {}, 'stop'),
          usage: undefined,
          x_groq: {
            id: 'req_01',
            usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 },
          },
        }),
        sseDone,
      ],
    });
    expect(finalResponse(await collectChunks(wire.provider.chatStream(request))).usage).toEqual({
      promptTokens: 12,
      completionTokens: 3,
      totalTokens: 15,
    });
    const finish = completionChunk('k', {}, 'stop');
    const choices = finish.choices as Record<string, unknown>[];
    wire.server.reply({
      kind: 'sse',
      writes: [
        sseEvent(completionChunk('k', { content: 'Hi' })),
        sseEvent({
          ...finish,
          usage: undefined,
          choices: [
            { ...choices[0], usage: { prompt_tokens: 8, completion_tokens: 2, total_tokens: 10 } },
          ],
        }),
        sseDone,
      ],
    });
    expect(
      finalResponse(await collectChunks(wire.provider.chatStream(request))).usage?.totalTokens,
    ).toBe(10);
  });
});

describe('answers that are not Chat Completions', () => {
  const page = '<!DOCTYPE html><html><head><title>Sign in to the Wi-Fi</title></head></html>';

  it('an HTML page with status 200 to a streaming request names the content type and the first bytes', async () => {
    wire.server.reply({
      kind: 'text',
      status: 200,
      headers: { 'content-type': 'text/html' },
      body: page,
    });
    const error = await rejection(collectChunks(wire.provider.chatStream(request)));
    expect(error.code).toBe('invalid_response');
    expect(error.message).toContain('not a Chat Completions');
    expect(error.message).toContain('text/html');
    expect(error.message).toContain('<!DOCTYPE html>');
    expect(error.message).not.toContain('ended before the model finished');
  });

  it('the same page to a non-streaming request', async () => {
    wire.server.reply({
      kind: 'text',
      status: 200,
      headers: { 'content-type': 'text/html' },
      body: page,
    });
    const error = await rejection(wire.provider.chat(request));
    expect(error.code).toBe('invalid_response');
    expect(error.message).toContain('text/html');
    expect(error.message).toContain('<!DOCTYPE html>');
  });

  it('a redirect is refused with invalid_response saying where to point baseURL, both paths', async () => {
    for (const status of [301, 307, 308]) {
      const reply = {
        kind: 'text' as const,
        status,
        headers: { location: 'https://elsewhere.invalid/v1/chat/completions' },
        body: '',
      };
      wire.server.reply(reply);
      const whole = await rejection(wire.provider.chat(request));
      wire.server.reply(reply);
      const streamed = await rejection(collectChunks(wire.provider.chatStream(request)));
      for (const error of [whole, streamed]) {
        expect(error.code).toBe('invalid_response');
        expect(error.isRetryable).toBe(false);
        expect(error.message).toContain('answered with a redirect');
        expect(error.message).toContain('Set baseURL');
      }
    }
  });

  it('an SSE answer to a non-streaming request is assembled (proxies that always stream)', async () => {
    wire.server.reply({
      kind: 'sse',
      writes: [
        sseEvent(completionChunk('s', { content: 'Streamed ' })),
        sseEvent(completionChunk('s', { content: 'anyway.' })),
        sseEvent(completionChunk('s', {}, 'stop')),
        sseEvent(usageChunk('s', 5, 2)),
        sseDone,
      ],
    });
    const response = await wire.provider.chat(request);
    expect(response.message.content).toBe('Streamed anyway.');
    expect(response.usage?.totalTokens).toBe(7);
  });
});
