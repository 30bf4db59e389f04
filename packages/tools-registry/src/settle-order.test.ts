import { type AnyTool, defineTool } from '@agcore/tools-core';
import { describe, expect, it } from 'vitest';
import type { InvokeOptions } from './options.js';
import { ToolRegistry } from './tool-registry.js';

// The LLM loop awaits `invoke` between two network requests: a macrotask hop (a timer, a
// setImmediate, an I/O turn) between the tool's result and `invoke`'s resolution would delay
// the next request by an event-loop turn. These tests pin that `invoke` settles within the
// microtasks of the turn it was called in (event order, no clock).

const weather = defineTool({
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  execute: async ({ city }: { city: string }) => ({ city, temperature: 22 }),
});

const clock = defineTool({
  name: 'get_time',
  description: 'Current time (answers synchronously)',
  parameters: { type: 'object' },
  execute: () => '12:00',
});

/** The options `LlmCycle` passes on every tool call. */
function loopOptions(signal: AbortSignal, toolCallId: string): InvokeOptions {
  return {
    timeoutMs: 60_000,
    signal,
    context: { sessionId: 'session-1', traceId: 'trace-1', toolCallId },
  };
}

/**
 * Records whether `work` settled before a `setImmediate` and a 0 ms timer queued just before it
 * was started.
 */
async function orderOf(work: () => Promise<unknown>): Promise<string[]> {
  const order: string[] = [];
  const macrotasks = Promise.all([
    new Promise<void>((resolve) =>
      setImmediate(() => {
        order.push('setImmediate');
        resolve();
      }),
    ),
    new Promise<void>((resolve) =>
      setTimeout(() => {
        order.push('setTimeout 0');
        resolve();
      }, 0),
    ),
  ]);
  await work().then(() => order.push('settled'));
  await macrotasks;
  return order;
}

function registryOf(...tools: AnyTool[]): ToolRegistry {
  return new ToolRegistry().registerAll(tools);
}

describe('invoke settles without a macrotask hop', () => {
  it('an invoke of an async tool that returns at once settles before a setImmediate queued at call time', async () => {
    const registry = registryOf(weather);
    const signal = new AbortController().signal;
    for (let round = 0; round < 3; round++) {
      const order = await orderOf(async () => {
        const invocation = await registry.invoke(
          'get_weather',
          { city: 'Paris' },
          loopOptions(signal, `call_${round}`),
        );
        expect(invocation.output).toEqual({ ok: true, value: { city: 'Paris', temperature: 22 } });
      });
      expect(order[0]).toBe('settled');
    }
  });

  it('so does a synchronous tool, with or without options', async () => {
    const registry = registryOf(clock);
    const signal = new AbortController().signal;
    expect((await orderOf(() => registry.invoke('get_time', {})))[0]).toBe('settled');
    expect(
      (await orderOf(() => registry.invoke('get_time', {}, loopOptions(signal, 'c'))))[0],
    ).toBe('settled');
  });

  it('so does an invoke observed by an onInvocation hook', async () => {
    const seen: string[] = [];
    const registry = new ToolRegistry({
      onInvocation: (invocation) => {
        seen.push(invocation.toolName);
      },
    }).register(weather);
    const signal = new AbortController().signal;
    const order = await orderOf(() =>
      registry.invoke('get_weather', { city: 'Oslo' }, loopOptions(signal, 'c')),
    );
    expect(order[0]).toBe('settled');
    expect(seen).toEqual(['get_weather']);
  });

  it('so does invokeAll of calls that return at once', async () => {
    const registry = registryOf(weather, clock);
    const signal = new AbortController().signal;
    const order = await orderOf(() =>
      registry.invokeAll(
        [
          { name: 'get_weather', args: { city: 'Rome' }, callId: 'a' },
          { name: 'get_time', args: {}, callId: 'b' },
        ],
        { signal },
      ),
    );
    expect(order[0]).toBe('settled');
  });

  it('a refused call (unknown tool, bad arguments) settles before a setImmediate too', async () => {
    const registry = registryOf(weather);
    expect((await orderOf(() => registry.invoke('nope', {})))[0]).toBe('settled');
    expect((await orderOf(() => registry.invoke('get_weather', { city: 1 })))[0]).toBe('settled');
  });
});
