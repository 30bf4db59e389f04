/**
 * Issue 12 with issue 13's spans: a run that pauses ends its submit's `invoke_agent` span, and
 * a resume (here in a fresh LlmCycle restored from JSON) has one of its own; the calls that
 * ran, asked back, or ran after approval sit under the span of the submit or resume that ran them.
 */
import { awaitInput, defineTool } from '@agcore/tools-core';
import { ToolRegistry } from '@agcore/tools-registry';
import { SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { LlmCycle } from '../loop/llm-cycle.js';
import type { RunState } from '../runs/run-state.js';
import { parentOf, startTestTracing, type TestTracing } from '../test-support/otel.js';
import { ScriptedProvider, textResponse, toolCallsResponse } from '../testing/index.js';

function tools(): ToolRegistry {
  return new ToolRegistry().registerAll([
    defineTool({
      name: 'get_weather',
      description: 'Weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      execute: async ({ city }) => ({ city, temperature: 22 }),
    }),
    defineTool({
      name: 'delete_file',
      description: 'Deletes a file',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      needsApproval: true,
      execute: async ({ path }) => ({ deleted: path }),
    }),
    defineTool({
      name: 'transfer',
      description: 'Moves money, asks first',
      parameters: { type: 'object' },
      execute: async (_args, context) =>
        context.input === undefined
          ? awaitInput({ prompt: 'Freeze the account?' })
          : { frozen: context.input.value === 'yes' },
    }),
  ]);
}

const usage = { promptTokens: 10, completionTokens: 1, totalTokens: 11 };
const provider = (): ScriptedProvider =>
  new ScriptedProvider([
    toolCallsResponse(
      [
        { id: 'call_w', name: 'get_weather', arguments: { city: 'Paris' } },
        { id: 'call_d', name: 'delete_file', arguments: { path: 'notes.txt' } },
        { id: 'call_t', name: 'transfer', arguments: { amount: 9000 } },
      ],
      { usage },
    ),
    textResponse('Done.', { usage: { ...usage, promptTokens: 30, totalTokens: 31 } }),
  ]);

let tracing: TestTracing | undefined;
afterEach(async () => {
  await tracing?.stop();
  tracing = undefined;
});

const named = (spans: ReadableSpan[], name: string) => spans.filter((span) => span.name === name);

describe('LlmCycle spans across a pause', () => {
  for (const streamed of [false, true]) {
    it(`the submit's span ends at the pause; the resume in a fresh LlmCycle has its own (${streamed ? 'streamed' : 'not streamed'})`, async () => {
      tracing = startTestTracing();
      const model = provider();
      const options = { provider: model, model: 'gpt-test', sessionId: 'session-7' };
      const first = new LlmCycle(options);
      if (streamed) for await (const _event of first.submitStreamWithTools('Go', tools()));
      else await first.submitWithTools('Go', tools());
      expect(first.interruptions()).toHaveLength(2);
      const state = JSON.parse(JSON.stringify(first.state())) as RunState;
      const second = new LlmCycle({ ...options, state });
      const decisions = { call_d: 'approve', call_t: { input: 'yes' } } as const;
      if (streamed) for await (const _event of second.resumeStream(decisions, tools()));
      else await second.resume(decisions, tools());

      const spans = tracing.spans();
      const [submit, resumed, ...more] = named(spans, 'invoke_agent');
      expect(more).toEqual([]);
      if (submit === undefined || resumed === undefined) throw new Error('two invoke_agent spans');
      expect(submit.attributes['agcore.run.interruptions']).toBe(2);
      expect(submit.attributes['agcore.run.resumed']).toBeUndefined();
      expect(submit.status.code).toBe(SpanStatusCode.UNSET);
      expect(submit.attributes['gen_ai.usage.input_tokens']).toBe(10);
      expect(resumed.attributes['agcore.run.resumed']).toBe(true);
      expect(resumed.attributes['agcore.run.interruptions']).toBeUndefined();
      expect(resumed.attributes['gen_ai.usage.input_tokens']).toBe(30);
      expect(resumed.attributes['gen_ai.conversation.id']).toBe('session-7');
      expect(submit.attributes['gen_ai.conversation.id']).toBe('session-7');

      const under = (span: ReadableSpan) =>
        spans
          .filter((child) => parentOf(child) === span.spanContext().spanId)
          .map((child) => child.name);
      expect(under(submit).sort()).toEqual([
        'chat gpt-test',
        'execute_tool get_weather',
        'execute_tool transfer',
      ]);
      expect(under(resumed).sort()).toEqual([
        'chat gpt-test',
        'execute_tool delete_file',
        'execute_tool transfer',
      ]);
      const [asked, answered] = named(spans, 'execute_tool transfer');
      expect(asked?.attributes['agcore.tool.awaiting_input']).toBe(true);
      expect(asked?.status.code).toBe(SpanStatusCode.UNSET);
      expect(answered?.attributes['agcore.tool.awaiting_input']).toBeUndefined();
      expect(second.messages().at(-1)?.content).toBe('Done.');
    });
  }
});
