import { createParser, type EventSourceParser } from 'eventsource-parser';
import type { ChatChunk } from '../../chat-provider.js';
import { LlmError } from '../../llm-error.js';
import { BodyReader, type Reading } from '../http/body-reader.js';
import { releaseAfterDone } from '../http/connection-release.js';
import { nextTurn } from '../http/event-loop-turn.js';
import { bodyShape, chunksOf } from '../http/wire.js';
import { notChatCompletions, parseJsonAnswer } from './completion.js';
import { ResponseAssembler } from './response-assembler.js';
import { applyStreamData } from './stream-chunk.js';

/** The largest slice of one network read parsed before its chunks are handed over. */
const maxSliceChars = 64 * 1024;
/** How much of the start of a body error messages quote. */
const startChars = 200;

/**
 * A streamed answer read batch by batch: the chunks of one network read (a large read is parsed
 * in slices growing from 1 KiB, so the first chunks are not held back), the last batch holding
 * the `response` chunk. The stream ends at `data: [DONE]`, or with the body after a
 * `finish_reason`. A body whose content type does not say what it is is recognised by its first
 * bytes: SSE is streamed, JSON is read whole, anything else is refused. `next()` is a plain
 * method, not an async generator, so the provider's generator is the only layer per batch.
 * After the last batch, `release()` hands the connection back (see `connection-release.ts`).
 */
export class StreamedAnswer {
  readonly #source: BodyReader;
  readonly #reading: Reading;
  readonly #assembler = new ResponseAssembler();
  readonly #parser: EventSourceParser;
  #shape: 'sse' | 'json' | 'other' | undefined;
  #batch: ChatChunk[] = [];
  #text = '';
  #offset = 0;
  #sniffed = '';
  #start = '';
  #events = 0;
  #sliceChars = 1024;
  #finished = false;
  #ended = false;
  #over = false;
  /** Where the body is: being read, `[DONE]` read (its end not yet), read to its end, or let go. */
  #body: 'reading' | 'done' | 'ended' | 'released' = 'reading';

  /** Reads `body`; nothing is read before the first `next()`. */
  constructor(body: ReadableStream<Uint8Array>, reading: Reading) {
    this.#source = new BodyReader(body, reading);
    this.#reading = reading;
    const contentType = reading.contentType;
    this.#shape = contentType.includes('event-stream')
      ? 'sse'
      : contentType.includes('json')
        ? 'json'
        : undefined;
    const scrub = reading.endpoint.redact;
    // Each event is applied as the parser finds it; `[DONE]` ends the stream, whatever follows.
    this.#parser = createParser({
      onEvent: (event) => {
        if (this.#finished) return;
        this.#events++;
        if (event.data === '[DONE]') this.#finished = true;
        else applyStreamData(event.data, this.#assembler, this.#batch, scrub);
      },
    });
  }

  /**
   * The next batch of chunks (never empty), or `undefined` after the batch with the response.
   * @throws {LlmError} `invalid_response`, `stream_error`, `network`, `timeout`, `cancelled`
   */
  async next(): Promise<readonly ChatChunk[] | undefined> {
    for (;;) {
      if (this.#over) return undefined;
      while (this.#offset < this.#text.length && !this.#finished) {
        this.#offset = this.#feed(this.#text, this.#offset);
        if (this.#batch.length > 0) {
          const batch = this.#batch;
          this.#batch = [];
          return batch;
        }
      }
      if (this.#finished || this.#ended) return this.#finish();
      const text = await this.#source.next();
      if (text === undefined) {
        this.#ended = true;
        this.#body = 'ended';
      } else if (this.#shape === 'sse') this.#take(text);
      else {
        const whole = await this.#accept(text);
        if (whole !== undefined) return whole;
      }
    }
  }

  /**
   * After the last batch: resolves once the connection is back in `fetch`'s pool (the end of the
   * body read after `[DONE]`, then the turn on which undici frees it), so that the next request
   * of the conversation reuses it. Cuts the connection instead when the body was not read to its
   * end. Never rejects.
   */
  release(): Promise<void> {
    const body = this.#body;
    this.#body = 'released';
    this.#over = true;
    if (body === 'ended') return nextTurn();
    if (body === 'done') return releaseAfterDone(this.#source.reader, () => this.#source.cancel());
    if (body === 'reading') this.#source.cancel();
    return Promise.resolve();
  }

  /**
   * Stops reading; the body is cancelled unless it was read (to `[DONE]`: then its end is read in
   * the background, as `release` does). Never throws.
   */
  close(): void {
    if (this.#body !== 'released') void this.release();
  }

  /** Takes a read's text: recognises the body's shape on its first bytes, reads JSON whole. */
  async #accept(text: string): Promise<readonly ChatChunk[] | undefined> {
    if (this.#shape === undefined) {
      this.#sniffed += text;
      if (this.#sniffed.trim() === '') return undefined;
      this.#shape = bodyShape(this.#sniffed);
      text = this.#sniffed;
    }
    if (this.#shape === 'other') throw this.#notChatCompletions(text);
    if (this.#shape === 'json') {
      this.#over = true;
      const whole = text + (await this.#source.rest());
      this.#body = 'ended';
      return chunksOf(parseJsonAnswer(whole, this.#reading));
    }
    this.#take(text);
    return undefined;
  }

  /** Takes the text of a read to parse, slice by slice. */
  #take(text: string): void {
    if (this.#start.length < startChars) this.#start += text.slice(0, startChars);
    this.#text = text;
    this.#offset = 0;
  }

  /** Parses the next slice of `text` from `start` and returns where the next one starts. */
  #feed(text: string, start: number): number {
    let end = text.length;
    if (end - start > this.#sliceChars) {
      const newline = text.indexOf('\n', start + this.#sliceChars);
      if (newline !== -1) end = newline + 1;
      if (this.#sliceChars < maxSliceChars) this.#sliceChars *= 2;
    }
    this.#parser.feed(start === 0 && end === text.length ? text : text.slice(start, end));
    return end;
  }

  /** The last batch: the assembled response (after checking the stream was complete). */
  #finish(): readonly ChatChunk[] {
    this.#over = true;
    if (this.#shape === undefined) throw this.#notChatCompletions(this.#sniffed);
    if (this.#finished) {
      if (this.#body === 'reading') this.#body = 'done';
    } else if (this.#assembler.finishReason === undefined) {
      // Ended without [DONE]: fine after a finish_reason (some servers end so), else not.
      if (this.#events === 0) throw this.#notChatCompletions(this.#start);
      throw new LlmError(
        'invalid_response',
        `The stream from ${this.#reading.endpoint.shown} ended before the model finished (no finish_reason and no [DONE]); the answer is incomplete.`,
      );
    }
    return [{ type: 'response', response: this.#assembler.finish(this.#reading.endpoint.redact) }];
  }

  #notChatCompletions(start: string): LlmError {
    const { endpoint, contentType } = this.#reading;
    return notChatCompletions(endpoint.shown, contentType, start, endpoint.redact);
  }
}
