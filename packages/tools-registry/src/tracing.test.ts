import {
  awaitInput,
  defineTool,
  Permission,
  type ToolContext,
  ToolError,
} from '@agcore/tools-core';
import { PermissionChecker } from '@agcore/tools-permission';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { parentOf, startTestTracing, type TestTracing } from './test-support/otel.js';
import { ToolRegistry } from './tool-registry.js';

const seen: ToolContext[] = [];
const weather = defineTool({
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  requiredPermissions: [Permission.Network],
  execute: async ({ city }, context) => {
    seen.push(context);
    // Work the tool does is a child of the tool's span: the active span inside `execute`.
    trace.getTracer('test').startActiveSpan('inside the tool', (span) => span.end());
    return { city, temperature: 22 };
  },
});
const broken = defineTool({
  name: 'broken',
  description: 'Always fails',
  parameters: { type: 'object' },
  execute: async () => {
    throw new ToolError('execution_failed', 'the disk is on fire');
  },
});
const shell = defineTool({
  name: 'run_shell',
  description: 'Runs a command',
  parameters: { type: 'object' },
  requiredPermissions: [Permission.Shell],
  execute: async () => 'ran',
});

function registry(options: ConstructorParameters<typeof ToolRegistry>[0] = {}): ToolRegistry {
  return new ToolRegistry({
    permissionChecker: new PermissionChecker(),
    sessionId: 'session-1',
    ...options,
  }).registerAll([weather, broken, shell]);
}

function only(spans: ReadableSpan[], name: string): ReadableSpan {
  const found = spans.filter((span) => span.name === name);
  expect(found, `spans named ${name}`).toHaveLength(1);
  return found[0] as ReadableSpan;
}

let tracing: TestTracing | undefined;
afterEach(async () => {
  await tracing?.stop();
  tracing = undefined;
  seen.length = 0;
});

