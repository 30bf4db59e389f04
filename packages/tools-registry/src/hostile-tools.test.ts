import type { AnyTool, JsonSchema } from '@agcore/tools-core';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { errorOf } from './test-support/fixtures.js';
import type { ToolInvocation } from './tool-invocation.js';
import { ToolRegistry } from './tool-registry.js';

// Issue 9, section 1: invoke and invokeAll never reject, never throw, never crash the process.

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

function tool(name: string, execute: (args: unknown) => unknown, parameters?: JsonSchema): AnyTool {
  return {
    name,
    description: 'hostile',
    parameters: parameters ?? { type: 'object' },
    execute: execute as AnyTool['execute'],
  };
}

const throwingProxy = new Proxy(
  {},
  Object.fromEntries(
    ['get', 'getPrototypeOf', 'ownKeys', 'has', 'getOwnPropertyDescriptor'].map((trap) => [
      trap,
      () => {
        throw new Error(`trap ${trap}`);
      },
    ]),
  ),
);
const nullProtoThrowingToJson = Object.assign(Object.create(null), {
  toJSON() {
    throw new Error('toJSON');
  },
});

function nested(depth: number): unknown {
  let value: unknown = {};
  for (let level = 0; level < depth; level++) value = { next: value };
  return value;
}

describe('hostile throws and results are reported, never raised', () => {
  it('reports a rejection with a throwing proxy or a null-prototype object as execution_failed', async () => {
    const registry = new ToolRegistry().registerAll([
      tool('proxy', async () => Promise.reject(throwingProxy)),
      tool('null_proto', async () => Promise.reject(nullProtoThrowingToJson)),
      tool('sync_proxy', () => {
        throw throwingProxy;
      }),
    ]);
    for (const name of ['proxy', 'null_proto', 'sync_proxy']) {
      const error = errorOf(await registry.invoke(name, {}));
      expect(error.code, name).toBe('execution_failed');
      expect(error.message).toMatch(new RegExp(`^Tool '${name}' failed: `));
    }
  });

  it('refuses results whose toJSON throws or gives undefined or a BigInt, and throwing getters', async () => {
    const results: Record<string, unknown> = {
      json_throws: {
        toJSON: () => {
          throw new Error('no');
        },
      },
      json_undefined: { toJSON: () => undefined },
      json_bigint: { nested: { toJSON: () => 1n } },
      getter: Object.defineProperty({}, 'x', {
        enumerable: true,
        get: () => {
          throw new Error('getter');
        },
      }),
    };
    const registry = new ToolRegistry();
    for (const [name, value] of Object.entries(results))
      registry.register(tool(name, async () => value));
    for (const name of Object.keys(results)) {
      const error = errorOf(await registry.invoke(name, {}));
      expect(error.code, name).toBe('execution_failed');
      expect(error.message, name).toContain('not JSON');
    }
  });

  it('reports a result nested deeper than 1 000 levels as execution_failed naming the limit', async () => {
    const registry = new ToolRegistry({ validateArguments: false }).registerAll([
      tool('deep_result', async () => nested(100_000)),
      tool('echo', async (args) => args),
    ]);
    expect(errorOf(await registry.invoke('deep_result', {})).message).toContain(
      'nested deeper than 1000 levels (the limit)',
    );
    // A tool that echoes arguments 100 000 levels deep (validation off) fails the same way.
    expect(errorOf(await registry.invoke('echo', nested(100_000))).code).toBe('execution_failed');
  });

  it('refuses arguments deeper than the bound as invalid_arguments, before validating', async () => {
    let ran = false;
    const recursive = tool(
      'recursive',
      () => {
        ran = true;
        return null;
      },
      { type: 'object', properties: { next: { $ref: '#' } } },
    );
    const registry = new ToolRegistry().register(recursive);
    const error = errorOf(await registry.invoke('recursive', nested(100_000)));
    expect(error.code).toBe('invalid_arguments');
    expect(error.message).toContain('nested deeper than 128 levels');
    expect(ran).toBe(false);
    expect((await registry.invoke('recursive', nested(100))).output.ok).toBe(true);
  });

  it('reports arguments that are a throwing proxy as invalid_arguments', async () => {
    const registry = new ToolRegistry().register(tool('plain', () => null));
    const error = errorOf(await registry.invoke('plain', throwingProxy));
    expect(error.code).toBe('invalid_arguments');
    expect(error.message).toContain('could not be read');
  });

  it('reports hostile options and a throwing progress listener instead of throwing', async () => {
    const registry = new ToolRegistry().register(tool('progress', (_args) => null));
    const reporter = new ToolRegistry().register({
      ...tool('reporter', () => null),
      execute: async (_args, context) => {
        context.progress?.({ progress: 1 });
        return 'done';
      },
    });
    const bad = await registry.invoke('progress', {}, throwingProxy as never);
    expect(errorOf(bad).code).toBe('other');
    const negative = await registry.invoke('progress', {}, { timeoutMs: -1 });
    expect(errorOf(negative).message).toContain('InvokeOptions.timeoutMs must be a number');
    const listener = await reporter.invoke(
      'reporter',
      {},
      {
        context: {
          progress: () => {
            throw new Error('listener broke');
          },
        },
      },
    );
    expect(errorOf(listener).code).toBe('other');
    expect(errorOf(listener).message).toContain(
      "Tool 'reporter' succeeded, but the caller's context.progress callback threw: listener broke",
    );
  });

  it('invokeAll reports throwing callbacks and malformed calls on their call, and resolves', async () => {
    const registry = new ToolRegistry().register(tool('ok', async () => 1));
    const results = await registry.invokeAll(
      [{ name: 'ok', args: {} }, null as never, { name: 'ok', args: {}, callId: 'b' }],
      {
        onResult: (_invocation, index) => {
          if (index === 2) throw new Error('onResult broke');
        },
      },
    );
    expect(results.map((r) => (r.output.ok ? 'ok' : r.output.error.code))).toEqual([
      'ok',
      'other',
      'other',
    ]);
    expect(errorOf(results[2] as ToolInvocation).message).toContain('onResult callback threw');
  });
});

