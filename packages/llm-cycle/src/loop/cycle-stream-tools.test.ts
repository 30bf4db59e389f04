/**
 * `LlmCycle.submitStreamWithTools` over the wire-format server: event order, progress, errors,
 * consumers that break off, and a loop on one kept-alive connection.
 */
import { defineTool, ToolError } from '@agcore/tools-core';
import { ToolRegistry } from '@agcore/tools-registry';
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../messages.js';
import { createOpenAICompatibleProvider } from '../providers/openai-compatible/openai-compatible-provider.js';
import type { StreamEvent } from '../stream-events.js';
import {
  json,
  registry,
  roles,
  useCycleServer,
  waitForever,
  withoutSystem,
} from '../test-support/cycle-kit.js';
import { collectEvents, streamError } from '../test-support/results.js';
import {
  type ServerReply,
  startChatCompletionsServer,
  textCompletion,
  textStream,
  toolCallCompletion,
  toolCallStream,
} from '../testing/index.js';
import { LlmCycle } from './llm-cycle.js';

const wire = useCycleServer();
const { makeCycle } = wire;

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
    wire.server.reply(...conversation());
    const { events, response } = await collectEvents(
      cycle.submitStreamWithTools('Paris?', registry()),
    );
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
    wire.server.reply(
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
    wire.server.reply(
      json(toolCallCompletion([{ id: 'call_p', name: 'steps', arguments: '{}' }])),
      json(textCompletion('ok')),
    );
    const { events } = await collectEvents(
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
    wire.server.reply({
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
    wire.server.reply({
      kind: 'sse',
      writes: textStream(Array.from({ length: 100 }, (_, index) => `t${index} `)),
      pause: 3,
    });
    const before = wire.server.disconnects();
    for await (const event of cycle.submitStreamWithTools('long', registry())) {
      if (event.type === 'assistant_text_delta') break;
    }
    await expect.poll(() => wire.server.disconnects()).toBeGreaterThan(before);
    expect(withoutSystem(cycle)).toEqual([]);
    wire.server.reply(json(textCompletion('free again')));
    expect((await cycle.submit('next')).message.content).toBe('free again');
  });

  it('a consumer that breaks while tools run cancels them and keeps the history whole', async () => {
    let toolSignal: AbortSignal | undefined;
    const wait = waitForever((signal) => {
      toolSignal = signal;
    });
    const cycle = makeCycle();
    wire.server.reply({
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
      const { response } = await collectEvents(cycle.submitStreamWithTools('go', registry()));
      expect(response.message.content).toBe('Noon in Oslo.');
      expect(own.requests).toHaveLength(3);
      expect(own.connections()).toBe(1);
    } finally {
      await own.close();
    }
  });
});
