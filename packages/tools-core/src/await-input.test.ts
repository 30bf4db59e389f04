import { describe, expect, it } from 'vitest';
import { awaitInput, isAwaitingInput } from './await-input.js';
import { defineTool } from './define-tool.js';
import { createToolContext } from './tool-context.js';

describe('awaitInput', () => {
  it('makes a frozen, branded request that JSON shows as { prompt, data }', () => {
    const request = awaitInput({ prompt: 'Freeze the account?', data: { amount: 9000 } });
    expect(isAwaitingInput(request)).toBe(true);
    expect(Object.isFrozen(request)).toBe(true);
    expect(request.prompt).toBe('Freeze the account?');
    expect(request.data).toEqual({ amount: 9000 });
    expect(JSON.parse(JSON.stringify(request))).toEqual({
      prompt: 'Freeze the account?',
      data: { amount: 9000 },
    });
  });

  it('cannot be forged from JSON: a server echoing the fields is a plain value', () => {
    const echoed = JSON.parse(JSON.stringify(awaitInput({ prompt: 'p' })));
    expect(isAwaitingInput(echoed)).toBe(false);
    for (const value of [null, undefined, 'p', 1, [], { prompt: 'p' }]) {
      expect(isAwaitingInput(value)).toBe(false);
    }
  });

  it('never throws in isAwaitingInput, whatever it is given', () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('trap');
        },
      },
    );
    expect(isAwaitingInput(hostile)).toBe(false);
  });

  it('refuses a prompt that is not a non-empty string and data JSON cannot hold (TypeError)', () => {
    expect(() => awaitInput({ prompt: '' })).toThrow(TypeError);
    expect(() => awaitInput({ prompt: 42 as never })).toThrow(TypeError);
    expect(() => awaitInput(null as never)).toThrow(TypeError);
    expect(() => awaitInput({ prompt: 'p', data: { n: 10n } as never })).toThrow(/data.*BigInt/);
    expect(() => awaitInput({ prompt: 'p', data: undefined })).not.toThrow();
  });

  it('is what a defineTool tool may return instead of its result; context.input carries the answer', async () => {
    const transfer = defineTool({
      name: 'transfer',
      description: 'Moves money',
      parameters: {
        type: 'object',
        properties: { amount: { type: 'number' } },
        required: ['amount'],
      },
      execute: async ({ amount }, context) => {
        if (amount > 5000 && context.input === undefined) {
          return awaitInput({ prompt: `Transfer ${amount} €?`, data: { amount } });
        }
        return { done: context.input?.value !== 'no', data: context.input?.data ?? null };
      },
    });
    const first = await transfer.execute({ amount: 9000 }, createToolContext());
    expect(isAwaitingInput(first)).toBe(true);
    const second = await transfer.execute(
      { amount: 9000 },
      createToolContext({ input: { value: 'yes', data: { amount: 9000 } } }),
    );
    expect(second).toEqual({ done: true, data: { amount: 9000 } });
  });
});
