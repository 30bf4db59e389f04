import { describe, expect, it } from 'vitest';
import { LlmError } from '../llm-error.js';
import { LlmCycle } from '../loop/llm-cycle.js';
import type { Json } from '../test-support/chat-server.js';
import {
  kitRegistry,
  resume,
  scriptedModel,
  submit,
  toolAnswers,
  type Witness,
} from '../test-support/pause-kit.js';
import { edited, guardUnhandledRejections, pausedCycle } from '../test-support/paused-cycle.js';
import type { RunState } from './run-state.js';

guardUnhandledRejections();

describe('a state that lies or breaks is refused with state_mismatch', () => {
  const cases: [string, (copy: Json) => void][] = [
    ['an extra field', (copy) => Object.assign(copy, { approvedBy: 'admin' })],
    [
      'a __proto__ key',
      (copy) => Object.defineProperty(copy, '__proto__', { value: {}, enumerable: true }),
    ],
    ['a missing field', (copy) => delete copy.usage],
    ['another version', (copy) => Object.assign(copy, { version: 2 })],
    ['a version as a string', (copy) => Object.assign(copy, { version: '1' })],
    ['an extra field in pending', (copy) => Object.assign(copy.pending, { approved: true })],
    ['a pending call id listed twice', (copy) => copy.pending.calls.push(copy.pending.calls[0])],
    [
      'a pending call that already has its answer',
      (copy) =>
        copy.pending.calls.push({
          ...copy.pending.calls[0],
          callId: 'call_weather',
          toolName: 'get_weather',
        }),
    ],
    ['a pending call missing', (copy) => copy.pending.calls.pop()],
    [
      'a pending call not in the answer',
      (copy) => Object.assign(copy.pending.calls[0], { callId: 'call_x' }),
    ],
    [
      'a pending call with another tool name',
      (copy) => Object.assign(copy.pending.calls[0], { toolName: 'get_weather' }),
    ],
    [
      'a pending call of kind input made from an approval',
      (copy) => Object.assign(copy.pending.calls[0], { kind: 'input', prompt: 'ok?' }),
    ],
    [
      'a kind that does not exist',
      (copy) => Object.assign(copy.pending.calls[0], { kind: 'auto' }),
    ],
    ['a hash that is not SHA-256', (copy) => Object.assign(copy.pending.calls[0], { hash: 'abc' })],
    [
      'two calls of the answer with one id',
      (copy) => {
        copy.pending.response.message.tool_calls[2].id = 'call_a';
      },
    ],
    [
      'altered arguments',
      (copy) => {
        copy.pending.response.message.tool_calls[1].function.arguments = '{"path":"/"}';
      },
    ],
    [
      'arguments that are not JSON',
      (copy) => {
        copy.pending.response.message.tool_calls[1].function.arguments = '{"path":';
      },
    ],
    ['a negative turn count', (copy) => Object.assign(copy.pending, { turns: -1 })],
    ['usage that is not a number', (copy) => Object.assign(copy.usage, { totalTokens: 'many' })],
    ['a message of an unknown role', (copy) => copy.messages.push({ role: 'root', content: 'x' })],
    [
      'a system message after the first',
      (copy) => copy.messages.push({ role: 'system', content: 'x' }),
    ],
    ['a repeats entry that is not a pair', (copy) => copy.pending.repeats.push(['x'])],
  ];

  for (const [what, edit] of cases) {
    it(what, async () => {
      const { cycle, model, witness } = await pausedCycle();
      const state = edited(cycle.state(), edit);
      const before = witness.ran.length;
      let error: unknown;
      try {
        new LlmCycle({ provider: model.provider, model: 'test', state: state as RunState });
      } catch (caught) {
        error = caught;
      }
      expect(LlmError.isInstance(error) && error.code).toBe('state_mismatch');
      expect((error as Error).message).toMatch(/^The run state was refused: .+Nothing was run/);
      expect(witness.ran).toHaveLength(before);
    });
  }

  it('values that are not a state at all', () => {
    const provider = scriptedModel([]).provider;
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    for (const state of [null, [], 'state', 42, { version: 1n }, cyclic, undefined as never]) {
      if (state === undefined) continue;
      expect(() => new LlmCycle({ provider, model: 'test', state: state as never })).toThrowError(
        expect.objectContaining({ code: 'state_mismatch' }),
      );
    }
  });

  it('a state is refused beside messages or another sessionId (TypeError)', async () => {
    const { cycle, model } = await pausedCycle();
    const state = cycle.state();
    expect(
      () => new LlmCycle({ provider: model.provider, model: 't', state, messages: [] }),
    ).toThrow(TypeError);
    expect(
      () => new LlmCycle({ provider: model.provider, model: 't', state, sessionId: 'other' }),
    ).toThrow(TypeError);
    expect(
      () => new LlmCycle({ provider: model.provider, model: 't', state, stateSecret: 'too short' }),
    ).toThrow(RangeError);
  });

  it('an idle cycle has a state too (pending null), and it restores', async () => {
    const model = scriptedModel([{ text: 'hello' }]);
    const cycle = new LlmCycle({
      provider: model.provider,
      model: 'test',
      systemPrompt: 'Be brief.',
    });
    await cycle.submit('Hi');
    const state = JSON.parse(JSON.stringify(cycle.state()));
    expect(state.pending).toBeNull();
    const restored = new LlmCycle({ provider: model.provider, model: 'test', state });
    expect(restored.messages()).toEqual(cycle.messages());
    expect(restored.usage()).toEqual(cycle.usage());
  });
});

