import { type AnyTool, type JsonSchema, ToolError } from '@agcore/tools-core';
import { describe, expect, it } from 'vitest';
import { ToolRegistry } from './tool-registry.js';

// Issue 9, section 2: untrusted schemas cannot freeze the event loop or poison each other.

function echo(name: string, parameters: JsonSchema): AnyTool {
  return { name, description: 'echoes', parameters, execute: async (args) => args as never };
}

function chainedAnyOf(length: number): JsonSchema {
  const definitions: Record<string, JsonSchema> = { [`d${length}`]: { type: 'string' } };
  for (let index = 0; index < length; index++) {
    const next = { $ref: `#/definitions/d${index + 1}` };
    definitions[`d${index}`] = { anyOf: [next, next] };
  }
  return { type: 'object', definitions, properties: { value: { $ref: '#/definitions/d0' } } };
}

function refusal(run: () => unknown): ToolError {
  try {
    run();
  } catch (error) {
    if (error instanceof ToolError) return error;
    throw error;
  }
  throw new Error('expected register to refuse the tool');
}

describe('worst cases, with generous bounds against backtracking (10 s; exact figures are in pnpm bench)', () => {
  it('validates ^(a+)+$ against 100 000 characters without blocking the loop', async () => {
    const registry = new ToolRegistry().register(
      echo('redos', {
        type: 'object',
        properties: { text: { type: 'string', pattern: '^(a+)+$' } },
      }),
    );
    const start = performance.now();
    const invocation = await registry.invoke('redos', { text: `${'a'.repeat(100_000)}!` });
    // A backtracking engine needs 2^100000 steps; 127 ms at 24 characters on main.
    expect(performance.now() - start).toBeLessThan(10_000);
    expect(invocation.output.ok).toBe(false);
  });

  it('refuses 20 chained anyOf/$ref at register, naming the tool and the limit', () => {
    const start = performance.now();
    const error = refusal(() => new ToolRegistry().register(echo('chain', chainedAnyOf(20))));
    expect(performance.now() - start).toBeLessThan(10_000);
    expect(error.toolName).toBe('chain');
    expect(error.message).toContain('more than 10000 subschemas (the schema expansion limit');
  });

  it('validates the largest accepted chain quickly', async () => {
    const registry = new ToolRegistry().register(echo('chain', chainedAnyOf(11)));
    const start = performance.now();
    const invocation = await registry.invoke('chain', { value: 42 });
    expect(performance.now() - start).toBeLessThan(10_000);
    expect(invocation.output.ok).toBe(false);
  });
});

describe('each registry owns its validator state', () => {
  const withId = (): AnyTool =>
    echo('lookup', {
      $id: 'https://tools.example/lookup.json',
      type: 'object',
      properties: { key: { $ref: '#/$defs/key' } },
      $defs: { key: { type: 'string' } },
    });

  it('registers the same schema with an $id in two registries, and again after unregister', async () => {
    const first = new ToolRegistry().register(withId());
    const second = new ToolRegistry().register(withId());
    first.unregister('lookup');
    first.register(withId());
    for (const registry of [first, second]) {
      expect((await registry.invoke('lookup', { key: 'k' })).output.ok).toBe(true);
      const bad = await registry.invoke('lookup', { key: 1 });
      expect(bad.output.ok ? '' : bad.output.error.code).toBe('invalid_arguments');
    }
  });

  it("never answers one tool's $ref with another tool's $id", () => {
    const registry = new ToolRegistry().register(withId());
    const error = refusal(() =>
      registry.register(echo('borrower', { $ref: 'https://tools.example/lookup.json' })),
    );
    expect(error.toolName).toBe('borrower');
    expect(error.message).toContain('does not point inside the schema');
    expect(registry.has('borrower')).toBe(false);
  });
});
