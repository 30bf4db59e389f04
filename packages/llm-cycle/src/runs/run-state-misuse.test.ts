/**
 * Issue 12, section 2, hostile cases: states that lie or break, decisions that do not fit,
 * and a paused cycle used wrongly (twice, concurrently, cancelled, abandoned, broken off).
 *
 * This file: a paused cycle used wrongly.
 */
import { defineTool } from '@agcore/tools-core';
import { describe, expect, it } from 'vitest';
import { LlmError } from '../llm-error.js';
import { LlmCycle } from '../loop/llm-cycle.js';
import {
  expectWhole,
  kitRegistry,
  resume,
  scriptedModel,
  submit,
  toolAnswers,
} from '../test-support/pause-kit.js';
import { guardUnhandledRejections, pausedCycle, turn } from '../test-support/paused-cycle.js';

guardUnhandledRejections();

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
