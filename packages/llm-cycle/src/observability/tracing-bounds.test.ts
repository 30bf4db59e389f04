/**
 * Every span attribute llm-cycle writes is bounded (`tracing.maxAttributeBytes`, default
 * 16 KiB), with the marker of a cut tool result, however large the history, the answer or what
 * the server names itself. Real OpenTelemetry SDK, in-memory exporter.
 */
import { defaultMaxAttributeBytes, defineTool } from '@agcore/tools-core';
import { ToolRegistry } from '@agcore/tools-registry';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { LlmError } from '../llm-error.js';
import { LlmCycle } from '../loop/llm-cycle.js';
import type { ChatMessage } from '../messages.js';
import { startTestTracing, type TestTracing } from '../test-support/otel.js';
import { ScriptedProvider, textResponse, toolCallsResponse } from '../testing/index.js';
import { inputMessages } from './trace-content.js';

const store = defineTool({
  name: 'store',
  description: 'Stores data',
  parameters: { type: 'object', properties: { data: { type: 'string' } } },
  execute: async () => 'stored',
});

const bytes = (value: unknown): number => Buffer.byteLength(String(value));
const marker = /\n…\[truncated: (\d+) of (\d+) bytes cut\]$/;

/** Every string (or string array item) attribute of every span, with where it was found. */
function stringAttributes(spans: readonly ReadableSpan[]): [string, string][] {
  const found: [string, string][] = [];
  for (const span of spans) {
    for (const [name, value] of Object.entries(span.attributes)) {
      const values = Array.isArray(value) ? value : [value];
      for (const item of values)
        if (typeof item === 'string') found.push([`${span.name.slice(0, 40)} ${name}`, item]);
    }
  }
  return found;
}

let tracing: TestTracing | undefined;
afterEach(async () => {
  await tracing?.stop();
  tracing = undefined;
});

describe('LlmCycle spans: every attribute is bounded', () => {
  it('a 5 MB argument: the history attribute stays under 16 KiB and says how much was cut', async () => {
    tracing = startTestTracing();
    const data = 'x'.repeat(5_000_000);
    const cycle = new LlmCycle({
      provider: new ScriptedProvider([
        toolCallsResponse([{ id: 'call_big', name: 'store', arguments: { data } }]),
        textResponse('Stored.'),
      ]),
      model: 'gpt-test',
      systemPrompt: 'Be brief.',
      tracing: { recordContent: true },
    });
    await cycle.submitWithTools('Store it', new ToolRegistry().register(store));
    const spans = tracing.spans();
    const attributes = stringAttributes(spans);
    for (const [where, value] of attributes)
      expect(bytes(value), where).toBeLessThanOrEqual(defaultMaxAttributeBytes);
    const second = spans.filter((span) => span.name === 'chat gpt-test')[1];
    const input = String(second?.attributes['gen_ai.input.messages']);
    expect(
      input.startsWith('[{"role":"user","parts":[{"type":"text","content":"Store it"}]}'),
    ).toBe(true);
    expect(input).toContain('"type":"tool_call","id":"call_big","name":"store"');
    const [, cut, total] = input.match(marker) ?? [];
    // The whole attribute would have held the 5 MB and more; the marker counts against it.
    expect(Number(total)).toBeGreaterThan(5_000_000);
    expect(Number(total) - Number(cut)).toBe(bytes(input.slice(0, input.indexOf('\n…['))));
  });

  it('the total in the marker is the size of the JSON the attribute would have held', () => {
    const history: ChatMessage[] = [
      { role: 'user', content: 'é'.repeat(40_000) },
      { role: 'assistant', content: 'ok "quoted" \u2028 line' },
      { role: 'tool', tool_call_id: 'call_1', content: '\u{1F600}'.repeat(10_000) },
    ];
    const whole = inputMessages(history, 10_000_000);
    expect(() => JSON.parse(whole)).not.toThrow();
    for (const limit of [200, 4096, defaultMaxAttributeBytes, 100_000]) {
      const bounded = inputMessages(history, limit);
      expect(bytes(bounded)).toBeLessThanOrEqual(limit);
      const [, cut, total] = bounded.match(marker) ?? [];
      expect(Number(total), String(limit)).toBe(bytes(whole));
      const kept = bounded.slice(0, bounded.indexOf('\n…['));
      expect(whole.startsWith(kept)).toBe(true);
      expect(Number(cut)).toBe(bytes(whole) - bytes(kept));
    }
    // Asked again (the next turn), the same answer.
    expect(inputMessages(history, 4096)).toBe(inputMessages(history, 4096));
  });

  it('a history with values that are not strings (restored by hand) is recorded as JSON takes them', () => {
    const odd = [
      { role: 'tool', tool_call_id: 'call_1', content: null },
      {
        role: 'assistant',
        content: 7,
        tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: null } }],
      },
    ] as unknown as ChatMessage[];
    expect(JSON.parse(inputMessages(odd, 1000))).toEqual([
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'call_1', response: null }] },
      { role: 'assistant', parts: [{ type: 'tool_call', id: 'c', name: 'f', arguments: null }] },
    ]);
  });

  it('bounds the answer, the system prompt, and what the server names itself, at maxAttributeBytes', async () => {
    tracing = startTestTracing();
    const huge = 'y'.repeat(300_000);
    const cycle = new LlmCycle({
      provider: new ScriptedProvider([
        {
          type: 'response',
          response: {
            id: `id-${huge}`,
            model: `model-${huge}`,
            message: { role: 'assistant', content: huge },
            finishReason: `reason-${huge}`,
          },
        },
      ]),
      model: `gpt-${huge}`,
      sessionId: `session-${huge}`,
      systemPrompt: `system-${huge}`,
      tracing: {
        recordContent: true,
        maxAttributeBytes: 1024,
        agentName: `agent-${huge}`,
        providerName: `provider-${huge}`,
      },
    });
    await cycle.submit('Hi');
    const spans = tracing.spans();
    const attributes = stringAttributes(spans);
    expect(attributes.length).toBeGreaterThanOrEqual(10);
    for (const [where, value] of attributes) expect(bytes(value), where).toBeLessThanOrEqual(1024);
    for (const span of spans) expect(bytes(span.name)).toBeLessThanOrEqual(1024);
    const [chat] = spans.filter((span) => span.name.startsWith('chat '));
    for (const name of [
      'gen_ai.output.messages',
      'gen_ai.system_instructions',
      'gen_ai.response.model',
      'gen_ai.response.id',
    ])
      expect(String(chat?.attributes[name]), name).toMatch(marker);
  });

  it("bounds a failed request's status message", async () => {
    tracing = startTestTracing();
    const provider = new ScriptedProvider([
      { type: 'error', error: new LlmError('http_error', `Bad: ${'z'.repeat(100_000)}`) },
    ]);
    const cycle = new LlmCycle({
      provider,
      model: 'gpt-test',
      retry: { maxRetries: 0 },
      tracing: { maxAttributeBytes: 2048 },
    });
    await expect(cycle.submit('Hi')).rejects.toMatchObject({ code: 'http_error' });
    for (const span of tracing.spans()) {
      expect(bytes(span.status.message), span.name.slice(0, 40)).toBeLessThanOrEqual(2048);
      expect(span.status.message).toMatch(marker);
    }
  });
});
