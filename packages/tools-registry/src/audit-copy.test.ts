import { defineTool, type JsonValue, ToolError } from '@agcore/tools-core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ToolInvocation } from './tool-invocation.js';
import { ToolRegistry } from './tool-registry.js';

/** A tool that returns what the test hands it, and remembers the object it returned. */
function echoRegistry(onInvocation: (invocation: ToolInvocation) => void) {
  let next: unknown = null;
  const registry = new ToolRegistry({ onInvocation, onInvocationError: () => undefined }).register(
    defineTool({
      name: 'echo',
      description: 'Returns the value it is given',
      parameters: { type: 'object' },
      execute: async () => next as JsonValue,
    }),
  );
  return {
    registry,
    returns(value: unknown) {
      next = value;
    },
  };
}

/** Writes without throwing on a frozen object (a hook in sloppy mode, or one that catches). */
function tryTo(write: () => void): void {
  try {
    write();
  } catch {
    // A frozen copy refuses the write: the point is what others see afterwards.
  }
}

describe('the audit hook cannot change what others see', () => {
  it('a hook writing into output.value, a nested object and a nested array changes neither the result nor the tool’s value', async () => {
    const { registry, returns } = echoRegistry((invocation) => {
      const value = (
        invocation.output as unknown as { value: { x: number; nested: { list: number[] } } }
      ).value;
      tryTo(() => {
        value.x = 666;
      });
      tryTo(() => {
        value.nested.list.push(4);
      });
      tryTo(() => {
        value.nested.list[0] = -1;
      });
      tryTo(() => {
        delete (value as { x?: number }).x;
      });
      tryTo(() => Reflect.set(value.nested, 'added', true));
    });
    const result = { x: 1, nested: { list: [1, 2, 3] } };
    returns(result);
    const invocation = await registry.invoke('echo', {});
    expect(invocation.output).toEqual({ ok: true, value: { x: 1, nested: { list: [1, 2, 3] } } });
    expect(result).toEqual({ x: 1, nested: { list: [1, 2, 3] } });
  });

  it('a hook writing into the arguments changes neither the caller’s object nor the record', async () => {
    const { registry } = echoRegistry((invocation) => {
      const input = invocation.input as { city: string; tags: string[] };
      tryTo(() => {
        input.city = 'Atlantis';
      });
      tryTo(() => {
        input.tags.length = 0;
      });
    });
    const args = { city: 'Paris', tags: ['a', 'b'] };
    const invocation = await registry.invoke('echo', args);
    expect(args).toEqual({ city: 'Paris', tags: ['a', 'b'] });
    expect(invocation.input).toEqual({ city: 'Paris', tags: ['a', 'b'] });
  });

  it('a hook rewriting output.error (its code, message, cause) changes nothing the caller reads', async () => {
    const cause = new Error('disk on fire');
    const thrown = new ToolError('execution_failed', 'the disk is on fire', { cause });
    const registry = new ToolRegistry({
      onInvocation: (invocation) => {
        const { output } = invocation;
        if (output.ok) return;
        const error = output.error as { -readonly [K in 'code' | 'message']: string } & {
          cause?: { message: string };
        };
        tryTo(() => {
          error.code = 'permission_denied';
        });
        tryTo(() => {
          error.message = 'all is well';
        });
        tryTo(() => {
          if (error.cause !== undefined) error.cause.message = 'rewritten';
        });
        tryTo(() => {
          (output as { ok: boolean }).ok = true;
        });
      },
      onInvocationError: () => undefined,
    }).register(
      defineTool({
        name: 'burn',
        description: 'Fails',
        parameters: { type: 'object' },
        execute: async () => {
          throw thrown;
        },
      }),
    );
    const invocation = await registry.invoke('burn', {});
    expect(invocation.output.ok).toBe(false);
    if (invocation.output.ok) return;
    expect(invocation.output.error.code).toBe('execution_failed');
    expect(invocation.output.error.message).toBe('the disk is on fire');
    expect(cause.message).toBe('disk on fire');
  });

  it('what a later observer (invokeAll’s onResult) sees is what the tool returned', async () => {
    const { registry, returns } = echoRegistry((invocation) => {
      tryTo(() => {
        ((invocation.output as unknown as { value: number[] }).value as number[]).splice(0, 2, 9);
      });
    });
    returns([1, 2, 3]);
    const observed: unknown[] = [];
    await registry.invokeAll([{ name: 'echo', args: {} }], {
      onResult: (invocation) => observed.push(invocation.output),
    });
    expect(observed).toEqual([{ ok: true, value: [1, 2, 3] }]);
  });

  it('gives the hook the JSON view of the value (toJSON applied, Dates as strings), frozen all the way down', async () => {
    const seen: ToolInvocation[] = [];
    const { registry, returns } = echoRegistry((invocation) => {
      seen.push(invocation);
    });
    const when = new Date(Date.UTC(2026, 0, 2));
    returns({
      when,
      money: { toJSON: () => ({ amount: 5, currency: 'EUR' }) },
      skipped: undefined,
      list: [{ deep: [1] }],
    });
    const invocation = await registry.invoke('echo', { city: 'Paris' });
    const [record] = seen;
    expect(record?.output).toEqual({
      ok: true,
      value: {
        when: '2026-01-02T00:00:00.000Z',
        money: { amount: 5, currency: 'EUR' },
        list: [{ deep: [1] }],
      },
    });
    if (record === undefined) throw new Error('the hook was not called');
    const value = (record.output as unknown as { value: { list: { deep: number[] }[] } }).value;
    expect(Object.isFrozen(record)).toBe(true);
    expect(Object.isFrozen(value.list)).toBe(true);
    expect(Object.isFrozen(value.list[0]?.deep)).toBe(true);
    // The caller keeps the tool's own value (a Date stays a Date).
    expect((invocation.output as unknown as { value: { when: unknown } }).value.when).toBe(when);
  });

  it('still calls the hook, and keeps the outcome, for arguments that cannot be read', async () => {
    const seen: ToolInvocation[] = [];
    const registry = new ToolRegistry({
      validateArguments: false,
      onInvocation: (invocation) => {
        seen.push(invocation);
      },
    }).register(
      defineTool({
        name: 'ok',
        description: 'Returns ok',
        parameters: { type: 'object' },
        execute: async () => 'ok',
      }),
    );
    const hostile = {
      get secret(): string {
        throw new Error('no reading');
      },
    };
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    for (const args of [hostile, cyclic]) {
      const invocation = await registry.invoke('ok', args);
      expect(invocation.output).toEqual({ ok: true, value: 'ok' });
      expect(invocation.input).toBe(args);
    }
    expect(seen).toHaveLength(2);
    expect(seen[1]?.input).toEqual({ a: 1, self: '[Circular]' });
  });
});

