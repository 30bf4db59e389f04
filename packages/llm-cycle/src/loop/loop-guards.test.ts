/**
 * Issue 12, section 4: loop detection and stop conditions, streamed and not, on the scripted
 * provider and the wire-format server.
 */
import { describe, expect, it } from 'vitest';
import { LlmError } from '../llm-error.js';
import { useChatServer } from '../test-support/chat-server.js';
import {
  expectWhole,
  kitRegistry,
  resume,
  type Step,
  scriptedModel,
  submit,
  toolAnswers,
  type Witness,
  wireModel,
} from '../test-support/pause-kit.js';
import { LlmCycle, type LlmCycleOptions } from './llm-cycle.js';
import { stopAfterTokens, stopAfterToolCalls, stopOnTool } from './stop-conditions.js';

const fixture = useChatServer();

/** Turn `n` calls get_weather(Paris), its arguments written another way each time. */
const spellings = [
  { city: 'Paris' },
  JSON.parse('{ "city" : "Paris" }'),
  { city: 'Paris' },
  { city: 'Paris' },
  { city: 'Paris' },
];
const repeating = (count: number): Step[] =>
  Array.from({ length: count }, (_, index) => ({
    calls: [
      { name: 'get_weather', args: spellings[index] ?? { city: 'Paris' }, id: `call_${index}` },
    ],
  }));

for (const [modelName, makeModel] of Object.entries({
  scripted: (steps: readonly Step[]) => scriptedModel(steps),
  'wire server': (steps: readonly Step[]) => wireModel(fixture.server, steps),
})) {
  for (const streaming of [false, true]) {
    const mode = `${modelName}, ${streaming ? 'streamed' : 'not streamed'}`;
    const setup = (steps: readonly Step[], options: Partial<LlmCycleOptions> = {}) => {
      const witness: Witness = { ran: [] };
      const model = makeModel(steps);
      const cycle = new LlmCycle({
        provider: model.provider,
        model: 'test',
        maxTurns: 20,
        ...options,
      });
      return { witness, model, cycle, registry: kitRegistry(witness) };
    };

    describe(`loop detection (${mode})`, () => {
      it('the 4th identical call is refused (loop_detected, recoverable); the 5th ends the submit', async () => {
        const { witness, cycle, registry, model } = setup(repeating(5));
        const { error } = await submit(cycle, 'Weather?', registry, streaming);
        expect(LlmError.isInstance(error) && error.code).toBe('loop_detected');
        expect((error as LlmError).toolName).toBe('get_weather');
        expect(witness.ran).toHaveLength(3);
        const answers = toolAnswers(cycle.messages());
        expect(answers.call_3).toMatch(
          /^Error \[loop_detected\]: Tool 'get_weather' was already called 3 times with these same arguments/,
        );
        expect(answers.call_4).toMatch(/^Error \[loop_detected\]/);
        expectWhole(cycle.messages());
        expect(model.used()).toBe(true);
      });

      it('the model that changes course after the refusal goes on', async () => {
        const { witness, cycle, registry } = setup([...repeating(4), { text: 'Paris is 22 °C.' }]);
        const { response, error } = await submit(cycle, 'Weather?', registry, streaming);
        expect(error).toBeUndefined();
        expect(response?.message.content).toBe('Paris is 22 °C.');
        expect(witness.ran).toHaveLength(3);
      });

      it('loopDetection: false turns it off; maxRepeats sets the limit', async () => {
        const off = setup([...repeating(5), { text: 'done' }], { loopDetection: false });
        expect(
          (await submit(off.cycle, 'Weather?', off.registry, streaming)).error,
        ).toBeUndefined();
        expect(off.witness.ran).toHaveLength(5);
        const one = setup(repeating(3), { loopDetection: { maxRepeats: 1 } });
        const { error } = await submit(one.cycle, 'Weather?', one.registry, streaming);
        expect(LlmError.isInstance(error) && error.code).toBe('loop_detected');
        expect(one.witness.ran).toHaveLength(1);
      });
    });

    describe(`stop conditions (${mode})`, () => {
      const twoTurns: Step[] = [
        {
          calls: [
            { name: 'get_weather', args: { city: 'Oslo' }, id: 'call_a' },
            { name: 'get_weather', args: { city: 'Rome' }, id: 'call_b' },
          ],
        },
        { calls: [{ name: 'pay', args: { amount: 5 }, id: 'call_c' }] },
        { text: 'never reached' },
      ];

      it('stopAfterToolCalls ends the loop after the turn, with stopReason, history whole', async () => {
        const { cycle, registry } = setup(twoTurns, { stopWhen: stopAfterToolCalls(2) });
        const { response, events, error } = await submit(cycle, 'Go', registry, streaming);
        expect(error).toBeUndefined();
        expect(response?.stopReason).toBe('stopAfterToolCalls(2)');
        expect(response?.message.tool_calls).toHaveLength(2);
        expect(cycle.messages().at(-1)?.role).toBe('tool');
        expectWhole(cycle.messages());
        if (streaming) expect(events.at(-1)).toEqual({ type: 'turn_complete', reason: 'stopped' });
      });

      it('stopOnTool and a custom reason; stopAfterTokens counts the run', async () => {
        const onTool = setup(twoTurns, { stopWhen: [stopAfterTokens(10_000), stopOnTool('pay')] });
        const first = await submit(onTool.cycle, 'Go', onTool.registry, streaming);
        expect(first.response?.stopReason).toBe('stopOnTool("pay")');
        const tokens = setup(twoTurns, { stopWhen: stopAfterTokens(1) });
        const second = await submit(tokens.cycle, 'Go', tokens.registry, streaming);
        expect(second.response?.stopReason).toBe('stopAfterTokens(1)');
        expect(tokens.cycle.messages().filter((message) => message.role === 'tool')).toHaveLength(
          2,
        );
        const custom = setup(twoTurns, {
          stopWhen: (progress) =>
            progress.turns >= 2 ? `two turns (${progress.toolCalls} calls)` : false,
        });
        const third = await submit(custom.cycle, 'Go', custom.registry, streaming);
        expect(third.response?.stopReason).toBe('two turns (3 calls)');
      });

      it('a condition that throws or returns a promise ends the submit with callback_failed, history whole', async () => {
        for (const stopWhen of [
          () => {
            throw new Error('condition broke');
          },
          () => Promise.resolve(true) as never,
        ]) {
          const { cycle, registry } = setup(twoTurns, { stopWhen });
          const { error } = await submit(cycle, 'Go', registry, streaming);
          expect(LlmError.isInstance(error) && error.code).toBe('callback_failed');
          expectWhole(cycle.messages());
          expect(cycle.messages().at(-1)?.role).toBe('tool');
        }
      });

      it('maxTurns stays the hard limit', async () => {
        const { cycle, registry } = setup(twoTurns, {
          maxTurns: 1,
          stopWhen: stopAfterToolCalls(99),
        });
        const { error } = await submit(cycle, 'Go', registry, streaming);
        expect(LlmError.isInstance(error) && error.code).toBe('max_turns_exceeded');
      });
    });
  }
}

