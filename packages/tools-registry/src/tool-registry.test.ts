import {
  type AnyTool,
  defineTool,
  Permission,
  type ToolContext,
  ToolError,
} from '@agcore/tools-core';
import { PermissionChecker } from '@agcore/tools-permission';
import { describe, expect, it } from 'vitest';
import { errorOf, waiter, weather } from './test-support/fixtures.js';
import { ToolRegistry } from './tool-registry.js';

describe('ToolRegistry: registration and lookup', () => {
  it('refuses a second tool of the same name and keeps the first', () => {
    const registry = new ToolRegistry().register(weather);
    const impostor = { ...weather, description: 'impostor' };
    expect(() => registry.register(impostor)).toThrow(ToolError);
    expect(() => registry.register(impostor)).toThrow(/already registered; nothing was replaced/);
    expect(registry.get('get_weather')?.description).toBe('Current weather for a city');
    expect(registry.size).toBe(1);
  });

  it('registerAll is all or none', () => {
    const registry = new ToolRegistry().register(weather);
    const fresh = waiter('fresh', 1);
    expect(() => registry.registerAll([fresh, weather])).toThrow(ToolError);
    expect(registry.has('fresh')).toBe(false);
    expect(() => registry.registerAll([fresh, fresh])).toThrow(/already registered/);
    registry.registerAll([fresh, waiter('other', 1)]);
    expect(registry.listTools()).toEqual(['get_weather', 'fresh', 'other']);
  });

  it('refuses malformed tools with a message saying what is missing', () => {
    const registry = new ToolRegistry();
    const noExecute = { name: 'x', description: 'd', parameters: {} } as unknown as AnyTool;
    expect(() => registry.register(noExecute)).toThrow(/tool 'x': it has no execute function/);
  });

  it('an empty registry finds nothing and says so', async () => {
    const registry = new ToolRegistry();
    expect(registry.get('anything')).toBeUndefined();
    expect(registry.listTools()).toEqual([]);
    expect(registry.definitions()).toEqual([]);
    const invocation = await registry.invoke('anything', {});
    const error = errorOf(invocation);
    expect(error.code).toBe('not_found');
    expect(error.message).toContain('the registry is empty');
  });

  it('definitions() are the Chat Completions shape, in a stable order, recomputed on change', () => {
    const registry = new ToolRegistry().registerAll([weather, waiter('b', 1), waiter('a', 1)]);
    const first = registry.definitions();
    expect(first.map((d) => d.function.name)).toEqual(['get_weather', 'b', 'a']);
    expect(first[0]).toEqual({
      type: 'function',
      function: {
        name: 'get_weather',
        description: 'Current weather for a city',
        parameters: weather.parameters,
      },
    });
    expect(registry.definitions()).toEqual(first);
    registry.unregister('b');
    expect(registry.definitions().map((d) => d.function.name)).toEqual(['get_weather', 'a']);
    expect(registry.unregister('b')).toBeUndefined();
  });

  it('finds by tag and category and groups by category', () => {
    const registry = new ToolRegistry()
      .register(weather, { tags: ['web', 'demo'], category: 'data', version: '1.0.0' })
      .register(waiter('sleep', 1), { tags: ['demo'] });
    expect(registry.findByTag('demo').map((e) => e.tool.name)).toEqual(['get_weather', 'sleep']);
    expect(registry.findByTag('web').map((e) => e.tool.name)).toEqual(['get_weather']);
    expect(registry.findByCategory('general').map((e) => e.tool.name)).toEqual(['sleep']);
    expect([...registry.groups().keys()]).toEqual(['data', 'general']);
    expect(registry.entry('get_weather')?.version).toBe('1.0.0');
  });
});