/** JSON values a tool may return. */
const jsonValue = fc.jsonValue({ maxDepth: 4 }) as fc.Arbitrary<JsonValue>;

/**
 * One write a hook may try: a walk into the record (each number picks one of the keys there,
 * so every walk lands on something that exists) and what it does at the end.
 */
const mutation = fc.record({
  path: fc.array(fc.nat(), { minLength: 1, maxLength: 6 }),
  action: fc.constantFrom('set', 'delete', 'push', 'splice', 'define', 'reverse', 'sort'),
  value: jsonValue,
});

type Mutation = { path: number[]; action: string; value: JsonValue };

function keyAt(object: object, pick: number): string | undefined {
  const keys = Object.keys(object);
  return keys.length === 0 ? undefined : keys[pick % keys.length];
}

function run(record: unknown, step: Mutation): void {
  let target: unknown = record;
  let key: string | undefined;
  for (const pick of step.path) {
    if (typeof target !== 'object' || target === null) break;
    if (key !== undefined) target = (target as Record<string, unknown>)[key];
    if (typeof target !== 'object' || target === null) break;
    key = keyAt(target, pick);
    if (key === undefined) break;
  }
  if (typeof target !== 'object' || target === null || key === undefined) return;
  const object = target as Record<string, unknown>;
  const name = key;
  const child = object[name];
  tryTo(() => {
    switch (step.action) {
      case 'set':
        object[name] = step.value;
        break;
      case 'delete':
        delete object[name];
        break;
      case 'define':
        Object.defineProperty(object, name, { value: step.value });
        break;
      case 'push':
        if (Array.isArray(child)) child.push(step.value);
        else if (Array.isArray(object)) object.push(step.value);
        break;
      case 'splice':
        if (Array.isArray(child)) child.splice(0, 1);
        break;
      case 'sort':
        if (Array.isArray(child)) child.sort();
        break;
      default:
        if (Array.isArray(child)) child.reverse();
    }
  });
}

describe('property: whatever the hook does, the caller’s value is the tool’s result', () => {
  it('for generated JSON results, arguments and mutation programs', async () => {
    await fc.assert(
      fc.asyncProperty(
        jsonValue,
        fc.dictionary(fc.string({ maxLength: 3 }), jsonValue, { maxKeys: 4 }),
        fc.array(mutation, { minLength: 1, maxLength: 12 }),
        async (result, args, program) => {
          const expectedResult = structuredClone(result);
          const expectedArgs = structuredClone(args);
          const { registry, returns } = echoRegistry((invocation) => {
            for (const step of program) run(invocation, step);
          });
          returns(result);
          const invocation = await registry.invoke('echo', args);
          expect(invocation.output).toEqual({ ok: true, value: expectedResult });
          expect(invocation.input).toEqual(expectedArgs);
          expect(args).toEqual(expectedArgs);
        },
      ),
      { seed: 1818, numRuns: 150 },
    );
  });
});
