/**
 * Issue 12, section 3: a tool that asks back (`awaitInput`) pauses the run with an
 * interruption of kind `input`; the answer calls it again with the same arguments and
 * `context.input`. Scripted provider and wire-format server, streamed and not.
 */
import { awaitInput, defineTool, ToolError } from '@agcore/tools-core';
import { describe, expect, it } from 'vitest';
import { LlmError } from '../llm-error.js';
import { LlmCycle } from '../loop/llm-cycle.js';
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

const fixture = useChatServer();

const transferTurn: Step[] = [
  { calls: [{ name: 'transfer', args: { amount: 9000 }, id: 'call_transfer' }] },
  { text: 'The account is frozen.' },
];

const prompt = 'A suspicious transfer of 9000 €: freeze the account?';

for (const [modelName, makeModel] of Object.entries({
  scripted: (steps: readonly Step[]) => scriptedModel(steps),
  'wire server': (steps: readonly Step[]) => wireModel(fixture.server, steps),
})) {
  for (const streaming of [false, true]) {
    describe(`ask-back (${modelName}, ${streaming ? 'streamed' : 'not streamed'})`, () => {
      it('pauses with an input interruption; { input } calls the tool again with context.input', async () => {
        const witness: Witness = { ran: [] };
        const model = makeModel(transferTurn);
        const cycle = new LlmCycle({ provider: model.provider, model: 'test' });
        const registry = kitRegistry(witness);
        const paused = await submit(cycle, 'Send 9000 €', registry, streaming);
        expect(paused.response?.interruptions).toEqual([
          {
            kind: 'input',
            callId: 'call_transfer',
            toolName: 'transfer',
            input: { amount: 9000 },
            prompt,
          },
        ]);
        if (streaming) {
          expect(paused.events.slice(-2)).toEqual([
            { type: 'tool_input_requested', toolName: 'transfer', callId: 'call_transfer', prompt },
            { type: 'turn_complete', reason: 'interrupted' },
          ]);
          expect(paused.events.some((event) => event.type === 'tool_execution_completed')).toBe(
            false,
          );
        }
        expect(cycle.state().pending?.calls).toMatchObject([
          { kind: 'input', prompt, data: { amount: 9000, risk: 'high' } },
        ]);
        const resumed = await resume(
          cycle,
          { call_transfer: { input: 'yes' } },
          registry,
          streaming,
        );
        expect(resumed.error).toBeUndefined();
        expect(witness.ran).toEqual([
          { name: 'transfer', args: { amount: 9000 } },
          {
            name: 'transfer',
            args: { amount: 9000 },
            input: { value: 'yes', data: { amount: 9000, risk: 'high' } },
          },
        ]);
        expect(toolAnswers(cycle.messages())).toEqual({ call_transfer: '{"frozen":true}' });
        expectWhole(cycle.messages());
        expect(model.used()).toBe(true);
      });

      it('goes through a state in JSON; altered data is refused; deny answers Error [denied]', async () => {
        const witness: Witness = { ran: [] };
        const first = makeModel(transferTurn.slice(0, 1));
        const cycle = new LlmCycle({ provider: first.provider, model: 'test' });
        await submit(cycle, 'Send 9000 €', kitRegistry(witness), streaming);
        const saved = JSON.parse(JSON.stringify(cycle.state()));
        const altered = JSON.parse(JSON.stringify(saved));
        altered.pending.calls[0].data.risk = 'low';
        expect(
          () => new LlmCycle({ provider: first.provider, model: 'test', state: altered }),
        ).toThrowError(expect.objectContaining({ code: 'state_mismatch' }));
        const second = makeModel(transferTurn.slice(1));
        const restored = new LlmCycle({ provider: second.provider, model: 'test', state: saved });
        const resumed = await resume(
          restored,
          { call_transfer: { deny: 'The customer is on the phone.' } },
          kitRegistry(witness),
          streaming,
        );
        expect(resumed.error).toBeUndefined();
        expect(witness.ran).toHaveLength(1);
        expect(toolAnswers(restored.messages())).toEqual({
          call_transfer: 'Error [denied]: The customer is on the phone.',
        });
      });
    });
  }
}

