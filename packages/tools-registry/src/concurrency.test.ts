import { getEventListeners } from 'node:events';
import type { AnyTool } from '@agcore/tools-core';
import { describe, expect, it } from 'vitest';
import { activeDeadlineQueues } from './deadline-queue.js';
import { ToolRegistry } from './tool-registry.js';

// Issue 9, section 4: many concurrent calls on one signal, many distinct time limits.

const waitsForAbort: AnyTool = {
  name: 'wait',
  description: 'waits until aborted',
  parameters: { type: 'object' },
  execute: (_args, { signal }) =>
    new Promise((_resolve, reject) => {
      signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    }),
};

describe('one caller signal, many calls', () => {
  it('10 000 concurrent calls put one listener on the signal, and none once they settle', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const registry = new ToolRegistry().register(waitsForAbort);
      const controller = new AbortController();
      const pending = Array.from({ length: 10_000 }, () =>
        registry.invoke('wait', {}, { signal: controller.signal }),
      );
      await new Promise((resolve) => setImmediate(resolve));
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
      controller.abort(new Error('user pressed stop'));
      const results = await Promise.all(pending);
      expect(results.every((r) => !r.output.ok && r.output.error.code === 'cancelled')).toBe(true);
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('leaves nothing on a long-lived signal after calls that finish normally', async () => {
    const registry = new ToolRegistry().register({
      ...waitsForAbort,
      name: 'quick',
      execute: async () => 'done',
    });
    const signal = new AbortController().signal;
    const batch = await registry.invokeAll(
      Array.from({ length: 50 }, () => ({ name: 'quick', args: {} })),
      { signal },
    );
    expect(batch.every((r) => r.output.ok)).toBe(true);
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });
});

describe('many distinct time limits', () => {
  it('keeps at most one (idle) deadline queue once 10 000 distinct timeouts have settled', async () => {
    const registry = new ToolRegistry().register({
      ...waitsForAbort,
      name: 'quick',
      execute: async () => 1,
    });
    for (let index = 0; index < 10_000; index++) {
      await registry.invoke('quick', {}, { timeoutMs: 50_000 + index });
    }
    expect(activeDeadlineQueues()).toBeLessThanOrEqual(1);
  });
});
