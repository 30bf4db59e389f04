/**
 * Issue 22 "Done when": the loop's features, run over every wire dialect (its local server and
 * its real provider), one suite parameterized by `dialects`: the tool loop with parallel calls,
 * the streamed events, approvals with a run state paused and resumed in a fresh cycle, the
 * loop guard, tracing spans, cassettes recorded and replayed, retries, limits, truncation.
 */
import { defineTool } from '@agcore/tools-core';
import { ToolRegistry } from '@agcore/tools-registry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StreamEvent } from '../stream-events.js';
import { type DialectServer, dialectModel, dialects } from '../test-support/dialects/index.js';
import { startTestTracing } from '../test-support/otel.js';
import {
  expectWhole,
  kitRegistry,
  resume,
  type Step,
  submit,
  toolAnswers,
  type Witness,
} from '../test-support/pause-kit.js';
import { recordCassette, replayCassette } from '../testing/index.js';
import { LlmCycle, type LlmCycleOptions } from './llm-cycle.js';

const parallel: Step[] = [
  {
    calls: [
      { name: 'get_weather', args: { city: 'Paris' }, id: 'call_paris' },
      { name: 'get_weather', args: { city: 'Oslo' }, id: 'call_oslo' },
    ],
  },
  { text: 'Paris and Oslo are both at 22 °C.' },
];

/** Event types with runs of the same type collapsed, `turn_complete` with its reason. */
function shape(events: readonly StreamEvent[]): string[] {
  const types = events.map((event) =>
    event.type === 'turn_complete' ? `turn_complete:${event.reason}` : event.type,
  );
  return types.filter((type, index) => type !== types[index - 1]);
}

