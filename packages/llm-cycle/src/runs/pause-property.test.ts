/**
 * Issue 12, the history invariant as a property: whatever the calls do (need approval, ask
 * back, fail, hang), however the run is driven (approve, deny, answer, abandon, a state round
 * trip through JSON, decisions that do not fit, a cancel, a consumer that breaks), streamed or
 * not, `messages()` never holds an assistant tool call without exactly one tool message for
 * each call — at every pause, and after every resume or abandon — and a paused turn is never
 * in the history.
 */
import { awaitInput, defineTool, type JsonObject, ToolError } from '@agcore/tools-core';
import { ToolRegistry } from '@agcore/tools-registry';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LlmError } from '../llm-error.js';
import { LlmCycle } from '../loop/llm-cycle.js';
import {
  expectWhole,
  resume,
  type Step,
  scriptedModel,
  submit,
} from '../test-support/pause-kit.js';
import type { ResumeDecision } from './run-state.js';

type Behaviour = 'value' | 'approval' | 'ask' | 'throw' | 'fatal' | 'hang';
type Action = 'approve' | 'mixed' | 'abandon' | 'roundtrip' | 'misfit' | 'cancel' | 'break';

const behaviour = fc.constantFrom<Behaviour>('value', 'approval', 'ask', 'throw', 'fatal', 'hang');
const scenario = fc.record({
  turns: fc.array(fc.array(behaviour, { minLength: 1, maxLength: 3 }), {
    minLength: 1,
    maxLength: 3,
  }),
  actions: fc.array(
    fc.constantFrom<Action>(
      'approve',
      'mixed',
      'abandon',
      'roundtrip',
      'misfit',
      'cancel',
      'break',
    ),
    { minLength: 6, maxLength: 6 },
  ),
  streaming: fc.boolean(),
  seed: fc.integer({ min: 0, max: 1000 }),
});

function registryFor(plans: Map<string, Behaviour>, returned: Map<string, string>): ToolRegistry {
  const planOf = (id: unknown): Behaviour => plans.get(String(id)) ?? 'value';
  return new ToolRegistry().register(
    defineTool({
      name: 'act',
      description: 'Does what its plan says',
      parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
      needsApproval: (args) => planOf(args.id) === 'approval',
      execute: async (args, context) => {
        switch (planOf(args.id)) {
          case 'ask':
            if (context.input === undefined) {
              return awaitInput({ prompt: `About ${args.id}?`, data: { id: args.id } });
            }
            return { answered: context.input.value } as JsonObject;
          case 'throw':
            throw new Error('tool failed');
          case 'fatal':
            throw new ToolError('io', 'disk gone', { toolName: 'act' });
          case 'hang':
            return new Promise<never>((_resolve, reject) =>
              context.signal.addEventListener('abort', () => reject(new Error('stopped'))),
            );
          default:
            returned.set(args.id, JSON.stringify({ done: args.id }));
            return { done: args.id };
        }
      },
    }),
  );
}

/** The invariant, plus: a paused turn is not in the history, and what waits is what the state says. */
function check(cycle: LlmCycle): void {
  const history = cycle.messages();
  expectWhole(history);
  const waiting = cycle.interruptions();
  if (waiting.length === 0) return;
  const pendingIds = new Set(waiting.map((item) => item.callId));
  for (const message of history) {
    if (message.role === 'assistant') {
      for (const call of message.tool_calls ?? []) expect(pendingIds.has(call.id)).toBe(false);
    }
  }
  expect(cycle.state().pending?.calls.map((call) => call.callId)).toEqual(
    waiting.map((item) => item.callId),
  );
}

function decisionsFor(
  cycle: LlmCycle,
  mixed: boolean,
  seed: number,
): Record<string, ResumeDecision> {
  const decisions: Record<string, ResumeDecision> = {};
  cycle.interruptions().forEach((item, index) => {
    const deny = mixed && (seed + index) % 2 === 0;
    decisions[item.callId] = deny
      ? { deny: 'not now' }
      : item.kind === 'approval'
        ? 'approve'
        : { input: 'yes' };
  });
  return decisions;
}

describe('property: the history stays whole across pauses', () => {
  it('at every pause, and after every resume, abandon, cancel or break', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ turns, actions, streaming, seed }) => {
        const plans = new Map<string, Behaviour>();
        const steps: Step[] = turns.map((turn, turnIndex) => ({
          calls: turn.map((plan, callIndex) => {
            const id = `call_${turnIndex}_${callIndex}`;
            plans.set(id, plan);
            return { name: 'act', args: { id }, id };
          }),
        }));
        steps.push({ text: 'Finished.' });
        const model = scriptedModel(steps);
        /** Calls whose tool returned a value, with the tool message that value makes. */
        const returned = new Map<string, string>();
        const registry = registryFor(plans, returned);
        const options = {
          provider: model.provider,
          model: 'prop',
          toolTimeoutMs: 20,
          maxTurns: 10,
        };
        let cycle = new LlmCycle(options);
        const first = await submit(cycle, 'Go', registry, streaming);
        if (first.error !== undefined) expect(LlmError.isInstance(first.error)).toBe(true);
        check(cycle);
        for (const action of actions) {
          if (cycle.interruptions().length === 0) break;
          if (action === 'abandon') {
            cycle.abandon('dropped');
            check(cycle);
            expect(cycle.interruptions()).toEqual([]);
            break;
          }
          if (action === 'roundtrip') {
            cycle = new LlmCycle({ ...options, state: JSON.parse(JSON.stringify(cycle.state())) });
            check(cycle);
            continue;
          }
          if (action === 'misfit') {
            const outcome = await resume(cycle, { nope: 'approve' }, registry, streaming);
            expect(outcome.error).toBeInstanceOf(TypeError);
            check(cycle);
            continue;
          }
          const decisions = decisionsFor(cycle, action === 'mixed', seed);
          if (action === 'break' && streaming) {
            for await (const _event of cycle.resumeStream(decisions, registry)) break;
          } else {
            const controller = new AbortController();
            if (action === 'cancel') setTimeout(() => controller.abort(new Error('stop')), 1);
            const outcome = await resume(cycle, decisions, registry, streaming, controller.signal);
            if (outcome.error !== undefined) expect(LlmError.isInstance(outcome.error)).toBe(true);
          }
          check(cycle);
        }
        if (cycle.interruptions().length === 0)
          expect(cycle.messages().at(-1)?.role).not.toBe('user');
        // A value a tool returned is what the model reads, also across pauses and states.
        for (const message of cycle.messages()) {
          if (message.role === 'tool' && returned.has(message.tool_call_id)) {
            expect(message.content).toBe(returned.get(message.tool_call_id));
          }
        }
      }),
      { seed: 20_260_312, numRuns: 80 },
    );
  });
});
