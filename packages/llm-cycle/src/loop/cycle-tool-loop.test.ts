/**
 * `LlmCycle.submitWithTools` over the wire-format server: turns, parallel calls, bad arguments,
 * tool errors, unknown tools, max turns and truncation of tool results.
 */
import { defineTool, ToolError } from '@agcore/tools-core';
import { ToolRegistry } from '@agcore/tools-registry';
import { describe, expect, it } from 'vitest';
import {
  contexts,
  json,
  registry,
  roles,
  useCycleServer,
  weather,
  withoutSystem,
} from '../test-support/cycle-kit.js';
import { collectEvents, rejection } from '../test-support/results.js';
import {
  textCompletion,
  textStream,
  toolCallCompletion,
  toolCallStream,
} from '../testing/index.js';
import { describeBrokenToolPairs } from './compaction.js';

const wire = useCycleServer();
const { sent, makeCycle } = wire;

describe('LlmCycle.submitWithTools', () => {
  it('runs one tool turn and leaves the whole trail in messages()', async () => {
    contexts.length = 0;
    const cycle = makeCycle({ sessionId: 'session-42' });
    wire.server.reply(
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
    wire.server.reply(
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
    expect(wire.server.requests).toHaveLength(3);
  });

  it('computes the tool definitions once per loop call, not per turn', async () => {
    const tools = registry();
    let calls = 0;
    const original = tools.definitions.bind(tools);
    tools.definitions = () => {
      calls++;
      return original();
    };
    wire.server.reply(
      json(toolCallCompletion([{ id: 'call_1', name: 'get_time', arguments: '{}' }])),
      json(toolCallCompletion([{ id: 'call_2', name: 'get_time', arguments: '{}' }])),
      json(textCompletion('noon')),
    );
    await makeCycle().submitWithTools('time?', tools);
    expect(wire.server.requests).toHaveLength(3);
    expect(calls).toBe(1);
  });

  it("executes tool calls even when finish_reason is 'stop'", async () => {
    const cycle = makeCycle();
    wire.server.reply(
      {
        kind: 'sse',
        writes: toolCallStream([{ id: 'call_t', name: 'get_time', pieces: ['{"zone":"UTC"}'] }], {
          finishReason: 'stop',
        }),
      },
      { kind: 'sse', writes: textStream(['noon']) },
    );
    const { events } = await collectEvents(cycle.submitStreamWithTools('time?', registry()));
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
    wire.server.reply(
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
    wire.server.reply(
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
    wire.server.reply(
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
    wire.server.reply(json(textCompletion('Sorry, the disk is down.')));
    await cycle.submit('ok?');
    expect(sent(1).messages).toHaveLength(6);
  });

  it('treats an unknown tool as fatal by default and returns it to the model when asked', async () => {
    wire.server.reply(
      json(toolCallCompletion([{ id: 'call_x', name: 'launch_rocket', arguments: '{}' }])),
    );
    const error = await rejection(makeCycle().submitWithTools('go', registry()));
    expect([error.code, (error.cause as ToolError).code]).toEqual(['tool_error', 'not_found']);

    const cycle = makeCycle({ onUnknownTool: 'return_to_model' });
    wire.server.reply(
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
    wire.server.reply(
      json(toolCallCompletion([{ id: 'call_1', name: 'get_time', arguments: '{}' }])),
      json(toolCallCompletion([{ id: 'call_2', name: 'get_time', arguments: '{}' }])),
    );
    const error = await rejection(cycle.submitWithTools('loop', registry()));
    expect(error.code).toBe('max_turns_exceeded');
    expect(error.response?.message.tool_calls?.[0]?.id).toBe('call_2');
    expect(roles(withoutSystem(cycle))).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool']);
    expect(wire.server.requests).toHaveLength(2);
  });

  it('truncates large tool results UTF-8-safely to head + marker + tail; the event keeps the full value', async () => {
    const cycle = makeCycle({ maxToolResultBytes: 1000 });
    wire.server.reply(
      {
        kind: 'sse',
        writes: toolCallStream([{ id: 'call_big', name: 'big_result', pieces: [''] }]),
      },
      { kind: 'sse', writes: textStream(['ok']) },
    );
    const { events } = await collectEvents(cycle.submitStreamWithTools('big', registry()));
    const content = withoutSystem(cycle)[2]?.content;
    if (typeof content !== 'string') throw new Error('no tool message');
    expect(Buffer.byteLength(content)).toBeLessThanOrEqual(1000);
    expect(content).toMatch(
      /^é東🌸.*\n…\[truncated: \d+ of 45000 bytes cut from the middle\]…\n.*🌸$/su,
    );
    expect(content).not.toContain('\uFFFD');
    const completed = events.find((event) => event.type === 'tool_execution_completed');
    expect(completed).toMatchObject({ truncated: true, output: 'é東🌸'.repeat(5_000) });
    expect(sent(1).messages[3].content).toBe(content);
  });

  it('keeps even the smallest allowed limit (64 bytes), marker included, and refuses less', async () => {
    expect(() => makeCycle({ maxToolResultBytes: 63 })).toThrow(/at least 64/);
    expect(() => makeCycle({ maxToolResultBytes: 0 })).toThrow(RangeError);
    const cycle = makeCycle({ maxToolResultBytes: 64 });
    wire.server.reply(
      {
        kind: 'sse',
        writes: toolCallStream([{ id: 'call_big', name: 'big_result', pieces: [''] }]),
      },
      { kind: 'sse', writes: textStream(['ok']) },
    );
    await collectEvents(cycle.submitStreamWithTools('big', registry()));
    const content = withoutSystem(cycle)[2]?.content;
    if (typeof content !== 'string') throw new Error('no tool message');
    expect(Buffer.byteLength(content)).toBeLessThanOrEqual(64);
    expect(content).toMatch(/…\[truncated: \d+ of 45000 bytes cut from the middle\]…/);
  });
});
