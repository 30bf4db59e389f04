/**
 * Property: whatever events a server streams (real ones reordered, cut short or repeated,
 * foreign types, broken JSON, wrong shapes), the provider ends with a `response` chunk or an
 * `LlmError`, never another error and never a hang; and a real stream, however it is cut into
 * reads, reads as the same answer.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChatChunk } from '../../chat-provider.js';
import { LlmError } from '../../llm-error.js';
import {
  functionCallItem,
  messageItem,
  reasoningItem,
  responseEvents,
  responseObject,
  responsesEvent,
} from '../../testing/index.js';
import { createOpenAIResponsesProvider } from './openai-responses-provider.js';

const real = responseEvents(
  responseObject({
    output: [
      reasoningItem('Think ☃.'),
      messageItem('Hé 👋'),
      functionCallItem('get_weather', { city: 'Zürich' }, 'call_z'),
    ],
  }),
);

/** A provider whose `fetch` answers with `writes`, each as one read. */
function providerOf(writes: readonly Uint8Array[]) {
  return createOpenAIResponsesProvider({
    apiKey: 'sk-property-key',
    fetch: async () =>
      new Response(
        new ReadableStream<Uint8Array>({
          start(controller) {
            for (const write of writes) controller.enqueue(write);
            controller.close();
          },
        }),
        { headers: { 'content-type': 'text/event-stream' } },
      ),
  });
}

/** The bytes of `text` cut at `cuts` (positions taken modulo its length). */
function cutInto(text: string, cuts: readonly number[]): Uint8Array[] {
  const bytes = new TextEncoder().encode(text);
  const points = [...new Set(cuts.map((cut) => cut % bytes.length))].sort((a, b) => a - b);
  const parts: Uint8Array[] = [];
  let start = 0;
  for (const point of [...points, bytes.length]) {
    if (point > start) parts.push(bytes.subarray(start, point));
    start = point;
  }
  return parts;
}

async function outcome(writes: readonly Uint8Array[]): Promise<ChatChunk[] | LlmError> {
  const chunks: ChatChunk[] = [];
  try {
    for await (const chunk of providerOf(writes).chatStream({ model: 'm', messages: [] }))
      chunks.push(chunk);
    return chunks;
  } catch (error) {
    if (LlmError.isInstance(error)) return error;
    throw error;
  }
}

const hostileEvent = fc.oneof(
  fc.constantFrom(...real),
  fc.string().map((text) => `data: ${text}\n\n`),
  fc
    .record({
      type: fc.constantFrom(
        'response.output_item.added',
        'response.function_call_arguments.delta',
        'response.output_text.delta',
        'response.output_item.done',
        'response.completed',
        'error',
        'response.unknown',
      ),
      output_index: fc.oneof(fc.integer({ min: -2, max: 4 }), fc.string()),
      delta: fc.oneof(fc.string(), fc.integer()),
      item: fc.oneof(
        fc.constant(null),
        fc.record({ type: fc.constantFrom('function_call', 'message') }),
      ),
      response: fc.oneof(
        fc.constant(null),
        fc.record({ status: fc.constantFrom('completed', 'failed', 'queued') }),
      ),
    })
    .map((event) => responsesEvent(event)),
);

describe('property: the Responses stream reader on any events', () => {
  it('ends with one response chunk or an LlmError, whatever the events', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(hostileEvent, { maxLength: 12 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        async (events, cuts) => {
          const text = events.join('') || '\n';
          const result = await outcome(cutInto(text, cuts));
          if (result instanceof LlmError) return;
          expect(result.filter((chunk) => chunk.type === 'response')).toHaveLength(1);
          expect(result.at(-1)?.type).toBe('response');
        },
      ),
      { seed: 20_261_202, numRuns: 150 },
    );
  });

  it('reads a real stream as the same answer in any cut of its bytes', async () => {
    const whole = await outcome(cutInto(real.join(''), []));
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(), { maxLength: 40 }), async (cuts) => {
        const cut = await outcome(cutInto(real.join(''), cuts));
        expect(Array.isArray(cut) && cut.at(-1)).toEqual(Array.isArray(whole) && whole.at(-1));
      }),
      { seed: 20_261_203, numRuns: 60 },
    );
  });
});
