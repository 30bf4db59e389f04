import { describe, expect, it } from 'vitest';
import { json, roles, useCycleServer, withoutSystem } from '../test-support/cycle-kit.js';
import { collectEvents, rejection } from '../test-support/results.js';
import { textCompletion, textStream } from '../testing/index.js';

const wire = useCycleServer();
const { sent, makeCycle } = wire;

describe('LlmCycle plain submits', () => {
  it('submit keeps the history and sums usage over requests', async () => {
    const cycle = makeCycle();
    wire.server.reply(
      json(textCompletion('Hello!', [10, 2])),
      json(textCompletion('Fine.', [20, 3])),
    );
    expect((await cycle.submit('Hi')).message.content).toBe('Hello!');
    await cycle.submit('How are you?');
    expect(withoutSystem(cycle)).toEqual([
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello!' },
      { role: 'user', content: 'How are you?' },
      { role: 'assistant', content: 'Fine.' },
    ]);
    expect(cycle.usage()).toEqual({ promptTokens: 30, completionTokens: 5, totalTokens: 35 });
    expect(sent(1).messages).toEqual([
      { role: 'system', content: 'You are a helpful assistant.' },
      ...withoutSystem(cycle).slice(0, 3),
    ]);
    expect(sent(1).tools).toBeUndefined();
    // messages() is the history as the next request sends it: system prompt first.
    expect(cycle.messages()[0]).toEqual({
      role: 'system',
      content: 'You are a helpful assistant.',
    });
    expect(sent(1).messages).toEqual(cycle.messages().slice(0, 4));
  });

  it('takes a saved history, system prompt included, back as is', async () => {
    const first = makeCycle();
    wire.server.reply(json(textCompletion('Hello!')), json(textCompletion('Again.')));
    await first.submit('Hi');
    const saved = first.messages();
    const resumed = makeCycle({ systemPrompt: undefined, messages: saved });
    expect(resumed.messages()).toEqual(saved);
    await resumed.submit('More');
    expect(sent(1).messages).toEqual([...saved, { role: 'user', content: 'More' }]);
    // The same system prompt given twice is kept once; two different ones are refused.
    expect(makeCycle({ messages: saved }).messages()).toEqual(saved);
    expect(() => makeCycle({ systemPrompt: 'Other.', messages: saved })).toThrow(TypeError);
  });

  it('submitMessages appends messages and submitStream streams text', async () => {
    const cycle = makeCycle({ systemPrompt: undefined });
    wire.server.reply(json(textCompletion('4')), {
      kind: 'sse',
      writes: textStream(['Twenty', '-two'], { usage: [5, 2] }),
    });
    await cycle.submitMessages([{ role: 'user', content: '2+2?' }]);
    const { events, response } = await collectEvents(cycle.submitStream('And 11*2?'));
    expect(events).toEqual([
      { type: 'assistant_text_delta', text: 'Twenty' },
      { type: 'assistant_text_delta', text: '-two' },
      {
        type: 'turn_complete',
        reason: 'stop',
        usage: { promptTokens: 5, completionTokens: 2, totalTokens: 7 },
      },
    ]);
    expect(response.message.content).toBe('Twenty-two');
    expect(roles(withoutSystem(cycle))).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(sent(1).messages[0]).toEqual({ role: 'user', content: '2+2?' });
  });

  it('refuses a second submit while one runs (busy) and leaves the first intact', async () => {
    const cycle = makeCycle();
    wire.server.reply(json(textCompletion('first')));
    const first = cycle.submit('one');
    const error = await rejection(cycle.submit('two'));
    expect(error.code).toBe('busy');
    await first;
    expect(roles(withoutSystem(cycle))).toEqual(['user', 'assistant']);
  });
});
