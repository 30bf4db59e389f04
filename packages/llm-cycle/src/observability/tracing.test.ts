import { defineTool, type ToolContext, ToolError } from '@agcore/tools-core';
import { ToolRegistry } from '@agcore/tools-registry';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { LlmError } from '../llm-error.js';
import { LlmCycle } from '../loop/llm-cycle.js';
import { parentOf, startTestTracing, type TestTracing } from '../test-support/otel.js';
import { ScriptedProvider, textResponse, toolCallsResponse } from '../testing/index.js';

const contexts: ToolContext[] = [];
function tools(): ToolRegistry {
  return new ToolRegistry({ sessionId: 'ignored' }).registerAll([
    defineTool({
      name: 'get_weather',
      description: 'Weather',
      parameters: {
        type: 'object',
        properties: { city: { type: 'string' } },
        required: ['city'],
      },
      execute: async ({ city }, context) => {
        contexts.push(context);
        return { city, temperature: 22 };
      },
    }),
    defineTool({
      name: 'flaky',
      description: 'Fails',
      parameters: { type: 'object' },
      execute: async () => {
        throw new ToolError('execution_failed', 'upstream said no');
      },
    }),
  ]);
}

const usage = (prompt: number, completion: number) => ({
  promptTokens: prompt,
  completionTokens: completion,
  totalTokens: prompt + completion,
});

function script(): ScriptedProvider {
  return new ScriptedProvider([
    toolCallsResponse(
      [
        { id: 'call_a', name: 'get_weather', arguments: { city: 'Paris' } },
        { id: 'call_b', name: 'flaky', arguments: {} },
      ],
      { usage: usage(100, 10) },
    ),
    toolCallsResponse([{ id: 'call_c', name: 'get_weather', arguments: { city: 'Oslo' } }], {
      usage: usage(200, 20),
    }),
    textResponse('Paris 22, Oslo 22.', { usage: usage(300, 30) }),
  ]);
}

function named(spans: ReadableSpan[], name: string): ReadableSpan[] {
  return spans.filter((span) => span.name === name);
}

let tracing: TestTracing | undefined;
afterEach(async () => {
  await tracing?.stop();
  tracing = undefined;
  contexts.length = 0;
});

