/**
 * Issue 12, section 2, hostile cases: states that lie or break, decisions that do not fit,
 * and a paused cycle used wrongly (twice, concurrently, cancelled, abandoned, broken off).
 *
 * This file: a tool's needsApproval that fails.
 */
import { defineTool } from '@agcore/tools-core';
import { describe, expect, it } from 'vitest';
import { LlmCycle } from '../loop/llm-cycle.js';
import { kitRegistry, scriptedModel, submit, toolAnswers } from '../test-support/pause-kit.js';
import { guardUnhandledRejections } from '../test-support/paused-cycle.js';

guardUnhandledRejections();

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
