/**
 * Issue 18 §4: identical calls in one response are a fan-out, not a loop. The guard counts a
 * call once per turn (a repeat is a call made again after its answer was seen), so a fan-out
 * runs whole and no submit ends on its first response; a loop across turns is still caught.
 */
import { defineTool } from '@agcore/tools-core';
import { ToolRegistry } from '@agcore/tools-registry';
import { describe, expect, it } from 'vitest';
import { LlmError } from '../llm-error.js';
import { useChatServer } from '../test-support/chat-server.js';
import {
  expectWhole,
  resume,
  type Step,
  scriptedModel,
  submit,
  toolAnswers,
  wireModel,
} from '../test-support/pause-kit.js';
import { LlmCycle } from './llm-cycle.js';

const fixture = useChatServer();

/** `roll_die({})`: a random draw, so the same arguments rightly give other answers. */
function dice(rolls: { count: number }) {
  return new ToolRegistry().registerAll([
    defineTool({
      name: 'roll_die',
      description: 'Rolls a six-sided die',
      parameters: { type: 'object', properties: {} },
      execute: async () => {
        rolls.count++;
        return { face: 1 + Math.floor(Math.random() * 6) };
      },
    }),
    defineTool({
      name: 'confirm',
      description: 'Needs approval',
      parameters: { type: 'object', properties: {} },
      needsApproval: true,
      execute: async () => 'confirmed',
    }),
  ]);
}

/** `turns` responses, each with `width` identical `roll_die({})` calls. */
const fanOut = (turns: number, width: number, prefix = 't'): Step[] =>
  Array.from({ length: turns }, (_, turn) => ({
    calls: Array.from({ length: width }, (_, index) => ({
      name: 'roll_die',
      args: {},
      id: `${prefix}${turn}_${index}`,
    })),
  }));

for (const [modelName, makeModel] of Object.entries({
  scripted: (steps: readonly Step[]) => scriptedModel(steps),
  'wire server': (steps: readonly Step[]) => wireModel(fixture.server, steps),
})) {
  for (const streaming of [false, true]) {
    describe(`loop guard and fan-out (${modelName}, ${streaming ? 'streamed' : 'not streamed'})`, () => {
      it('five identical calls in one response all run, and the submit goes on', async () => {
        const rolls = { count: 0 };
        const model = makeModel([...fanOut(1, 5), { text: 'You rolled five dice.' }]);
        const cycle = new LlmCycle({ provider: model.provider, model: 'test' });
        const { response, error } = await submit(cycle, 'Roll 5 dice', dice(rolls), streaming);
        expect(error).toBeUndefined();
        expect(response?.message.content).toBe('You rolled five dice.');
        expect(rolls.count).toBe(5);
        const answers = Object.values(toolAnswers(cycle.messages()));
        expect(answers).toHaveLength(5);
        for (const answer of answers) expect(answer).toMatch(/^\{"face":[1-6]\}$/);
        expectWhole(cycle.messages());
      });

      it('a loop across turns is still caught, fan-out or not: 3 turns run, the 4th is refused, the 5th ends the submit', async () => {
        const rolls = { count: 0 };
        const model = makeModel(fanOut(5, 2));
        const cycle = new LlmCycle({ provider: model.provider, model: 'test', maxTurns: 20 });
        const { error } = await submit(cycle, 'Roll', dice(rolls), streaming);
        expect(LlmError.isInstance(error) && error.code).toBe('loop_detected');
        expect((error as LlmError).toolName).toBe('roll_die');
        expect(rolls.count).toBe(6);
        const answers = toolAnswers(cycle.messages());
        expect(answers.t3_0).toMatch(/^Error \[loop_detected\]/);
        expect(answers.t3_1).toMatch(/^Error \[loop_detected\]/);
        expect(answers.t4_1).toMatch(/^Error \[loop_detected\]/);
        expectWhole(cycle.messages());
      });

      it('no submit ends on its first response, even with maxRepeats 1', async () => {
        const rolls = { count: 0 };
        const model = makeModel([...fanOut(1, 4), { text: 'done' }]);
        const cycle = new LlmCycle({
          provider: model.provider,
          model: 'test',
          loopDetection: { maxRepeats: 1 },
        });
        const { error } = await submit(cycle, 'Roll', dice(rolls), streaming);
        expect(error).toBeUndefined();
        expect(rolls.count).toBe(4);
      });
    });
  }
}

describe('fan-out counts across a pause', () => {
  it('a fan-out turn counts once, in the state too', async () => {
    const rolls = { count: 0 };
    const paused: Step = {
      calls: [
        { name: 'roll_die', args: {}, id: 'p_0' },
        { name: 'roll_die', args: {}, id: 'p_1' },
        { name: 'roll_die', args: {}, id: 'p_2' },
        { name: 'confirm', args: {}, id: 'p_c' },
      ],
    };
    const model = scriptedModel([paused, ...fanOut(4, 3, 'r')]);
    const options = { provider: model.provider, model: 'test', maxTurns: 20 };
    const first = new LlmCycle(options);
    await submit(first, 'Roll', dice(rolls), false);
    expect(rolls.count).toBe(3);
    const state = JSON.parse(JSON.stringify(first.state()));
    const restored = new LlmCycle({ ...options, state });
    const { error } = await resume(restored, { p_c: 'approve' }, dice(rolls), false);
    // The paused turn counted once, then two more turns run; the 4th is refused, the 5th ends it.
    expect(LlmError.isInstance(error) && error.code).toBe('loop_detected');
    expect(rolls.count).toBe(3 + 3 + 3);
    expect(toolAnswers(restored.messages()).r2_0).toMatch(/^Error \[loop_detected\]/);
    expectWhole(restored.messages());
  });
});
