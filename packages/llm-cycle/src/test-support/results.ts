/**
 * Reading what a provider or a cycle produced, in tests: chunks of a provider stream, events of a
 * cycle stream, and the `LlmError` a promise or a stream ends with.
 */
import type { ChatChunk, ChatResponse } from '../chat-provider.js';
import { LlmError } from '../llm-error.js';
import type { StreamEvent } from '../stream-events.js';

/** The `LlmError` `promise` rejects with; fails if it resolves or rejects with anything else. */
export async function rejection(promise: Promise<unknown>): Promise<LlmError> {
  try {
    await promise;
  } catch (error) {
    if (LlmError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

/** Every chunk of a provider stream, read to its end. */
export async function collectChunks(iterable: AsyncIterable<ChatChunk>): Promise<ChatChunk[]> {
  const chunks: ChatChunk[] = [];
  for await (const item of iterable) chunks.push(item);
  return chunks;
}

/** The response of the last chunk; fails if the stream did not end with a response chunk. */
export function finalResponse(chunks: readonly ChatChunk[]): ChatResponse {
  const last = chunks[chunks.length - 1];
  if (last?.type !== 'response') throw new Error('stream did not end with a response chunk');
  return last.response;
}

/** The events of a cycle stream and the response it returns. */
export async function collectEvents(
  stream: AsyncGenerator<StreamEvent, ChatResponse>,
): Promise<{ events: StreamEvent[]; response: ChatResponse }> {
  const events: StreamEvent[] = [];
  for (;;) {
    const step = await stream.next();
    if (step.done === true) return { events, response: step.value };
    events.push(step.value);
  }
}

/** The `LlmError` a cycle stream throws; its events so far go to `events`. */
export async function streamError(
  stream: AsyncGenerator<StreamEvent, ChatResponse>,
  events: StreamEvent[] = [],
): Promise<LlmError> {
  try {
    for await (const event of stream) events.push(event);
  } catch (error) {
    if (LlmError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected the stream to throw');
}
