/**
 * Issue 29 §4, hostile input: whatever JSON a server sends as a Gemini answer (whole, or as
 * the chunks of a stream), the reader ends with a response or a typed `LlmError`; never
 * another throw.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChatChunk } from '../../chat-provider.js';
import { LlmError } from '../../llm-error.js';
import { geminiStream } from '../../testing/index.js';
import { resolveEndpoint } from '../http/endpoint.js';
import { GeminiEvents, parseAnswer } from './gemini-events.js';

const endpoint = resolveEndpoint({
  baseURL: 'http://127.0.0.1:1/v1beta',
  headers: { 'x-goog-api-key': 'AIza-hostile-key' },
});

const part = fc.oneof(
  fc.record(
    { text: fc.oneof(fc.string(), fc.integer()), thought: fc.boolean() },
    { requiredKeys: [] },
  ),
  fc.record(
    {
      functionCall: fc.oneof(
        fc.constant(null),
        fc.record(
          { name: fc.oneof(fc.string(), fc.integer()), args: fc.jsonValue(), id: fc.string() },
          { requiredKeys: [] },
        ),
      ),
      thoughtSignature: fc.oneof(fc.string(), fc.integer()),
    },
    { requiredKeys: [] },
  ),
  fc.jsonValue(),
);
const chunk = fc.oneof(
  fc.jsonValue(),
  fc.record(
    {
      candidates: fc.oneof(
        fc.jsonValue(),
        fc.array(
          fc.record(
            {
              content: fc.oneof(
                fc.jsonValue(),
                fc.record({ parts: fc.array(part, { maxLength: 4 }) }),
              ),
              finishReason: fc.oneof(
                fc.constantFrom('STOP', 'SAFETY', 'MALFORMED_FUNCTION_CALL'),
                fc.jsonValue(),
              ),
            },
            { requiredKeys: [] },
          ),
          { maxLength: 2 },
        ),
      ),
      usageMetadata: fc.oneof(fc.jsonValue(), fc.record({ promptTokenCount: fc.jsonValue() })),
      promptFeedback: fc.oneof(fc.jsonValue(), fc.record({ blockReason: fc.jsonValue() })),
      error: fc.oneof(fc.constant(undefined), fc.jsonValue()),
    },
    { requiredKeys: [] },
  ),
);

function settle(run: () => unknown): unknown {
  try {
    return run();
  } catch (error) {
    if (!(error instanceof LlmError)) throw error;
    return error;
  }
}

describe('property: the Gemini reader on any JSON', () => {
  it('reads a whole answer to a response or an LlmError', () => {
    fc.assert(
      fc.property(chunk, (body) => {
        const result = settle(() => parseAnswer(body, endpoint));
        expect(result instanceof LlmError || typeof result === 'object').toBe(true);
      }),
      { seed: 20_261_203, numRuns: 300 },
    );
  });

  it('reads a stream of chunks to a response or an LlmError', () => {
    fc.assert(
      fc.property(fc.array(chunk, { maxLength: 8 }), (chunks) => {
        const stream = new GeminiEvents(endpoint);
        const batch: ChatChunk[] = [];
        const result = settle(() => {
          for (const data of chunks) stream.event(JSON.stringify(data) ?? 'null', batch);
          return stream.finish();
        });
        if (result instanceof LlmError)
          expect(['invalid_response', 'stream_error']).toContain(result.code);
        else expect(result).toHaveProperty('message.role', 'assistant');
      }),
      { seed: 20_261_204, numRuns: 300 },
    );
  });

  it('reads a real stream as the same answer however its chunks are split into events', () => {
    const events = geminiStream(
      { thought: 'Hm.', text: 'Hello there.', calls: [{ name: 'f', args: { a: 1 } }] },
      ['Hel', 'lo ', 'there.'],
    ).map((event) => event.slice('data: '.length).trim());
    const stream = new GeminiEvents(endpoint);
    const batch: ChatChunk[] = [];
    for (const data of events) stream.event(data, batch);
    const answer = stream.finish();
    expect(answer.message.content).toBe('Hello there.');
    expect(answer.reasoning).toBe('Hm.');
    expect(answer.message.tool_calls?.[0]?.function).toEqual({ name: 'f', arguments: '{"a":1}' });
    expect(batch.map((item) => item.type)).toEqual([
      'assistant_reasoning_delta',
      'assistant_text_delta',
      'assistant_text_delta',
      'assistant_text_delta',
      'tool_call_delta',
    ]);
  });
});
