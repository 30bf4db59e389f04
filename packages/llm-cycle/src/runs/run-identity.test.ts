/**
 * Issue 18 §3: a paused run is resumed once. Every run has a stable id (`RunState.runId`) and
 * every tool call an idempotency key (`${runId}:${callId}`, the same on every attempt); a
 * resume claims (runId, epoch) from the run store before running anything, so the same state
 * restored into two cycles (one after the other, or at once) runs its approved call once.
 */
import { awaitInput, defineTool, type ToolContext } from '@agcore/tools-core';
import { ToolRegistry } from '@agcore/tools-registry';
import { describe, expect, it } from 'vitest';
import type { ChatProvider, ChatRequest, ChatResponse } from '../chat-provider.js';
import { LlmError } from '../llm-error.js';
import { LlmCycle } from '../loop/llm-cycle.js';
import { expectWhole, resume, submit } from '../test-support/pause-kit.js';
import { guardUnhandledRejections } from '../test-support/paused-cycle.js';
import { ScriptedProvider, textResponse, toolCallsResponse } from '../testing/index.js';
import type { RunState } from './run-state.js';
import { MemoryRunStore, type RunStore } from './run-store.js';

guardUnhandledRejections();

/** What the side-effecting tool did: each run with the key it was given. */
interface Ledger {
  readonly runs: { readonly callId: string | undefined; readonly key: string | undefined }[];
}

/** `send_money` (needs approval, a side effect) and `lookup` (none); both record their key. */
function bank(ledger: Ledger): ToolRegistry {
  const note = (context: ToolContext) =>
    ledger.runs.push({ callId: context.toolCallId, key: context.idempotencyKey });
  return new ToolRegistry().registerAll([
    defineTool({
      name: 'send_money',
      description: 'Sends money',
      parameters: { type: 'object', properties: { to: { type: 'string' } }, required: ['to'] },
      needsApproval: true,
      execute: async (_args, context) => {
        note(context);
        return 'sent';
      },
    }),
    defineTool({
      name: 'lookup',
      description: 'Looks up',
      parameters: { type: 'object', properties: {} },
      execute: async (_args, context) => {
        note(context);
        return 'found';
      },
    }),
  ]);
}

/**
 * A model that, whatever cycle asks it, calls `lookup` and `send_money` in turn `n` (`n` =
 * the assistant messages so far) while `n < turns`, then answers in text: every cycle restored
 * from a state meets the same script.
 */
function bankModel(turns: number): ChatProvider {
  const answer = (request: ChatRequest): ChatResponse => {
    const n = request.messages.filter((message) => message.role === 'assistant').length;
    if (n >= turns) {
      return {
        id: `r${n}`,
        model: 'test',
        message: { role: 'assistant', content: 'All sent.' },
        finishReason: 'stop',
      };
    }
    return {
      id: `r${n}`,
      model: 'test',
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: `look_${n}`, type: 'function', function: { name: 'lookup', arguments: '{}' } },
          {
            id: `pay_${n}`,
            type: 'function',
            function: { name: 'send_money', arguments: JSON.stringify({ to: `p${n}` }) },
          },
        ],
      },
      finishReason: 'tool_calls',
    };
  };
  return {
    chat: async (request) => answer(request),
    chatStream: async function* (request) {
      yield { type: 'response', response: answer(request) };
    },
  };
}

const roundTrip = (state: RunState): RunState => JSON.parse(JSON.stringify(state));

async function pausedState(options: { runStore?: RunStore; runId?: string } = {}) {
  const ledger: Ledger = { runs: [] };
  const provider = bankModel(1);
  const cycle = new LlmCycle({ provider, model: 'test', ...options });
  const first = await submit(cycle, 'Pay p0', bank(ledger), false);
  expect(first.response?.interruptions?.map((item) => item.callId)).toEqual(['pay_0']);
  return { ledger, provider, cycle, state: roundTrip(cycle.state()) };
}

