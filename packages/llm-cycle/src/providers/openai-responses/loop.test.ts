/**
 * The loop's features on the Responses provider (issue 22 "Done when"), until the parameterized
 * suite of every dialect runs them: tool loop with parallel calls, streamed events, approvals
 * with a `RunState` resumed in a fresh cycle (reasoning items survive it), loop guard, tracing,
 * cassettes, retries and limits. The server refuses a function call sent back without its
 * reasoning item (see `responsesDialect`), so every multi-turn test checks that too.
 */
import { SpanKind } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { LlmError } from '../../llm-error.js';
import { LlmCycle, type LlmCycleOptions } from '../../loop/llm-cycle.js';
import type { StreamEvent } from '../../stream-events.js';
import { responsesDialect } from '../../test-support/dialects/openai-responses.js';
import { startTestTracing, type TestTracing } from '../../test-support/otel.js';
import {
  expectWhole,
  kitRegistry,
  resume,
  type Step,
  submit,
  toolAnswers,
  type Witness,
} from '../../test-support/pause-kit.js';
import {
  functionCallItem,
  messageItem,
  reasoningItem,
  recordCassette,
  replayCassette,
  responseEvents,
  responseObject,
  startResponsesServer,
} from '../../testing/index.js';
import { createOpenAIResponsesProvider } from './openai-responses-provider.js';

const closers: (() => Promise<void>)[] = [];
let tracing: TestTracing | undefined;
afterEach(async () => {
  await tracing?.stop();
  tracing = undefined;
  for (const close of closers.splice(0)) await close();
});

async function setup(steps: readonly Step[], options: Partial<LlmCycleOptions> = {}) {
  const model = await responsesDialect.model(steps);
  closers.push(() => model.close());
  const witness: Witness = { ran: [] };
  const cycle = new LlmCycle({
    provider: model.provider,
    model: 'gpt-5-mini',
    maxTurns: 20,
    ...options,
  });
  return { model, witness, cycle, registry: kitRegistry(witness) };
}

const parallel: Step[] = [
  {
    calls: [
      { name: 'get_weather', args: { city: 'Oslo' }, id: 'call_oslo' },
      { name: 'get_weather', args: { city: 'Rome' }, id: 'call_rome' },
    ],
  },
  { text: 'Both are 22 °C.' },
];
const mixedTurn: Step[] = [
  {
    calls: [
      { name: 'get_weather', args: { city: 'Paris' }, id: 'call_weather' },
      { name: 'delete_file', args: { path: 'notes.txt' }, id: 'call_delete' },
    ],
  },
  { text: 'Done.' },
];

function types(events: readonly StreamEvent[]): string[] {
  const names = events.map((event) =>
    event.type === 'turn_complete' ? `turn_complete:${event.reason}` : event.type,
  );
  return names.filter((name, index) => name !== names[index - 1]);
}

