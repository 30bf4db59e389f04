// The span tree of a 3-turn loop with a failing tool and an MCP call, on the real
// OpenTelemetry SDK (what --trace registers), the real registry and server-everything.
import { LlmCycle } from '@agcore/llm-cycle';
import { ScriptedProvider, textResponse, toolCallsResponse } from '@agcore/llm-cycle/testing';
import { context, propagation, trace } from '@opentelemetry/api';
import { afterAll, describe, expect, it } from 'vitest';
import { buildPolicy } from '../src/core/policy.js';
import { PlaygroundSession } from '../src/core/session.js';
import { renderSpanTree, type SpanRecord } from '../src/core/span-tree.js';
import { type PlaygroundTracing, startTracing } from '../src/core/tracing-setup.js';

let tracing: PlaygroundTracing | undefined;
afterAll(async () => {
  await tracing?.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
});

const plain = new Proxy({} as Parameters<typeof renderSpanTree>[1], {
  get: () => (text: string) => text,
});

describe('the span tree of a tool loop', () => {
  it('invoke_agent > chat x3 and execute_tool x3 (one failing, one on an MCP server), one trace', async () => {
    tracing = await startTracing({ keep: true });
    const session = await PlaygroundSession.open({
      servers: ['everything'],
      policy: buildPolicy([], []),
    });
    let spans: SpanRecord[];
    try {
      const cycle = new LlmCycle({
        provider: new ScriptedProvider([
          toolCallsResponse([
            { id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } },
            { id: 'call_2', name: 'calculator', arguments: { expression: '1 +' } },
          ]),
          toolCallsResponse([
            { id: 'call_3', name: 'everything__echo', arguments: { message: 'hi' } },
          ]),
          textResponse('Paris is 22 °C; the sum was malformed; the echo said hi.'),
        ]),
        model: 'scripted',
      });
      const response = await cycle.submitWithTools('Three turns, please.', session.registry);
      expect(response.finishReason).toBe('stop');
      spans = tracing.spans();
    } finally {
      await session.close();
    }
    const [agent] = spans.filter((span) => span.name === 'invoke_agent');
    if (agent === undefined) throw new Error('no invoke_agent span');
    const children = spans.filter((span) => span.parentSpanId === agent.spanId);
    expect(children.map((span) => span.name).sort()).toEqual([
      'chat scripted',
      'chat scripted',
      'chat scripted',
      'execute_tool calculator',
      'execute_tool everything__echo',
      'execute_tool get_weather',
    ]);
    expect(new Set(spans.map((span) => span.traceId))).toEqual(new Set([agent.traceId]));
    const failing = children.find((span) => span.name === 'execute_tool calculator');
    expect(failing?.attributes['error.type']).toBe('execution_failed');
    expect(failing?.error).toBeTruthy();
    const mcp = children.find((span) => span.name === 'execute_tool everything__echo');
    expect(mcp?.attributes['gen_ai.tool.call.id']).toBe('call_3');
    expect(mcp?.error).toBeUndefined();
    const tree = renderSpanTree(spans, plain, 80).split('\n');
    expect(tree[0]).toBe(`trace ${agent.traceId}`);
    expect(tree.slice(1).map((line) => line.replace(/ {2}\d.*$/, ''))).toEqual([
      'invoke_agent',
      '├─ chat scripted',
      expect.stringMatching(/^├─ execute_tool (get_weather|calculator)$/),
      expect.stringMatching(/^├─ execute_tool (get_weather|calculator)$/),
      '├─ chat scripted',
      '├─ execute_tool everything__echo',
      '└─ chat scripted',
    ]);
    for (const line of tree) expect([...line].length).toBeLessThanOrEqual(80);
  });
});