for (const streaming of [false, true]) {
  const mode = streaming ? 'streamed' : 'not streamed';
  describe(`a paused run is resumed once (${mode})`, () => {
    it('the same state restored into two fresh cycles: one runs the approved call, the other gets state_conflict', async () => {
      const { ledger, provider, state } = await pausedState();
      const one = new LlmCycle({ provider, model: 'test', state: roundTrip(state) });
      const two = new LlmCycle({ provider, model: 'test', state: roundTrip(state) });
      const first = await resume(one, { pay_0: 'approve' }, bank(ledger), streaming);
      expect(first.error).toBeUndefined();
      expect(first.response?.message.content).toBe('All sent.');
      const before = two.messages();
      const second = await resume(two, { pay_0: 'approve' }, bank(ledger), streaming);
      expect(LlmError.isInstance(second.error) && second.error.code).toBe('state_conflict');
      expect(second.events.filter((event) => event.type === 'tool_execution_started')).toEqual([]);
      expect(two.messages()).toEqual(before);
      expect(ledger.runs.filter((run) => run.callId === 'pay_0')).toHaveLength(1);
    });

    it('two cycles restored from one state and resumed at once: one runs it', async () => {
      const { ledger, provider, state } = await pausedState();
      const cycles = [1, 2, 3].map(
        () => new LlmCycle({ provider, model: 'test', state: roundTrip(state) }),
      );
      const outcomes = await Promise.all(
        cycles.map((cycle) => resume(cycle, { pay_0: 'approve' }, bank(ledger), streaming)),
      );
      const codes = outcomes.map((outcome) =>
        LlmError.isInstance(outcome.error) ? outcome.error.code : 'ok',
      );
      expect(codes.filter((code) => code === 'ok')).toHaveLength(1);
      expect(codes.filter((code) => code === 'state_conflict')).toHaveLength(2);
      expect(ledger.runs.filter((run) => run.callId === 'pay_0')).toHaveLength(1);
    });

    it('the cycle that paused, and a state restored from it: whichever resumes second is refused', async () => {
      const { ledger, provider, cycle, state } = await pausedState();
      const restored = new LlmCycle({ provider, model: 'test', state });
      expect((await resume(restored, { pay_0: 'approve' }, bank(ledger), streaming)).error).toBe(
        undefined,
      );
      const again = await resume(cycle, { pay_0: 'approve' }, bank(ledger), streaming);
      expect(LlmError.isInstance(again.error) && again.error.code).toBe('state_conflict');
      expectWhole(cycle.messages());
      expect(ledger.runs.filter((run) => run.callId === 'pay_0')).toHaveLength(1);
    });

    it('the idempotency key a tool sees is runId:callId, the same across a pause and a resume', async () => {
      // One run id per mode: the process's store remembers what it granted.
      const runId = `run-42-${mode}`;
      const { ledger, provider, state } = await pausedState({ runId });
      expect(state.runId).toBe(runId);
      const restored = new LlmCycle({ provider, model: 'test', state });
      await resume(restored, { pay_0: 'approve' }, bank(ledger), streaming);
      expect(ledger.runs).toEqual([
        { callId: 'look_0', key: `${runId}:look_0` },
        { callId: 'pay_0', key: `${runId}:pay_0` },
      ]);
    });
  });
}

