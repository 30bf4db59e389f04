import { createToolContext, defineTool, type ToolContext, ToolError } from '@agcore/tools-core';
import { describe, expect, it } from 'vitest';
import { errorOf, waiter } from './test-support/fixtures.js';
import { ToolRegistry } from './tool-registry.js';

describe('ToolRegistry: invoke: time limits, signals and context', () => {
  it('times out a slow tool and aborts its signal (registry default and per call)', async () => {
    const log: string[] = [];
    const registry = new ToolRegistry({ timeoutMs: 30 }).register(waiter('slow', 5_000, log));
    const error = errorOf(await registry.invoke('slow', {}));
    expect(error.code).toBe('timeout');
    expect(error.message).toContain('within 30 ms');
    expect(log).toEqual(['start:slow', 'aborted:slow']);
    const perCall = errorOf(await registry.invoke('slow', {}, { timeoutMs: 10 }));
    expect(perCall.message).toContain('within 10 ms');
  });

  it("tells the tool its deadline: now plus the call's time limit, absent without a limit", async () => {
    const seen: Array<number | undefined> = [];
    const clock = defineTool({
      name: 'clock',
      description: 'reports its deadline',
      parameters: { type: 'object' },
      execute: async (_args, context) => {
        seen.push(context.deadline);
        return null;
      },
    });
    const registry = new ToolRegistry({ timeoutMs: 5_000 }).register(clock);
    const before = Date.now();
    await registry.invoke('clock', {});
    await registry.invoke('clock', {}, { timeoutMs: 100 });
    await registry.invoke('clock', {}, { timeoutMs: 0 });
    const after = Date.now();
    expect(seen[0]).toBeGreaterThanOrEqual(before + 5_000);
    expect(seen[0]).toBeLessThanOrEqual(after + 5_000);
    expect(seen[1]).toBeGreaterThanOrEqual(before + 100);
    expect(seen[1]).toBeLessThanOrEqual(after + 100);
    expect(seen[2]).toBeUndefined();
  });

  it('gives a tool that reads its signal only after the timeout an aborted signal', async () => {
    let seen: AbortSignal | undefined;
    const late = defineTool({
      name: 'late',
      description: 'looks at the signal late',
      parameters: { type: 'object' },
      execute: async (_args, context) => {
        await new Promise((resolve) => setTimeout(resolve, 60));
        seen = context.signal;
        return null;
      },
    });
    const registry = new ToolRegistry({ timeoutMs: 10 }).register(late);
    expect(errorOf(await registry.invoke('late', {})).code).toBe('timeout');
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(seen?.aborted).toBe(true);
    expect(ToolError.isInstance(seen?.reason) && seen?.reason.code).toBe('timeout');
  });

  it('lets a tool derive a context with createToolContext(context) and keep its signal', async () => {
    let derived: ToolContext | undefined;
    let original: ToolContext | undefined;
    const deriving = defineTool({
      name: 'deriving',
      description: 'd',
      parameters: { type: 'object' },
      execute: async (_args, context) => {
        original = context;
        derived = createToolContext(context);
        await new Promise((resolve) => setTimeout(resolve, 200));
        return null;
      },
    });
    const registry = new ToolRegistry({ timeoutMs: 20 }).register(deriving);
    await registry.invoke('deriving', {}, { context: { toolCallId: 'c9' } });
    expect(derived?.signal).toBe(original?.signal);
    expect(derived?.signal.aborted).toBe(true);
    expect(derived?.traceId).toBe(original?.traceId);
    expect(derived?.toolCallId).toBe('c9');
  });

  it('passes context fields it does not know through to the tool', async () => {
    let extra: unknown;
    const reader = defineTool({
      name: 'reader',
      description: 'd',
      parameters: { type: 'object' },
      execute: (_args, context) => {
        extra = (context as unknown as { tenant?: string }).tenant;
        return null;
      },
    });
    const registry = new ToolRegistry().register(reader);
    await registry.invoke('reader', {}, { context: { tenant: 'acme' } as never });
    expect(extra).toBe('acme');
  });

  it('times out a tool that ignores its signal, without waiting for it', async () => {
    const stubborn = defineTool({
      name: 'stubborn',
      description: 'ignores abort',
      parameters: { type: 'object' },
      execute: () =>
        new Promise<string>((resolve) =>
          setTimeout(() => {
            finished = true;
            resolve('late');
          }, 300),
        ),
    });
    let finished = false;
    const registry = new ToolRegistry({ timeoutMs: 20 }).register(stubborn);
    const invocation = await registry.invoke('stubborn', {});
    expect(errorOf(invocation).code).toBe('timeout');
    // Settled at the deadline, while the tool was still running.
    expect(finished).toBe(false);
  });

  it('cancels when the caller aborts, before or during the call', async () => {
    const log: string[] = [];
    const registry = new ToolRegistry().register(waiter('slow', 5_000, log));
    const early = new AbortController();
    early.abort(new Error('user left'));
    expect(errorOf(await registry.invoke('slow', {}, { signal: early.signal })).code).toBe(
      'cancelled',
    );
    expect(log).toEqual([]);
    const controller = new AbortController();
    const pending = registry.invoke('slow', {}, { signal: controller.signal });
    setTimeout(() => controller.abort(), 10);
    const error = errorOf(await pending);
    expect(error.code).toBe('cancelled');
    expect(error.isRecoverable()).toBe(false);
    expect(log).toEqual(['start:slow', 'aborted:slow']);
  });
});
