import { defineTool } from '@agcore/tools-core';
import { ToolRegistry } from '@agcore/tools-registry';
import { describe, expect, it } from 'vitest';
import { LlmError } from '../llm-error.js';
import { LlmCycle } from '../loop/llm-cycle.js';
import type { StreamEvent } from '../stream-events.js';
import { ScriptedProvider, textResponse, toolCallsResponse } from './index.js';

const add = defineTool({
  name: 'add',
  description: 'Adds two numbers',
  parameters: {
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' } },
    required: ['a', 'b'],
  },
  execute: async ({ a, b }) => a + b,
});

describe('ScriptedProvider', () => {
  it('drives a tool loop, records each call and passes assertComplete', async () => {
    const provider = new ScriptedProvider([
      toolCallsResponse([{ name: 'add', arguments: { a: 2, b: 3 }, id: 'call_add' }]),
      textResponse('2 + 3 = 5', {
        usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 },
      }),
    ]);
    const cycle = new LlmCycle({ provider, model: 'test-model', systemPrompt: 'Be exact.' });
    const response = await cycle.submitWithTools(
      'What is 2 + 3?',
      new ToolRegistry().register(add),
    );
    expect(response.message.content).toBe('2 + 3 = 5');
    expect(provider.calls.map((call) => call.method)).toEqual(['chat', 'chat']);
    expect(provider.calls[1]?.request.messages).toEqual([
      { role: 'system', content: 'Be exact.' },
      { role: 'user', content: 'What is 2 + 3?' },
      expect.objectContaining({ role: 'assistant' }),
      { role: 'tool', tool_call_id: 'call_add', content: '5' },
    ]);
    expect(provider.calls[0]?.request.tools?.[0]?.function.name).toBe('add');
    expect(cycle.usage()).toEqual({ promptTokens: 10, completionTokens: 5, totalTokens: 15 });
    expect(() => provider.assertComplete()).not.toThrow();
  });

  it('plays chunk streams (streamed or assembled) and whole responses as streams', async () => {
    const provider = new ScriptedProvider([
      {
        type: 'chunks',
        chunks: [
          { type: 'assistant_text_delta', text: 'Adding. ' },
          {
            type: 'tool_call_delta',
            index: 0,
            callId: 'call_1',
            toolName: 'add',
            argumentsDelta: '{"a":1,',
          },
          { type: 'tool_call_delta', index: 0, argumentsDelta: '"b":1}' },
        ],
      },
      textResponse('Two.'),
    ]);
    const cycle = new LlmCycle({ provider, model: 'm' });
    const events: StreamEvent[] = [];
    for await (const event of cycle.submitStreamWithTools('1+1?', new ToolRegistry().register(add)))
      events.push(event);
    expect(events.map((event) => event.type)).toEqual([
      'assistant_text_delta',
      'tool_call_delta',
      'tool_call_delta',
      'tool_execution_started',
      'turn_complete',
      'tool_execution_completed',
      'assistant_text_delta',
      'turn_complete',
    ]);
    expect(cycle.messages()[1]).toEqual({
      role: 'assistant',
      content: 'Adding. ',
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'add', arguments: '{"a":1,"b":1}' } },
      ],
    });
    const assembled = new ScriptedProvider([
      {
        type: 'chunks',
        chunks: [
          { type: 'assistant_text_delta', text: 'a' },
          { type: 'assistant_text_delta', text: 'b' },
        ],
      },
    ]);
    expect((await assembled.chat({ model: 'm', messages: [] })).message.content).toBe('ab');
  });

  it('assertComplete names unused steps; an exhausted script fails the call clearly', async () => {
    const provider = new ScriptedProvider([textResponse('one'), textResponse('two')]);
    const cycle = new LlmCycle({ provider, model: 'm' });
    await cycle.submit('1');
    expect(() => provider.assertComplete()).toThrow(/1 of 2 scripted step\(s\) were not used/);
    await cycle.submit('2');
    provider.assertComplete();
    const error = await cycle.submit('3').catch((caught: unknown) => caught);
    expect(LlmError.isInstance(error) && error.code).toBe('provider_error');
    expect((error as Error).message).toContain('has no scripted step');
    expect(cycle.messages()).toHaveLength(4);
  });

  it('plays scripted errors, which the cycle retries when retryable', async () => {
    const provider = new ScriptedProvider([
      { type: 'error', error: new LlmError('http_error', 'overloaded', { statusCode: 529 }) },
      textResponse('after retry'),
    ]);
    const cycle = new LlmCycle({ provider, model: 'm', retry: { initialDelayMs: 1 } });
    expect((await cycle.submit('hi')).message.content).toBe('after retry');
    expect(provider.calls).toHaveLength(2);
  });
});