describe('ask-back next to other calls', () => {
  const slow = defineTool({
    name: 'slow',
    description: 'Never finishes in time',
    parameters: { type: 'object', properties: {} },
    execute: (_args, context) =>
      new Promise<string>((_resolve, reject) => {
        context.signal.addEventListener('abort', () => reject(new Error('stopped')));
      }),
  });
  const broken = defineTool({
    name: 'broken',
    description: 'Always fails',
    parameters: { type: 'object', properties: {} },
    execute: async (): Promise<string> => {
      throw new Error('broken tool');
    },
  });
  const disk = defineTool({
    name: 'disk',
    description: 'A fatal failure',
    parameters: { type: 'object', properties: {} },
    execute: async (): Promise<string> => {
      throw new ToolError('io', 'Disk gone', { toolName: 'disk' });
    },
  });

  for (const streaming of [false, true]) {
    const mode = streaming ? 'streamed' : 'not streamed';

    it(`siblings that complete, fail and time out keep their verdicts across the pause (${mode})`, async () => {
      const model = scriptedModel([
        {
          calls: [
            { name: 'transfer', args: { amount: 9000 }, id: 'call_t' },
            { name: 'get_weather', args: { city: 'Rome' }, id: 'call_w' },
            { name: 'broken', args: {}, id: 'call_b' },
            { name: 'slow', args: {}, id: 'call_s' },
          ],
        },
        { text: 'ok' },
      ]);
      const registry = kitRegistry().registerAll([slow, broken]);
      const cycle = new LlmCycle({ provider: model.provider, model: 'test', toolTimeoutMs: 30 });
      const paused = await submit(cycle, 'Go', registry, streaming);
      expect(paused.response?.interruptions?.map((item) => item.callId)).toEqual(['call_t']);
      const results = Object.fromEntries(
        (cycle.state().pending?.results ?? []).map((result) => [result.callId, result.content]),
      );
      expect(results.call_w).toBe('{"city":"Rome","temperature":22}');
      expect(results.call_b).toMatch(/^Error \[execution_failed\].*broken tool/);
      expect(results.call_s).toMatch(/^Error \[timeout\]/);
      if (streaming) {
        const completed = paused.events.filter(
          (event) => event.type === 'tool_execution_completed',
        );
        expect(completed.map((event) => event.callId).sort()).toEqual([
          'call_b',
          'call_s',
          'call_w',
        ]);
      }
      const state = JSON.parse(JSON.stringify(cycle.state()));
      const restored = new LlmCycle({ provider: model.provider, model: 'test', state });
      const resumed = await resume(restored, { call_t: { input: 'no' } }, registry, streaming);
      expect(resumed.error).toBeUndefined();
      const answers = toolAnswers(restored.messages());
      expect(Object.keys(answers)).toEqual(['call_t', 'call_w', 'call_b', 'call_s']);
      expect(answers.call_t).toBe('{"sent":9000}');
      expect(answers.call_w).toBe(results.call_w);
      expectWhole(restored.messages());
    });

    it(`a fatal sibling ends the run instead of pausing; the question is answered as not asked (${mode})`, async () => {
      const model = scriptedModel([
        {
          calls: [
            { name: 'transfer', args: { amount: 9000 }, id: 'call_t' },
            { name: 'disk', args: {}, id: 'call_d' },
          ],
        },
      ]);
      const cycle = new LlmCycle({ provider: model.provider, model: 'test' });
      const { error, response } = await submit(
        cycle,
        'Go',
        kitRegistry().register(disk),
        streaming,
      );
      expect(response).toBeUndefined();
      expect(LlmError.isInstance(error) && error.code).toBe('tool_error');
      expect(cycle.interruptions()).toEqual([]);
      const answers = toolAnswers(cycle.messages());
      expect(answers.call_t).toBe(
        "Error [cancelled]: Tool 'transfer' asked for input, and got none: the run ended when tool 'disk' failed.",
      );
      expectWhole(cycle.messages());
    });
  }

  it('a tool that asks again after the answer pauses the run again', async () => {
    let asked = 0;
    const curious = defineTool({
      name: 'curious',
      description: 'Asks twice',
      parameters: { type: 'object', properties: {} },
      execute: async (_args, context) => {
        asked++;
        if (context.input === undefined) return awaitInput({ prompt: 'First question?' });
        if (context.input.value !== 'second')
          return awaitInput({ prompt: 'Second question?', data: { first: context.input.value } });
        return 'both answered';
      },
    });
    const model = scriptedModel([
      { calls: [{ name: 'curious', args: {}, id: 'call_c' }] },
      { text: 'ok' },
    ]);
    const cycle = new LlmCycle({ provider: model.provider, model: 'test' });
    const registry = kitRegistry().register(curious);
    const first = await submit(cycle, 'Go', registry, false);
    expect(first.response?.interruptions?.[0]?.prompt).toBe('First question?');
    const second = await resume(cycle, { call_c: { input: 'first' } }, registry, false);
    expect(second.response?.interruptions?.[0]?.prompt).toBe('Second question?');
    expect(cycle.state().pending?.calls[0]?.data).toEqual({ first: 'first' });
    const third = await resume(cycle, { call_c: { input: 'second' } }, registry, true);
    expect(third.response?.message.content).toBe('ok');
    expect(asked).toBe(3);
    expect(toolAnswers(cycle.messages())).toEqual({ call_c: 'both answered' });
  });

  it("'approve' for a question, or { input } for an approval, is a TypeError; nothing runs", async () => {
    const witness: Witness = { ran: [] };
    const model = scriptedModel([
      {
        calls: [
          { name: 'transfer', args: { amount: 9000 }, id: 'call_t' },
          { name: 'delete_file', args: { path: 'a' }, id: 'call_d' },
        ],
      },
    ]);
    const cycle = new LlmCycle({ provider: model.provider, model: 'test' });
    const registry = kitRegistry(witness);
    await submit(cycle, 'Go', registry, false);
    const ranBefore = witness.ran.length;
    for (const decisions of [
      { call_t: 'approve', call_d: 'approve' },
      { call_t: { input: 'yes' }, call_d: { input: 'yes' } },
      { call_t: { input: undefined }, call_d: 'approve' },
      { call_t: { input: 10n }, call_d: 'approve' },
    ]) {
      await expect(cycle.resume(decisions as never, registry)).rejects.toThrow(TypeError);
    }
    expect(witness.ran).toHaveLength(ranBefore);
    expect(cycle.interruptions()).toHaveLength(2);
  });
});