describe('decisions that do not fit are a TypeError naming them; nothing runs, still paused', () => {
  const bad: [string, unknown, RegExp][] = [
    ['a missing decision', { call_a: 'approve' }, /no decision for call "call_b"/],
    [
      'a call that already ran',
      { call_a: 'approve', call_b: 'approve', call_weather: 'approve' },
      /"call_weather" is not pending/,
    ],
    [
      'an unknown id',
      { call_a: 'approve', call_b: 'approve', nope: 'approve' },
      /"nope" is not pending/,
    ],
    [
      'a __proto__ key from JSON',
      JSON.parse('{"call_a":"approve","call_b":"approve","__proto__":"approve"}'),
      /"__proto__" is not pending/,
    ],
    [
      'a decision that is not one',
      { call_a: 'yes', call_b: 'approve' },
      /"call_a": awaits approval/,
    ],
    ['a deny without a string', { call_a: { deny: 1 }, call_b: 'approve' }, /"call_a"/],
    ['null', null, /decisions must be an object/],
    ['an array', ['approve', 'approve'], /decisions must be an object/],
    ['a string', 'approve', /decisions must be an object/],
  ];
  for (const [what, decisions, message] of bad) {
    for (const streaming of [false, true]) {
      it(`${what} (${streaming ? 'streamed' : 'not streamed'})`, async () => {
        const { cycle, witness, registry } = await pausedCycle();
        const ran = witness.ran.length;
        const outcome = await resume(cycle, decisions as never, registry, streaming);
        expect(outcome.error).toBeInstanceOf(TypeError);
        expect((outcome.error as Error).message).toMatch(message);
        expect(outcome.events).toEqual([]);
        expect(witness.ran).toHaveLength(ran);
        expect(cycle.interruptions()).toHaveLength(2);
        const good = await resume(
          cycle,
          { call_a: 'approve', call_b: { deny: 'no' } },
          registry,
          streaming,
        );
        expect(good.error).toBeUndefined();
      });
    }
  }

  it('a decision object with a prototype is read by own keys only', async () => {
    const { cycle, registry } = await pausedCycle();
    const inherited = Object.create({ call_b: 'approve' }) as Record<string, unknown>;
    inherited.call_a = 'approve';
    await expect(cycle.resume(inherited as never, registry)).rejects.toThrow(
      /no decision for call "call_b"/,
    );
  });

  it('call ids named __proto__ and constructor (a hostile model) are decided like any other', async () => {
    const witness: Witness = { ran: [] };
    const model = scriptedModel([
      {
        calls: [
          { name: 'delete_file', args: { path: 'x' }, id: '__proto__' },
          { name: 'delete_file', args: { path: 'y' }, id: 'constructor' },
        ],
      },
      { text: 'ok' },
    ]);
    const cycle = new LlmCycle({ provider: model.provider, model: 'test' });
    const registry = kitRegistry(witness);
    await submit(cycle, 'Go', registry, false);
    const state = JSON.parse(JSON.stringify(cycle.state()));
    const restored = new LlmCycle({ provider: model.provider, model: 'test', state });
    const decisions = JSON.parse('{"__proto__":"approve","constructor":{"deny":"no"}}');
    const { error } = await resume(restored, decisions, registry, false);
    expect(error).toBeUndefined();
    expect(witness.ran.map((call) => call.args)).toEqual([{ path: 'x' }]);
    expect(toolAnswers(restored.messages()).constructor).toBe('Error [denied]: no');
  });
});