describe('LlmCycle: OpenTelemetry spans (real SDK)', () => {
  for (const streamed of [false, true]) {
    it(`a 3-turn loop with a failing tool: invoke_agent > chat x3 and execute_tool x3 (${streamed ? 'streamed' : 'not streamed'})`, async () => {
      tracing = startTestTracing();
      const cycle = new LlmCycle({
        provider: script(),
        model: 'gpt-test',
        sessionId: 'session-42',
        systemPrompt: 'Be brief.',
        parameters: { temperature: 0.2, max_tokens: 500 },
        tracing: { agentName: 'weather-bot' },
      });
      if (streamed) {
        for await (const _event of cycle.submitStreamWithTools('Weather?', tools()));
      } else {
        await cycle.submitWithTools('Weather?', tools());
      }
      const spans = tracing.spans();
      const [agent] = named(spans, 'invoke_agent weather-bot');
      if (agent === undefined) throw new Error('no invoke_agent span');
      expect(parentOf(agent)).toBeUndefined();
      expect(agent.kind).toBe(SpanKind.INTERNAL);
      expect(agent.attributes).toMatchObject({
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': 'weather-bot',
        'gen_ai.provider.name': 'openai',
        'gen_ai.request.model': 'gpt-test',
        'gen_ai.conversation.id': 'session-42',
        'gen_ai.usage.input_tokens': 600,
        'gen_ai.usage.output_tokens': 60,
      });
      expect(agent.status.code).toBe(SpanStatusCode.UNSET);
      const agentId = agent.spanContext().spanId;
      const chats = named(spans, 'chat gpt-test');
      expect(chats).toHaveLength(3);
      for (const chat of chats) {
        expect(parentOf(chat)).toBe(agentId);
        expect(chat.kind).toBe(SpanKind.CLIENT);
        expect(chat.attributes['gen_ai.operation.name']).toBe('chat');
        expect(chat.attributes['gen_ai.request.model']).toBe('gpt-test');
        expect(chat.attributes['gen_ai.request.temperature']).toBe(0.2);
        expect(chat.attributes['gen_ai.request.max_tokens']).toBe(500);
        expect(chat.attributes['gen_ai.input.messages']).toBeUndefined();
      }
      expect(chats.map((chat) => chat.attributes['gen_ai.response.finish_reasons'])).toEqual([
        ['tool_calls'],
        ['tool_calls'],
        ['stop'],
      ]);
      expect(chats.map((chat) => chat.attributes['gen_ai.usage.input_tokens'])).toEqual([
        100, 200, 300,
      ]);
      expect(chats.map((chat) => chat.attributes['gen_ai.usage.output_tokens'])).toEqual([
        10, 20, 30,
      ]);
      const toolSpans = spans.filter((span) => span.name.startsWith('execute_tool '));
      expect(toolSpans.map((span) => span.attributes['gen_ai.tool.call.id']).sort()).toEqual([
        'call_a',
        'call_b',
        'call_c',
      ]);
      for (const span of toolSpans) expect(parentOf(span)).toBe(agentId);
      const [failed] = named(spans, 'execute_tool flaky');
      expect(failed?.attributes['error.type']).toBe('execution_failed');
      expect(failed?.status.code).toBe(SpanStatusCode.ERROR);
      // One trace; the tools were told its id.
      const traceId = agent.spanContext().traceId;
      expect(new Set(spans.map((span) => span.spanContext().traceId))).toEqual(new Set([traceId]));
      expect(contexts.map((context) => context.traceId)).toEqual([traceId, traceId]);
      // The tool spans come after their chat and before the next one.
      const [first, second] = chats;
      const start = (span: ReadableSpan | undefined) => span?.startTime[0] ?? 0;
      expect(start(toolSpans[0])).toBeGreaterThanOrEqual(start(first));
      expect(start(second)).toBeGreaterThanOrEqual(start(toolSpans[0]));
    });
  }

  it('records message contents only with recordContent', async () => {
    tracing = startTestTracing();
    const cycle = new LlmCycle({
      provider: script(),
      model: 'gpt-test',
      systemPrompt: 'Be brief.',
      tracing: { recordContent: true },
    });
    await cycle.submitWithTools('Weather?', tools());
    const chats = named(tracing.spans(), 'chat gpt-test');
    const input = JSON.parse(String(chats[1]?.attributes['gen_ai.input.messages']));
    expect(input[0]).toEqual({ role: 'user', parts: [{ type: 'text', content: 'Weather?' }] });
    expect(input[1].parts[0]).toEqual({
      type: 'tool_call',
      id: 'call_a',
      name: 'get_weather',
      arguments: { city: 'Paris' },
    });
    expect(input[2]).toMatchObject({
      role: 'tool',
      parts: [{ type: 'tool_call_response', id: 'call_a' }],
    });
    expect(JSON.parse(String(chats[0]?.attributes['gen_ai.system_instructions']))).toEqual([
      { type: 'text', content: 'Be brief.' },
    ]);
    expect(JSON.parse(String(chats[2]?.attributes['gen_ai.output.messages']))).toEqual([
      {
        role: 'assistant',
        parts: [{ type: 'text', content: 'Paris 22, Oslo 22.' }],
        finish_reason: 'stop',
      },
    ]);
  });

  it('marks a failed submit and its request with the error code', async () => {
    tracing = startTestTracing();
    const provider = new ScriptedProvider([
      { type: 'error', error: new LlmError('http_error', 'Bad key (401).', { statusCode: 401 }) },
    ]);
    const cycle = new LlmCycle({ provider, model: 'gpt-test', retry: { maxRetries: 0 } });
    await expect(cycle.submit('Hi')).rejects.toMatchObject({ code: 'http_error' });
    const spans = tracing.spans();
    for (const name of ['invoke_agent', 'chat gpt-test']) {
      const [span] = named(spans, name);
      expect(span?.attributes['error.type'], name).toBe('http_error');
      expect(span?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'Bad key (401).' });
    }
  });

  it("is a child of the caller's active span; none with tracing: false or without a provider", async () => {
    const quiet = new LlmCycle({ provider: script(), model: 'gpt-test' });
    await quiet.submitWithTools('Weather?', tools());
    expect(contexts[0]?.traceId).toMatch(/^[0-9a-f-]{36}$/);
    tracing = startTestTracing();
    const off = new LlmCycle({ provider: script(), model: 'gpt-test', tracing: false });
    await off.submitWithTools(
      'Weather?',
      new ToolRegistry({ tracing: false }).registerAll(
        tools()
          .listEntries()
          .map((entry) => entry.tool),
      ),
    );
    expect(tracing.spans()).toEqual([]);
    const cycle = new LlmCycle({ provider: script(), model: 'gpt-test' });
    await trace.getTracer('app').startActiveSpan('request /weather', async (span) => {
      await cycle.submitWithTools('Weather?', tools());
      span.end();
    });
    const spans = tracing.spans();
    const [root] = named(spans, 'request /weather');
    const [agent] = named(spans, 'invoke_agent');
    expect(parentOf(agent as ReadableSpan)).toBe(root?.spanContext().spanId);
  });
});
