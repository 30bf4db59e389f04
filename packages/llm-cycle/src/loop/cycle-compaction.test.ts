import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../messages.js';
import type { Json } from '../test-support/chat-server.js';
import { json, registry, useCycleServer, withoutSystem } from '../test-support/cycle-kit.js';
import { rejection } from '../test-support/results.js';
import { textCompletion, toolCallCompletion } from '../testing/index.js';
import { describeBrokenToolPairs, summarizeOldestExchanges } from './compaction.js';

const wire = useCycleServer();
const { sent, makeCycle } = wire;

describe('LlmCycle.submitWithTools', () => {
  it('compacts old exchanges without separating tool pairs; the system prompt stays', async () => {
    const cycle = makeCycle({ compaction: { maxTokens: 400 } });
    for (let round = 0; round < 4; round++) {
      wire.server.reply(
        json(
          toolCallCompletion([
            {
              id: `call_${round}`,
              name: 'get_weather',
              arguments: `{"city":"City number ${round} with a long name"}`,
            },
          ]),
        ),
        json(textCompletion(`Round ${round}: ${'lorem ipsum '.repeat(20)}`)),
      );
      await cycle.submitWithTools(`Question ${round}: ${'please '.repeat(20)}`, registry());
    }
    for (const received of wire.server.requests) {
      const messages = (received.body as Json).messages as ChatMessage[];
      expect(messages[0]).toEqual({ role: 'system', content: 'You are a helpful assistant.' });
      expect(describeBrokenToolPairs(messages.slice(1))).toBeUndefined();
    }
    const last = sent(wire.server.requests.length - 1).messages as ChatMessage[];
    expect(last.some((message) => message.content === `Question 0: ${'please '.repeat(20)}`)).toBe(
      false,
    );
    expect(last.some((message) => message.content === `Question 3: ${'please '.repeat(20)}`)).toBe(
      true,
    );
    expect(describeBrokenToolPairs(withoutSystem(cycle))).toBeUndefined();
  });

  it('compacts through a summarizing strategy', async () => {
    const summarized: ChatMessage[][] = [];
    const cycle = makeCycle({
      compaction: {
        maxTokens: 200,
        strategy: summarizeOldestExchanges({
          summarize: async (messages) => {
            summarized.push([...messages]);
            return `${messages.length} earlier messages about greetings`;
          },
        }),
      },
    });
    wire.server.reply(
      json(textCompletion(`Hello! ${'long answer '.repeat(80)}`)),
      json(textCompletion('Short.')),
    );
    await cycle.submit('Hi');
    await cycle.submit('Again');
    expect(summarized).toHaveLength(1);
    expect(sent(1).messages.slice(0, 2)).toEqual([
      { role: 'system', content: 'You are a helpful assistant.' },
      {
        role: 'user',
        content: 'Summary of the earlier conversation:\n2 earlier messages about greetings',
      },
    ]);
  });

  it('fails with compaction_failed when a strategy breaks a tool pair', async () => {
    const cycle = makeCycle({
      compaction: {
        maxTokens: 10,
        strategy: ({ messages }) => messages.filter((message) => message.role !== 'tool'),
      },
    });
    wire.server.reply(
      json(toolCallCompletion([{ id: 'call_1', name: 'get_time', arguments: '{}' }])),
    );
    const error = await rejection(cycle.submitWithTools('time', registry()));
    expect(error.code).toBe('compaction_failed');
    expect(describeBrokenToolPairs(withoutSystem(cycle))).toBeUndefined();
  });
});