describe('ToolRegistry: invoke', () => {
  it('runs a single call and records it', async () => {
    const registry = new ToolRegistry().register(weather);
    const invocation = await registry.invoke(
      'get_weather',
      { city: 'Paris' },
      {
        context: { toolCallId: 'call_1' },
      },
    );
    expect(invocation).toMatchObject({
      toolName: 'get_weather',
      callId: 'call_1',
      input: { city: 'Paris' },
      output: { ok: true, value: { city: 'Paris', temperature: 22 } },
    });
    expect(invocation.durationMs).toBeGreaterThanOrEqual(0);
    const stats = registry.entry('get_weather')?.stats;
    expect(stats).toMatchObject({ calls: 1, failures: 0 });
  });

  it('passes a full ToolContext: session id, trace id, call id, a live signal, progress', async () => {
    const seen: ToolContext[] = [];
    const progress: number[] = [];
    const probe = defineTool({
      name: 'probe',
      description: 'records its context',
      parameters: { type: 'object' },
      execute: (_args, context) => {
        seen.push(context);
        context.progress?.({ progress: 50, total: 100 });
        return null;
      },
    });
    const registry = new ToolRegistry({ sessionId: 'session-7' }).register(probe);
    await registry.invoke(
      'probe',
      {},
      { context: { toolCallId: 'c1', progress: (u) => progress.push(u.progress) } },
    );
    await registry.invoke('probe', {}, { context: { sessionId: 'other', traceId: 'trace-9' } });
    expect(seen[0]).toMatchObject({ sessionId: 'session-7', toolCallId: 'c1' });
    expect(seen[0]?.signal.aborted).toBe(false);
    expect(seen[1]).toMatchObject({ sessionId: 'other', traceId: 'trace-9' });
    expect(seen[0]?.traceId).not.toBe(seen[1]?.traceId);
    expect(progress).toEqual([50]);
  });

  it('hands the caller idempotencyKey to the tool, and none when none was given', async () => {
    const keys: (string | undefined)[] = [];
    const probe = defineTool({
      name: 'probe',
      description: 'records its idempotency key',
      parameters: { type: 'object' },
      execute: (_args, context) => {
        keys.push(context.idempotencyKey);
        return null;
      },
    });
    const registry = new ToolRegistry().register(probe);
    await registry.invoke('probe', {}, { context: { idempotencyKey: 'run-1:call_1' } });
    await registry.invoke('probe', {});
    expect(keys).toEqual(['run-1:call_1', undefined]);
  });

  it('refuses by permission before the tool runs', async () => {
    let ran = false;
    const shell = defineTool({
      name: 'run_shell',
      description: 'runs a command',
      parameters: { type: 'object' },
      requiredPermissions: [Permission.Shell],
      execute: () => {
        ran = true;
        return 'done';
      },
    });
    const checker = new PermissionChecker();
    const registry = new ToolRegistry()
      .withPermissionChecker(checker)
      .registerAll([shell, weather]);
    // one checker shared by two registries
    const second = new ToolRegistry({ permissionChecker: checker }).register(shell);
    for (const target of [registry, second]) {
      const error = errorOf(await target.invoke('run_shell', {}));
      expect(error.code).toBe('permission_denied');
      expect(error.message).toContain("'shell'");
    }
    expect(ran).toBe(false);
    expect((await registry.invoke('get_weather', { city: 'Rome' })).output.ok).toBe(true);
    expect(registry.entry('run_shell')?.stats).toMatchObject({ calls: 1, failures: 1 });
  });

  it('reports a schema mismatch as invalid_arguments in the validator words, without running', async () => {
    let calls = 0;
    const counted = defineTool({
      name: 'counted',
      description: 'd',
      parameters: weather.parameters,
      execute: () => {
        calls++;
        return null;
      },
    });
    const registry = new ToolRegistry().register(counted);
    const missing = errorOf(await registry.invoke('counted', {}));
    expect(missing.code).toBe('invalid_arguments');
    expect(missing.message).toContain("must have required property 'city'");
    const extra = errorOf(await registry.invoke('counted', { city: 'x', zip: 1 }));
    expect(extra.message).toContain("must not have property 'zip'");
    const wrongType = errorOf(await registry.invoke('counted', { city: 5 }));
    expect(wrongType.message).toContain('arguments.city must be string');
    expect(calls).toBe(0);
  });

  it('validates 2020-12 schemas and formats', async () => {
    const tool = defineTool({
      name: 'mail',
      description: 'd',
      parameters: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        properties: { to: { type: 'string', format: 'email' } },
        required: ['to'],
      },
      execute: ({ to }) => to,
    });
    const registry = new ToolRegistry().register(tool);
    expect((await registry.invoke('mail', { to: 'a@b.co' })).output).toEqual({
      ok: true,
      value: 'a@b.co',
    });
    expect(errorOf(await registry.invoke('mail', { to: 'nope' })).message).toContain(
      'must match format "email"',
    );
  });

  it('refuses at register a schema that cannot compile, naming the tool', () => {
    const broken = defineTool({
      name: 'broken',
      description: 'd',
      parameters: { type: 'object', properties: { a: { type: 'no-such-type' } } } as never,
      execute: () => null,
    });
    const registry = new ToolRegistry();
    expect(() => registry.register(broken)).toThrow(ToolError);
    expect(() => registry.register(broken)).toThrow(
      /schema of tool 'broken' was refused: its type "no-such-type" is not a JSON Schema type/,
    );
    expect(registry.has('broken')).toBe(false);
  });

  it('wraps anything the tool throws as execution_failed with the cause; keeps a thrown ToolError', async () => {
    const cause = new Error('disk on fire');
    const failing = defineTool({
      name: 'failing',
      description: 'd',
      parameters: { type: 'object' },
      execute: async () => {
        throw cause;
      },
    });
    const throwsString = { ...waiter('strings', 1), execute: () => Promise.reject('plain string') };
    const mcpLike = {
      ...waiter('remote', 1),
      execute: () =>
        Promise.reject(new ToolError('mcp_error', 'server gone', { toolName: 'remote' })),
    };
    const registry = new ToolRegistry().registerAll([failing, throwsString, mcpLike]);
    const error = errorOf(await registry.invoke('failing', {}));
    expect(error.code).toBe('execution_failed');
    expect(error.cause).toBe(cause);
    expect(error.message).toBe("Tool 'failing' failed: disk on fire");
    expect(error.isRecoverable()).toBe(true);
    expect(errorOf(await registry.invoke('strings', {})).message).toContain('plain string');
    expect(errorOf(await registry.invoke('remote', {})).code).toBe('mcp_error');
    expect(registry.entry('failing')?.stats).toMatchObject({ calls: 1, failures: 1 });
  });

  it('refuses results that are not JSON', async () => {
    const results: Record<string, unknown> = {
      undef: undefined,
      fn: () => 1,
      big: 10n,
      cycle: (() => {
        const a: Record<string, unknown> = {};
        a.a = a;
        return a;
      })(),
    };
    const registry = new ToolRegistry();
    for (const [name, value] of Object.entries(results)) {
      registry.register({ ...waiter(name, 1), execute: async () => value } as unknown as AnyTool);
    }
    for (const name of Object.keys(results)) {
      const error = errorOf(await registry.invoke(name, {}));
      expect(error.code).toBe('execution_failed');
      expect(error.message).toContain('not JSON');
    }
  });
});
