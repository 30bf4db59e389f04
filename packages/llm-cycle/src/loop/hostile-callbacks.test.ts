/**
 * Issue 18 §3: every callback an application gives the cycle (stop conditions, the approval
 * policy, a tool's needsApproval, the compaction strategy and estimator, onRetry, the provider
 * itself, a tool's result) may throw anything: a null-prototype object, an Error whose
 * `message` getter throws, a proxy whose every trap throws. Each ends as the error its
 * callback is documented to give, described by tools-core's one describer; none escapes as a
 * TypeError "Cannot convert object to primitive value", none is left unhandled.
 */
import { defineTool } from '@agcore/tools-core';
import { ToolRegistry } from '@agcore/tools-registry';
import { describe, expect, it } from 'vitest';
import type { ChatProvider } from '../chat-provider.js';
import { LlmError } from '../llm-error.js';
import {
  expectWhole,
  kitRegistry,
  type Step,
  scriptedModel,
  submit,
  toolAnswers,
} from '../test-support/pause-kit.js';
import { guardUnhandledRejections } from '../test-support/paused-cycle.js';
import { ScriptedProvider, textResponse, toolCallsResponse } from '../testing/index.js';
import { LlmCycle, type LlmCycleOptions } from './llm-cycle.js';

guardUnhandledRejections();

/** Values no `String()` or `.message` read survives. */
function hostileValues(): [string, () => unknown][] {
  return [
    ['a null-prototype object', () => Object.create(null)],
    [
      'an Error whose message getter throws',
      () => {
        const error = new Error('hidden');
        Object.defineProperty(error, 'message', {
          get() {
            throw Object.create(null);
          },
        });
        return error;
      },
    ],
    [
      'a proxy whose every trap throws',
      () =>
        new Proxy(
          {},
          {
            get() {
              throw Object.create(null);
            },
            getPrototypeOf() {
              throw Object.create(null);
            },
            ownKeys() {
              throw Object.create(null);
            },
          },
        ),
    ],
  ];
}

const oneToolTurn: Step[] = [
  { calls: [{ name: 'get_weather', args: { city: 'Oslo' }, id: 'call_a' }] },
  { text: 'never reached' },
];

async function failureOf(
  options: Partial<LlmCycleOptions>,
  steps: Step[],
  streaming: boolean,
  registry: ToolRegistry = kitRegistry(),
) {
  const model = scriptedModel(steps);
  const cycle = new LlmCycle({ provider: model.provider, model: 'test', ...options });
  const before = cycle.messages();
  const outcome = await submit(cycle, 'Go', registry, streaming);
  return { ...outcome, cycle, before };
}

function expectCode(error: unknown, code: string): LlmError {
  expect(LlmError.isInstance(error) ? error.code : error).toBe(code);
  const failure = error as LlmError;
  expect(failure.message).not.toMatch(/Cannot convert object to primitive value/);
  return failure;
}

