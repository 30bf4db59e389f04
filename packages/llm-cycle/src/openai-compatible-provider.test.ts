import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChatChunk, ChatProvider } from './chat-provider.js';
import { LlmError } from './llm-error.js';
import { createOpenAICompatibleProvider } from './openai-compatible-provider.js';
import {
  type ChatCompletionsServer,
  completionChunk as chunk,
  completionId,
  sseDone as done,
  errorBody,
  sseEvent as sse,
  startChatCompletionsServer,
  textCompletion,
  textStream,
  toolCallCompletion,
  toolCallStream,
  usageChunk,
} from './testing/index.js';

const apiKey = 'sk-test-SECRET-4f9a8b7c6d5e';
let server: ChatCompletionsServer;

// biome-ignore lint/suspicious/noExplicitAny: the tests read the JSON bodies the server received
type Json = any;

/** The body of request `index` the server received, as JSON. */
function sent(index: number): Json {
  return server.requests[index]?.body;
}
let provider: ChatProvider;

beforeAll(async () => {
  server = await startChatCompletionsServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.requests.length = 0;
  provider = createOpenAICompatibleProvider({
    baseURL: server.baseURL,
    apiKey,
    headers: { 'x-app': 'agcore-test' },
  });
});

const request = { model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content: 'Hi' }] };

async function collect(iterable: AsyncIterable<ChatChunk>): Promise<ChatChunk[]> {
  const chunks: ChatChunk[] = [];
  for await (const item of iterable) chunks.push(item);
  return chunks;
}

function finalResponse(chunks: readonly ChatChunk[]) {
  const last = chunks[chunks.length - 1];
  if (last?.type !== 'response') throw new Error('stream did not end with a response chunk');
  return last.response;
}