describe.each(dialects)('the loop on $name', (dialect) => {
  let running: DialectServer;
  beforeAll(async () => {
    running = await dialect.start();
  });
  afterAll(async () => {
    await running.close();
  });
  const cycleOn = (steps: readonly Step[], options: Partial<LlmCycleOptions> = {}) => {
    const model = dialectModel(running, steps);
    const cycle = new LlmCycle({
      provider: model.provider,
      model: 'test-model',
      systemPrompt: 'Be brief.',
      retry: { initialDelayMs: 1, maxDelayMs: 50 },
      ...(running.parameters === undefined ? {} : { parameters: running.parameters }),
      ...options,
    });
    return { model, cycle };
  };

  for (const streaming of [false, true]) {
    it(`runs parallel calls and answers both on the wire (${streaming ? 'streamed' : 'whole'})`, async () => {
      const witness: Witness = { ran: [] };
      const { model, cycle } = cycleOn(parallel);
      const outcome = await submit(
        cycle,
        'Weather in Paris and Oslo?',
        kitRegistry(witness),
        streaming,
      );
      expect(outcome.error).toBeUndefined();
      expect(outcome.response?.message.content).toBe('Paris and Oslo are both at 22 °C.');
      expect(witness.ran.map((call) => call.args)).toEqual([{ city: 'Paris' }, { city: 'Oslo' }]);
      expectWhole(cycle.messages());
      expect(running.toolResults(1)).toEqual([
        '{"city":"Paris","temperature":22}',
        '{"city":"Oslo","temperature":22}',
      ]);
      expect(model.used()).toBe(true);
    });
  }

  it('streams the same events a UI written for one provider expects', async () => {
    const { cycle } = cycleOn(parallel);
    const { events, error } = await submit(cycle, 'Weather?', kitRegistry(), true);
    expect(error).toBeUndefined();
    const seen = shape(events).filter((type) => type !== 'assistant_reasoning_delta');
    // The order of the loop itself (runs collapsed): both calls start as the turn completes.
    expect(seen).toEqual([
      'tool_call_delta',
      'tool_execution_started',
      'turn_complete:tool_calls',
      'tool_execution_completed',
      'assistant_text_delta',
      'turn_complete:stop',
    ]);
    const deltas = events.filter((event) => event.type === 'tool_call_delta');
    expect(
      deltas.filter((delta) => delta.callId !== undefined).map((delta) => delta.callId),
    ).toEqual(['call_paris', 'call_oslo']);
  });

  it('pauses for approval, and a fresh cycle resumes from the run state as JSON', async () => {
    const steps: Step[] = [
      { calls: [{ name: 'delete_file', args: { path: 'notes.txt' }, id: 'call_delete' }] },
      { text: 'Deleted.' },
    ];
    const witness: Witness = { ran: [] };
    const { model, cycle } = cycleOn(steps);
    const paused = await submit(cycle, 'Delete notes.txt', kitRegistry(witness), false);
    expect(paused.response?.interruptions?.map((item) => item.callId)).toEqual(['call_delete']);
    const state = JSON.parse(JSON.stringify(cycle.state()));
    const fresh = new LlmCycle({
      provider: running.provider(),
      model: 'test-model',
      state,
      ...(running.parameters === undefined ? {} : { parameters: running.parameters }),
    });
    const resumed = await resume(fresh, { call_delete: 'approve' }, kitRegistry(witness), true);
    expect(resumed.error).toBeUndefined();
    expect(resumed.response?.message.content).toBe('Deleted.');
    expect(witness.ran.map((call) => call.name)).toEqual(['delete_file']);
    expect(toolAnswers(fresh.messages())).toEqual({ call_delete: '{"deleted":"notes.txt"}' });
    expect(model.used()).toBe(true);
  });

  it('refuses the same call repeated: loop_detected', async () => {
    const same = (index: number): Step => ({
      calls: [{ name: 'get_weather', args: { city: 'Paris' }, id: `call_${index}` }],
    });
    const { cycle } = cycleOn([0, 1, 2, 3, 4].map(same));
    const { error } = await submit(cycle, 'Weather?', kitRegistry(), false);
    expect(error).toMatchObject({ code: 'loop_detected', toolName: 'get_weather' });
    expectWhole(cycle.messages());
  });

  it('traces one chat span per request and one execute_tool span per call', async () => {
    const tracing = startTestTracing();
    try {
      const { cycle } = cycleOn(parallel, { tracing: { agentName: 'bot' } });
      await submit(cycle, 'Weather?', kitRegistry(), true);
      const names = tracing.spans().map((span) => span.name);
      expect(names.filter((name) => name === 'chat test-model')).toHaveLength(2);
      expect(names.filter((name) => name === 'execute_tool get_weather')).toHaveLength(2);
      const [agent] = tracing.spans().filter((span) => span.name === 'invoke_agent bot');
      expect(agent?.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
    } finally {
      await tracing.stop();
    }
  });

  it('records a cassette and replays it offline in 1–48-byte reads, to the same history', async () => {
    const recorder = recordCassette({ source: `local ${dialect.name} server` });
    const model = dialectModel(running, parallel);
    const options = {
      model: 'test-model',
      ...(running.parameters === undefined ? {} : { parameters: running.parameters }),
    };
    const live = new LlmCycle({
      ...options,
      provider: running.provider({ fetch: recorder.fetch }),
    });
    await submit(live, 'Weather?', kitRegistry(), true);
    expect(model.used()).toBe(true);
    const served = running.server.requests.length;
    const replay = replayCassette(recorder.cassette(), {
      reads: { minBytes: 1, maxBytes: 48, seed: 22 },
    });
    const offline = new LlmCycle({
      ...options,
      provider: running.provider({ fetch: replay.fetch }),
    });
    const outcome = await submit(offline, 'Weather?', kitRegistry(), true);
    expect(outcome.error).toBeUndefined();
    replay.assertComplete();
    expect(offline.messages()).toEqual(live.messages());
    expect(running.server.requests.length).toBe(served);
  });

  it('retries an overloaded server, honouring retry-after', async () => {
    const model = dialectModel(running, parallel, [running.overloaded()]);
    const retries: (number | undefined)[] = [];
    const cycle = new LlmCycle({
      provider: model.provider,
      model: 'test-model',
      retry: { initialDelayMs: 10_000, onRetry: ({ error }) => retries.push(error.retryAfterMs) },
      ...(running.parameters === undefined ? {} : { parameters: running.parameters }),
    });
    const outcome = await submit(cycle, 'Weather?', kitRegistry(), true);
    expect(outcome.error).toBeUndefined();
    expect(retries).toEqual([0]);
    expect(model.used()).toBe(true);
  });

  it('gives up on a server that stalls (idleTimeoutMs) and stops at maxTurns', async () => {
    // Its own server: at load the 100 ms can run out before the server has read the request,
    // which a shared server would then answer with a later test's scripted reply.
    const own = await dialect.start();
    try {
      own.server.reply({ kind: 'sse', writes: [], finish: 'hold' });
      const stalled = new LlmCycle({
        provider: own.provider({ idleTimeoutMs: 100 }),
        model: 'test-model',
        retry: { maxRetries: 0 },
      });
      expect((await submit(stalled, 'Hi', kitRegistry(), true)).error).toMatchObject({
        code: 'timeout',
      });
    } finally {
      await own.close();
    }
    const { cycle } = cycleOn(
      ['Paris', 'Oslo', 'Rome'].map((city) => ({
        calls: [{ name: 'get_weather', args: { city }, id: `call_${city}` }],
      })),
      { maxTurns: 2 },
    );
    const { error } = await submit(cycle, 'Weather everywhere?', kitRegistry(), false);
    expect(error).toMatchObject({ code: 'max_turns_exceeded' });
    running.server.reset();
  });

  it('sends a long tool result cut as the history keeps it', async () => {
    const registry = new ToolRegistry().register(
      defineTool({
        name: 'long_text',
        description: 'Returns 40 000 characters',
        parameters: { type: 'object', properties: {} },
        execute: async () => 'x'.repeat(40_000),
      }),
    );
    const { cycle } = cycleOn([
      { calls: [{ name: 'long_text', args: {}, id: 'call_long' }] },
      { text: 'Long.' },
    ]);
    const outcome = await submit(cycle, 'Read it', registry, false);
    expect(outcome.error).toBeUndefined();
    const [sent] = running.toolResults(1);
    expect(sent?.length).toBeLessThan(20_000);
    expect(sent).toBe(toolAnswers(cycle.messages()).call_long);
  });
});
