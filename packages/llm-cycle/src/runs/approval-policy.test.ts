/**
 * Issue 12, sections 1 and 2: which calls need a person, the run pauses and resumes — possibly
 * in a fresh LlmCycle from JSON — for both tool loops, on the scripted provider and on the
 * real wire-format server.
 *
 * This file: the approval policy (`approvalPolicy`), and one that fails.
 */
import { describe, expect, it } from 'vitest';
import { LlmError } from '../llm-error.js';
import { LlmCycle } from '../loop/llm-cycle.js';
import {
  expectWhole,
  kitRegistry,
  type Step,
  scriptedModel,
  submit,
  toolAnswers,
  type Witness,
} from '../test-support/pause-kit.js';

describe('the approval policy', () => {
  const turn: Step[] = [
    {
      calls: [
        { name: 'get_weather', args: { city: 'Oslo' }, id: 'call_a' },
        { name: 'pay', args: { amount: 50 }, id: 'call_b' },
        { name: 'pay', args: { amount: 500 }, id: 'call_c' },
      ],
    },
    { text: 'ok' },
  ];

  it('without a policy, needsApproval decides per call (a function of the arguments)', async () => {
    const witness: Witness = { ran: [] };
    const model = scriptedModel(turn);
    const cycle = new LlmCycle({ provider: model.provider, model: 'test' });
    const { response } = await submit(cycle, 'Go', kitRegistry(witness), false);
    expect(response?.interruptions?.map((item) => item.callId)).toEqual(['call_c']);
    expect(witness.ran.map((call) => call.args)).toEqual([{ city: 'Oslo' }, { amount: 50 }]);
  });

  it('sees every call with its tool and needsApproval, and decides alone', async () => {
    const witness: Witness = { ran: [] };
    const seen: unknown[] = [];
    const model = scriptedModel(turn);
    const cycle = new LlmCycle({
      provider: model.provider,
      model: 'test',
      approval: async (request) => {
        seen.push([
          request.toolName,
          request.callId,
          request.input,
          request.needsApproval,
          request.tool.name,
        ]);
        if (request.toolName === 'get_weather') return { deny: 'No weather today.' };
        return 'approve';
      },
    });
    const { response, error } = await submit(cycle, 'Go', kitRegistry(witness), false);
    expect(error).toBeUndefined();
    expect(response?.message.content).toBe('ok');
    expect(seen).toEqual([
      ['get_weather', 'call_a', { city: 'Oslo' }, false, 'get_weather'],
      ['pay', 'call_b', { amount: 50 }, false, 'pay'],
      ['pay', 'call_c', { amount: 500 }, true, 'pay'],
    ]);
    expect(witness.ran.map((call) => call.args)).toEqual([{ amount: 50 }, { amount: 500 }]);
    expect(toolAnswers(cycle.messages()).call_a).toBe('Error [denied]: No weather today.');
  });

  it('is not asked about a call the registry would refuse (unknown tool, bad arguments)', async () => {
    const seen: string[] = [];
    const model = scriptedModel([
      {
        calls: [
          { name: 'pay', args: { amount: 'lots' }, id: 'call_bad' },
          { name: 'nope', args: {}, id: 'call_unknown' },
        ],
      },
      { text: 'ok' },
    ]);
    const cycle = new LlmCycle({
      provider: model.provider,
      model: 'test',
      onUnknownTool: 'return_to_model',
      approval: (request) => {
        seen.push(request.callId);
        return 'ask';
      },
    });
    const { response } = await submit(cycle, 'Go', kitRegistry(), false);
    expect(seen).toEqual([]);
    expect(response?.interruptions).toBeUndefined();
    const answers = toolAnswers(cycle.messages());
    expect(answers.call_bad).toMatch(/^Error \[invalid_arguments\]/);
    expect(answers.call_unknown).toMatch(/^Error \[not_found\]/);
  });

  for (const [what, approval] of [
    [
      'throws',
      () => {
        throw new Error('policy crashed');
      },
    ],
    ['rejects', () => Promise.reject(new Error('policy crashed'))],
    ['returns garbage', () => 'yes please' as never],
    ['returns a deny without a reason', () => ({ deny: 42 }) as never],
    ['returns a deny with extra fields', () => ({ deny: 'no', approve: true }) as never],
  ] as const) {
    for (const streaming of [false, true]) {
      it(`that ${what} ends the submit with callback_failed, no call run, history whole (${streaming ? 'streamed' : 'not streamed'})`, async () => {
        const witness: Witness = { ran: [] };
        const model = scriptedModel(turn);
        const cycle = new LlmCycle({ provider: model.provider, model: 'test', approval });
        const { error } = await submit(cycle, 'Go', kitRegistry(witness), streaming);
        expect(LlmError.isInstance(error) && error.code).toBe('callback_failed');
        expect(witness.ran).toEqual([]);
        const history = cycle.messages();
        expectWhole(history);
        expect(Object.values(toolAnswers(history))).toEqual([
          expect.stringMatching(
            /^Error \[cancelled\]: Tool 'get_weather' was not run: The approval policy/,
          ),
          expect.stringMatching(/^Error \[cancelled\]/),
          expect.stringMatching(/^Error \[cancelled\]/),
        ]);
        expect(cycle.interruptions()).toEqual([]);
      });
    }
  }

  it('a policy that waits for a person is cancelled by the signal; the turn is committed', async () => {
    const model = scriptedModel(turn);
    const controller = new AbortController();
    const cycle = new LlmCycle({
      provider: model.provider,
      model: 'test',
      approval: () => {
        controller.abort(new Error('user left'));
        return new Promise<never>(() => undefined);
      },
    });
    const { error } = await submit(cycle, 'Go', kitRegistry(), false, controller.signal);
    expect(LlmError.isInstance(error) && error.code).toBe('cancelled');
    expectWhole(cycle.messages());
    expect(cycle.messages()).toHaveLength(5);
  });
});
