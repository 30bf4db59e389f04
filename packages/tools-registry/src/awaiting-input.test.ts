import {
  type AnyTool,
  awaitInput,
  defineTool,
  isAwaitingInput,
  Permission,
  type ToolContext,
} from '@agcore/tools-core';
import { PermissionChecker } from '@agcore/tools-permission';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ToolRegistry } from './tool-registry.js';

// Issue 12, section 3: a tool that asks back is its own outcome, and `checkCall` runs the checks
// of `invoke` without running the tool.

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
beforeEach(() => {
  unhandled.length = 0;
  process.on('unhandledRejection', onUnhandled);
});
afterEach(async () => {
  await new Promise((resolve) => setTimeout(resolve, 5));
  process.off('unhandledRejection', onUnhandled);
  expect(unhandled).toEqual([]);
});

const contexts: ToolContext[] = [];
const transfer = defineTool({
  name: 'transfer',
  description: 'Sends money; asks before a large transfer',
  parameters: {
    type: 'object',
    properties: { amount: { type: 'number' } },
    required: ['amount'],
  },
  execute: async ({ amount }, context) => {
    contexts.push(context);
    if (amount > 5000 && context.input === undefined) {
      return awaitInput({
        prompt: `A suspicious transfer of ${amount} €: freeze?`,
        data: { amount },
      });
    }
    return { sent: amount, answer: context.input?.value ?? null };
  },
});

function raw(name: string, execute: (args: unknown) => unknown): AnyTool {
  return {
    name,
    description: 'raw',
    parameters: { type: 'object' },
    execute: execute as AnyTool['execute'],
  };
}

describe('a tool that returns awaitInput()', () => {
  it('is reported as awaitingInput, with an explaining error for callers that only read ok/error', async () => {
    const registry = new ToolRegistry().register(transfer);
    const { output } = await registry.invoke('transfer', { amount: 9000 });
    expect(output.ok).toBe(false);
    expect(output.awaitingInput?.prompt).toBe('A suspicious transfer of 9000 €: freeze?');
    expect(output.awaitingInput?.data).toEqual({ amount: 9000 });
    expect(isAwaitingInput(output.awaitingInput)).toBe(true);
    // What a consumer written before awaitingInput existed reads: a typed error that says why.
    if (output.ok) throw new Error('unreachable');
    expect(output.error.code).toBe('other');
    expect(output.error.message).toMatch(/asks a person.*freeze\?.*awaitingInput/);
    const stats = registry.entry('transfer')?.stats;
    expect(stats?.calls).toBe(1);
    expect(stats?.failures).toBe(0);
  });

  it('gets context.input when called again with the answer', async () => {
    const registry = new ToolRegistry().register(transfer);
    const { output } = await registry.invoke(
      'transfer',
      { amount: 9000 },
      { context: { input: { value: 'no', data: { amount: 9000 } } } },
    );
    expect(output).toEqual({ ok: true, value: { sent: 9000, answer: 'no' } });
    expect(contexts.at(-1)?.input).toEqual({ value: 'no', data: { amount: 9000 } });
  });

  it('a result that only looks like one (JSON from a server) is a plain result', async () => {
    const registry = new ToolRegistry().register(
      raw('echo', () => JSON.parse('{"prompt":"approve everything?","data":{}}')),
    );
    const { output } = await registry.invoke('echo', {});
    expect(output).toEqual({ ok: true, value: { prompt: 'approve everything?', data: {} } });
  });

  it('a forged one whose fields throw or are not JSON is execution_failed, never a rejection', async () => {
    const brand = Symbol.for('@agcore/tools-core.AwaitingInput');
    const throwing = Object.defineProperty({ [brand]: true }, 'prompt', {
      get() {
        throw new Error('prompt getter');
      },
    });
    const registry = new ToolRegistry().registerAll([
      raw('throwing', () => throwing),
      raw('no_prompt', () => ({ [brand]: true, prompt: '' })),
      raw('bad_data', () => ({ [brand]: true, prompt: 'p', data: () => 1 })),
    ]);
    for (const name of ['throwing', 'no_prompt', 'bad_data']) {
      const { output } = await registry.invoke(name, {});
      expect(output.awaitingInput).toBeUndefined();
      expect(output.ok ? 'ok' : output.error.code).toBe('execution_failed');
    }
  });

  it('under invokeAll, siblings that complete, fail and time out each keep their own outcome', async () => {
    const registry = new ToolRegistry({ timeoutMs: 50 }).registerAll([
      transfer,
      raw('fine', () => ({ ok: true })),
      raw('broken', () => {
        throw new Error('broken');
      }),
      raw('hang', () => new Promise(() => undefined)),
    ]);
    const results = await registry.invokeAll([
      { name: 'transfer', args: { amount: 9000 }, callId: 'a' },
      { name: 'fine', args: {}, callId: 'b' },
      { name: 'broken', args: {}, callId: 'c' },
      { name: 'hang', args: {}, callId: 'd' },
    ]);
    expect(results.map((result) => result.callId)).toEqual(['a', 'b', 'c', 'd']);
    expect(results[0]?.output.awaitingInput?.prompt).toMatch(/9000/);
    expect(results[1]?.output).toEqual({ ok: true, value: { ok: true } });
    expect(results.slice(2).map(({ output }) => (output.ok ? 'ok' : output.error.code))).toEqual([
      'execution_failed',
      'timeout',
    ]);
  });
});

describe('checkCall', () => {
  it('reports what invoke would refuse, without running the tool', async () => {
    let runs = 0;
    const shell = defineTool({
      name: 'shell',
      description: 'd',
      parameters: { type: 'object', properties: { cmd: { type: 'string' } }, required: ['cmd'] },
      requiredPermissions: [Permission.Shell],
      execute: async () => {
        runs++;
        return null;
      },
    });
    const open = defineTool({
      name: 'open',
      description: 'd',
      parameters: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
      execute: async () => {
        runs++;
        return null;
      },
    });
    const registry = new ToolRegistry()
      .registerAll([shell, open])
      .withPermissionChecker(new PermissionChecker());
    expect(registry.checkCall('nope', {})?.code).toBe('not_found');
    expect(registry.checkCall('shell', { cmd: 'ls' })?.code).toBe('permission_denied');
    expect(registry.checkCall('open', { n: 'x' })?.code).toBe('invalid_arguments');
    expect(registry.checkCall('open', { n: 1 })).toBeUndefined();
    expect(registry.checkCall(42 as never, {})?.code).toBe('not_found');
    const invoked = await registry.invoke('open', { n: 'x' });
    expect(invoked.output.ok ? undefined : invoked.output.error.message).toBe(
      registry.checkCall('open', { n: 'x' })?.message,
    );
    expect(runs).toBe(0);
  });
});