describe('ToolRegistry: OpenTelemetry spans (real SDK)', () => {
  it('makes an execute_tool span per call, child of the active span; the tool sees its trace id', async () => {
    tracing = startTestTracing();
    const tools = registry();
    const invocation = await trace.getTracer('test').startActiveSpan('caller', async (parent) => {
      const result = await tools.invoke(
        'get_weather',
        { city: 'Paris' },
        { context: { toolCallId: 'call_1', traceId: 'not-an-otel-id' } },
      );
      parent.end();
      return result;
    });
    expect(invocation.output.ok).toBe(true);
    const spans = tracing.spans();
    const caller = only(spans, 'caller');
    const tool = only(spans, 'execute_tool get_weather');
    expect(tool.kind).toBe(SpanKind.INTERNAL);
    expect(parentOf(tool)).toBe(caller.spanContext().spanId);
    expect(parentOf(only(spans, 'inside the tool'))).toBe(tool.spanContext().spanId);
    expect(tool.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'get_weather',
      'gen_ai.tool.call.id': 'call_1',
      'gen_ai.tool.type': 'function',
      'gen_ai.tool.description': 'Current weather for a city',
      'gen_ai.conversation.id': 'session-1',
    });
    expect(tool.status.code).toBe(SpanStatusCode.UNSET);
    // The active span's trace id wins over a given one, for the tool and in the record.
    const traceId = tool.spanContext().traceId;
    expect(seen[0]?.traceId).toBe(traceId);
    expect(invocation.traceId).toBe(traceId);
    expect(invocation.sessionId).toBe('session-1');
  });

  it('records the error code and an error status for every kind of failure', async () => {
    tracing = startTestTracing();
    const tools = registry();
    await tools.invoke('broken', {});
    await tools.invoke('run_shell', {});
    await tools.invoke('get_weather', { town: 'Paris' });
    await tools.invoke('no_such_tool', {});
    const spans = tracing.spans();
    const expectations: [string, string][] = [
      ['execute_tool broken', 'execution_failed'],
      ['execute_tool run_shell', 'permission_denied'],
      ['execute_tool get_weather', 'invalid_arguments'],
      ['execute_tool no_such_tool', 'not_found'],
    ];
    for (const [name, code] of expectations) {
      const span = only(spans, name);
      expect(span.attributes['error.type'], name).toBe(code);
      expect(span.status.code, name).toBe(SpanStatusCode.ERROR);
      expect(span.status.message, name).toBeTruthy();
    }
    expect(only(spans, 'execute_tool broken').status.message).toContain('the disk is on fire');
  });

  it('ends the span of a tool that asks back without an error status: a question is not a failure', async () => {
    tracing = startTestTracing();
    const asking = defineTool({
      name: 'transfer',
      description: 'Asks before it moves money',
      parameters: { type: 'object' },
      execute: (_args, context) =>
        context.input === undefined ? awaitInput({ prompt: 'Freeze the account?' }) : 'frozen',
    });
    const tools = registry().register(asking);
    const asked = await tools.invoke('transfer', {});
    expect(asked.output.ok === false && asked.output.awaitingInput?.prompt).toBe(
      'Freeze the account?',
    );
    await tools.invoke('transfer', {}, { context: { input: { value: 'yes' } } });
    const [first, second] = tracing.spans().filter((span) => span.name === 'execute_tool transfer');
    expect(first?.status.code).toBe(SpanStatusCode.UNSET);
    expect(first?.attributes['agcore.tool.awaiting_input']).toBe(true);
    expect(first?.attributes['error.type']).toBeUndefined();
    expect(second?.status.code).toBe(SpanStatusCode.UNSET);
    expect(second?.attributes['agcore.tool.awaiting_input']).toBeUndefined();
  });

  it('records arguments and results only with recordContent, bounded', async () => {
    tracing = startTestTracing();
    await registry().invoke('get_weather', { city: 'Paris' });
    const plain = only(tracing.spans(), 'execute_tool get_weather');
    expect(plain.attributes['gen_ai.tool.call.arguments']).toBeUndefined();
    expect(plain.attributes['gen_ai.tool.call.result']).toBeUndefined();
    tracing.exporter.reset();
    const tools = registry({ tracing: { recordContent: true }, validateArguments: false });
    await tools.invoke('get_weather', { city: 'Paris' });
    const recorded = only(tracing.spans(), 'execute_tool get_weather');
    expect(JSON.parse(String(recorded.attributes['gen_ai.tool.call.arguments']))).toEqual({
      city: 'Paris',
    });
    expect(JSON.parse(String(recorded.attributes['gen_ai.tool.call.result']))).toEqual({
      city: 'Paris',
      temperature: 22,
    });
    tracing.exporter.reset();
    const cycle: Record<string, unknown> = { city: 'x'.repeat(1_000_000) };
    cycle.self = cycle;
    await tools.invoke('get_weather', cycle);
    const bounded = String(
      only(tracing.spans(), 'execute_tool get_weather').attributes['gen_ai.tool.call.arguments'],
    );
    expect(bounded.length).toBeLessThan(10_000);
    expect(bounded).toContain('[Circular]');
  });

  it('makes no span with tracing: false, nor without a registered provider', async () => {
    await registry().invoke('get_weather', { city: 'Paris' });
    expect(seen[0]?.traceId).toMatch(/^[0-9a-f-]{36}$/);
    tracing = startTestTracing();
    await registry({ tracing: false }).invoke('get_weather', { city: 'Paris' });
    expect(tracing.spans().map((span) => span.name)).toEqual(['inside the tool']);
  });

  it('keeps the outcome when the span processor throws', async () => {
    const hostile: SpanProcessor = {
      onStart: (_span: Span) => {
        throw new Error('processor exploded at start');
      },
      onEnd: () => {
        throw new Error('processor exploded at end');
      },
      forceFlush: async () => undefined,
      shutdown: async () => undefined,
    };
    tracing = startTestTracing([hostile]);
    const tools = registry().register(
      defineTool({
        name: 'plain',
        description: 'Makes no span of its own',
        parameters: { type: 'object' },
        execute: async () => 'fine',
      }),
    );
    const ok = await tools.invoke('plain', {});
    expect(ok.output).toEqual({ ok: true, value: 'fine' });
    const failed = await tools.invoke('broken', {});
    expect(failed.output.ok).toBe(false);
  });
});
