/**
 * Issue 18 §3: a `needsApproval` function whose promise never settles must not hold the run.
 * It is bounded by the call's time limit (`toolTimeoutMs`): that call is answered `timeout`,
 * as a tool that overran would be, and the rest of the turn goes on.
 */
import { defineTool, type ToolContext } from '@agcore/tools-core';
import { ToolRegistry } from '@agcore/tools-registry';
import { describe, expect, it } from 'vitest';
import { LlmCycle } from '../loop/llm-cycle.js';
import { expectWhole, scriptedModel, submit, toolAnswers } from '../test-support/pause-kit.js';
import { guardUnhandledRejections } from '../test-support/paused-cycle.js';

guardUnhandledRejections();

function registryWith(seen: { ran: string[]; signals: AbortSignal[] }) {
  return new ToolRegistry().registerAll([
    defineTool({
      name: 'undecided',
      description: 'Its approval check never answers',
      parameters: { type: 'object', properties: {} },
      needsApproval: (_args: unknown, context: ToolContext) => {
        seen.signals.push(context.signal);
        return new Promise<boolean>(() => {});
      },
      execute: async () => {
        seen.ran.push('undecided');
        return 'should not run';
      },
    }),
    defineTool({
      name: 'quick',
      description: 'Runs',
      parameters: { type: 'object', properties: {} },
      execute: async () => {
        seen.ran.push('quick');
        return 'ran';
      },
    }),
  ]);
}

const steps = [
  {
    calls: [
      { name: 'undecided', args: {}, id: 'call_u' },
      { name: 'quick', args: {}, id: 'call_q' },
    ],
  },
  { text: 'done' },
];

for (const streaming of [false, true]) {
  describe(`a needsApproval that never settles (${streaming ? 'streamed' : 'not streamed'})`, () => {
    for (const withPolicy of [false, true]) {
      it(`fails that call with timeout after toolTimeoutMs; the turn goes on${withPolicy ? ' (with a policy)' : ''}`, async () => {
        const seen = { ran: [] as string[], signals: [] as AbortSignal[] };
        const model = scriptedModel(steps);
        const cycle = new LlmCycle({
          provider: model.provider,
          model: 'test',
          toolTimeoutMs: 30,
          ...(withPolicy ? { approval: () => 'approve' as const } : {}),
        });
        const { response, error, events } = await submit(
          cycle,
          'Go',
          registryWith(seen),
          streaming,
        );
        expect(error).toBeUndefined();
        expect(response?.message.content).toBe('done');
        expect(seen.ran).toEqual(['quick']);
        const answers = toolAnswers(cycle.messages());
        expect(answers.call_u).toMatch(/^Error \[timeout\]: Tool 'undecided'/);
        expect(answers.call_q).toBe('ran');
        // The check is told its time ran out.
        expect(seen.signals).toHaveLength(1);
        expect(seen.signals[0]?.aborted).toBe(true);
        expectWhole(cycle.messages());
        if (streaming) {
          const completed = events.filter((event) => event.type === 'tool_execution_completed');
          expect(completed).toHaveLength(2);
        }
      });
    }
  });
}
