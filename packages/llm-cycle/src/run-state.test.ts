/**
 * Issue 12, section 2, hostile cases: states that lie or break, decisions that do not fit,
 * and a paused cycle used wrongly (twice, concurrently, cancelled, abandoned, broken off).
 */
import { defineTool } from '@agcore/tools-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LlmCycle } from './llm-cycle.js';
import { LlmError } from './llm-error.js';
import type { RunState } from './run-state.js';
import {
  expectWhole,
  kitRegistry,
  resume,
  type Step,
  scriptedModel,
  submit,
  toolAnswers,
  type Witness,
} from './test-support/pause-kit.js';

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
beforeEach(() => {
  unhandled.length = 0;
  process.on('unhandledRejection', onUnhandled);
});
afterEach(async () => {
  await new Promise((resolve) => setTimeout(resolve, 5));
  process.off('unhandledRejection', onUnhandled);
  expect(unhandled).toEqual([]);
});

const turn: Step = {
  calls: [
    { name: 'get_weather', args: { city: 'Paris' }, id: 'call_weather' },
    { name: 'delete_file', args: { path: 'a.txt' }, id: 'call_a' },
    { name: 'delete_file', args: { path: 'b.txt' }, id: 'call_b' },
  ],
};

async function pausedCycle(steps: Step[] = [turn, { text: 'ok' }]) {
  const witness: Witness = { ran: [] };
  const model = scriptedModel(steps);
  const cycle = new LlmCycle({ provider: model.provider, model: 'test' });
  const registry = kitRegistry(witness);
  const outcome = await submit(cycle, 'Go', registry, false);
  expect(outcome.response?.interruptions).toHaveLength(2);
  return { witness, model, cycle, registry };
}

// biome-ignore lint/suspicious/noExplicitAny: the tests edit states as the JSON they are
type Json = any;

/** A deep copy of `state` with `edit` applied. */
function edited(state: RunState, edit: (copy: Json) => void): unknown {
  const copy = JSON.parse(JSON.stringify(state));
  edit(copy);
  return copy;
}

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

describe('a paused cycle used wrongly', () => {
  it('resuming twice: the second is state_mismatch (nothing to resume)', async () => {
    const { cycle, registry } = await pausedCycle();
    const decisions = { call_a: 'approve', call_b: 'approve' } as const;
    await expect(cycle.resume(decisions, registry)).resolves.toMatchObject({
      message: { content: 'ok' },
    });
    await expect(cycle.resume(decisions, registry)).rejects.toMatchObject({
      code: 'state_mismatch',
    });
  });

  it('resume (or state, abandon, a submit) while a resume or submit runs is busy', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slowTool = defineTool({
      name: 'slow_delete',
      description: 'd',
      parameters: { type: 'object', properties: {} },
      needsApproval: true,
      execute: async () => {
        await gate;
        return 'done';
      },
    });
    const model = scriptedModel([
      { calls: [{ name: 'slow_delete', args: {}, id: 'call_s' }] },
      { text: 'ok' },
    ]);
    const cycle = new LlmCycle({ provider: model.provider, model: 'test' });
    const registry = kitRegistry().register(slowTool);
    await cycle.submitWithTools('Go', registry);
    const running = cycle.resume({ call_s: 'approve' }, registry);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await expect(cycle.resume({ call_s: 'approve' }, registry)).rejects.toMatchObject({
      code: 'busy',
    });
    await expect(cycle.submitWithTools('x', registry)).rejects.toMatchObject({ code: 'busy' });
    expect(() => cycle.state()).toThrowError(expect.objectContaining({ code: 'busy' }));
    expect(() => cycle.abandon('x')).toThrowError(expect.objectContaining({ code: 'busy' }));
    release();
    await expect(running).resolves.toMatchObject({ message: { content: 'ok' } });
    expectWhole(cycle.messages());
  });

  it('abandon on a cycle that is not paused does nothing; a reason that is not a string is a TypeError', async () => {
    const model = scriptedModel([{ text: 'hi' }]);
    const cycle = new LlmCycle({ provider: model.provider, model: 'test' });
    cycle.abandon('nothing to abandon');
    expect(cycle.messages()).toEqual([]);
    expect(() => cycle.abandon(42 as never)).toThrow(TypeError);
  });

  for (const streaming of [false, true]) {
    const mode = streaming ? 'streamed' : 'not streamed';

    it(`resume with an aborted signal is cancelled and stays paused (${mode})`, async () => {
      const { cycle, registry, witness } = await pausedCycle();
      const controller = new AbortController();
      controller.abort(new Error('gone'));
      const outcome = await resume(
        cycle,
        { call_a: 'approve', call_b: 'approve' },
        registry,
        streaming,
        controller.signal,
      );
      expect(LlmError.isInstance(outcome.error) && outcome.error.code).toBe('cancelled');
      expect(cycle.interruptions()).toHaveLength(2);
      expect(witness.ran.map((call) => call.name)).toEqual(['get_weather']);
    });

    it(`cancelling during resume cancels the approved calls; the turn is committed whole (${mode})`, async () => {
      const hang = defineTool({
        name: 'hang',
        description: 'd',
        parameters: { type: 'object', properties: {} },
        needsApproval: true,
        execute: (_args, context) =>
          new Promise<string>((_resolve, reject) => {
            context.signal.addEventListener('abort', () => reject(new Error('stopped')));
            setTimeout(() => controller.abort(new Error('user stop')), 5);
          }),
      });
      const controller = new AbortController();
      const model = scriptedModel([
        {
          calls: [
            { name: 'hang', args: {}, id: 'call_h' },
            { name: 'delete_file', args: { path: 'z' }, id: 'call_z' },
          ],
        },
      ]);
      const cycle = new LlmCycle({ provider: model.provider, model: 'test' });
      const registry = kitRegistry().register(hang);
      await submit(cycle, 'Go', registry, streaming);
      const outcome = await resume(
        cycle,
        { call_h: 'approve', call_z: { deny: 'no' } },
        registry,
        streaming,
        controller.signal,
      );
      expect(LlmError.isInstance(outcome.error) && outcome.error.code).toBe('cancelled');
      expect(cycle.interruptions()).toEqual([]);
      const answers = toolAnswers(cycle.messages());
      expect(answers.call_h).toMatch(/^Error \[cancelled\]/);
      expect(answers.call_z).toBe('Error [denied]: no');
      expectWhole(cycle.messages());
    });
  }

  it('a consumer that breaks out of resumeStream cancels the resumed calls; the turn is committed', async () => {
    const hang = defineTool({
      name: 'hang',
      description: 'd',
      parameters: { type: 'object', properties: {} },
      needsApproval: true,
      execute: (_args, context) =>
        new Promise<string>((_resolve, reject) => {
          context.signal.addEventListener('abort', () => reject(new Error('stopped')));
        }),
    });
    const model = scriptedModel([{ calls: [{ name: 'hang', args: {}, id: 'call_h' }] }]);
    const cycle = new LlmCycle({ provider: model.provider, model: 'test' });
    const registry = kitRegistry().register(hang);
    await cycle.submitWithTools('Go', registry);
    for await (const event of cycle.resumeStream({ call_h: 'approve' }, registry)) {
      expect(event.type).toBe('tool_execution_started');
      break;
    }
    expect(cycle.interruptions()).toEqual([]);
    expect(toolAnswers(cycle.messages()).call_h).toMatch(/^Error \[cancelled\]/);
    expectWhole(cycle.messages());
  });

  it('a consumer that breaks once the run paused leaves it paused', async () => {
    const model = scriptedModel([turn, { text: 'ok' }]);
    const cycle = new LlmCycle({ provider: model.provider, model: 'test' });
    const registry = kitRegistry();
    for await (const event of cycle.submitStreamWithTools('Go', registry)) {
      if (event.type === 'tool_approval_requested') break;
    }
    expect(cycle.interruptions().map((item) => item.callId)).toEqual(['call_a', 'call_b']);
    expect(cycle.messages().map((message) => message.role)).toEqual(['user']);
    const { error } = await resume(cycle, { call_a: 'approve', call_b: 'approve' }, registry, true);
    expect(error).toBeUndefined();
  });

  it('a consumer that breaks before the pause cancels the turn: no pause, history whole', async () => {
    const model = scriptedModel([turn]);
    const cycle = new LlmCycle({ provider: model.provider, model: 'test' });
    for await (const event of cycle.submitStreamWithTools('Go', kitRegistry())) {
      if (event.type === 'tool_execution_started') break;
    }
    expect(cycle.interruptions()).toEqual([]);
    const answers = toolAnswers(cycle.messages());
    expect(answers.call_a).toMatch(
      /^Error \[cancelled\]: Tool 'delete_file' was not run: it waited for approval/,
    );
    expectWhole(cycle.messages());
  });
});

