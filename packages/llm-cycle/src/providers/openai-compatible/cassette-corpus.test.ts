/**
 * The dialect corpus: each provider's cassette (written from its public documentation, see
 * `test-support/corpus.ts` and the README) replayed through both loops, in whole reads, in the
 * recorded reads, and in random reads of 1 to 48 bytes.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ChatResponse } from '../../chat-provider.js';
import { LlmCycle } from '../../loop/llm-cycle.js';
import type { AssistantMessage } from '../../messages.js';
import type { StreamEvent } from '../../stream-events.js';
import { conversation, corpus, corpusRegistry } from '../../test-support/corpus/index.js';
import { type Cassette, type ReplayReads, replayCassette } from '../../testing/index.js';

function load(name: string): Cassette {
  return JSON.parse(
    readFileSync(new URL(`../../../cassettes/${name}.json`, import.meta.url), 'utf8'),
  ) as Cassette;
}

const readings: { label: string; reads: ReplayReads }[] = [
  { label: 'whole reads', reads: 'whole' },
  { label: 'recorded reads', reads: 'recorded' },
  ...[11, 23, 37, 41, 53].map((seed) => ({
    label: `random 1-48 byte reads (seed ${seed})`,
    reads: { minBytes: 1, maxBytes: 48, seed },
  })),
];

async function converse(
  cycle: LlmCycle,
  streaming: boolean,
): Promise<{ response: ChatResponse; events: StreamEvent[] }> {
  const events: StreamEvent[] = [];
  if (!streaming) {
    return { response: await cycle.submitWithTools(conversation.prompt, corpusRegistry()), events };
  }
  const stream = cycle.submitStreamWithTools(conversation.prompt, corpusRegistry());
  for (let step = await stream.next(); ; step = await stream.next()) {
    if (step.done === true) return { response: step.value, events };
    events.push(step.value);
  }
}

describe('the dialect corpus, replayed', () => {
  for (const entry of corpus) {
    describe(entry.name, () => {
      const cassette = load(entry.name);

      it('has a source and holds no credential', () => {
        expect(cassette.source).toBe(entry.source);
        expect(cassette.baseURL).toBe(entry.baseURL);
        expect(JSON.stringify(cassette)).not.toMatch(/sk-corpus|placeholder-key/);
      });

      for (const streaming of [false, true]) {
        const loop = streaming ? 'submitStreamWithTools' : 'submitWithTools';
        it(`replays through ${loop}, in every cut of the reads`, async () => {
          for (const { label, reads } of readings) {
            const replay = replayCassette(cassette, { reads });
            const cycle = new LlmCycle({
              provider: replay.provider(entry.providerOptions ?? {}),
              model: entry.model,
              systemPrompt: conversation.systemPrompt,
            });
            const { response, events } = await converse(cycle, streaming);
            replay.assertComplete();
            expect(response.message.content, label).toBe(entry.expect.text);
            expect(response.finishReason, label).toBe('stop');
            expect(response.reasoning, label).toBe(entry.expect.reasoning);
            expect(cycle.usage().totalTokens, label).toBe(entry.expect.totalTokens);
            const history = cycle.messages();
            const toolTurn = history[2] as AssistantMessage;
            expect(
              toolTurn.tool_calls?.map((call) => [
                call.function.name,
                JSON.parse(call.function.arguments),
              ]),
              label,
            ).toEqual(entry.expect.calls);
            expect(
              history.slice(3, 3 + entry.expect.calls.length).map((message) => message.role),
            ).toEqual(entry.expect.calls.map(() => 'tool'));
            if (streaming) {
              const text = events
                .filter((event) => event.type === 'assistant_text_delta')
                .map((event) => event.text)
                .join('');
              expect(text, label).toBe(entry.expect.text);
              const reasons = events
                .filter((event) => event.type === 'turn_complete')
                .map((event) => event.reason);
              expect(reasons, label).toEqual(['tool_calls', 'stop']);
            }
          }
        });
      }

      it(`sends the first turn's reasoning back: ${entry.expect.reasoningSentBack === true}`, () => {
        const second = cassette.exchanges[1]?.request.body as {
          messages: Record<string, unknown>[];
        };
        const assistant = second.messages.find((message) => message.role === 'assistant');
        expect('reasoning_content' in (assistant ?? {})).toBe(
          entry.expect.reasoningSentBack === true,
        );
      });
    });
  }
});