for (const streaming of [false, true]) {
  const mode = streaming ? 'streamed' : 'not streamed';

  describe(`the tool loop on the Responses provider (${mode})`, () => {
    it('runs parallel calls and answers, with the reasoning items sent back each turn', async () => {
      const { model, witness, cycle, registry } = await setup(parallel);
      const { response, events, error } = await submit(
        cycle,
        'Oslo and Rome?',
        registry,
        streaming,
      );
      expect(error).toBeUndefined();
      expect(response?.message.content).toBe('Both are 22 °C.');
      expect(witness.ran.map((call) => call.args)).toEqual([{ city: 'Oslo' }, { city: 'Rome' }]);
      expectWhole(cycle.messages());
      expect(model.used()).toBe(true);
      expect(cycle.usage()).toMatchObject({ promptTokens: 20, completionTokens: 10 });
      if (streaming) {
        // What the provider streamed, in order (tool executions interleave as the loop runs them).
        expect(types(events).filter((name) => !name.startsWith('tool_execution'))).toEqual([
          'assistant_reasoning_delta',
          'tool_call_delta',
          'turn_complete:tool_calls',
          'assistant_reasoning_delta',
          'assistant_text_delta',
          'turn_complete:stop',
        ]);
      }
    });

    it('pauses for approval and resumes from JSON in a fresh cycle, reasoning items intact', async () => {
      const first = await setup(mixedTurn);
      const paused = await submit(
        first.cycle,
        'Weather, then delete notes.txt',
        first.registry,
        streaming,
      );
      expect(paused.response?.interruptions?.map((entry) => entry.callId)).toEqual(['call_delete']);
      const saved = JSON.parse(JSON.stringify(first.cycle.state()));
      const cycle = new LlmCycle({
        provider: first.model.provider,
        model: 'gpt-5-mini',
        state: saved,
      });
      const resumed = await resume(cycle, { call_delete: 'approve' }, first.registry, streaming);
      expect(resumed.error).toBeUndefined();
      expect(resumed.response?.message.content).toBe('Done.');
      expect(first.witness.ran.map((call) => call.name)).toEqual(['get_weather', 'delete_file']);
      expect(toolAnswers(cycle.messages()).call_delete).toContain('notes.txt');
      expect(first.model.used()).toBe(true);
    });

    it('refuses the 4th identical call with loop_detected', async () => {
      const same = (index: number): Step => ({
        calls: [{ name: 'get_weather', args: { city: 'Paris' }, id: `call_${index}` }],
      });
      const { witness, cycle, registry } = await setup([0, 1, 2, 3, 4].map(same));
      const { error } = await submit(cycle, 'Weather?', registry, streaming);
      expect(LlmError.isInstance(error) && error.code).toBe('loop_detected');
      expect(witness.ran).toHaveLength(3);
      expectWhole(cycle.messages());
    });

    it('stops at maxTurns with max_turns_exceeded', async () => {
      const { cycle, registry } = await setup(parallel, { maxTurns: 1 });
      const { error } = await submit(cycle, 'Oslo and Rome?', registry, streaming);
      expect(LlmError.isInstance(error) && error.code).toBe('max_turns_exceeded');
    });

    it('retries a 429 with its retry-after, then goes on', async () => {
      const server = await startResponsesServer();
      closers.push(() => server.close());
      server.reply(
        {
          kind: 'json',
          status: 429,
          headers: { 'retry-after-ms': '5' },
          body: { error: { message: 'Slow down', type: 'requests', code: 'rate_limit_exceeded' } },
        },
        { kind: 'json', body: responseObject({ output: [messageItem('Fine.')] }) },
      );
      const delays: number[] = [];
      const cycle = new LlmCycle({
        provider: createOpenAIResponsesProvider({ baseURL: server.baseURL }),
        model: 'gpt-5-mini',
        retry: { onRetry: (details) => delays.push(details.delayMs) },
      });
      const { response } = await submit(cycle, 'Hi', kitRegistry(), streaming);
      expect(response?.message.content).toBe('Fine.');
      expect(delays).toEqual([5]);
      expect(server.requests).toHaveLength(2);
    });

    it('traces each model call as a chat span with the response id and usage', async () => {
      tracing = startTestTracing();
      const { cycle, registry } = await setup(parallel);
      await submit(cycle, 'Oslo and Rome?', registry, streaming);
      const chats = tracing.spans().filter((span) => span.kind === SpanKind.CLIENT);
      expect(chats).toHaveLength(2);
      for (const span of chats) {
        expect(span.attributes['gen_ai.response.id']).toMatch(/^resp_/);
        expect(span.attributes['gen_ai.usage.input_tokens']).toBe(10);
      }
    });
  });
}

describe('cassettes of the Responses provider', () => {
  it('record a streamed tool loop and replay it offline, whole and in random 1–48-byte reads', async () => {
    const server = await startResponsesServer();
    closers.push(() => server.close());
    const reasoning = reasoningItem('Call the tool.');
    server.reply(
      {
        kind: 'sse',
        writes: responseEvents(
          responseObject({
            output: [reasoning, functionCallItem('get_weather', { city: 'Paris' }, 'call_1')],
          }),
        ),
      },
      {
        kind: 'sse',
        writes: responseEvents(responseObject({ output: [messageItem('It is 22 °C.')] })),
      },
    );
    const recorder = recordCassette({ source: 'the Responses test server' });
    const recording = new LlmCycle({
      provider: createOpenAIResponsesProvider({
        baseURL: server.baseURL,
        apiKey: 'sk-test-cassette',
        fetch: recorder.fetch,
      }),
      model: 'gpt-5-mini',
    });
    await submit(recording, 'Weather in Paris?', kitRegistry(), true);
    const cassette = JSON.parse(JSON.stringify(recorder.cassette()));
    expect(JSON.stringify(cassette)).not.toContain('sk-test-cassette');
    for (const streaming of [false, true]) {
      for (const reads of ['whole', { minBytes: 1, maxBytes: 48, seed: 22 }] as const) {
        const replay = replayCassette(cassette, { reads });
        const cycle = new LlmCycle({
          provider: createOpenAIResponsesProvider({
            baseURL: server.baseURL,
            fetch: replay.fetch,
          }),
          model: 'gpt-5-mini',
        });
        const { response, error } = await submit(
          cycle,
          'Weather in Paris?',
          kitRegistry(),
          streaming,
        );
        expect(error).toBeUndefined();
        expect(response?.message.content).toBe('It is 22 °C.');
        const turn = cycle.messages()[1];
        expect(turn?.role === 'assistant' && turn.provider_state?.items[0]).toEqual(reasoning);
        replay.assertComplete();
      }
    }
  });
});
