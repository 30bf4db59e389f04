/**
 * The Chat Completions dialects of real servers, at the provider level: streamed and not, whole
 * and cut into small reads. Each test names the server whose habit it reproduces.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChatChunk, ChatProvider, ChatResponse } from './chat-provider.js';
import { LlmError } from './llm-error.js';
import { createOpenAICompatibleProvider } from './openai-compatible-provider.js';
import {
  type ChatCompletionsServer,
  completionChunk,
  sseDone,
  sseEvent,
  startChatCompletionsServer,
  usageChunk,
} from './testing/index.js';

let server: ChatCompletionsServer;
let provider: ChatProvider;

beforeAll(async () => {
  server = await startChatCompletionsServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.reset();
  provider = createOpenAICompatibleProvider({ baseURL: server.baseURL, apiKey: 'sk-dialects' });
});

const request = { model: 'm', messages: [{ role: 'user' as const, content: 'Hi' }] };

async function collect(iterable: AsyncIterable<ChatChunk>): Promise<ChatChunk[]> {
  const chunks: ChatChunk[] = [];
  for await (const item of iterable) chunks.push(item);
  return chunks;
}

function last(chunks: readonly ChatChunk[]): ChatResponse {
  const final = chunks[chunks.length - 1];
  if (final?.type !== 'response') throw new Error('no response chunk');
  return final.response;
}

async function failure(promise: Promise<unknown>): Promise<LlmError> {
  try {
    await promise;
  } catch (error) {
    if (LlmError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

/** Every way to cut `text` the tests use: whole, one event per write, and 7-byte writes. */
function cuts(events: readonly string[]): (string | Uint8Array)[][] {
  const whole = events.join('');
  const bytes = new TextEncoder().encode(whole);
  const small: Uint8Array[] = [];
  for (let start = 0; start < bytes.length; start += 7)
    small.push(bytes.subarray(start, start + 7));
  return [[whole], [...events], small];
}

/** Streams `events` in each cut, and resolves to the final responses and the chunks. */
async function streamEachCut(events: readonly string[]): Promise<ChatChunk[][]> {
  const runs: ChatChunk[][] = [];
  for (const writes of cuts(events)) {
    server.reply({ kind: 'sse', writes });
    runs.push(await collect(provider.chatStream(request)));
  }
  return runs;
}

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
    for (const chunks of await streamEachCut(events)) {
      const calls = last(chunks).message.tool_calls;
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
    for (const chunks of await streamEachCut(events)) {
      const calls = last(chunks).message.tool_calls ?? [];
      expect(calls.map((call) => call.function.arguments)).toEqual(['{"p":1}', '{"p":2}']);
      expect(calls[0]?.id).toMatch(/^call_/);
      expect(new Set(calls.map((call) => call.id)).size).toBe(2);
    }
  });

  it('still appends argument pieces without index or id to the call they continue', async () => {
    const id = 'chatcmpl-pieces';
    server.reply({
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
    const calls = last(await collect(provider.chatStream(request))).message.tool_calls;
    expect(calls).toEqual([
      { id: 'call_x', type: 'function', function: { name: 'read', arguments: '{"p":3}' } },
    ]);
  });
});

