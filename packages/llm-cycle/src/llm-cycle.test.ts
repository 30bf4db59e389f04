import { defineTool, type ToolContext, ToolError } from '@agcore/tools-core';
import { PermissionChecker } from '@agcore/tools-permission';
import { ToolRegistry } from '@agcore/tools-registry';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChatResponse } from './chat-provider.js';
import { describeBrokenToolPairs, summarizeOldestExchanges } from './compaction.js';
import { LlmCycle, type LlmCycleOptions } from './llm-cycle.js';
import { LlmError } from './llm-error.js';
import type { ChatMessage } from './messages.js';
import { createOpenAICompatibleProvider } from './openai-compatible-provider.js';
import type { RetryDetails } from './retry.js';
import type { StreamEvent } from './stream-events.js';
import {
  type ChatCompletionsServer,
  errorBody,
  type ServerReply,
  startChatCompletionsServer,
  textCompletion,
  textStream,
  toolCallCompletion,
  toolCallStream,
} from './testing/index.js';

let server: ChatCompletionsServer;

// biome-ignore lint/suspicious/noExplicitAny: the tests read the JSON bodies the server received
type Json = any;

/** The body of request `index` the server received, as JSON. */
function sent(index: number): Json {
  return server.requests[index]?.body;
}

beforeAll(async () => {
  server = await startChatCompletionsServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.requests.length = 0;
  expect(server.pending()).toBe(0);
});

function makeCycle(options: Partial<LlmCycleOptions> = {}): LlmCycle {
  return new LlmCycle({
    provider: createOpenAICompatibleProvider({ baseURL: server.baseURL, apiKey: 'sk-test' }),
    model: 'gpt-4o-mini',
    systemPrompt: 'You are a helpful assistant.',
    retry: { initialDelayMs: 1, maxDelayMs: 50 },
    ...options,
  });
}

/** The conversation without the system prompt (which `messages()` puts first). */
function withoutSystem(cycle: LlmCycle): ChatMessage[] {
  return cycle.messages().filter((message) => message.role !== 'system');
}

/** A tool that runs until its signal aborts; `onStart` sees the signal as the call starts. */
function waitForever(onStart: (signal: AbortSignal) => void) {
  return defineTool({
    name: 'wait_forever',
    description: 'Waits until cancelled',
    parameters: { type: 'object', properties: {} },
    execute: (_args, context) =>
      new Promise<string>((_resolve, reject) => {
        onStart(context.signal);
        context.signal.addEventListener('abort', () => reject(new Error('stopped')));
      }),
  });
}

const contexts: ToolContext[] = [];
const weather = defineTool({
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
    additionalProperties: false,
  },
  execute: async ({ city }, context) => {
    contexts.push(context);
    if (city === 'Atlantis') throw new Error('no weather station in Atlantis');
    return { city, temperature: 22, unit: 'C' };
  },
});
const clock = defineTool({
  name: 'get_time',
  description: 'Current time in a time zone',
  parameters: { type: 'object', properties: { zone: { type: 'string' } } },
  execute: async ({ zone }) => ({ zone: zone ?? 'UTC', time: '12:00' }),
});
const disk = defineTool({
  name: 'read_file',
  description: 'Reads a file',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  execute: async ({ path }): Promise<string> => {
    throw new ToolError('io', `Disk unavailable while reading ${path}`, { toolName: 'read_file' });
  },
});
const big = defineTool({
  name: 'big_result',
  description: 'Returns a large text',
  parameters: { type: 'object', properties: {} },
  execute: async () => 'é東🌸'.repeat(5_000),
});

function registry(): ToolRegistry {
  return new ToolRegistry().registerAll([weather, clock, disk, big]);
}

