import { createParser, type EventSourceParser } from 'eventsource-parser';
import type { ChatChunk } from '../chat-provider.js';
import { LlmError } from '../llm-error.js';
import { chunksOf } from '../wire/completion.js';
import { bodyShape } from '../wire/dialects.js';
import { ResponseAssembler } from '../wire/response-assembler.js';
import { applyStreamData } from '../wire/stream-chunk.js';
import { BodyReader, parseJsonAnswer, type Reading } from './body-reader.js';
import { notChatCompletions } from './http-error.js';

/** What reading a streamed answer needs. */
export interface StreamReading extends Reading {
  /** Takes the body over once `[DONE]` was read, to read its end in the background. */
  readonly afterDone: (body: BodyReader) => void;
}

/** The largest slice of one network read parsed before its chunks are handed over. */
const maxSliceChars = 64 * 1024;
/** How much of the start of a body error messages quote. */
const startChars = 200;

/**
 * The chunks of a streamed answer, in batches (those of one network read; a large read is
 * parsed in slices growing from 1 KiB so the first chunks are not held back), the last batch
 * ending with the `response` chunk. The stream ends at `data: [DONE]`, or with the body after a
 * `finish_reason`. A body whose content type does not say what it is is recognised by its first
 * bytes: SSE is streamed, JSON is read whole, anything else is refused.
 * @throws {LlmError} `invalid_response`, `stream_error`, `network`, `timeout`, `cancelled`
 */
export async function* readStreamedAnswer(
  body: ReadableStream<Uint8Array>,
  reading: StreamReading,
): AsyncGenerator<readonly ChatChunk[], void, undefined> {
  const source = new BodyReader(body, reading);
  const state = new StreamState(reading);
  let handedOver = false;
  try {
    let shape: 'sse' | 'json' | 'other' | undefined = shapeOf(reading.contentType);
    let sniffed = '';
    for (let text = await source.next(); text !== undefined; text = await source.next()) {
      if (shape === undefined) {
        sniffed += text;
        if (sniffed.trim() === '') continue;
        shape = bodyShape(sniffed);
        text = sniffed;
      }
      if (shape === 'other') throw state.notChatCompletions(text);
      if (shape === 'json') {
        yield chunksOf(parseJsonAnswer(text + (await source.rest()), reading));
        return;
      }
      for (let start = 0; start < text.length && !state.finished; ) {
        start = state.feed(text, start);
        const batch = state.take();
        if (batch !== undefined) yield batch;
      }
      if (state.finished) break;
    }
    if (shape === undefined) throw state.notChatCompletions(sniffed);
    if (state.finished) {
      reading.afterDone(source);
      handedOver = true;
    } else state.checkComplete();
    yield [{ type: 'response', response: state.assembler.finish(reading.endpoint.redact) }];
  } finally {
    if (!handedOver) source.cancel();
  }
}

function shapeOf(contentType: string): 'sse' | 'json' | undefined {
  if (contentType.includes('event-stream')) return 'sse';
  return contentType.includes('json') ? 'json' : undefined;
}

/** The parser, the assembler and the batch being filled, for one streamed answer. */
class StreamState {
  readonly assembler = new ResponseAssembler();
  finished = false;
  readonly #reading: StreamReading;
  readonly #parser: EventSourceParser;
  #batch: ChatChunk[] = [];
  #events = 0;
  #start = '';
  #sliceChars = 1024;

  constructor(reading: StreamReading) {
    this.#reading = reading;
    const scrub = reading.endpoint.redact;
    // Each event is applied as the parser finds it; `[DONE]` ends the stream, whatever follows.
    this.#parser = createParser({
      onEvent: (event) => {
        if (this.finished) return;
        this.#events++;
        if (event.data === '[DONE]') this.finished = true;
        else applyStreamData(event.data, this.assembler, this.#batch, scrub);
      },
    });
  }

  /** Parses the next slice of `text` from `start` and returns where the next one starts. */
  feed(text: string, start: number): number {
    if (start === 0 && this.#start.length < startChars) this.#start += text.slice(0, startChars);
    let end = text.length;
    if (end - start > this.#sliceChars) {
      const newline = text.indexOf('\n', start + this.#sliceChars);
      if (newline !== -1) end = newline + 1;
      if (this.#sliceChars < maxSliceChars) this.#sliceChars *= 2;
    }
    this.#parser.feed(start === 0 && end === text.length ? text : text.slice(start, end));
    return end;
  }

  /** The chunks parsed since the last call, or `undefined` when there are none. */
  take(): ChatChunk[] | undefined {
    if (this.#batch.length === 0) return undefined;
    const full = this.#batch;
    this.#batch = [];
    return full;
  }

  /**
   * At the end of a body without `[DONE]`: fine after a `finish_reason` (some servers end so).
   * @throws {LlmError} `invalid_response` when the model had not finished
   */
  checkComplete(): void {
    if (this.assembler.finishReason !== undefined) return;
    if (this.#events === 0) throw this.notChatCompletions(this.#start);
    throw new LlmError(
      'invalid_response',
      `The stream from ${this.#reading.endpoint.shown} ended before the model finished (no finish_reason and no [DONE]); the answer is incomplete.`,
    );
  }

  notChatCompletions(start: string): LlmError {
    const { endpoint, contentType } = this.#reading;
    return notChatCompletions(endpoint.shown, contentType, start, endpoint.redact);
  }
}
