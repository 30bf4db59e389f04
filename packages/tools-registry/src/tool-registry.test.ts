import {
  type AnyTool,
  createToolContext,
  defineTool,
  Permission,
  type ToolContext,
  ToolError,
} from '@agcore/tools-core';
import { PermissionChecker } from '@agcore/tools-permission';
import { describe, expect, it } from 'vitest';
import type { ToolInvocation } from './tool-invocation.js';
import { ToolRegistry } from './tool-registry.js';

const weather = defineTool({
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string', minLength: 1 } },
    required: ['city'],
    additionalProperties: false,
  },
  requiredPermissions: [Permission.Network],
  execute: async ({ city }) => ({ city, temperature: 22 }),
});

function waiter(name: string, ms: number, log?: string[]): AnyTool {
  return defineTool({
    name,
    description: `waits ${ms} ms`,
    parameters: { type: 'object' },
    execute: (_args, context) =>
      new Promise<string>((resolve, reject) => {
        log?.push(`start:${name}`);
        const timer = setTimeout(() => {
          log?.push(`end:${name}`);
          resolve(name);
        }, ms);
        context.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          log?.push(`aborted:${name}`);
          reject(context.signal.reason);
        });
      }),
  });
}

function errorOf(invocation: ToolInvocation): ToolError {
  if (invocation.output.ok)
    throw new Error(`expected a failure, got ${JSON.stringify(invocation.output.value)}`);
  return invocation.output.error;
}

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

describe('ToolRegistry: invokeAll', () => {
  it('runs a parallel batch, results in call order, a failure not touching the others', async () => {
    const log: string[] = [];
    const registry = new ToolRegistry({ timeoutMs: 1_000 })
      .register(waiter('slow', 60, log))
      .register(waiter('fast', 5, log))
      .register(weather);
    const results = await registry.invokeAll([
      { name: 'slow', args: {}, callId: 'a' },
      { name: 'missing', args: {}, callId: 'b' },
      { name: 'fast', args: {}, callId: 'c' },
      { name: 'get_weather', args: { city: 7 }, callId: 'd' },
    ]);
    expect(results.map((r) => r.callId)).toEqual(['a', 'b', 'c', 'd']);
    expect(results.map((r) => (r.output.ok ? 'ok' : r.output.error.code))).toEqual([
      'ok',
      'not_found',
      'ok',
      'invalid_arguments',
    ]);
    // both started before either ended: they overlapped
    expect(log.slice(0, 2).sort()).toEqual(['start:fast', 'start:slow']);
    expect(log.indexOf('end:fast')).toBeLessThan(log.indexOf('end:slow'));
  });

  it('gives each call its own timeout', async () => {
    const registry = new ToolRegistry({ timeoutMs: 40 })
      .register(waiter('slow', 5_000))
      .register(waiter('fast', 1));
    const [slow, fast] = await registry.invokeAll([
      { name: 'slow', args: {} },
      { name: 'fast', args: {} },
    ]);
    expect(slow && errorOf(slow).code).toBe('timeout');
    expect(fast?.output).toEqual({ ok: true, value: 'fast' });
  });

  it('honours a concurrency cap', async () => {
    let running = 0;
    let peak = 0;
    const counted = defineTool({
      name: 'counted',
      description: 'd',
      parameters: { type: 'object' },
      execute: async () => {
        running++;
        peak = Math.max(peak, running);
        await new Promise((resolve) => setTimeout(resolve, 5));
        running--;
        return peak;
      },
    });
    const registry = new ToolRegistry().register(counted);
    const calls = Array.from({ length: 10 }, () => ({ name: 'counted', args: {} }));
    const results = await registry.invokeAll(calls, { concurrency: 3 });
    expect(results.every((r) => r.output.ok)).toBe(true);
    expect(peak).toBe(3);
    // Never rejects: a bad concurrency is reported on every call, and none runs.
    const refused = await registry.invokeAll(calls.slice(0, 2), { concurrency: 0 });
    expect(refused.map((r) => (r.output.ok ? 'ok' : r.output.error.code))).toEqual([
      'other',
      'other',
    ]);
    expect(errorOf(refused[0] as ToolInvocation).message).toContain(
      'concurrency must be a positive integer, got 0',
    );
    expect(registry.entry('counted')?.stats.calls).toBe(10);
  });

  it('reports progress and results per call as they happen', async () => {
    const reporter = defineTool({
      name: 'reporter',
      description: 'd',
      parameters: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
      execute: async ({ n }, context) => {
        context.progress?.({ progress: n, total: 10 });
        await new Promise((resolve) => setTimeout(resolve, n));
        return n;
      },
    });
    const registry = new ToolRegistry().register(reporter);
    const events: string[] = [];
    await registry.invokeAll(
      [
        { name: 'reporter', args: { n: 30 }, callId: 'slow' },
        { name: 'reporter', args: { n: 1 }, callId: 'quick' },
      ],
      {
        onProgress: (update, call, index) =>
          events.push(`progress:${call.callId}:${index}:${update.progress}`),
        onResult: (invocation, index) => events.push(`result:${invocation.callId}:${index}`),
      },
    );
    expect(events).toEqual([
      'progress:slow:0:30',
      'progress:quick:1:1',
      'result:quick:1',
      'result:slow:0',
    ]);
  });

  it('cancels the whole batch with one signal', async () => {
    const registry = new ToolRegistry().register(waiter('slow', 5_000));
    const controller = new AbortController();
    const pending = registry.invokeAll(
      [
        { name: 'slow', args: {} },
        { name: 'slow', args: {} },
      ],
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort(), 10);
    const results = await pending;
    expect(results.map((r) => (r.output.ok ? 'ok' : r.output.error.code))).toEqual([
      'cancelled',
      'cancelled',
    ]);
  });
});