describe("a tool's needsApproval that fails", () => {
  for (const [what, needsApproval] of [
    [
      'throws',
      () => {
        throw new Error('cannot decide');
      },
    ],
    [
      'rejects',
      async () => {
        throw new Error('cannot decide');
      },
    ],
    ['returns a string', () => 'yes' as never],
  ] as const) {
    it(`${what}: that call is execution_failed and not run; its siblings run; no pause`, async () => {
      let ran = 0;
      const shaky = defineTool({
        name: 'shaky',
        description: 'd',
        parameters: { type: 'object', properties: {} },
        needsApproval,
        execute: async () => {
          ran++;
          return 'ran';
        },
      });
      const model = scriptedModel([
        {
          calls: [
            { name: 'shaky', args: {}, id: 'call_s' },
            { name: 'get_weather', args: { city: 'Oslo' }, id: 'call_w' },
          ],
        },
        { text: 'ok' },
      ]);
      const cycle = new LlmCycle({ provider: model.provider, model: 'test' });
      const { response, error } = await submit(cycle, 'Go', kitRegistry().register(shaky), false);
      expect(error).toBeUndefined();
      expect(response?.message.content).toBe('ok');
      expect(ran).toBe(0);
      const answers = toolAnswers(cycle.messages());
      expect(answers.call_s).toMatch(
        /^Error \[execution_failed\]: Tool 'shaky' could not tell whether this call needs approval/,
      );
      expect(answers.call_w).toBe('{"city":"Oslo","temperature":22}');
    });
  }

  it('a needsApproval getter that throws is answered the same way', async () => {
    const tool = {
      name: 'getter',
      description: 'd',
      parameters: { type: 'object' as const, properties: {} },
      get needsApproval(): boolean {
        throw new Error('getter');
      },
      execute: async () => 'ran',
    };
    const model = scriptedModel([
      { calls: [{ name: 'getter', args: {}, id: 'call_g' }] },
      { text: 'ok' },
    ]);
    const cycle = new LlmCycle({ provider: model.provider, model: 'test' });
    const { error } = await submit(cycle, 'Go', kitRegistry().register(tool), true);
    expect(error).toBeUndefined();
    expect(toolAnswers(cycle.messages()).call_g).toMatch(/^Error \[execution_failed\].*getter/);
  });
});