function json(body: unknown): ServerReply {
  return { kind: 'json', body };
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

async function collect(
  stream: AsyncGenerator<StreamEvent, ChatResponse>,
): Promise<{ events: StreamEvent[]; response: ChatResponse }> {
  const events: StreamEvent[] = [];
  for (;;) {
    const step = await stream.next();
    if (step.done === true) return { events, response: step.value };
    events.push(step.value);
  }
}

async function streamError(
  stream: AsyncGenerator<StreamEvent, ChatResponse>,
  events: StreamEvent[] = [],
): Promise<LlmError> {
  try {
    for await (const event of stream) events.push(event);
  } catch (error) {
    if (LlmError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected the stream to throw');
}

function roles(messages: readonly ChatMessage[]): string[] {
  return messages.map((message) => message.role);
}

describe('LlmCycle plain submits', () => {
  it('submit keeps the history and sums usage over requests', async () => {
    const cycle = makeCycle();
    server.reply(json(textCompletion('Hello!', [10, 2])), json(textCompletion('Fine.', [20, 3])));
    expect((await cycle.submit('Hi')).message.content).toBe('Hello!');
    await cycle.submit('How are you?');
    expect(withoutSystem(cycle)).toEqual([
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello!' },
      { role: 'user', content: 'How are you?' },
      { role: 'assistant', content: 'Fine.' },
    ]);
    expect(cycle.usage()).toEqual({ promptTokens: 30, completionTokens: 5, totalTokens: 35 });
    expect(sent(1).messages).toEqual([
      { role: 'system', content: 'You are a helpful assistant.' },
      ...withoutSystem(cycle).slice(0, 3),
    ]);
    expect(sent(1).tools).toBeUndefined();
    // messages() is the history as the next request sends it: system prompt first.
    expect(cycle.messages()[0]).toEqual({
      role: 'system',
      content: 'You are a helpful assistant.',
    });
    expect(sent(1).messages).toEqual(cycle.messages().slice(0, 4));
  });

  it('takes a saved history, system prompt included, back as is', async () => {
    const first = makeCycle();
    server.reply(json(textCompletion('Hello!')), json(textCompletion('Again.')));
    await first.submit('Hi');
    const saved = first.messages();
    const resumed = makeCycle({ systemPrompt: undefined, messages: saved });
    expect(resumed.messages()).toEqual(saved);
    await resumed.submit('More');
    expect(sent(1).messages).toEqual([...saved, { role: 'user', content: 'More' }]);
    // The same system prompt given twice is kept once; two different ones are refused.
    expect(makeCycle({ messages: saved }).messages()).toEqual(saved);
    expect(() => makeCycle({ systemPrompt: 'Other.', messages: saved })).toThrow(TypeError);
  });

  it('submitMessages appends messages and submitStream streams text', async () => {
    const cycle = makeCycle({ systemPrompt: undefined });
    server.reply(json(textCompletion('4')), {
      kind: 'sse',
      writes: textStream(['Twenty', '-two'], { usage: [5, 2] }),
    });
    await cycle.submitMessages([{ role: 'user', content: '2+2?' }]);
    const { events, response } = await collect(cycle.submitStream('And 11*2?'));
    expect(events).toEqual([
      { type: 'assistant_text_delta', text: 'Twenty' },
      { type: 'assistant_text_delta', text: '-two' },
      {
        type: 'turn_complete',
        reason: 'stop',
        usage: { promptTokens: 5, completionTokens: 2, totalTokens: 7 },
      },
    ]);
    expect(response.message.content).toBe('Twenty-two');
    expect(roles(withoutSystem(cycle))).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(sent(1).messages[0]).toEqual({ role: 'user', content: '2+2?' });
  });

  it('refuses a second submit while one runs (busy) and leaves the first intact', async () => {
    const cycle = makeCycle();
    server.reply(json(textCompletion('first')));
    const first = cycle.submit('one');
    const error = await rejection(cycle.submit('two'));
    expect(error.code).toBe('busy');
    await first;
    expect(roles(withoutSystem(cycle))).toEqual(['user', 'assistant']);
  });
});

describe('LlmCycle retries', () => {
  it('retries 429 honouring Retry-After, then succeeds', async () => {
    const retries: RetryDetails[] = [];
    const cycle = makeCycle({
      retry: { initialDelayMs: 1, onRetry: (details) => retries.push(details) },
    });
    server.reply(
      {
        kind: 'json',
        status: 429,
        headers: { 'retry-after-ms': '30' },
        body: errorBody('Rate limit reached', 'requests', 'rate_limit_exceeded'),
      },
      json(textCompletion('ok')),
    );
    expect((await cycle.submit('hi')).message.content).toBe('ok');
    expect(server.requests).toHaveLength(2);
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
    server.reply(failure, failure, { kind: 'sse', writes: textStream(['fine']) });
    const { response } = await collect(cycle.submitStream('hi'));
    expect(response.message.content).toBe('fine');
    expect(retries.map((retry) => retry.delayMs)).toEqual([2, 4]);
    expect(server.requests).toHaveLength(3);
  });

  it('gives up after maxRetries and leaves the history as it was', async () => {
    const cycle = makeCycle({ retry: { maxRetries: 1, initialDelayMs: 1 } });
    const failure: ServerReply = {
      kind: 'json',
      status: 503,
      body: errorBody('overloaded', 'server_error', null),
    };
    server.reply(failure, failure);
    const error = await rejection(cycle.submit('hi'));
    expect([error.code, error.statusCode]).toEqual(['http_error', 503]);
    expect(withoutSystem(cycle)).toEqual([]);
  });

  it('never retries a 400 and reports the server message', async () => {
    const cycle = makeCycle();
    server.reply({
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
    expect(server.requests).toHaveLength(1);
  });

  it('does not retry a stream cut after it yielded events; history unchanged', async () => {
    const cycle = makeCycle();
    server.reply({
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
    expect(server.requests).toHaveLength(1);
    expect(withoutSystem(cycle)).toEqual([]);
  });

  it('retries a stream that failed before yielding anything', async () => {
    const cycle = makeCycle();
    server.reply(
      { kind: 'sse', writes: [], finish: 'cut' },
      { kind: 'sse', writes: textStream(['second try']) },
    );
    const { response } = await collect(cycle.submitStreamWithTools('hi', registry()));
    expect(response.message.content).toBe('second try');
    expect(server.requests).toHaveLength(2);
  });
});

describe('LlmCycle.submitWithTools', () => {
  it('runs one tool turn and leaves the whole trail in messages()', async () => {
    contexts.length = 0;
    const cycle = makeCycle({ sessionId: 'session-42' });
    server.reply(
      json(
        toolCallCompletion(
          [{ id: 'call_w1', name: 'get_weather', arguments: '{"city":"Paris"}' }],
          { usage: [50, 10] },
        ),
      ),
      json(textCompletion('It is 22 °C in Paris.', [80, 9])),
    );
    const response = await cycle.submitWithTools('Weather in Paris?', registry(), {
      traceId: 'trace-7',
    });
    expect(response.message.content).toBe('It is 22 °C in Paris.');
    expect(withoutSystem(cycle)).toEqual([
      { role: 'user', content: 'Weather in Paris?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_w1',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
          },
        ],
      },
      {
        role: 'tool',
        tool_call_id: 'call_w1',
        content: '{"city":"Paris","temperature":22,"unit":"C"}',
      },
      { role: 'assistant', content: 'It is 22 °C in Paris.' },
    ]);
    expect(cycle.usage()).toEqual({ promptTokens: 130, completionTokens: 19, totalTokens: 149 });
    const second = sent(1);
    expect(second.messages).toEqual([
      { role: 'system', content: 'You are a helpful assistant.' },
      ...withoutSystem(cycle).slice(0, 3),
    ]);
    expect(second.tools.map((tool: { function: { name: string } }) => tool.function.name)).toEqual([
      'get_weather',
      'get_time',
      'read_file',
      'big_result',
    ]);
    expect(sent(0).tools).toEqual(second.tools);
    expect(contexts).toHaveLength(1);
    expect(contexts[0]).toMatchObject({
      sessionId: 'session-42',
      traceId: 'trace-7',
      toolCallId: 'call_w1',
    });
    expect(contexts[0]?.signal).toBeInstanceOf(AbortSignal);
  });

  it('runs 2+ turns and parallel calls, tool messages in call order', async () => {
    let release: (() => void) | undefined;
    const started = new Promise<void>((resolve) => {
      release = resolve;
    });
    const order: string[] = [];
    const slow = defineTool({
      name: 'slow',
      description: 'Waits until fast has started (deadlocks if the calls are not parallel)',
      parameters: { type: 'object', properties: {} },
      execute: async () => {
        await started;
        order.push('slow');
        return 'slow done';
      },
    });
    const fast = defineTool({
      name: 'fast',
      description: 'Returns at once',
      parameters: { type: 'object', properties: {} },
      execute: async () => {
        release?.();
        order.push('fast');
        return 'fast done';
      },
    });
    const tools = new ToolRegistry().registerAll([slow, fast, weather]);
    const cycle = makeCycle({ toolTimeoutMs: 5_000 });
    server.reply(
      json(
        toolCallCompletion([{ id: 'call_w', name: 'get_weather', arguments: '{"city":"Oslo"}' }]),
      ),
      json(
        toolCallCompletion([
          { id: 'call_s', name: 'slow', arguments: '{}' },
          { id: 'call_f', name: 'fast', arguments: '' },
        ]),
      ),
      json(textCompletion('All done')),
    );
    await cycle.submitWithTools('go', tools);
    expect(order).toEqual(['fast', 'slow']);
    expect(roles(withoutSystem(cycle))).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'tool',
      'assistant',
    ]);
    expect(withoutSystem(cycle).slice(4, 6)).toEqual([
      { role: 'tool', tool_call_id: 'call_s', content: 'slow done' },
      { role: 'tool', tool_call_id: 'call_f', content: 'fast done' },
    ]);
    expect(server.requests).toHaveLength(3);
  });

  it('computes the tool definitions once per loop call, not per turn', async () => {
    const tools = registry();
    let calls = 0;
    const original = tools.definitions.bind(tools);
    tools.definitions = () => {
      calls++;
      return original();
    };
    server.reply(
      json(toolCallCompletion([{ id: 'call_1', name: 'get_time', arguments: '{}' }])),
      json(toolCallCompletion([{ id: 'call_2', name: 'get_time', arguments: '{}' }])),
      json(textCompletion('noon')),
    );
    await makeCycle().submitWithTools('time?', tools);
    expect(server.requests).toHaveLength(3);
    expect(calls).toBe(1);
  });

  it("executes tool calls even when finish_reason is 'stop'", async () => {
    const cycle = makeCycle();
    server.reply(
      {
        kind: 'sse',
        writes: toolCallStream([{ id: 'call_t', name: 'get_time', pieces: ['{"zone":"UTC"}'] }], {
          finishReason: 'stop',
        }),
      },
      { kind: 'sse', writes: textStream(['noon']) },
    );
    const { events } = await collect(cycle.submitStreamWithTools('time?', registry()));
    expect(
      events
        .filter((event) => event.type === 'turn_complete')
        .map((event) => (event.type === 'turn_complete' ? event.reason : '')),
    ).toEqual(['tool_calls', 'stop']);
    expect(withoutSystem(cycle)[2]).toEqual({
      role: 'tool',
      tool_call_id: 'call_t',
      content: '{"zone":"UTC","time":"12:00"}',
    });
  });

  it('sends invalid JSON and schema mismatches back as invalid_arguments; the model corrects itself', async () => {
    const cycle = makeCycle();
    server.reply(
      json(
        toolCallCompletion([
          { id: 'call_bad_json', name: 'get_weather', arguments: '{"city": "Par' },
          { id: 'call_bad_schema', name: 'get_weather', arguments: '{"town":"Paris"}' },
        ]),
      ),
      json(
        toolCallCompletion([
          { id: 'call_good', name: 'get_weather', arguments: '{"city":"Paris"}' },
        ]),
      ),
      json(textCompletion('22 °C')),
    );
    await cycle.submitWithTools('weather', registry());
    const history = withoutSystem(cycle);
    const badJson = history[2];
    const badSchema = history[3];
    expect(badJson?.role === 'tool' && badJson.tool_call_id).toBe('call_bad_json');
    expect(badJson?.content).toMatch(
      /^Error \[invalid_arguments\]: The arguments of tool 'get_weather' are not valid JSON/,
    );
    expect(badSchema?.role === 'tool' && badSchema.tool_call_id).toBe('call_bad_schema');
    expect(badSchema?.content).toMatch(/^Error \[invalid_arguments\]/);
    expect(history[5]).toEqual({
      role: 'tool',
      tool_call_id: 'call_good',
      content: '{"city":"Paris","temperature":22,"unit":"C"}',
    });
  });

  it('sends a recoverable tool error back and the model recovers', async () => {
    const cycle = makeCycle();
    server.reply(
      json(
        toolCallCompletion([
          { id: 'call_1', name: 'get_weather', arguments: '{"city":"Atlantis"}' },
        ]),
      ),
      json(textCompletion('Atlantis has no weather station.')),
    );
    const response = await cycle.submitWithTools('Weather in Atlantis?', registry());
    expect(response.message.content).toBe('Atlantis has no weather station.');
    expect(withoutSystem(cycle)[2]?.content).toContain('Error [execution_failed]');
    expect(withoutSystem(cycle)[2]?.content).toContain('no weather station in Atlantis');
    expect(sent(1).messages[3].content).toContain('no weather station in Atlantis');
  });

  it('ends the loop on a fatal tool error with the ToolError as cause, history whole', async () => {
    const cycle = makeCycle();
    server.reply(
      json(
        toolCallCompletion([
          { id: 'call_ok', name: 'get_weather', arguments: '{"city":"Rome"}' },
          { id: 'call_io', name: 'read_file', arguments: '{"path":"/etc/hosts"}' },
        ]),
      ),
    );
    const error = await rejection(cycle.submitWithTools('read it', registry()));
    expect(error.code).toBe('tool_error');
    expect(error.toolName).toBe('read_file');
    expect(ToolError.isInstance(error.cause)).toBe(true);
    expect((error.cause as ToolError).code).toBe('io');
    const history = withoutSystem(cycle);
    expect(roles(history)).toEqual(['user', 'assistant', 'tool', 'tool']);
    expect(describeBrokenToolPairs(history)).toBeUndefined();
    expect(history[3]?.content).toContain('Error [io]: Disk unavailable');
    // The conversation can go on.
    server.reply(json(textCompletion('Sorry, the disk is down.')));
    await cycle.submit('ok?');
    expect(sent(1).messages).toHaveLength(6);
  });

  it('treats an unknown tool as fatal by default and returns it to the model when asked', async () => {
    server.reply(
      json(toolCallCompletion([{ id: 'call_x', name: 'launch_rocket', arguments: '{}' }])),
    );
    const error = await rejection(makeCycle().submitWithTools('go', registry()));
    expect([error.code, (error.cause as ToolError).code]).toEqual(['tool_error', 'not_found']);

    const cycle = makeCycle({ onUnknownTool: 'return_to_model' });
    server.reply(
      json(toolCallCompletion([{ id: 'call_x', name: 'launch_rocket', arguments: '{}' }])),
      json(textCompletion('I cannot launch rockets.')),
    );
    await cycle.submitWithTools('go', registry());
    expect(withoutSystem(cycle)[2]?.content).toMatch(
      /^Error \[not_found\].*Available tools: get_weather, get_time, read_file, big_result\./,
    );
  });

  it('fails with max_turns_exceeded carrying the last response; history stays', async () => {
    const cycle = makeCycle({ maxTurns: 2 });
    server.reply(
      json(toolCallCompletion([{ id: 'call_1', name: 'get_time', arguments: '{}' }])),
      json(toolCallCompletion([{ id: 'call_2', name: 'get_time', arguments: '{}' }])),
    );
    const error = await rejection(cycle.submitWithTools('loop', registry()));
    expect(error.code).toBe('max_turns_exceeded');
    expect(error.response?.message.tool_calls?.[0]?.id).toBe('call_2');
    expect(roles(withoutSystem(cycle))).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool']);
    expect(server.requests).toHaveLength(2);
  });

  it('truncates large tool results UTF-8-safely with a marker; the event keeps the full value', async () => {
    const cycle = makeCycle({ maxToolResultBytes: 1000 });
    server.reply(
      {
        kind: 'sse',
        writes: toolCallStream([{ id: 'call_big', name: 'big_result', pieces: [''] }]),
      },
      { kind: 'sse', writes: textStream(['ok']) },
    );
    const { events } = await collect(cycle.submitStreamWithTools('big', registry()));
    const content = withoutSystem(cycle)[2]?.content;
    if (typeof content !== 'string') throw new Error('no tool message');
    expect(Buffer.byteLength(content)).toBeLessThanOrEqual(1000);
    expect(content).toMatch(/…\[truncated: \d+ of 45000 bytes cut\]$/);
    expect(content).not.toContain('\uFFFD');
    const completed = events.find((event) => event.type === 'tool_execution_completed');
    expect(completed).toMatchObject({ truncated: true, output: 'é東🌸'.repeat(5_000) });
    expect(sent(1).messages[3].content).toBe(content);
  });

  it('keeps even the smallest allowed limit (64 bytes), marker included, and refuses less', async () => {
    expect(() => makeCycle({ maxToolResultBytes: 63 })).toThrow(/at least 64/);
    expect(() => makeCycle({ maxToolResultBytes: 0 })).toThrow(RangeError);
    const cycle = makeCycle({ maxToolResultBytes: 64 });
    server.reply(
      {
        kind: 'sse',
        writes: toolCallStream([{ id: 'call_big', name: 'big_result', pieces: [''] }]),
      },
      { kind: 'sse', writes: textStream(['ok']) },
    );
    await collect(cycle.submitStreamWithTools('big', registry()));
    const content = withoutSystem(cycle)[2]?.content;
    if (typeof content !== 'string') throw new Error('no tool message');
    expect(Buffer.byteLength(content)).toBeLessThanOrEqual(64);
    expect(content).toMatch(/…\[truncated: \d+ of 45000 bytes cut\]$/);
  });

  it('compacts old exchanges without separating tool pairs; the system prompt stays', async () => {
    const cycle = makeCycle({ compaction: { maxTokens: 400 } });
    for (let round = 0; round < 4; round++) {
      server.reply(
        json(
          toolCallCompletion([
            {
              id: `call_${round}`,
              name: 'get_weather',
              arguments: `{"city":"City number ${round} with a long name"}`,
            },
          ]),
        ),
        json(textCompletion(`Round ${round}: ${'lorem ipsum '.repeat(20)}`)),
      );
      await cycle.submitWithTools(`Question ${round}: ${'please '.repeat(20)}`, registry());
    }
    for (const received of server.requests) {
      const messages = (received.body as Json).messages as ChatMessage[];
      expect(messages[0]).toEqual({ role: 'system', content: 'You are a helpful assistant.' });
      expect(describeBrokenToolPairs(messages.slice(1))).toBeUndefined();
    }
    const last = sent(server.requests.length - 1).messages as ChatMessage[];
    expect(last.some((message) => message.content === `Question 0: ${'please '.repeat(20)}`)).toBe(
      false,
    );
    expect(last.some((message) => message.content === `Question 3: ${'please '.repeat(20)}`)).toBe(
      true,
    );
    expect(describeBrokenToolPairs(withoutSystem(cycle))).toBeUndefined();
  });

  it('compacts through a summarizing strategy', async () => {
    const summarized: ChatMessage[][] = [];
    const cycle = makeCycle({
      compaction: {
        maxTokens: 200,
        strategy: summarizeOldestExchanges({
          summarize: async (messages) => {
            summarized.push([...messages]);
            return `${messages.length} earlier messages about greetings`;
          },
        }),
      },
    });
    server.reply(
      json(textCompletion(`Hello! ${'long answer '.repeat(80)}`)),
      json(textCompletion('Short.')),
    );
    await cycle.submit('Hi');
    await cycle.submit('Again');
    expect(summarized).toHaveLength(1);
    expect(sent(1).messages.slice(0, 2)).toEqual([
      { role: 'system', content: 'You are a helpful assistant.' },
      {
        role: 'user',
        content: 'Summary of the earlier conversation:\n2 earlier messages about greetings',
      },
    ]);
  });

  it('fails with compaction_failed when a strategy breaks a tool pair', async () => {
    const cycle = makeCycle({
      compaction: {
        maxTokens: 10,
        strategy: ({ messages }) => messages.filter((message) => message.role !== 'tool'),
      },
    });
    server.reply(json(toolCallCompletion([{ id: 'call_1', name: 'get_time', arguments: '{}' }])));
    const error = await rejection(cycle.submitWithTools('time', registry()));
    expect(error.code).toBe('compaction_failed');
    expect(describeBrokenToolPairs(withoutSystem(cycle))).toBeUndefined();
  });
});

describe('LlmCycle cancellation', () => {
  it('aborting during the request stops it, rejects with cancelled and leaves the history as it was', async () => {
    const cycle = makeCycle();
    server.reply(json(textCompletion('first')));
    await cycle.submit('before');
    server.reply({ kind: 'hang' });
    const controller = new AbortController();
    const pending = cycle.submitWithTools('hang', registry(), { signal: controller.signal });
    await expect.poll(() => server.requests.length).toBe(2);
    controller.abort();
    const error = await rejection(pending);
    expect(error.code).toBe('cancelled');
    expect(roles(withoutSystem(cycle))).toEqual(['user', 'assistant']);
    await expect.poll(() => server.disconnects()).toBeGreaterThanOrEqual(1);
  });

  it('aborting during a tool fires its signal and gives the call a cancelled tool message', async () => {
    let toolSignal: AbortSignal | undefined;
    let entered: (() => void) | undefined;
    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const wait = waitForever((signal) => {
      toolSignal = signal;
      entered?.();
    });
    let quickDone: (() => void) | undefined;
    const finished = new Promise<void>((resolve) => {
      quickDone = resolve;
    });
    const quick = defineTool({
      name: 'get_time',
      description: 'Returns at once',
      parameters: { type: 'object', properties: {} },
      execute: async () => {
        setTimeout(() => quickDone?.(), 0);
        return { zone: 'UTC', time: '12:00' };
      },
    });
    const tools = new ToolRegistry().registerAll([wait, quick]);
    const cycle = makeCycle();
    server.reply(
      json(
        toolCallCompletion([
          { id: 'call_t', name: 'get_time', arguments: '{}' },
          { id: 'call_w', name: 'wait_forever', arguments: '{}' },
        ]),
      ),
    );
    const controller = new AbortController();
    const pending = cycle.submitWithTools('wait', tools, { signal: controller.signal });
    await inside;
    await finished;
    await new Promise((resolve) => setTimeout(resolve, 0));
    controller.abort();
    const error = await rejection(pending);
    expect(error.code).toBe('cancelled');
    expect(toolSignal?.aborted).toBe(true);
    const history = withoutSystem(cycle);
    expect(roles(history)).toEqual(['user', 'assistant', 'tool', 'tool']);
    expect(history[2]?.content).toBe('{"zone":"UTC","time":"12:00"}');
    expect(history[3]?.content).toMatch(/^Error \[cancelled\]/);
  });

  it('an already aborted signal rejects at once without a request', async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await rejection(
      makeCycle().submitWithTools('x', registry(), { signal: controller.signal }),
    );
    expect(error.code).toBe('cancelled');
    expect(server.requests).toHaveLength(0);
  });
});

describe('LlmCycle.submitStreamWithTools', () => {
  function conversation(): ServerReply[] {
    return [
      {
        kind: 'sse',
        writes: toolCallStream(
          [
            { id: 'call_w', name: 'get_weather', pieces: ['{"ci', 'ty":"Par', 'is"}'] },
            { id: 'call_t', name: 'get_time', pieces: ['{"zone":', '"CET"}'] },
          ],
          { interleave: true, text: 'Let me check. ', usage: [60, 20] },
        ),
      },
      { kind: 'sse', writes: textStream(['It is ', '22 °C', ' and noon.'], { usage: [100, 8] }) },
    ];
  }

  it('emits the events in the design order and leaves the same history as submitWithTools', async () => {
    const cycle = makeCycle();
    server.reply(...conversation());
    const { events, response } = await collect(cycle.submitStreamWithTools('Paris?', registry()));
    expect(response.message.content).toBe('It is 22 °C and noon.');
    const types = events.map((event) => event.type);
    expect(types.slice(0, 1)).toEqual(['assistant_text_delta']);
    expect(types.slice(1, 8)).toEqual(Array(7).fill('tool_call_delta'));
    expect(types.slice(8)).toEqual([
      'tool_execution_started',
      'tool_execution_started',
      'turn_complete',
      'tool_execution_completed',
      'tool_execution_completed',
      'assistant_text_delta',
      'assistant_text_delta',
      'assistant_text_delta',
      'turn_complete',
    ]);
    expect(events[1]).toEqual({
      type: 'tool_call_delta',
      index: 0,
      callId: 'call_w',
      toolName: 'get_weather',
      argumentsDelta: '',
    });
    expect(events[3]).toEqual({ type: 'tool_call_delta', index: 0, argumentsDelta: '{"ci' });
    expect(events[8]).toEqual({
      type: 'tool_execution_started',
      toolName: 'get_weather',
      callId: 'call_w',
      input: { city: 'Paris' },
    });
    expect(events[10]).toEqual({
      type: 'turn_complete',
      reason: 'tool_calls',
      usage: { promptTokens: 60, completionTokens: 20, totalTokens: 80 },
    });
    const completed = events.filter((event) => event.type === 'tool_execution_completed');
    expect(completed.map((event) => event.callId).sort()).toEqual(['call_t', 'call_w']);
    expect(completed.find((event) => event.callId === 'call_w')).toMatchObject({
      toolName: 'get_weather',
      output: { city: 'Paris', temperature: 22, unit: 'C' },
      truncated: false,
    });
    expect(events[events.length - 1]).toEqual({
      type: 'turn_complete',
      reason: 'stop',
      usage: { promptTokens: 100, completionTokens: 8, totalTokens: 108 },
    });

    const plain = makeCycle();
    server.reply(
      json(
        toolCallCompletion(
          [
            { id: 'call_w', name: 'get_weather', arguments: '{"city":"Paris"}' },
            { id: 'call_t', name: 'get_time', arguments: '{"zone":"CET"}' },
          ],
          { usage: [60, 20] },
        ),
      ),
      json(textCompletion('It is 22 °C and noon.', [100, 8])),
    );
    await plain.submitWithTools('Paris?', registry());
    const strip = (messages: ChatMessage[]) =>
      messages.map((message) =>
        message.role === 'assistant'
          ? { ...message, content: message.tool_calls === undefined ? message.content : null }
          : message,
      );
    expect(strip(withoutSystem(cycle))).toEqual(strip(withoutSystem(plain)));
    expect(cycle.usage()).toEqual(plain.usage());
  });

  it('reports tool progress', async () => {
    const steps = defineTool({
      name: 'steps',
      description: 'Reports progress',
      parameters: { type: 'object', properties: {} },
      execute: async (_args, context) => {
        context.progress?.({ progress: 1, total: 2, message: 'half' });
        context.progress?.({ progress: 2, total: 2 });
        return 'done';
      },
    });
    const cycle = makeCycle();
    server.reply(
      json(toolCallCompletion([{ id: 'call_p', name: 'steps', arguments: '{}' }])),
      json(textCompletion('ok')),
    );
    const { events } = await collect(
      cycle.submitStreamWithTools('go', new ToolRegistry().register(steps)),
    );
    expect(events.filter((event) => event.type.startsWith('tool_execution'))).toEqual([
      { type: 'tool_execution_started', toolName: 'steps', callId: 'call_p', input: {} },
      {
        type: 'tool_execution_progress',
        toolName: 'steps',
        callId: 'call_p',
        progress: { progress: 1, total: 2, message: 'half' },
      },
      {
        type: 'tool_execution_progress',
        toolName: 'steps',
        callId: 'call_p',
        progress: { progress: 2, total: 2 },
      },
      expect.objectContaining({
        type: 'tool_execution_completed',
        callId: 'call_p',
        output: 'done',
      }),
    ]);
  });

  it('throws the same LlmError as submitWithTools on a fatal tool error', async () => {
    const cycle = makeCycle();
    server.reply({
      kind: 'sse',
      writes: toolCallStream([{ id: 'call_io', name: 'read_file', pieces: ['{"path":"/x"}'] }]),
    });
    const events: StreamEvent[] = [];
    const error = await streamError(cycle.submitStreamWithTools('read', registry()), events);
    expect([error.code, error.toolName]).toEqual(['tool_error', 'read_file']);
    expect(events[events.length - 1]).toMatchObject({
      type: 'tool_execution_completed',
      callId: 'call_io',
      error: expect.any(ToolError),
    });
    expect(roles(withoutSystem(cycle))).toEqual(['user', 'assistant', 'tool']);
  });

  it('a consumer that breaks during the text stream cancels the request; history unchanged', async () => {
    const cycle = makeCycle();
    server.reply({
      kind: 'sse',
      writes: textStream(Array.from({ length: 100 }, (_, index) => `t${index} `)),
      pause: 3,
    });
    const before = server.disconnects();
    for await (const event of cycle.submitStreamWithTools('long', registry())) {
      if (event.type === 'assistant_text_delta') break;
    }
    await expect.poll(() => server.disconnects()).toBeGreaterThan(before);
    expect(withoutSystem(cycle)).toEqual([]);
    server.reply(json(textCompletion('free again')));
    expect((await cycle.submit('next')).message.content).toBe('free again');
  });

  it('a consumer that breaks while tools run cancels them and keeps the history whole', async () => {
    let toolSignal: AbortSignal | undefined;
    const wait = waitForever((signal) => {
      toolSignal = signal;
    });
    const cycle = makeCycle();
    server.reply({
      kind: 'sse',
      writes: toolCallStream([{ id: 'call_w', name: 'wait_forever', pieces: ['{}'] }]),
    });
    for await (const event of cycle.submitStreamWithTools(
      'wait',
      new ToolRegistry().register(wait),
    )) {
      if (event.type === 'turn_complete') break;
    }
    expect(toolSignal?.aborted).toBe(true);
    expect(
      withoutSystem(cycle).map((message) => [
        message.role,
        message.role === 'tool' ? message.content.slice(0, 19) : '',
      ]),
    ).toEqual([
      ['user', ''],
      ['assistant', ''],
      ['tool', 'Error [cancelled]: '],
    ]);
  });
});

describe('LlmCycle tool loop: arguments, errors and limits', () => {
  it("runs the tool calls of a non-streamed answer whose finish_reason is 'stop'", async () => {
    const cycle = makeCycle();
    server.reply(
      json(
        toolCallCompletion([{ id: 'call_s', name: 'get_time', arguments: '{"zone":"CET"}' }], {
          finishReason: 'stop',
        }),
      ),
      json(textCompletion('It is noon.')),
    );
    const response = await cycle.submitWithTools('time?', registry());
    expect(response.message.content).toBe('It is noon.');
    expect(withoutSystem(cycle)[2]).toEqual({
      role: 'tool',
      tool_call_id: 'call_s',
      content: '{"zone":"CET","time":"12:00"}',
    });
    expect(server.requests).toHaveLength(2);
  });

  it('treats empty arguments as {} (the tool runs with {}, the event shows {})', async () => {
    const received: unknown[] = [];
    const echo = defineTool({
      name: 'echo_args',
      description: 'Records its arguments',
      parameters: { type: 'object', properties: {}, additionalProperties: false },
      execute: async (args) => {
        received.push(args);
        return 'ok';
      },
    });
    const tools = new ToolRegistry().register(echo);
    server.reply(
      json(
        toolCallCompletion([
          { id: 'call_empty', name: 'echo_args', arguments: '' },
          { id: 'call_blank', name: 'echo_args', arguments: '  ' },
        ]),
      ),
      json(textCompletion('done')),
      {
        kind: 'sse',
        writes: toolCallStream([{ id: 'call_streamed', name: 'echo_args', pieces: [''] }]),
      },
      { kind: 'sse', writes: textStream(['done']) },
    );
    const cycle = makeCycle();
    await cycle.submitWithTools('go', tools);
    const { events } = await collect(cycle.submitStreamWithTools('again', tools));
    expect(received).toEqual([{}, {}, {}]);
    expect(events.find((event) => event.type === 'tool_execution_started')).toEqual({
      type: 'tool_execution_started',
      toolName: 'echo_args',
      callId: 'call_streamed',
      input: {},
    });
    expect(
      withoutSystem(cycle)
        .filter((message) => message.role === 'tool')
        .map((message) => message.content),
    ).toEqual(['ok', 'ok', 'ok']);
  });

  it('gives each call toolTimeoutMs: a tool that overruns gets a timeout message, its signal fires, the loop goes on', async () => {
    let toolSignal: AbortSignal | undefined;
    const stuck = defineTool({
      name: 'stuck',
      description: 'Never finishes on its own',
      parameters: { type: 'object', properties: {} },
      execute: (_args, context) =>
        new Promise<string>(() => {
          toolSignal = context.signal;
        }),
    });
    const picky = defineTool({
      name: 'picky',
      description: 'Fails with a recoverable code other',
      parameters: { type: 'object', properties: {} },
      execute: async (): Promise<string> => {
        throw new ToolError('other', 'Try again with a smaller page size.');
      },
    });
    const cycle = makeCycle({ toolTimeoutMs: 150 });
    server.reply(
      json(
        toolCallCompletion([
          { id: 'call_stuck', name: 'stuck', arguments: '{}' },
          { id: 'call_picky', name: 'picky', arguments: '{}' },
        ]),
      ),
      json(textCompletion('Both tools failed; here is what I know.')),
    );
    const response = await cycle.submitWithTools(
      'go',
      new ToolRegistry({ timeoutMs: 60_000 }).registerAll([stuck, picky]),
    );
    expect(response.message.content).toBe('Both tools failed; here is what I know.');
    expect(toolSignal?.aborted).toBe(true);
    const history = withoutSystem(cycle);
    expect(history[2]).toMatchObject({ role: 'tool', tool_call_id: 'call_stuck' });
    expect(history[2]?.content).toMatch(/^Error \[timeout\]: .*150 ms/);
    expect(history[3]).toEqual({
      role: 'tool',
      tool_call_id: 'call_picky',
      content: 'Error [other]: Try again with a smaller page size.',
    });
    expect(sent(1).messages.slice(-2)).toEqual(history.slice(2, 4));
  });

  it('ends the loop on permission_denied (registry with a PermissionChecker): the tool never runs, history whole', async () => {
    let ran = false;
    const shell = defineTool({
      name: 'run_shell',
      description: 'Runs a shell command',
      parameters: { type: 'object', properties: { command: { type: 'string' } } },
      requiredPermissions: ['shell'],
      execute: async () => {
        ran = true;
        return 'ran';
      },
    });
    const tools = new ToolRegistry()
      .withPermissionChecker(new PermissionChecker())
      .registerAll([shell, clock]);
    const cycle = makeCycle();
    server.reply(
      json(
        toolCallCompletion([
          { id: 'call_time', name: 'get_time', arguments: '{}' },
          { id: 'call_shell', name: 'run_shell', arguments: '{"command":"rm -rf /"}' },
        ]),
      ),
    );
    const error = await rejection(cycle.submitWithTools('clean up', tools));
    expect([error.code, error.toolName]).toEqual(['tool_error', 'run_shell']);
    expect(ToolError.isInstance(error.cause)).toBe(true);
    expect((error.cause as ToolError).code).toBe('permission_denied');
    expect(ran).toBe(false);
    const history = withoutSystem(cycle);
    expect(roles(history)).toEqual(['user', 'assistant', 'tool', 'tool']);
    expect(history[2]).toEqual({
      role: 'tool',
      tool_call_id: 'call_time',
      content: '{"zone":"UTC","time":"12:00"}',
    });
    expect(history[3]).toMatchObject({ role: 'tool', tool_call_id: 'call_shell' });
    expect(history[3]?.content).toMatch(/^Error \[permission_denied\]/);
    expect(server.requests).toHaveLength(1);
  });

  it('ends the loop on an mcp_* error thrown by a tool; the cause is that very ToolError', async () => {
    for (const code of ['mcp_error', 'mcp_timeout', 'mcp_not_initialized'] as const) {
      const thrown = new ToolError(code, `The MCP server failed (${code}).`);
      const remote = defineTool({
        name: 'remote_search',
        description: 'A tool served by an MCP server',
        parameters: { type: 'object', properties: {} },
        execute: async (): Promise<string> => {
          throw thrown;
        },
      });
      const cycle = makeCycle();
      server.reply(
        json(toolCallCompletion([{ id: `call_${code}`, name: 'remote_search', arguments: '{}' }])),
      );
      const error = await rejection(
        cycle.submitWithTools('search', new ToolRegistry().register(remote)),
      );
      expect([error.code, error.toolName]).toEqual(['tool_error', 'remote_search']);
      expect(error.cause).toBe(thrown);
      expect(withoutSystem(cycle)[2]).toEqual({
        role: 'tool',
        tool_call_id: `call_${code}`,
        content: `Error [${code}]: The MCP server failed (${code}).`,
      });
      server.requests.length = 0;
    }
  });

  it('cuts tool messages at the default 16 KiB and keeps them whole with maxToolResultBytes: null', async () => {
    const long = defineTool({
      name: 'long_text',
      description: 'Returns 20 000 characters',
      parameters: { type: 'object', properties: {} },
      execute: async () => 'x'.repeat(20_000),
    });
    const tools = new ToolRegistry().register(long);
    const sizes: number[] = [];
    for (const options of [{}, { maxToolResultBytes: null }]) {
      const cycle = makeCycle(options);
      server.reply(
        json(toolCallCompletion([{ id: 'call_long', name: 'long_text', arguments: '{}' }])),
        json(textCompletion('ok')),
      );
      await cycle.submitWithTools('long', tools);
      const content = withoutSystem(cycle)[2]?.content;
      if (typeof content !== 'string') throw new Error('no tool message');
      sizes.push(Buffer.byteLength(content));
      if (sizes.length === 1) expect(content).toMatch(/…\[truncated: \d+ of 20000 bytes cut\]$/);
    }
    expect(sizes[0]).toBeLessThanOrEqual(16 * 1024);
    expect(sizes[0]).toBeGreaterThan(16 * 1024 - 64);
    expect(sizes[1]).toBe(20_000);
  });

  it('throws max_turns_exceeded from the stream too, with the same history as submitWithTools', async () => {
    const cycle = makeCycle({ maxTurns: 2 });
    server.reply(
      { kind: 'sse', writes: toolCallStream([{ id: 'call_1', name: 'get_time', pieces: ['{}'] }]) },
      { kind: 'sse', writes: toolCallStream([{ id: 'call_2', name: 'get_time', pieces: ['{}'] }]) },
    );
    const events: StreamEvent[] = [];
    const error = await streamError(cycle.submitStreamWithTools('loop', registry()), events);
    expect(error.code).toBe('max_turns_exceeded');
    expect(error.response?.message.tool_calls?.[0]?.id).toBe('call_2');
    expect(roles(withoutSystem(cycle))).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool']);
    expect(events.filter((event) => event.type === 'tool_execution_completed')).toHaveLength(2);
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
    server.reply(
      { kind: 'json', status: 408, body: errorBody('Request timed out', 'timeout', null) },
      { kind: 'json', status: 409, body: errorBody('Conflict, retry', 'conflict', null) },
      { kind: 'sse', writes: [], finish: 'cut' },
      json(textCompletion('at last')),
    );
    expect((await cycle.submit('hi')).message.content).toBe('at last');
    expect(retried).toEqual([408, 409, 0]);
    expect(server.requests).toHaveLength(4);
  });

  it('never retries 401, 403, 404 or 422', async () => {
    for (const status of [401, 403, 404, 422]) {
      server.requests.length = 0;
      let retries = 0;
      const cycle = makeCycle({ retry: { initialDelayMs: 1, onRetry: () => retries++ } });
      server.reply({ kind: 'json', status, body: errorBody(`status ${status}`, 'invalid', null) });
      const error = await rejection(cycle.submit('hi'));
      expect([error.code, error.statusCode, error.isRetryable]).toEqual([
        'http_error',
        status,
        false,
      ]);
      expect(retries).toBe(0);
      expect(server.requests).toHaveLength(1);
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
    server.reply(
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
    expect(server.requests).toHaveLength(2);
  });
});

describe('LlmCycle cancellation while streaming', () => {
  it('aborting during a streamed request stops it and throws cancelled; no retry, history as it was', async () => {
    const cycle = makeCycle();
    server.reply({
      kind: 'sse',
      writes: textStream(Array.from({ length: 200 }, (_, index) => `t${index} `)),
      pause: 5,
    });
    const controller = new AbortController();
    const events: StreamEvent[] = [];
    const stream = cycle.submitStreamWithTools('long', registry(), { signal: controller.signal });
    const failure = streamError(stream, events);
    await expect.poll(() => events.length).toBeGreaterThan(1);
    controller.abort();
    const error = await failure;
    expect(error.code).toBe('cancelled');
    expect(server.requests).toHaveLength(1);
    expect(withoutSystem(cycle)).toEqual([]);
    await expect.poll(() => server.disconnects()).toBeGreaterThanOrEqual(1);
  });

  it('aborting during a tool fires its signal, throws cancelled and leaves a cancelled tool message', async () => {
    let toolSignal: AbortSignal | undefined;
    const wait = waitForever((signal) => {
      toolSignal = signal;
    });
    const cycle = makeCycle();
    server.reply({
      kind: 'sse',
      writes: toolCallStream([{ id: 'call_w', name: 'wait_forever', pieces: ['{}'] }]),
    });
    const controller = new AbortController();
    const events: StreamEvent[] = [];
    const failure = streamError(
      cycle.submitStreamWithTools('wait', new ToolRegistry().register(wait), {
        signal: controller.signal,
      }),
      events,
    );
    await expect.poll(() => toolSignal !== undefined).toBe(true);
    controller.abort();
    const error = await failure;
    expect(error.code).toBe('cancelled');
    expect(toolSignal?.aborted).toBe(true);
    expect(roles(withoutSystem(cycle))).toEqual(['user', 'assistant', 'tool']);
    expect(withoutSystem(cycle)[2]?.content).toMatch(/^Error \[cancelled\]/);
    expect(events.at(-1)).toMatchObject({
      type: 'tool_execution_completed',
      callId: 'call_w',
      error: expect.objectContaining({ code: 'cancelled' }),
    });
  });

  it('a consumer that breaks at tool_execution_started cancels the tools that already started', async () => {
    let toolSignal: AbortSignal | undefined;
    const wait = defineTool({
      name: 'wait_forever',
      description: 'Waits until cancelled',
      parameters: { type: 'object', properties: {} },
      execute: (_args, context) =>
        new Promise<string>(() => {
          toolSignal = context.signal;
        }),
    });
    const cycle = makeCycle();
    server.reply({
      kind: 'sse',
      writes: toolCallStream([{ id: 'call_w', name: 'wait_forever', pieces: ['{}'] }]),
    });
    for await (const event of cycle.submitStreamWithTools(
      'wait',
      new ToolRegistry().register(wait),
    )) {
      if (event.type === 'tool_execution_started') break;
    }
    expect(toolSignal?.aborted).toBe(true);
    expect(roles(withoutSystem(cycle))).toEqual(['user', 'assistant', 'tool']);
    server.reply(json(textCompletion('free again')));
    expect((await cycle.submit('next')).message.content).toBe('free again');
  });
});

describe('LlmCycle over one connection', () => {
  it('runs a streamed tool loop of several turns on a single kept-alive connection', async () => {
    const own = await startChatCompletionsServer();
    try {
      const cycle = new LlmCycle({
        provider: createOpenAICompatibleProvider({ baseURL: own.baseURL }),
        model: 'gpt-4o-mini',
      });
      own.reply(
        {
          kind: 'sse',
          writes: toolCallStream([{ id: 'call_1', name: 'get_time', pieces: ['{}'] }]),
        },
        {
          kind: 'sse',
          writes: toolCallStream([
            { id: 'call_2', name: 'get_weather', pieces: ['{"city":', '"Oslo"}'] },
          ]),
        },
        { kind: 'sse', writes: textStream(['Noon ', 'in ', 'Oslo.']) },
      );
      const { response } = await collect(cycle.submitStreamWithTools('go', registry()));
      expect(response.message.content).toBe('Noon in Oslo.');
      expect(own.requests).toHaveLength(3);
      expect(own.connections()).toBe(1);
    } finally {
      await own.close();
    }
  });
});