describe('guards across a pause', () => {
  it('calls before the pause count after a resume in another LlmCycle', async () => {
    const witness: Witness = { ran: [] };
    const steps: Step[] = [
      ...repeating(2),
      {
        calls: [
          { name: 'get_weather', args: { city: 'Paris' }, id: 'call_p' },
          { name: 'delete_file', args: { path: 'a' }, id: 'call_d' },
        ],
      },
      { calls: [{ name: 'get_weather', args: { city: 'Paris' }, id: 'call_q' }] },
      { calls: [{ name: 'get_weather', args: { city: 'Paris' }, id: 'call_r' }] },
    ];
    const model = scriptedModel(steps);
    const cycle = new LlmCycle({
      provider: model.provider,
      model: 'test',
      stopWhen: stopAfterToolCalls(99),
    });
    await submit(cycle, 'Go', kitRegistry(witness), false);
    const state = JSON.parse(JSON.stringify(cycle.state()));
    expect(state.pending.turns).toBe(3);
    expect(state.pending.toolCalls).toBe(4);
    const restored = new LlmCycle({ provider: model.provider, model: 'test', state });
    const { error } = await resume(restored, { call_d: 'approve' }, kitRegistry(witness), false);
    expect(LlmError.isInstance(error) && error.code).toBe('loop_detected');
    expect(witness.ran.filter((call) => call.name === 'get_weather')).toHaveLength(3);
    expectWhole(restored.messages());
  });

  it('counts restored from a state carry through a second pause that does not meet them', async () => {
    const witness: Witness = { ran: [] };
    const steps: Step[] = [
      ...repeating(2),
      {
        calls: [
          { name: 'get_weather', args: { city: 'Paris' }, id: 'call_p' },
          { name: 'delete_file', args: { path: 'a' }, id: 'call_d' },
        ],
      },
      { calls: [{ name: 'delete_file', args: { path: 'b' }, id: 'call_e' }] },
      { calls: [{ name: 'get_weather', args: { city: 'Paris' }, id: 'call_q' }] },
      { calls: [{ name: 'get_weather', args: { city: 'Paris' }, id: 'call_r' }] },
    ];
    const model = scriptedModel(steps);
    const options = { provider: model.provider, model: 'test', stopWhen: stopAfterToolCalls(99) };
    const first = new LlmCycle(options);
    await submit(first, 'Go', kitRegistry(witness), false);
    const once = JSON.parse(JSON.stringify(first.state()));
    // The state keys the counts by SHA-256: the arguments are not copied into it again.
    expect(once.pending.repeats).toHaveLength(2);
    for (const [key] of once.pending.repeats) expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(once.pending.repeats)).not.toContain('Paris');
    const second = new LlmCycle({ ...options, state: once });
    await resume(second, { call_d: 'approve' }, kitRegistry(witness), false);
    const twice = JSON.parse(JSON.stringify(second.state()));
    expect(twice.pending.calls.map((call: { callId: string }) => call.callId)).toEqual(['call_e']);
    const third = new LlmCycle({ ...options, state: twice });
    const { error } = await resume(third, { call_e: 'approve' }, kitRegistry(witness), true);
    expect(LlmError.isInstance(error) && error.code).toBe('loop_detected');
    expect(witness.ran.filter((call) => call.name === 'get_weather')).toHaveLength(3);
    expect(toolAnswers(third.messages()).call_q).toMatch(/^Error \[loop_detected\]/);
    expectWhole(third.messages());
  });

  it('helpers refuse counts that are not integers >= 1', () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      expect(() => stopAfterToolCalls(bad)).toThrow(RangeError);
      expect(() => stopAfterTokens(bad)).toThrow(RangeError);
    }
    expect(() => stopOnTool('')).toThrow(TypeError);
    const provider = scriptedModel([]).provider;
    expect(() => new LlmCycle({ provider, model: 'x', loopDetection: { maxRepeats: 0 } })).toThrow(
      RangeError,
    );
    expect(() => new LlmCycle({ provider, model: 'x', stopWhen: 'soon' as never })).toThrow(
      TypeError,
    );
    expect(() => new LlmCycle({ provider, model: 'x', approval: 'ask' as never })).toThrow(
      TypeError,
    );
  });
});
