/**
 * The tool step reports what really happened, as a property: over random turns of calls that
 * return, hang, throw, fail fatally or get bad arguments, streamed or not, stopped anywhere, the
 * history answers every call exactly once and never reports a returned value as an error.
 */
import { defineTool, ToolError } from '@agcore/tools-core';
import { ToolRegistry } from '@agcore/tools-registry';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LlmError } from '../llm-error.js';
import {
  ScriptedProvider,
  type ScriptStep,
  textResponse,
  toolCallsResponse,
} from '../testing/index.js';
import { LlmCycle } from './llm-cycle.js';

type Behaviour =
  | { kind: 'value'; value: string | number | { nested: boolean } }
  | { kind: 'slow'; ms: number }
  | { kind: 'hang' }
  | { kind: 'throw' }
  | { kind: 'fatal' }
  | { kind: 'bad_result' }
  | { kind: 'bad_arguments' };

const behaviour: fc.Arbitrary<Behaviour> = fc.oneof(
  fc.record({
    kind: fc.constant('value' as const),
    value: fc.oneof(fc.string(), fc.integer(), fc.record({ nested: fc.boolean() })),
  }),
  fc.record({ kind: fc.constant('slow' as const), ms: fc.integer({ min: 1, max: 30 }) }),
  fc.constant({ kind: 'hang' as const }),
  fc.constant({ kind: 'throw' as const }),
  fc.constant({ kind: 'fatal' as const }),
  fc.constant({ kind: 'bad_result' as const }),
  fc.constant({ kind: 'bad_arguments' as const }),
);

const scenario = fc.record({
  turns: fc.array(fc.array(behaviour, { minLength: 1, maxLength: 4 }), {
    minLength: 1,
    maxLength: 3,
  }),
  streaming: fc.boolean(),
  /** Stop after this many events (streaming: the consumer breaks; else the signal aborts). */
  stopAfter: fc.option(fc.integer({ min: 0, max: 25 }), { nil: undefined }),
  maxParallelToolCalls: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
});

describe('property: the history never lies about a tool call', () => {
  it('every call is answered by exactly one tool message, and no returned value is reported as an error', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ turns, streaming, stopAfter, maxParallelToolCalls }) => {
        const plans = new Map<string, Behaviour>();
        /** Calls whose tool handed a JSON value to the registry, with that value. */
        const returned = new Map<string, unknown>();
        const tool = defineTool({
          name: 'act',
          description: 'Does what the plan says',
          parameters: { type: 'object', properties: { id: { type: 'string' } } },
          execute: (args, context): never => {
            const plan = plans.get(String(args.id)) ?? { kind: 'hang' };
            const id = String(args.id);
            switch (plan.kind) {
              case 'value':
                returned.set(id, plan.value);
                return plan.value as never;
              case 'slow':
                // Resolved inside the timer callback: the registry sees the value at once. Only
                // a value handed over well before the call's time limit must come back as a
                // value: on a loaded machine the timer may fire after it (then `timeout` is true).
                return new Promise((resolve) =>
                  setTimeout(() => {
                    if (Date.now() < (context.deadline ?? Number.POSITIVE_INFINITY) - 10)
                      returned.set(id, plan.ms);
                    resolve(plan.ms);
                  }, plan.ms),
                ) as never;
              case 'hang':
                return new Promise((_resolve, reject) =>
                  context.signal.addEventListener('abort', () => reject(new Error('stopped'))),
                ) as never;
              case 'throw':
                throw new Error('tool failed');
              case 'fatal':
                throw new ToolError('io', 'disk gone', { toolName: 'act' });
              case 'bad_result':
                return { toJSON: () => undefined } as never;
              case 'bad_arguments':
                return 'unreachable' as never;
            }
          },
        });
        const steps: ScriptStep[] = turns.map((turn, turnIndex) =>
          toolCallsResponse(
            turn.map((plan, callIndex) => {
              const id = `call_${turnIndex}_${callIndex}`;
              plans.set(id, plan);
              return plan.kind === 'bad_arguments'
                ? { name: 'act', rawArguments: '{"id": broken', id }
                : { name: 'act', arguments: { id }, id };
            }),
          ),
        );
        steps.push(textResponse('Finished.'));
        const provider = new ScriptedProvider(steps);
        const target = new LlmCycle({
          provider,
          model: 'prop',
          toolTimeoutMs: 40,
          maxTurns: 10,
          ...(maxParallelToolCalls === undefined ? {} : { maxParallelToolCalls }),
        });
        const tools = new ToolRegistry().register(tool);
        const controller = new AbortController();
        let seen = 0;
        try {
          if (streaming) {
            for await (const _event of target.submitStreamWithTools('Go', tools)) {
              if (stopAfter !== undefined && ++seen > stopAfter) break;
            }
          } else {
            if (stopAfter !== undefined) setTimeout(() => controller.abort(), stopAfter);
            await target.submitWithTools('Go', tools, { signal: controller.signal });
          }
        } catch (error) {
          expect(LlmError.isInstance(error)).toBe(true);
        }
        const history = target.messages();
        for (let index = 0; index < history.length; index++) {
          const message = history[index];
          if (message?.role !== 'assistant' || message.tool_calls === undefined) continue;
          const answers = history.slice(index + 1, index + 1 + message.tool_calls.length);
          expect(answers.map((answer) => answer.role === 'tool' && answer.tool_call_id)).toEqual(
            message.tool_calls.map((call) => call.id),
          );
          for (const answer of answers) {
            if (answer.role !== 'tool') continue;
            const id = answer.tool_call_id;
            expect(
              history.filter((item) => item.role === 'tool' && item.tool_call_id === id),
            ).toHaveLength(1);
            if (returned.has(id)) {
              const value = returned.get(id);
              expect(answer.content).toBe(
                typeof value === 'string' ? value : JSON.stringify(value),
              );
            }
          }
        }
        expect(history.at(-1)?.role).not.toBe('user');
      }),
      { seed: 20_240_917, numRuns: 60 },
    );
  });
});
