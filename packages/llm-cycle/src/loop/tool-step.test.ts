/**
 * The tool step reports what really happened: each call gets its own verdict, a call that
 * completed is reported with its real result, and `maxParallelToolCalls` caps a turn.
 */
import { defineTool } from '@agcore/tools-core';
import { ToolRegistry } from '@agcore/tools-registry';
import { describe, expect, it } from 'vitest';
import { LlmError } from '../llm-error.js';
import type { ChatMessage, ToolMessage } from '../messages.js';
import type { StreamEvent } from '../stream-events.js';
import {
  ScriptedProvider,
  type ScriptedToolCall,
  type ScriptStep,
  textResponse,
  toolCallsResponse,
} from '../testing/index.js';
import { LlmCycle, type LlmCycleOptions } from './llm-cycle.js';

const echo = defineTool({
  name: 'echo',
  description: 'Returns its arguments',
  parameters: { type: 'object' },
  execute: async (args) => args,
});
const fine = defineTool({
  name: 'fine',
  description: 'Always works',
  parameters: { type: 'object', properties: {} },
  execute: async () => ({ ok: true }),
});
const throwingToJson = defineTool({
  name: 'throwing_to_json',
  description: 'Returns a value whose toJSON throws',
  parameters: { type: 'object', properties: {} },
  execute: async () =>
    ({
      toJSON() {
        throw new Error('toJSON exploded');
      },
    }) as never,
});
const undefinedToJson = defineTool({
  name: 'undefined_to_json',
  description: 'Returns a value whose toJSON returns undefined',
  parameters: { type: 'object', properties: {} },
  execute: async () =>
    ({
      toJSON() {
        return undefined;
      },
    }) as never,
});

function registry(): ToolRegistry {
  return new ToolRegistry().registerAll([echo, fine, throwingToJson, undefinedToJson]);
}

function cycle(steps: ScriptStep[], options: Partial<LlmCycleOptions> = {}) {
  const provider = new ScriptedProvider(steps);
  return { provider, cycle: new LlmCycle({ provider, model: 'test', ...options }) };
}

async function run(
  target: LlmCycle,
  streaming: boolean,
  tools: ToolRegistry,
): Promise<{ events: StreamEvent[]; error?: unknown }> {
  const events: StreamEvent[] = [];
  try {
    if (streaming) {
      for await (const event of target.submitStreamWithTools('Go', tools)) events.push(event);
    } else {
      await target.submitWithTools('Go', tools);
    }
    return { events };
  } catch (error) {
    return { events, error };
  }
}

function toolMessages(messages: readonly ChatMessage[]): ToolMessage[] {
  return messages.filter((message): message is ToolMessage => message.role === 'tool');
}

