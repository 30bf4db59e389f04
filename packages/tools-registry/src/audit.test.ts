import { awaitInput, defineTool, Permission } from '@agcore/tools-core';
import { PermissionChecker } from '@agcore/tools-permission';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ToolEntry } from './tool-entry.js';
import type { ToolInvocation } from './tool-invocation.js';
import { ToolRegistry } from './tool-registry.js';

const add = defineTool({
  name: 'add',
  description: 'Adds two numbers',
  parameters: {
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' } },
    required: ['a', 'b'],
  },
  execute: async ({ a, b }) => a + b,
});
const fail = defineTool({
  name: 'fail',
  description: 'Throws',
  parameters: { type: 'object' },
  execute: () => {
    throw new Error('no');
  },
});
const shell = defineTool({
  name: 'run_shell',
  description: 'Refused by the policy',
  parameters: { type: 'object' },
  requiredPermissions: [Permission.Shell],
  execute: () => 'ran',
});

type Audited = { invocation: ToolInvocation; entry: ToolEntry | undefined };

function audited(options: ConstructorParameters<typeof ToolRegistry>[0] = {}) {
  const records: Audited[] = [];
  const registry = new ToolRegistry({
    permissionChecker: new PermissionChecker(),
    sessionId: 'session-9',
    onInvocation: (invocation, entry) => {
      records.push({ invocation, entry });
    },
    ...options,
  }).registerAll([add, fail, shell]);
  return { registry, records };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('ToolRegistry: onInvocation (the audit hook)', () => {
  it('is called once per settled invocation, whatever the outcome, with ids, tool, arguments, outcome and duration', async () => {
    const { registry, records } = audited();
    const results = [
      await registry.invoke(
        'add',
        { a: 1, b: 2 },
        { context: { toolCallId: 'c1', traceId: 't1' } },
      ),
      await registry.invoke('fail', {}),
      await registry.invoke('run_shell', {}),
      await registry.invoke('add', { a: 'one' }),
      await registry.invoke('missing', { x: 1 }),
      await registry.invoke('add', { a: 1, b: 2 }, { timeoutMs: -1 }),
    ];
    expect(records.map((record) => record.invocation)).toEqual(results);
    expect(
      records.map(({ invocation }) => (invocation.output.ok ? 'ok' : invocation.output.error.code)),
    ).toEqual([
      'ok',
      'execution_failed',
      'permission_denied',
      'invalid_arguments',
      'not_found',
      'other',
    ]);
    const [first] = records;
    expect(first?.invocation).toMatchObject({
      toolName: 'add',
      callId: 'c1',
      sessionId: 'session-9',
      traceId: 't1',
      input: { a: 1, b: 2 },
      output: { ok: true, value: 3 },
    });
    expect(first?.invocation.durationMs).toBeGreaterThanOrEqual(0);
    expect(first?.entry?.tool.name).toBe('add');
    expect(records[4]?.entry).toBeUndefined(); // not found: no entry
    expect(records.every((record) => record.invocation.sessionId === 'session-9')).toBe(true);
  });

  it('records a tool that asks back as its own outcome, and the call answered as another record', async () => {
    const { registry, records } = audited();
    registry.register(
      defineTool({
        name: 'transfer',
        description: 'Asks before it moves money',
        parameters: { type: 'object' },
        execute: (_args, context) =>
          context.input === undefined
            ? awaitInput({ prompt: 'Freeze the account?', data: { amount: 9000 } })
            : { frozen: context.input.value === 'yes' },
      }),
    );
    await registry.invoke('transfer', { id: 7 }, { context: { toolCallId: 'call_t' } });
    await registry.invoke(
      'transfer',
      { id: 7 },
      { context: { toolCallId: 'call_t', input: { value: 'yes', data: { amount: 9000 } } } },
    );
    expect(records).toHaveLength(2);
    const [asked, answered] = records.map((record) => record.invocation);
    expect(asked?.callId).toBe('call_t');
    expect(asked?.output).toMatchObject({
      ok: false,
      awaitingInput: { prompt: 'Freeze the account?', data: { amount: 9000 } },
    });
    expect(Object.isFrozen(asked?.output)).toBe(true);
    expect(answered?.output).toEqual({ ok: true, value: { frozen: true } });
    expect(registry.entry('transfer')?.stats).toMatchObject({ calls: 2, failures: 0 });
  });

  it('is called once per call of invokeAll, also for a batch whose options are refused and for malformed calls', async () => {
    const { registry, records } = audited();
    const batch = await registry.invokeAll([
      { name: 'add', args: { a: 1, b: 1 }, callId: 'a' },
      { name: 'fail', args: {}, callId: 'b' },
      null as never,
    ]);
    // Recorded as each call settles: the same invocations, in settling order.
    expect(records).toHaveLength(batch.length);
    expect(records.map((record) => record.invocation)).toEqual(expect.arrayContaining(batch));
    records.length = 0;
    const refused = await registry.invokeAll(
      [
        { name: 'add', args: { a: 1, b: 1 } },
        { name: 'add', args: { a: 2, b: 2 } },
      ],
      { concurrency: 0 },
    );
    expect(records.map((record) => record.invocation)).toEqual(refused);
  });

  it('never changes the outcome: a hook that throws, rejects, hangs or mutates', async () => {
    const failures: unknown[] = [];
    const onInvocationError = (error: unknown) => failures.push(error);
    const behaviours: ((invocation: ToolInvocation) => unknown)[] = [
      () => {
        throw new Error('sync throw');
      },
      async () => {
        throw new Error('async reject');
      },
      () => new Promise(() => undefined), // never settles
      (invocation) => {
        (invocation as { output: unknown }).output = { ok: true, value: 'forged' };
      },
      () => ({
        // biome-ignore lint/suspicious/noThenProperty: a hostile thenable is the point
        get then() {
          throw new Error('hostile thenable');
        },
      }),
    ];
    for (const behaviour of behaviours) {
      const registry = new ToolRegistry({
        onInvocation: (invocation) => behaviour(invocation) as undefined,
        onInvocationError,
      }).registerAll([add, fail]);
      expect((await registry.invoke('add', { a: 2, b: 3 })).output).toEqual({ ok: true, value: 5 });
      expect((await registry.invoke('fail', {})).output.ok).toBe(false);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(failures.map((error) => (error as Error).message)).toEqual([
      'sync throw',
      'sync throw',
      'async reject',
      'async reject',
      expect.stringContaining('read only'),
      expect.stringContaining('read only'),
      'hostile thenable',
      'hostile thenable',
    ]);
  });

  it('without onInvocationError, reports the first failure once with process.emitWarning', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const registry = new ToolRegistry({
      onInvocation: () => {
        throw new Error('audit store is down');
      },
    }).register(add);
    await registry.invoke('add', { a: 1, b: 1 });
    await registry.invoke('add', { a: 1, b: 1 });
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]?.[0])).toContain('audit store is down');
    expect(warn.mock.calls[0]?.[1]).toMatchObject({ code: 'AGCORE_ON_INVOCATION_FAILED' });
  });

  it('property: one record per call, equal to what the caller got, whatever the hook does', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            name: fc.constantFrom('add', 'fail', 'run_shell', 'missing'),
            // JSON arguments: the hook gets their JSON view (audit-copy.test.ts covers the rest).
            args: fc.oneof(fc.constant({ a: 1, b: 2 }), fc.jsonValue()),
            hook: fc.constantFrom('ok', 'throw', 'reject'),
          }),
          { minLength: 1, maxLength: 8 },
        ),
        async (calls) => {
          const records: ToolInvocation[] = [];
          let index = 0;
          const registry = new ToolRegistry({
            permissionChecker: new PermissionChecker(),
            onInvocation: (invocation) => {
              records.push(invocation);
              const mode = calls[index++]?.hook;
              if (mode === 'throw') throw new Error('hook');
              if (mode === 'reject') return Promise.reject(new Error('hook'));
            },
            onInvocationError: () => undefined,
          }).registerAll([add, fail, shell]);
          const results: ToolInvocation[] = [];
          for (const call of calls) results.push(await registry.invoke(call.name, call.args));
          expect(records).toEqual(results);
        },
      ),
      { seed: 1313, numRuns: 60 },
    );
  });
});