async function rejection(promise: Promise<unknown>): Promise<LlmError> {
  try {
    await promise;
  } catch (error) {
    if (LlmError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

describe('createOpenAICompatibleProvider: streaming', () => {
  it('streams a text-only answer and sends a proper Chat Completions request', async () => {
    server.reply({
      kind: 'sse',
      writes: textStream(['Hello', ', ', 'world', '!'], { usage: [12, 4] }),
    });
    const chunks = await collect(provider.chatStream(request));
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
    const received = server.requests[0];
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
    server.reply({
      kind: 'sse',
      writes: toolCallStream([
        {
          id: 'call_DdmO9pD3xa9XTPNJ32zg2hcA',
          name: 'get_weather',
          pieces: ['{"', 'city', '":"', 'Paris', '"}'],
        },
      ]),
    });
    const chunks = await collect(provider.chatStream(request));
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
    server.reply({
      kind: 'sse',
      writes: toolCallStream(
        [
          { id: 'call_a1', name: 'get_weather', pieces: ['{"ci', 'ty": "Pa', 'ris"}'] },
          { id: 'call_b2', name: 'get_time', pieces: ['{"zone":', ' "Europe/', 'Paris"', '}'] },
        ],
        { interleave: true },
      ),
    });
    const response = finalResponse(await collect(provider.chatStream(request)));
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
    server.reply({
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
    const response = finalResponse(await collect(provider.chatStream(request)));
    expect(response.message.content).toBe('Grüße, 東京 🌸');
    expect(response.message.tool_calls?.[0]?.function.arguments).toBe('{"text":"東京"}');
  });

  it('hands over the first chunks of a large read before parsing all of it, in order', async () => {
    const pieces = Array.from({ length: 3000 }, (_, index) => `w${index} `);
    for (const newline of ['\n', '\r\n']) {
      const body = textStream(pieces).join('').replaceAll('\n', newline);
      server.reply({ kind: 'sse', writes: [body] });
      const batches: (readonly ChatChunk[])[] = [];
      const batched = provider.chatStreamBatches;
      if (batched === undefined) throw new Error('the provider streams in batches');
      for await (const batch of batched.call(provider, request)) batches.push(batch);
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
    server.reply({ kind: 'sse', writes: textStream(['ok'], { usage: [1234, 56] }) });
    const response = finalResponse(await collect(provider.chatStream(request)));
    expect(response.usage).toEqual({ promptTokens: 1234, completionTokens: 56, totalTokens: 1290 });
  });

  it('ignores SSE comments and keep-alives', async () => {
    const writes = textStream(['a', 'b']);
    server.reply({
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
    const chunks = await collect(provider.chatStream(request));
    expect(finalResponse(chunks).message.content).toBe('ab');
    expect(chunks.filter((item) => item.type === 'assistant_text_delta')).toHaveLength(2);
  });

  it('stops at [DONE] even when the server keeps the connection open, and cuts that connection', async () => {
    const own = await startChatCompletionsServer();
    try {
      const held = createOpenAICompatibleProvider({ baseURL: own.baseURL });
      // Data after [DONE], then the response stays open; then no data and still open.
      own.reply(
        { kind: 'sse', writes: [...textStream(['done']), ': still here\n\n'], finish: 'hold' },
        { kind: 'sse', writes: textStream(['again']), finish: 'hold' },
      );
      expect(finalResponse(await collect(held.chatStream(request))).message.content).toBe('done');
      await expect.poll(() => own.disconnects()).toBe(1);
      expect(finalResponse(await collect(held.chatStream(request))).message.content).toBe('again');
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
        await collect(fresh.chatStream(request));
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
    server.reply({
      kind: 'sse',
      writes: [sse(chunk(id, { role: 'assistant', content: 'hi' })), sse(chunk(id, {}, 'stop'))],
    });
    expect(finalResponse(await collect(provider.chatStream(request))).message.content).toBe('hi');
  });

  it('rejects a stream that ends before the model finished with invalid_response', async () => {
    const id = completionId();
    server.reply({ kind: 'sse', writes: [sse(chunk(id, { role: 'assistant', content: 'hal' }))] });
    const error = await rejection(collect(provider.chatStream(request)));
    expect(error.code).toBe('invalid_response');
  });

  it('turns a connection cut mid-stream into a network error', async () => {
    server.reply({
      kind: 'sse',
      writes: textStream(['one ', 'two ', 'three']).slice(0, 3),
      finish: 'cut',
    });
    const seen: ChatChunk[] = [];
    const error = await rejection(
      (async () => {
        for await (const item of provider.chatStream(request)) seen.push(item);
      })(),
    );
    expect(error.code).toBe('network');
    expect(error.isRetryable).toBe(true);
    expect(seen.map((item) => item.type)).toEqual(['assistant_text_delta', 'assistant_text_delta']);
  });

  it('reports an error event inside the stream as stream_error', async () => {
    const id = completionId();
    server.reply({
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
    const error = await rejection(collect(provider.chatStream(request)));
    expect(error.code).toBe('stream_error');
    expect(error.message).toContain('The server had an error');
  });

  it('accepts a JSON answer to a streaming request', async () => {
    server.reply({
      kind: 'json',
      body: toolCallCompletion([{ id: 'call_1', name: 'lookup', arguments: '{"q":"x"}' }]),
    });
    const chunks = await collect(provider.chatStream(request));
    expect(chunks.map((item) => item.type)).toEqual(['tool_call_delta', 'response']);
    expect(finalResponse(chunks).message.tool_calls?.[0]?.function.name).toBe('lookup');
  });

  it('omits stream_options when includeUsage is false, and sends tools and parameters', async () => {
    const bare = createOpenAICompatibleProvider({
      baseURL: `${server.baseURL}/`,
      includeUsage: false,
    });
    server.reply({ kind: 'sse', writes: textStream(['ok']) });
    const tools = [
      {
        type: 'function' as const,
        function: { name: 'f', description: 'F', parameters: { type: 'object' as const } },
      },
    ];
    await collect(bare.chatStream({ ...request, tools, parameters: { temperature: 0 } }));
    const body = sent(0);
    expect(body.stream_options).toBeUndefined();
    expect(body.tools).toEqual(tools);
    expect(body.temperature).toBe(0);
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
  });

  it('stops reading and tells the server when the consumer breaks', async () => {
    const writes = textStream(Array.from({ length: 50 }, (_, index) => `w${index} `));
    server.reply({ kind: 'sse', writes, pause: 5 });
    let count = 0;
    for await (const item of provider.chatStream(request)) {
      if (item.type === 'assistant_text_delta') count++;
      if (count === 2) break;
    }
    await expect.poll(() => server.disconnects()).toBeGreaterThanOrEqual(1);
  });
});

describe('createOpenAICompatibleProvider: non-streaming', () => {
  it('reads a text completion', async () => {
    server.reply({ kind: 'json', body: textCompletion('Bonjour', [7, 3]) });
    const response = await provider.chat(request);
    expect(response.message).toEqual({ role: 'assistant', content: 'Bonjour' });
    expect(response.usage).toEqual({ promptTokens: 7, completionTokens: 3, totalTokens: 10 });
    expect(sent(0).stream).toBeUndefined();
  });

  it('reads tool calls, whatever finish_reason says', async () => {
    server.reply({
      kind: 'json',
      body: toolCallCompletion([{ id: 'call_1', name: 'f', arguments: '{}' }], {
        finishReason: 'stop',
      }),
    });
    const response = await provider.chat(request);
    expect(response.finishReason).toBe('stop');
    expect(response.message.tool_calls).toHaveLength(1);
  });

  it('rejects a body that is not a completion with invalid_response', async () => {
    server.reply({ kind: 'json', body: { hello: 'world' } });
    expect((await rejection(provider.chat(request))).code).toBe('invalid_response');
    server.reply({ kind: 'text', status: 200, body: 'not json' });
    expect((await rejection(provider.chat(request))).code).toBe('invalid_response');
  });
});

describe('createOpenAICompatibleProvider: HTTP errors', () => {
  it('turns 400 with an error body into http_error with the server message and no API key', async () => {
    server.reply({
      kind: 'json',
      status: 400,
      body: errorBody(
        `Invalid 'messages[0].content': string too long. Expected a string with maximum length 1048576. Key was ${apiKey}`,
        'invalid_request_error',
        'string_above_max_length',
        'messages[0].content',
      ),
    });
    const error = await rejection(provider.chat(request));
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
    server.reply({
      kind: 'json',
      status: 429,
      headers: { 'retry-after': '2' },
      body: errorBody(
        'Rate limit reached for gpt-4o-mini on tokens per min (TPM).',
        'tokens',
        'rate_limit_exceeded',
      ),
    });
    let error = await rejection(provider.chat(request));
    expect([error.statusCode, error.isRetryable, error.retryAfterMs]).toEqual([429, true, 2000]);
    server.reply({
      kind: 'json',
      status: 429,
      headers: { 'retry-after-ms': '150', 'retry-after': '1' },
      body: errorBody('slow down', 'requests', null),
    });
    error = await rejection(provider.chat(request));
    expect(error.retryAfterMs).toBe(150);
  });

  it('marks 5xx retryable and reads plain-text and Ollama-style bodies', async () => {
    server.reply({ kind: 'text', status: 503, body: 'upstream connect error' });
    let error = await rejection(collect(provider.chatStream(request)));
    expect([error.code, error.statusCode, error.isRetryable]).toEqual(['http_error', 503, true]);
    expect(error.message).toContain('upstream connect error');
    server.reply({
      kind: 'json',
      status: 404,
      body: { error: 'model "llama9" not found, try pulling it first' },
    });
    error = await rejection(provider.chat(request));
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
    server.reply({ kind: 'hang' });
    const controller = new AbortController();
    const pending = collect(provider.chatStream(request, { signal: controller.signal }));
    await expect.poll(() => server.requests.length).toBe(1);
    controller.abort();
    const error = await rejection(pending);
    expect(error.code).toBe('cancelled');
    await expect.poll(() => server.disconnects()).toBeGreaterThanOrEqual(1);
  });

  it('gives up after timeoutMs with a retryable timeout error', async () => {
    server.reply({ kind: 'hang' });
    const slow = createOpenAICompatibleProvider({ baseURL: server.baseURL, timeoutMs: 100 });
    const error = await rejection(collect(slow.chatStream(request)));
    expect([error.code, error.isRetryable]).toEqual(['timeout', true]);
  });
});

it('keeps usage chunk helpers honest', () => {
  expect(usageChunk('x', 1, 2).choices).toEqual([]);
});

describe('createOpenAICompatibleProvider: secrets never reach an error', () => {
  const secret = 'sk-proj-LEAKCHECK-0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOP';

  function leakFree(error: LlmError, what: string): void {
    const cause = error.cause;
    const texts = [
      error.message,
      error.stack ?? '',
      error.responseBody ?? '',
      JSON.stringify(error),
      String(cause),
      cause instanceof Error ? `${cause.message} ${cause.stack ?? ''}` : '',
    ];
    for (const text of texts) {
      // Not the key, nor a long piece of it.
      expect(text, what).not.toContain(secret);
      expect(text, what).not.toContain(secret.slice(0, 24));
      expect(text, what).not.toContain(secret.slice(-24));
    }
  }

  it('takes the API key out of every error the server can provoke', async () => {
    const keyed = createOpenAICompatibleProvider({ baseURL: server.baseURL, apiKey: secret });
    const id = completionId();
    const cases: [string, () => Promise<unknown>][] = [
      ['http 401 echoing the key', () => keyed.chat(request)],
      ['http 500 with the key across the 4 KiB cut', () => keyed.chat(request)],
      ['200 body that is not JSON', () => keyed.chat(request)],
      ['JSON without choices', () => keyed.chat(request)],
      ['error object in a 200 body', () => keyed.chat(request)],
      ['error event mid-stream', () => collect(keyed.chatStream(request))],
      ['data line that is not JSON', () => collect(keyed.chatStream(request))],
    ];
    server.reply(
      {
        kind: 'json',
        status: 401,
        body: errorBody(`Incorrect API key provided: ${secret}.`, 'invalid_request_error', null),
      },
      { kind: 'text', status: 500, body: `${'x'.repeat(4096 - 30)}${secret}${'y'.repeat(50)}` },
      { kind: 'text', status: 200, body: `not json, key=${secret}` },
      { kind: 'json', body: { object: 'chat.completion', key: secret } },
      { kind: 'json', body: { error: { message: `Bad key ${secret}` } } },
      {
        kind: 'sse',
        writes: [
          sse(chunk(id, { role: 'assistant', content: 'x' })),
          sse({ error: { message: `quota exceeded for ${secret}`, type: 'server_error' } }),
        ],
      },
      { kind: 'sse', writes: [`data: {"oops": "${secret}"\n\n`] },
    );
    for (const [what, call] of cases) {
      const error = await rejection(call());
      leakFree(error, what);
      expect(`${error.message} ${error.responseBody ?? ''}`, what).toContain('[redacted]');
    }
  });

  it('takes credential header values (api-key, Authorization) out too', async () => {
    const azure = createOpenAICompatibleProvider({
      baseURL: server.baseURL,
      headers: { 'api-key': secret },
    });
    const bearer = createOpenAICompatibleProvider({
      baseURL: server.baseURL,
      headers: { Authorization: `Bearer ${secret}` },
    });
    server.reply(
      { kind: 'json', status: 403, body: errorBody(`key ${secret} is disabled`, 'auth', null) },
      { kind: 'json', status: 403, body: errorBody(`token ${secret} is disabled`, 'auth', null) },
    );
    const first = await rejection(azure.chat(request));
    const second = await rejection(bearer.chat(request));
    expect(server.requests[0]?.headers['api-key']).toBe(secret);
    expect(server.requests[1]?.headers.authorization).toBe(`Bearer ${secret}`);
    leakFree(first, 'api-key header');
    leakFree(second, 'authorization header');
    expect([first.statusCode, second.statusCode]).toEqual([403, 403]);
  });
});

it('sends every request through the fetch it was given', async () => {
  const seen: string[] = [];
  const counting: typeof fetch = (input, init) => {
    seen.push(`${init?.method} ${String(input)}`);
    return fetch(input, init);
  };
  const own = createOpenAICompatibleProvider({ baseURL: server.baseURL, fetch: counting });
  server.reply(
    { kind: 'json', body: textCompletion('one') },
    { kind: 'sse', writes: textStream(['two']) },
  );
  expect((await own.chat(request)).message.content).toBe('one');
  expect(finalResponse(await collect(own.chatStream(request))).message.content).toBe('two');
  expect(seen).toEqual([
    `POST ${server.baseURL}/chat/completions`,
    `POST ${server.baseURL}/chat/completions`,
  ]);
});
