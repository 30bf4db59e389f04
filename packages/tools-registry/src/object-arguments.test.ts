import { defineTool } from '@agcore/tools-core';
import { describe, expect, it } from 'vitest';
import type { ToolInvocation } from './tool-invocation.js';
import { ToolRegistry } from './tool-registry.js';

function untyped(validateArguments?: boolean) {
  const ran: unknown[] = [];
  const records: ToolInvocation[] = [];
  const registry = new ToolRegistry({
    ...(validateArguments === undefined ? {} : { validateArguments }),
    onInvocation: (invocation) => {
      records.push(invocation);
    },
  }).register(
    defineTool({
      name: 'anything',
      description: 'A schema without a type: any value passes it',
      parameters: {},
      execute: async (args) => {
        ran.push(args);
        return 'ran';
      },
    }),
  );
  return { registry, ran, records };
}

const notObjects: [string, unknown, string][] = [
  ['null', null, 'got null'],
  ['a number', 5, 'got a number (5)'],
  ['a string', 'str', 'got a string ("str")'],
  ['an array', [], 'got an array'],
  ['a boolean', true, 'got a boolean (true)'],
  ['undefined', undefined, 'got undefined'],
  ['a Map', new Map([['a', 1]]), 'got a Map'],
  ['a Date', new Date(0), 'got a Date'],
];

describe('arguments that are not a JSON object', () => {
  it.each(notObjects)(
    'refuses %s as invalid_arguments before the tool runs, whatever the schema',
    async (_label, args, got) => {
      const { registry, ran, records } = untyped();
      const invocation = await registry.invoke('anything', args);
      expect(invocation.output.ok).toBe(false);
      if (invocation.output.ok) return;
      expect(invocation.output.error.code).toBe('invalid_arguments');
      expect(invocation.output.error.isRecoverable()).toBe(true);
      expect(invocation.output.error.message).toContain(`arguments must be a JSON object, ${got}`);
      expect(ran).toEqual([]);
      // The audit hook still gets the refused call.
      expect(records).toHaveLength(1);
      expect(records[0]?.output).toMatchObject({ ok: false, error: { code: 'invalid_arguments' } });
    },
  );

  it('refuses them with validation turned off too, and in checkCall and invokeAll', async () => {
    const { registry, ran } = untyped(false);
    expect((await registry.invoke('anything', [1, 2])).output).toMatchObject({
      ok: false,
      error: { code: 'invalid_arguments' },
    });
    expect(registry.checkCall('anything', 'str')?.code).toBe('invalid_arguments');
    const batch = await registry.invokeAll([
      { name: 'anything', args: null },
      { name: 'anything', args: { fine: true } },
    ]);
    expect(batch.map((invocation) => invocation.output.ok)).toEqual([false, true]);
    expect(ran).toEqual([{ fine: true }]);
  });

  it('runs plain objects, also with a null prototype and nothing in them', async () => {
    const { registry, ran } = untyped();
    const bare = Object.create(null) as Record<string, unknown>;
    bare.key = 'value';
    for (const args of [{}, { nested: [1, { a: null }] }, bare]) {
      expect((await registry.invoke('anything', args)).output).toEqual({ ok: true, value: 'ran' });
    }
    expect(ran).toHaveLength(3);
  });

  it('refuses an object whose prototype cannot be read, without throwing', async () => {
    const { registry, ran } = untyped();
    const hostile = new Proxy(
      {},
      {
        getPrototypeOf() {
          throw new Error('trap');
        },
      },
    );
    const invocation = await registry.invoke('anything', hostile);
    expect(invocation.output).toMatchObject({ ok: false, error: { code: 'invalid_arguments' } });
    expect(ran).toEqual([]);
  });
});
