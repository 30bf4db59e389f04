/**
 * Shared parts of the hostile tests of resumable runs: a cycle paused on two approvals, states
 * edited as JSON, and a guard that fails a test which left an unhandled rejection behind.
 */
import { afterEach, beforeEach, expect } from 'vitest';
import { LlmCycle } from '../loop/llm-cycle.js';
import type { RunState } from '../runs/run-state.js';
import type { Json } from './chat-server.js';
import { kitRegistry, type Step, scriptedModel, submit, type Witness } from './pause-kit.js';

/**
 * Registers hooks that collect unhandled rejections during each test and, 5 ms after it,
 * expect none.
 */
export function guardUnhandledRejections(): void {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  beforeEach(() => {
    unhandled.length = 0;
    process.on('unhandledRejection', onUnhandled);
  });
  afterEach(async () => {
    await new Promise((resolve) => setTimeout(resolve, 5));
    process.off('unhandledRejection', onUnhandled);
    expect(unhandled).toEqual([]);
  });
}

/** One turn: `get_weather` (runs) and two `delete_file` calls (each needs approval). */
export const turn: Step = {
  calls: [
    { name: 'get_weather', args: { city: 'Paris' }, id: 'call_weather' },
    { name: 'delete_file', args: { path: 'a.txt' }, id: 'call_a' },
    { name: 'delete_file', args: { path: 'b.txt' }, id: 'call_b' },
  ],
};

/** A scripted cycle submitted with the kit's tools and paused on the two approvals of `turn`. */
export async function pausedCycle(steps: Step[] = [turn, { text: 'ok' }]) {
  const witness: Witness = { ran: [] };
  const model = scriptedModel(steps);
  const cycle = new LlmCycle({ provider: model.provider, model: 'test' });
  const registry = kitRegistry(witness);
  const outcome = await submit(cycle, 'Go', registry, false);
  expect(outcome.response?.interruptions).toHaveLength(2);
  return { witness, model, cycle, registry };
}

/** A deep copy of `state` with `edit` applied. */
export function edited(state: RunState, edit: (copy: Json) => void): unknown {
  const copy = JSON.parse(JSON.stringify(state));
  edit(copy);
  return copy;
}
