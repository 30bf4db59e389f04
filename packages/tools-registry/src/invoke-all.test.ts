import { defineTool } from '@agcore/tools-core';
import { describe, expect, it } from 'vitest';
import { errorOf, waiter, weather } from './test-support/fixtures.js';
import type { ToolInvocation } from './tool-invocation.js';
import { ToolRegistry } from './tool-registry.js';

describe('ToolRegistry: invokeAll', () => {
  it('runs a parallel batch, results in call order, a failure not touching the others', async () => {
    const log: string[] = [];
    const registry = new ToolRegistry({ timeoutMs: 1_000 })
      .register(waiter('slow', 60, log))
      .register(waiter('fast', 5, log))
      .register(weather);
    const results = await registry.invokeAll([
      { name: 'slow', args: {}, callId: 'a' },
      { name: 'missing', args: {}, callId: 'b' },
      { name: 'fast', args: {}, callId: 'c' },
      { name: 'get_weather', args: { city: 7 }, callId: 'd' },
    ]);
    expect(results.map((r) => r.callId)).toEqual(['a', 'b', 'c', 'd']);
    expect(results.map((r) => (r.output.ok ? 'ok' : r.output.error.code))).toEqual([
      'ok',
      'not_found',
      'ok',
      'invalid_arguments',
    ]);
    // both started before either ended: they overlapped
    expect(log.slice(0, 2).sort()).toEqual(['start:fast', 'start:slow']);
    expect(log.indexOf('end:fast')).toBeLessThan(log.indexOf('end:slow'));
  });

  it('gives each call its own timeout', async () => {
    const registry = new ToolRegistry({ timeoutMs: 40 })
      .register(waiter('slow', 5_000))
      .register(waiter('fast', 1));
    const [slow, fast] = await registry.invokeAll([
      { name: 'slow', args: {} },
      { name: 'fast', args: {} },
    ]);
    expect(slow && errorOf(slow).code).toBe('timeout');
    expect(fast?.output).toEqual({ ok: true, value: 'fast' });
  });

  it('honours a concurrency cap', async () => {
    let running = 0;
    let peak = 0;
    const counted = defineTool({
      name: 'counted',
      description: 'd',
      parameters: { type: 'object' },
      execute: async () => {
        running++;
        peak = Math.max(peak, running);
        await new Promise((resolve) => setTimeout(resolve, 5));
        running--;
        return peak;
      },
    });
    const registry = new ToolRegistry().register(counted);
    const calls = Array.from({ length: 10 }, () => ({ name: 'counted', args: {} }));
    const results = await registry.invokeAll(calls, { concurrency: 3 });
    expect(results.every((r) => r.output.ok)).toBe(true);
    expect(peak).toBe(3);
    // Never rejects: a bad concurrency is reported on every call, and none runs.
    const refused = await registry.invokeAll(calls.slice(0, 2), { concurrency: 0 });
    expect(refused.map((r) => (r.output.ok ? 'ok' : r.output.error.code))).toEqual([
      'other',
      'other',
    ]);
    expect(errorOf(refused[0] as ToolInvocation).message).toContain(
      'concurrency must be a positive integer, got 0',
    );
    expect(registry.entry('counted')?.stats.calls).toBe(10);
  });

  it('reports progress and results per call as they happen', async () => {
    const reporter = defineTool({
      name: 'reporter',
      description: 'd',
      parameters: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
      execute: async ({ n }, context) => {
        context.progress?.({ progress: n, total: 10 });
        await new Promise((resolve) => setTimeout(resolve, n));
        return n;
      },
    });
    const registry = new ToolRegistry().register(reporter);
    const events: string[] = [];
    await registry.invokeAll(
      [
        { name: 'reporter', args: { n: 30 }, callId: 'slow' },
        { name: 'reporter', args: { n: 1 }, callId: 'quick' },
      ],
      {
        onProgress: (update, call, index) =>
          events.push(`progress:${call.callId}:${index}:${update.progress}`),
        onResult: (invocation, index) => events.push(`result:${invocation.callId}:${index}`),
      },
    );
    expect(events).toEqual([
      'progress:slow:0:30',
      'progress:quick:1:1',
      'result:quick:1',
      'result:slow:0',
    ]);
  });

  it('cancels the whole batch with one signal', async () => {
    const registry = new ToolRegistry().register(waiter('slow', 5_000));
    const controller = new AbortController();
    const pending = registry.invokeAll(
      [
        { name: 'slow', args: {} },
        { name: 'slow', args: {} },
      ],
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort(), 10);
    const results = await pending;
    expect(results.map((r) => (r.output.ok ? 'ok' : r.output.error.code))).toEqual([
      'cancelled',
      'cancelled',
    ]);
  });
});
