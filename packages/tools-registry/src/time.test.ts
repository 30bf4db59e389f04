import type { AnyTool, ToolContext } from '@agcore/tools-core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ToolInvocation } from './tool-invocation.js';
import { ToolRegistry } from './tool-registry.js';

// Issue 9, section 5 and issue 11 point 4: one clock per call; progress extends a call's time
// only when the application asks for it, never past a hard maximum; the verdict is `timeout`.

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance', 'Date'] });
});
afterEach(() => {
  vi.useRealTimers();
});

/** A tool that reports progress every `everyMs` and never finishes; records its deadlines. */
function reporter(everyMs: number, deadlines: (number | undefined)[]): AnyTool {
  return {
    name: 'reporter',
    description: 'reports progress forever',
    parameters: { type: 'object' },
    execute: (_args, context: ToolContext) =>
      new Promise((_resolve, reject) => {
        deadlines.push(context.deadline);
        const tick = (): void => {
          context.progress?.({ progress: 1 });
          deadlines.push(context.deadline);
          timer = setTimeout(tick, everyMs);
        };
        let timer = setTimeout(tick, everyMs);
        context.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          reject(context.signal.reason);
        });
      }),
  };
}

function failure(invocation: ToolInvocation | undefined) {
  return invocation === undefined || invocation.output.ok ? undefined : invocation.output.error;
}

async function settleAfter(pending: Promise<ToolInvocation>, ms: number) {
  let done: ToolInvocation | undefined;
  void pending.then((invocation) => {
    done = invocation;
  });
  let waited = 0;
  while (done === undefined && waited < ms) {
    await vi.advanceTimersByTimeAsync(10);
    waited += 10;
  }
  return { invocation: done, waitedMs: waited };
}

describe('progress and time', () => {
  it('by default progress never extends a call: timeout after timeoutMs', async () => {
    const deadlines: (number | undefined)[] = [];
    const registry = new ToolRegistry({ timeoutMs: 100 }).register(reporter(30, deadlines));
    const start = Date.now();
    const { invocation, waitedMs } = await settleAfter(registry.invoke('reporter', {}), 1_000);
    expect(waitedMs).toBe(100);
    expect(failure(invocation)?.code).toBe('timeout');
    expect(new Set(deadlines)).toEqual(new Set([start + 100]));
  });

  it('with resetTimeoutOnProgress, each report moves the deadline, up to maxTotalTimeoutMs', async () => {
    const deadlines: (number | undefined)[] = [];
    const registry = new ToolRegistry({
      timeoutMs: 100,
      resetTimeoutOnProgress: true,
      maxTotalTimeoutMs: 250,
    }).register(reporter(30, deadlines));
    const start = Date.now();
    const { invocation, waitedMs } = await settleAfter(registry.invoke('reporter', {}), 1_000);
    expect(waitedMs).toBe(250);
    expect(failure(invocation)?.message).toContain(
      'did not finish within its maximum of 250 ms (maxTotalTimeoutMs)',
    );
    expect(deadlines[0]).toBe(start + 100);
    expect(deadlines[1]).toBe(start + 130); // reported at 30 ms
    expect(deadlines.at(-1)).toBe(start + 250); // capped
  });

  it('with resetTimeoutOnProgress, a call that stops reporting times out timeoutMs later', async () => {
    const registry = new ToolRegistry({ timeoutMs: 100 }).register({
      name: 'stops',
      description: 'reports twice, then hangs',
      parameters: { type: 'object' },
      execute: (_args, context) =>
        new Promise(() => {
          setTimeout(() => context.progress?.({ progress: 1 }), 50);
          setTimeout(() => context.progress?.({ progress: 2 }), 90);
        }),
    });
    const pending = registry.invoke('stops', {}, { resetTimeoutOnProgress: true });
    const { invocation, waitedMs } = await settleAfter(pending, 2_000);
    expect(waitedMs).toBe(190);
    expect(failure(invocation)?.message).toContain('reported no progress for 100 ms');
  });

  it('gives the tool a progress function when extension is on, even without a listener', async () => {
    const seen: unknown[] = [];
    const registry = new ToolRegistry({ resetTimeoutOnProgress: true }).register({
      name: 'probe',
      description: 'd',
      parameters: { type: 'object' },
      execute: async (_args, context) => {
        seen.push(typeof context.progress);
        return null;
      },
    });
    await registry.invoke('probe', {});
    await registry.invoke('probe', {}, { resetTimeoutOnProgress: false });
    expect(seen).toEqual(['function', 'undefined']);
  });

  it('refuses an unbounded extension and wrong kinds of time options with a TypeError', () => {
    expect(
      () => new ToolRegistry({ resetTimeoutOnProgress: true, maxTotalTimeoutMs: Infinity }),
    ).toThrow(/ToolRegistryOptions\.maxTotalTimeoutMs must be finite/);
    expect(() => new ToolRegistry({ resetTimeoutOnProgress: 'yes' as never })).toThrow(
      /ToolRegistryOptions\.resetTimeoutOnProgress must be true or false/,
    );
    expect(() => new ToolRegistry({ maxTotalTimeoutMs: -5 })).toThrow(TypeError);
  });
});

describe('callTimeLimitMs', () => {
  it('is the longest a call may run under the registry policy, Infinity without one', () => {
    expect(new ToolRegistry().callTimeLimitMs).toBe(60_000);
    expect(new ToolRegistry({ timeoutMs: 500 }).callTimeLimitMs).toBe(500);
    expect(new ToolRegistry({ timeoutMs: 500, maxTotalTimeoutMs: 200 }).callTimeLimitMs).toBe(200);
    expect(new ToolRegistry({ timeoutMs: 500, resetTimeoutOnProgress: true }).callTimeLimitMs).toBe(
      5000,
    );
    expect(new ToolRegistry({ timeoutMs: 0 }).callTimeLimitMs).toBe(Number.POSITIVE_INFINITY);
  });
});