describe('property: for any hostile tool and arguments, every call resolves once, in order', () => {
  // fast-check inspects generated values ('in' on them), so hostile ones are made by the tool
  // from a generated name instead of being generated themselves.
  const factories: Record<string, () => unknown> = {
    undefined: () => undefined,
    bigint: () => 10n,
    symbol: () => Symbol('s'),
    function: () => () => 1,
    nan: () => Number.NaN,
    proxy: () => throwingProxy,
    nullProto: () => nullProtoThrowingToJson,
    error: () => new Error('plain error'),
    toJsonUndefined: () => ({ toJSON: () => undefined }),
    deep: () => nested(2000),
  };
  const hostileValue = fc.oneof(
    fc.jsonValue({ maxDepth: 3 }).map((json) => ({ make: () => json as unknown })),
    fc
      .constantFrom(...Object.keys(factories))
      .map((key) => ({ make: factories[key] as () => unknown })),
  );
  const behaviour = fc.oneof(
    hostileValue.map((value) => ({ kind: 'return' as const, value })),
    hostileValue.map((value) => ({ kind: 'resolve' as const, value })),
    hostileValue.map((value) => ({ kind: 'throw' as const, value })),
    hostileValue.map((value) => ({ kind: 'reject' as const, value })),
    fc.integer({ min: 1, max: 30 }).map((ms) => ({ kind: 'slow' as const, value: ms })),
    fc.constant({ kind: 'never' as const, value: undefined }),
    fc.constant({ kind: 'ignores_signal' as const, value: undefined }),
  );

  function makeTool(name: string, spec: { kind: string; value: unknown }): AnyTool {
    const made = () => (spec.value as { make: () => unknown }).make();
    return tool(name, () => {
      switch (spec.kind) {
        case 'return':
          return made();
        case 'resolve':
          return Promise.resolve(made());
        case 'throw':
          throw made();
        case 'reject':
          return Promise.reject(made());
        case 'slow':
          return new Promise((resolve) => setTimeout(() => resolve('late'), spec.value as number));
        default:
          return new Promise(() => {});
      }
    });
  }

  it('invoke and invokeAll always resolve, one invocation per call, in call order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(behaviour, { minLength: 1, maxLength: 6 }),
        fc.array(fc.oneof(hostileValue, fc.constant({ make: () => ({}) })), {
          minLength: 1,
          maxLength: 6,
        }),
        fc.boolean(),
        async (behaviours, argsList, validate) => {
          const registry = new ToolRegistry({ timeoutMs: 20, validateArguments: validate });
          behaviours.forEach((spec, index) => {
            registry.register(makeTool(`t${index}`, spec));
          });
          const calls = argsList.map((args, index) => ({
            name: `t${index % (behaviours.length + 1)}`,
            args: args.make(),
            callId: `c${index}`,
          }));
          const batch = await registry.invokeAll(calls);
          expect(batch.map((invocation) => invocation.callId)).toEqual(calls.map((c) => c.callId));
          for (const call of calls) {
            const single = await registry.invoke(call.name, call.args);
            expect(typeof single.output.ok).toBe('boolean');
          }
        },
      ),
      { seed: 90_901, numRuns: 60 },
    );
  }, 60_000);
});