for (const streaming of [false, true]) {
  const mode = streaming ? 'streamed' : 'not streamed';
  describe(`hostile callbacks (${mode})`, () => {
    for (const [what, make] of hostileValues()) {
      it(`a stopWhen that throws ${what}: callback_failed, history whole`, async () => {
        const { error, cycle } = await failureOf(
          {
            stopWhen: () => {
              throw make();
            },
          },
          oneToolTurn,
          streaming,
        );
        const failure = expectCode(error, 'callback_failed');
        expect(failure.message).toMatch(/stopWhen condition threw/);
        expectWhole(cycle.messages());
        expect(cycle.messages().at(-1)?.role).toBe('tool');
      });

      it(`a stopWhen that returns ${what}: callback_failed`, async () => {
        const { error } = await failureOf(
          { stopWhen: () => make() as never },
          oneToolTurn,
          streaming,
        );
        expectCode(error, 'callback_failed');
      });

      it(`an approval policy that throws ${what}: callback_failed, no call run`, async () => {
        const witness = { ran: [] };
        const { error, cycle } = await failureOf(
          {
            approval: () => {
              throw make();
            },
          },
          oneToolTurn,
          streaming,
          kitRegistry(witness),
        );
        expectCode(error, 'callback_failed');
        expect(witness.ran).toEqual([]);
        expectWhole(cycle.messages());
      });

      it(`a needsApproval that throws ${what}: that call is answered execution_failed, the turn goes on`, async () => {
        let ran = 0;
        const registry = new ToolRegistry().registerAll([
          defineTool({
            name: 'risky',
            description: 'Its approval check breaks',
            parameters: { type: 'object', properties: {} },
            needsApproval: () => {
              throw make();
            },
            execute: async () => 'should not run',
          }),
          defineTool({
            name: 'fine',
            description: 'Runs',
            parameters: { type: 'object', properties: {} },
            execute: async () => {
              ran++;
              return 'ran';
            },
          }),
        ]);
        const { error, response, cycle } = await failureOf(
          {},
          [
            {
              calls: [
                { name: 'risky', args: {}, id: 'call_r' },
                { name: 'fine', args: {}, id: 'call_f' },
              ],
            },
            { text: 'done' },
          ],
          streaming,
          registry,
        );
        expect(error).toBeUndefined();
        expect(response?.message.content).toBe('done');
        expect(ran).toBe(1);
        expect(toolAnswers(cycle.messages()).call_r).toMatch(/^Error \[execution_failed\]/);
      });

      it(`a compaction strategy that throws ${what}: compaction_failed, history as it was`, async () => {
        const { error, cycle, before } = await failureOf(
          {
            compaction: {
              maxTokens: 1,
              strategy: () => {
                throw make();
              },
            },
          },
          oneToolTurn,
          streaming,
        );
        expectCode(error, 'compaction_failed');
        expect(cycle.messages()).toEqual(before);
      });

      it(`a token estimator that throws ${what}: compaction_failed`, async () => {
        const { error } = await failureOf(
          {
            compaction: {
              maxTokens: 100,
              estimateTokens: () => {
                throw make();
              },
            },
          },
          oneToolTurn,
          streaming,
        );
        expectCode(error, 'compaction_failed');
      });

      it(`an onRetry that throws ${what} changes nothing: the request is retried`, async () => {
        const provider = new ScriptedProvider([
          { type: 'error', error: new LlmError('http_error', 'busy', { statusCode: 503 }) },
          textResponse('after the retry'),
        ]);
        const cycle = new LlmCycle({
          provider,
          model: 'test',
          retry: {
            initialDelayMs: 1,
            onRetry: () => {
              throw make();
            },
          },
        });
        const { response, error } = await submit(cycle, 'Hi', kitRegistry(), streaming);
        expect(error).toBeUndefined();
        expect(response?.message.content).toBe('after the retry');
      });

      it(`a provider that throws ${what}: provider_error with what it threw as cause`, async () => {
        const thrown = make();
        const provider: ChatProvider = {
          chat: async () => {
            throw thrown;
          },
          // biome-ignore lint/correctness/useYield: it throws before its first chunk
          chatStream: async function* () {
            throw thrown;
          },
        };
        const cycle = new LlmCycle({ provider, model: 'test' });
        const { error } = await submit(cycle, 'Hi', kitRegistry(), streaming);
        const failure = expectCode(error, 'provider_error');
        expect(failure.cause).toBe(thrown);
        expect(cycle.messages()).toEqual([]);
      });

      it(`a tool result whose toJSON throws ${what}: that call is answered execution_failed`, async () => {
        const registry = new ToolRegistry().register(
          defineTool({
            name: 'odd',
            description: 'Returns a value JSON cannot write',
            parameters: { type: 'object', properties: {} },
            execute: async () =>
              ({
                toJSON() {
                  throw make();
                },
              }) as never,
          }),
        );
        const provider = new ScriptedProvider([
          toolCallsResponse([{ name: 'odd', arguments: {}, id: 'call_o' }]),
          textResponse('done'),
        ]);
        const cycle = new LlmCycle({ provider, model: 'test' });
        const { response, error } = await submit(cycle, 'Go', registry, streaming);
        expect(error).toBeUndefined();
        expect(response?.message.content).toBe('done');
        expect(toolAnswers(cycle.messages()).call_o).toMatch(/^Error \[execution_failed\]/);
      });
    }
  });
}