describe('bad tool-call indices', () => {
  for (const index of [-1, 1.5, 2e7 + 0.5, '0', Number.MAX_SAFE_INTEGER + 2]) {
    it(`refuses index ${JSON.stringify(index)} with invalid_response naming it`, async () => {
      server.reply({
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
      const error = await failure(collect(provider.chatStream(request)));
      expect(error.code).toBe('invalid_response');
      expect(error.message).toContain(JSON.stringify(index));
    });
  }

  it('files a large index (2e7) in a dense list, at once', async () => {
    server.reply({
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
    const chunks = await collect(provider.chatStream(request));
    expect(last(chunks).message.tool_calls?.map((call) => call.id)).toEqual(['call_big']);
    expect(chunks.find((chunk) => chunk.type === 'tool_call_delta')).toMatchObject({ index: 0 });
  });
});

describe('reasoning', () => {
  it('reads reasoning_content (DeepSeek, Qwen, Moonshot) and reasoning (vLLM >= 0.11, OpenRouter, Ollama)', async () => {
    for (const field of ['reasoning_content', 'reasoning']) {
      const id = `chatcmpl-${field}`;
      const events = [
        sseEvent(completionChunk(id, { role: 'assistant', content: null, [field]: 'Let me ' })),
        sseEvent(completionChunk(id, { content: null, [field]: 'think.' })),
        sseEvent(completionChunk(id, { content: 'Paris.', [field]: null })),
        sseEvent(completionChunk(id, {}, 'stop')),
        sseDone,
      ];
      for (const chunks of await streamEachCut(events)) {
        const response = last(chunks);
        expect(response.reasoning).toBe('Let me think.');
        expect(response.message.reasoning_content).toBe('Let me think.');
        expect(response.message.content).toBe('Paris.');
        const reasoning = chunks.filter((chunk) => chunk.type === 'assistant_reasoning_delta');
        expect(reasoning.map((chunk) => chunk.text).join('')).toBe('Let me think.');
      }
    }
  });

  it('reads reasoning from a non-streamed answer', async () => {
    server.reply({
      kind: 'json',
      body: {
        id: 'chatcmpl-r',
        object: 'chat.completion',
        model: 'deepseek-reasoner',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: '42', reasoning_content: 'Six times seven.' },
            finish_reason: 'stop',
          },
        ],
      },
    });
    const response = await provider.chat(request);
    expect(response.reasoning).toBe('Six times seven.');
    expect(response.message.reasoning_content).toBe('Six times seven.');
  });
});

describe('content as an array of parts (Mistral reasoning models)', () => {
  const parts = [
    { type: 'thinking', thinking: [{ type: 'text', text: 'The user greets me.' }] },
    { type: 'text', text: 'Hello' },
    { type: 'text', text: ' there!' },
  ];

  it('joins text parts into the text and maps thinking parts to reasoning (non-streamed)', async () => {
    server.reply({
      kind: 'json',
      body: {
        id: 'mistral-1',
        object: 'chat.completion',
        model: 'magistral-medium-latest',
        choices: [
          { index: 0, message: { role: 'assistant', content: parts }, finish_reason: 'stop' },
        ],
      },
    });
    const response = await provider.chat(request);
    expect(response.message.content).toBe('Hello there!');
    expect(response.reasoning).toBe('The user greets me.');
  });

  it('does the same for streamed deltas', async () => {
    const id = 'mistral-2';
    const events = parts.map((part) => sseEvent(completionChunk(id, { content: [part] })));
    events.push(sseEvent(completionChunk(id, { content: '' }, 'stop')), sseDone);
    for (const chunks of await streamEachCut(events)) {
      const response = last(chunks);
      expect(response.message.content).toBe('Hello there!');
      expect(response.reasoning).toBe('The user greets me.');
    }
  });
});

describe('finish reasons and ids', () => {
  it("normalizes finish_reason 'tool_calls' without any call to 'stop'", async () => {
    server.reply({
      kind: 'sse',
      writes: [
        sseEvent(completionChunk('c', { content: 'Done.' })),
        sseEvent(completionChunk('c', {}, 'tool_calls')),
        sseDone,
      ],
    });
    expect(last(await collect(provider.chatStream(request))).finishReason).toBe('stop');
    server.reply({
      kind: 'json',
      body: {
        id: 'c',
        choices: [
          { index: 0, message: { role: 'assistant', content: 'x' }, finish_reason: 'tool_calls' },
        ],
      },
    });
    expect((await provider.chat(request)).finishReason).toBe('stop');
  });

  it('makes duplicate call ids of one turn unique (suffix _2, _3, …)', async () => {
    const call = (index: number) => ({
      index,
      id: 'call_same',
      type: 'function',
      function: { name: 'read', arguments: `{"n":${index}}` },
    });
    server.reply({
      kind: 'sse',
      writes: [
        sseEvent(completionChunk('d', { tool_calls: [call(0), call(1), call(2)] })),
        sseEvent(completionChunk('d', {}, 'tool_calls')),
        sseDone,
      ],
    });
    const calls = last(await collect(provider.chatStream(request))).message.tool_calls;
    expect(calls?.map((item) => item.id)).toEqual(['call_same', 'call_same_2', 'call_same_3']);
    server.reply({
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
    const whole = await provider.chat(request);
    expect(whole.message.tool_calls?.map((item) => item.id)).toEqual(['call_same', 'call_same_2']);
  });

  it('reads usage from Groq (x_groq.usage) and Moonshot (choices[0].usage)', async () => {
    server.reply({
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
    expect(last(await collect(provider.chatStream(request))).usage).toEqual({
      promptTokens: 12,
      completionTokens: 3,
      totalTokens: 15,
    });
    const finish = completionChunk('k', {}, 'stop');
    const choices = finish.choices as Record<string, unknown>[];
    server.reply({
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
    expect(last(await collect(provider.chatStream(request))).usage?.totalTokens).toBe(10);
  });
});

describe('answers that are not Chat Completions', () => {
  const page = '<!DOCTYPE html><html><head><title>Sign in to the Wi-Fi</title></head></html>';

  it('an HTML page with status 200 to a streaming request names the content type and the first bytes', async () => {
    server.reply({
      kind: 'text',
      status: 200,
      headers: { 'content-type': 'text/html' },
      body: page,
    });
    const error = await failure(collect(provider.chatStream(request)));
    expect(error.code).toBe('invalid_response');
    expect(error.message).toContain('not a Chat Completions');
    expect(error.message).toContain('text/html');
    expect(error.message).toContain('<!DOCTYPE html>');
    expect(error.message).not.toContain('ended before the model finished');
  });

  it('the same page to a non-streaming request', async () => {
    server.reply({
      kind: 'text',
      status: 200,
      headers: { 'content-type': 'text/html' },
      body: page,
    });
    const error = await failure(provider.chat(request));
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
      server.reply(reply);
      const whole = await failure(provider.chat(request));
      server.reply(reply);
      const streamed = await failure(collect(provider.chatStream(request)));
      for (const error of [whole, streamed]) {
        expect(error.code).toBe('invalid_response');
        expect(error.isRetryable).toBe(false);
        expect(error.message).toContain('answered with a redirect');
        expect(error.message).toContain('Set baseURL');
      }
    }
  });

  it('an SSE answer to a non-streaming request is assembled (proxies that always stream)', async () => {
    server.reply({
      kind: 'sse',
      writes: [
        sseEvent(completionChunk('s', { content: 'Streamed ' })),
        sseEvent(completionChunk('s', { content: 'anyway.' })),
        sseEvent(completionChunk('s', {}, 'stop')),
        sseEvent(usageChunk('s', 5, 2)),
        sseDone,
      ],
    });
    const response = await provider.chat(request);
    expect(response.message.content).toBe('Streamed anyway.');
    expect(response.usage?.totalTokens).toBe(7);
  });
});