describe('run identity and the run store', () => {
  it('a fresh cycle gets a random runId; a state keeps it; each fresh submit starts a new run', async () => {
    const ledger: Ledger = { runs: [] };
    const provider = bankModel(0);
    const cycle = new LlmCycle({ provider, model: 'test' });
    const id = cycle.state().runId;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(cycle.state().epoch).toBe(0);
    await cycle.submitWithTools('Hi', bank(ledger));
    expect(cycle.state().runId).toBe(id);
    await cycle.submitWithTools('Hi again', bank(ledger));
    const next = cycle.state().runId;
    expect(next).not.toBe(id);
    expect(new LlmCycle({ provider, model: 'test', state: cycle.state() }).state().runId).toBe(
      next,
    );
    expect(new LlmCycle({ provider, model: 'test' }).state().runId).not.toBe(id);
  });

  it('a tool that asks back sees the same idempotency key before the pause and after the resume', async () => {
    const keys: (string | undefined)[] = [];
    const registry = new ToolRegistry().register(
      defineTool({
        name: 'transfer',
        description: 'Asks before it transfers',
        parameters: { type: 'object', properties: {} },
        execute: async (_args, context) => {
          keys.push(context.idempotencyKey);
          return context.input === undefined ? awaitInput({ prompt: 'Sure?' }) : 'sent';
        },
      }),
    );
    const provider = new ScriptedProvider([
      toolCallsResponse([{ name: 'transfer', arguments: {}, id: 'call_t' }]),
      textResponse('done'),
    ]);
    const cycle = new LlmCycle({ provider, model: 'test' });
    await cycle.submitWithTools('Send', registry);
    const state = roundTrip(cycle.state());
    const restored = new LlmCycle({ provider, model: 'test', state });
    expect((await restored.resume({ call_t: { input: 'yes' } }, registry)).message.content).toBe(
      'done',
    );
    expect(keys).toEqual([`${state.runId}:call_t`, `${state.runId}:call_t`]);
  });

  it('a runId given with a state at rest names the next run', async () => {
    const provider = bankModel(0);
    const cycle = new LlmCycle({ provider, model: 'test' });
    await cycle.submitWithTools('Hi', bank({ runs: [] }));
    const next = new LlmCycle({ provider, model: 'test', state: cycle.state(), runId: 'next' });
    expect(next.state().runId).toBe('next');
    expect(next.state().epoch).toBe(0);
  });

  it('a resume claims (runId, epoch); the state after a resume carries the next epoch', async () => {
    const claims: [string, number][] = [];
    const store: RunStore = {
      claim: async (runId, epoch) => {
        claims.push([runId, epoch]);
        return true;
      },
    };
    const ledger: Ledger = { runs: [] };
    const provider = bankModel(2);
    const cycle = new LlmCycle({ provider, model: 'test', runStore: store, runId: 'r' });
    await cycle.submitWithTools('Pay', bank(ledger));
    expect(cycle.state().epoch).toBe(0);
    const paused = await cycle.resume({ pay_0: 'approve' }, bank(ledger));
    expect(paused.interruptions?.map((item) => item.callId)).toEqual(['pay_1']);
    expect(cycle.state().epoch).toBe(1);
    expect(claims).toEqual([['r', 0]]);
    const later = new LlmCycle({ provider, model: 'test', runStore: store, state: cycle.state() });
    await later.resume({ pay_1: 'approve' }, bank(ledger));
    expect(claims).toEqual([
      ['r', 0],
      ['r', 1],
    ]);
  });

  it('a store that refuses, throws, rejects or answers nonsense: nothing runs, the run stays paused', async () => {
    const stores: [string, RunStore['claim']][] = [
      ['refuses', async () => false],
      [
        'throws',
        () => {
          throw Object.create(null);
        },
      ],
      ['rejects', async () => Promise.reject(new Error('database down'))],
      ['answers nonsense', async () => 'yes' as never],
    ];
    for (const [what, claim] of stores) {
      const { ledger, provider, state } = await pausedState();
      const cycle = new LlmCycle({ provider, model: 'test', state, runStore: { claim } });
      const before = cycle.messages();
      const { error } = await resume(cycle, { pay_0: 'approve' }, bank(ledger), false);
      expect(LlmError.isInstance(error) && error.code, what).toBe(
        what === 'refuses' ? 'state_conflict' : 'callback_failed',
      );
      expect(
        ledger.runs.filter((run) => run.callId === 'pay_0'),
        what,
      ).toEqual([]);
      expect(cycle.messages(), what).toEqual(before);
      expect(
        cycle.interruptions().map((item) => item.callId),
        what,
      ).toEqual(['pay_0']);
    }
  });

  it('a store refuses a stale epoch once a later one was claimed', async () => {
    const store = new MemoryRunStore();
    expect(await store.claim('a', 0)).toBe(true);
    expect(await store.claim('a', 0)).toBe(false);
    expect(await store.claim('a', 1)).toBe(true);
    expect(await store.claim('a', 0)).toBe(false);
    expect(await store.claim('b', 0)).toBe(true);
    const all = await Promise.all([store.claim('c', 3), store.claim('c', 3), store.claim('c', 3)]);
    expect(all.filter(Boolean)).toHaveLength(1);
  });

  it('a runId or epoch edited in a sealed state is refused; a runId option that differs from a paused state is a TypeError', async () => {
    const stateSecret = 'a-secret-of-at-least-thirty-two-bytes!!';
    const ledger: Ledger = { runs: [] };
    const provider = bankModel(1);
    const cycle = new LlmCycle({ provider, model: 'test', stateSecret });
    await cycle.submitWithTools('Pay', bank(ledger));
    const state = roundTrip(cycle.state());
    for (const edit of [{ runId: 'other' }, { epoch: 5 }]) {
      expect(
        () => new LlmCycle({ provider, model: 'test', stateSecret, state: { ...state, ...edit } }),
      ).toThrow(expect.objectContaining({ code: 'state_mismatch' }));
    }
    for (const bad of [{ epoch: -1 }, { epoch: 1.5 }, { runId: '' }, { runId: 7 }]) {
      const { mac: _mac, ...unsealed } = state;
      expect(
        () => new LlmCycle({ provider, model: 'test', state: { ...unsealed, ...bad } as never }),
      ).toThrow(expect.objectContaining({ code: 'state_mismatch' }));
    }
    expect(
      () => new LlmCycle({ provider, model: 'test', stateSecret, state, runId: 'another' }),
    ).toThrow(TypeError);
    expect(() => new LlmCycle({ provider, model: 'test', runId: '' })).toThrow(TypeError);
    for (const runStore of [
      {},
      null,
      {
        get claim() {
          throw Object.create(null);
        },
      },
    ]) {
      expect(() => new LlmCycle({ provider, model: 'test', runStore: runStore as never })).toThrow(
        TypeError,
      );
    }
  });
});
