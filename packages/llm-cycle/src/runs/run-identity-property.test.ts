/**
 * Issue 18 §3 as a property: a run state resumed any number of times, in any number of cycles
 * (restored through JSON, one after the other or at once), against one run store, runs each
 * approved call at most once per claim — and a resume that is granted runs its approved call.
 */
import { defineTool } from '@agcore/tools-core';
import { ToolRegistry } from '@agcore/tools-registry';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChatProvider, ChatRequest, ChatResponse } from '../chat-provider.js';
import { LlmError } from '../llm-error.js';
import { LlmCycle } from '../loop/llm-cycle.js';
import type { RunState } from './run-state.js';
import { MemoryRunStore, type RunStore } from './run-store.js';

/** Turn `n` calls `send({ n })` (needs approval) while `n < turns`, then answers in text. */
function model(turns: number): ChatProvider {
  const answer = (request: ChatRequest): ChatResponse => {
    const n = request.messages.filter((message) => message.role === 'assistant').length;
    const message =
      n >= turns
        ? { role: 'assistant' as const, content: 'done' }
        : {
            role: 'assistant' as const,
            content: null,
            tool_calls: [
              {
                id: `send_${n}`,
                type: 'function' as const,
                function: { name: 'send', arguments: JSON.stringify({ n }) },
              },
            ],
          };
    return {
      id: `r${n}`,
      model: 'test',
      message,
      finishReason: n >= turns ? 'stop' : 'tool_calls',
    };
  };
  return {
    chat: async (request) => answer(request),
    chatStream: async function* (request) {
      yield { type: 'response', response: answer(request) };
    },
  };
}

/** Where each action takes the state it resumes from: one of the states seen so far. */
const action = fc.record({
  from: fc.nat(),
  width: fc.integer({ min: 1, max: 3 }),
  streaming: fc.boolean(),
});

describe('run identity (property)', () => {
  it('each approved call runs at most once per granted claim, however often its state is resumed', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 3 }),
        fc.array(action, { minLength: 1, maxLength: 8 }),
        async (turns, actions) => {
          const granted: string[] = [];
          const inner = new MemoryRunStore();
          const store: RunStore = {
            claim: async (runId, epoch) => {
              const ok = await inner.claim(runId, epoch);
              if (ok) granted.push(`${runId}#${epoch}`);
              return ok;
            },
          };
          const runs: string[] = [];
          const registry = new ToolRegistry().register(
            defineTool({
              name: 'send',
              description: 'A side effect',
              parameters: { type: 'object', properties: { n: { type: 'number' } } },
              needsApproval: true,
              execute: async (_args, context) => {
                runs.push(context.idempotencyKey ?? 'no key');
                return 'sent';
              },
            }),
          );
          const provider = model(turns);
          const first = new LlmCycle({ provider, model: 'test', runStore: store });
          await first.submitWithTools('Go', registry);
          const states: RunState[] = [JSON.parse(JSON.stringify(first.state()))];
          let resumes = 0;
          for (const { from, width, streaming } of actions) {
            const state = states[from % states.length] as RunState;
            if (state.pending === null) continue;
            const callId = state.pending.calls[0]?.callId as string;
            const cycles = Array.from(
              { length: width },
              () => new LlmCycle({ provider, model: 'test', runStore: store, state }),
            );
            const outcomes = await Promise.all(
              cycles.map(async (cycle) => {
                try {
                  if (streaming) {
                    for await (const _ of cycle.resumeStream({ [callId]: 'approve' }, registry)) {
                      // drained
                    }
                  } else await cycle.resume({ [callId]: 'approve' }, registry);
                  return 'ok';
                } catch (error) {
                  if (LlmError.isInstance(error) && error.code === 'state_conflict')
                    return 'refused';
                  throw error;
                }
              }),
            );
            resumes += outcomes.filter((outcome) => outcome === 'ok').length;
            cycles.forEach((cycle, index) => {
              if (outcomes[index] === 'ok') states.push(JSON.parse(JSON.stringify(cycle.state())));
            });
          }
          // Each granted claim resumed once; each call ran at most once, and only after a grant.
          expect(resumes).toBe(granted.length);
          expect(new Set(granted).size).toBe(granted.length);
          expect(new Set(runs).size).toBe(runs.length);
          expect(runs.length).toBe(granted.length);
        },
      ),
      { seed: 20_261_201, numRuns: 60 },
    );
  });
});