const deepArguments = `{"path":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;

describe('one call that fails in an unexpected way', () => {
  for (const streaming of [false, true]) {
    const mode = streaming ? 'streamed' : 'not streamed';

    it(`arguments 100 000 levels deep fail that call only; its sibling keeps its real result (${mode})`, async () => {
      const { cycle: target, provider } = cycle([
        toolCallsResponse([
          { name: 'fine', arguments: {}, id: 'call_fine' },
          { name: 'echo', rawArguments: deepArguments, id: 'call_deep' },
        ]),
        textResponse('Recovered.'),
      ]);
      const { error } = await run(target, streaming, registry());
      expect(error).toBeUndefined();
      const [fineMessage, deepMessage] = toolMessages(target.messages());
      expect(fineMessage).toEqual({
        role: 'tool',
        tool_call_id: 'call_fine',
        content: '{"ok":true}',
      });
      expect(deepMessage?.tool_call_id).toBe('call_deep');
      expect(deepMessage?.content).toMatch(/^Error \[(execution_failed|invalid_arguments)\]/);
      expect(deepMessage?.content).not.toContain('cancelled');
      provider.assertComplete();
    });

    it(`a result whose toJSON throws or returns undefined is execution_failed for that call; the loop goes on (${mode})`, async () => {
      const { cycle: target } = cycle([
        toolCallsResponse([
          { name: 'throwing_to_json', arguments: {}, id: 'call_throw' },
          { name: 'fine', arguments: {}, id: 'call_fine' },
          { name: 'undefined_to_json', arguments: {}, id: 'call_undefined' },
        ]),
        textResponse('Recovered.'),
      ]);
      const { error, events } = await run(target, streaming, registry());
      expect(error).toBeUndefined();
      const messages = toolMessages(target.messages());
      expect(messages.map((message) => message.tool_call_id)).toEqual([
        'call_throw',
        'call_fine',
        'call_undefined',
      ]);
      expect(messages[0]?.content).toMatch(/^Error \[execution_failed\].*toJSON exploded/);
      expect(messages[1]?.content).toBe('{"ok":true}');
      expect(messages[2]?.content).toMatch(/^Error \[execution_failed\]/);
      if (streaming) {
        const completed = events.filter((event) => event.type === 'tool_execution_completed');
        expect(completed).toHaveLength(3);
        const byId = new Map(completed.map((event) => [event.callId, event]));
        expect(byId.get('call_fine')?.output).toEqual({ ok: true });
        expect(byId.get('call_throw')?.error?.code).toBe('execution_failed');
        expect(byId.get('call_undefined')?.error?.code).toBe('execution_failed');
      }
    });
  }

  it('a registry whose invoke rejects gives that call its own verdict, not the whole turn', async () => {
    const tools = registry();
    const invoke = tools.invoke.bind(tools);
    tools.invoke = (name, args, options) =>
      name === 'echo' ? Promise.reject(new RangeError('stack blown')) : invoke(name, args, options);
    tools.invokeAll = () => Promise.reject(new Error('invokeAll must not decide for every call'));
    for (const streaming of [false, true]) {
      const { cycle: target } = cycle([
        toolCallsResponse([
          { name: 'echo', arguments: {}, id: 'call_echo' },
          { name: 'fine', arguments: {}, id: 'call_fine' },
        ]),
        textResponse('Recovered.'),
      ]);
      const { error } = await run(target, streaming, tools);
      expect(error).toBeUndefined();
      const [echoMessage, fineMessage] = toolMessages(target.messages());
      expect(echoMessage?.content).toMatch(/^Error \[execution_failed\].*stack blown/);
      expect(fineMessage?.content).toBe('{"ok":true}');
    }
  });

  it('when the turn is cancelled, a sibling that completed keeps its result; the running one is cancelled', async () => {
    let started: () => void = () => undefined;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const hang = defineTool({
      name: 'hang',
      description: 'Runs until cancelled',
      parameters: { type: 'object', properties: {} },
      execute: (_args, context) =>
        new Promise<never>((_resolve, reject) => {
          started();
          context.signal.addEventListener('abort', () => reject(new Error('stopped')));
        }),
    });
    const tools = registry().register(hang);
    for (const streaming of [false, true]) {
      const controller = new AbortController();
      const { cycle: target } = cycle([
        toolCallsResponse([
          { name: 'fine', arguments: {}, id: 'call_fine' },
          { name: 'hang', arguments: {}, id: 'call_hang' },
        ]),
      ]);
      void running.then(() => setTimeout(() => controller.abort(new Error('user stop')), 5));
      const promise = streaming
        ? (async () => {
            for await (const _event of target.submitStreamWithTools('Go', tools, {
              signal: controller.signal,
            }));
          })()
        : target.submitWithTools('Go', tools, { signal: controller.signal });
      const error = await promise.then(
        () => undefined,
        (reason: unknown) => reason,
      );
      expect(LlmError.isInstance(error) && error.code).toBe('cancelled');
      const [fineMessage, hangMessage] = toolMessages(target.messages());
      expect(fineMessage?.content).toBe('{"ok":true}');
      expect(hangMessage?.content).toMatch(/^Error \[cancelled\]/);
    }
  });
});

describe('maxParallelToolCalls', () => {
  function counting() {
    let running = 0;
    let peak = 0;
    const tool = defineTool({
      name: 'count',
      description: 'Counts calls running at once',
      parameters: { type: 'object', properties: { n: { type: 'number' } } },
      execute: async ({ n }) => {
        running++;
        peak = Math.max(peak, running);
        await new Promise((resolve) => setTimeout(resolve, 5));
        running--;
        return { n: n ?? -1 };
      },
    });
    return { tool, peak: () => peak };
  }

  const calls = (count: number): ScriptedToolCall[] =>
    Array.from({ length: count }, (_, index) => ({
      name: 'count',
      arguments: { n: index },
      id: `call_${index}`,
    }));

  it('caps the calls of one turn running at once; results stay in call order', async () => {
    for (const streaming of [false, true]) {
      const { tool, peak } = counting();
      const { cycle: target } = cycle([toolCallsResponse(calls(12)), textResponse('ok')], {
        maxParallelToolCalls: 3,
      });
      const { error } = await run(target, streaming, new ToolRegistry().register(tool));
      expect(error).toBeUndefined();
      expect(peak()).toBe(3);
      expect(toolMessages(target.messages()).map((message) => message.content)).toEqual(
        Array.from({ length: 12 }, (_, index) => `{"n":${index}}`),
      );
    }
  });

  it('is unlimited by default', async () => {
    const { tool, peak } = counting();
    const { cycle: target } = cycle([toolCallsResponse(calls(12)), textResponse('ok')]);
    await target.submitWithTools('Go', new ToolRegistry().register(tool));
    expect(peak()).toBe(12);
  });

  it('refuses a cap that is not a positive integer', () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      expect(
        () =>
          new LlmCycle({ provider: new ScriptedProvider(), model: 'x', maxParallelToolCalls: bad }),
      ).toThrow(RangeError);
    }
  });
});
