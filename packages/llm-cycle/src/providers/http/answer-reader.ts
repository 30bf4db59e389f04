import { createParser, type EventSourceParser } from 'eventsource-parser';
import type { ChatChunk, ChatResponse } from '../../chat-provider.js';
import { LlmError } from '../../llm-error.js';
import { BodyReader, type Reading } from './body-reader.js';
import { releaseAfterDone } from './connection-release.js';
import { nextTurn } from './event-loop-turn.js';
import { bodyShape, chunksOf } from './wire.js';
import type { WireFormat, WireStream } from './wire-format.js';

/** The largest slice of one network read parsed before its chunks are handed over. */
const maxSliceChars = 64 * 1024;
/**
 * A read up to this long is parsed whole, its chunks one batch (it parses in a fraction of a
 * millisecond; each slice handed over on its own costs a batch through every layer up to the
 * consumer, which made a streamed Responses turn of a few KiB ~8 % dearer). A longer one is
 * parsed in slices growing from 1 KiB.
 */
const wholeReadChars = 32 * 1024;
/** How much of the start of a body error messages quote. */
const startChars = 200;
/** What `#ready` returns when the next batch needs another read. */
const needsRead: unique symbol = Symbol('needs a read');

/**
 * One answer read batch by batch, whatever its wire format: the chunks of one network read (a
 * read over 32 KiB is parsed in slices growing from 1 KiB, so the first chunks are not held back),
 * the last batch holding the `response` chunk. A body whose content type does not say what it
 * is is recognised by its first bytes: SSE is streamed, JSON is read whole, anything else is
 * refused. The stream ends at the format's terminal event, or with the body. What streamed
 * before a failure is handed over first, so what the caller sees depends on the events, not on
 * how the network cut them into reads. `next()` is a plain method, not an async generator, so
 * the provider's generator is the only layer per batch. After the last batch, `release()` hands
 * the connection back (see `connection-release.ts`).
 */
export class AnswerReader {
  readonly #source: BodyReader;
  readonly #reading: Reading;
  readonly #format: WireFormat;
  readonly #stream: WireStream;
  readonly #parser: EventSourceParser;
  #shape: 'sse' | 'json' | 'other' | undefined;
  #batch: ChatChunk[] = [];
  #text = '';
  #offset = 0;
  #sniffed = '';
  #start = '';
  #events = 0;
  #sliceChars = 1024;
  #failure: LlmError | undefined;
  #ended = false;
  #over = false;
  /** Where the body is: being read, its terminal event read (its end not yet), read to its end, or let go. */
  #body: 'reading' | 'done' | 'ended' | 'released' = 'reading';

  /** Reads `body` as `format`; nothing is read before the first `next()`. */
  constructor(body: ReadableStream<Uint8Array>, reading: Reading, format: WireFormat) {
    this.#source = new BodyReader(body, reading);
    this.#reading = reading;
    this.#format = format;
    const contentType = reading.contentType;
    this.#shape = contentType.includes('event-stream')
      ? 'sse'
      : contentType.includes('json')
        ? 'json'
        : undefined;
    const stream = format.startStream(reading.endpoint);
    this.#stream = stream;
    // Each event is applied as the parser finds it; after the terminal event (or a failure)
    // nothing more is.
    this.#parser = createParser({
      onEvent: (event) => {
        if (stream.finished || this.#failure !== undefined) return;
        this.#events++;
        try {
          stream.event(event.data, this.#batch);
        } catch (error) {
          this.#failure = LlmError.isInstance(error)
            ? error
            : new LlmError(
                'invalid_response',
                `Reading a streamed event failed: ${String(error)}`,
                {
                  cause: error,
                },
              );
        }
      },
    });
  }

  /**
   * The next batch of chunks (never empty), or `undefined` after the batch with the response.
   * A batch already parsed (the rest of a read, the end) is handed over at once; only a batch
   * that needs another read goes through an async function (this runs once per batch).
   * @throws {LlmError} `invalid_response`, `stream_error`, `network`, `timeout`, `cancelled`
   */
  next(): Promise<readonly ChatChunk[] | undefined> {
    let ready: readonly ChatChunk[] | undefined | typeof needsRead;
    try {
      ready = this.#ready();
    } catch (error) {
      return Promise.reject(error);
    }
    return ready === needsRead ? this.#read() : Promise.resolve(ready);
  }

  /** Reads until a batch is ready (or the end). */
  async #read(): Promise<readonly ChatChunk[] | undefined> {
    for (;;) {
      const text = await this.#source.next();
      if (text === undefined) {
        this.#ended = true;
        this.#body = 'ended';
      } else if (this.#shape === 'sse') this.#take(text);
      else {
        const whole = await this.#accept(text);
        if (whole !== undefined) return whole;
      }
      const ready = this.#ready();
      if (ready !== needsRead) return ready;
    }
  }

  /** The next batch from what was read already, the end, or `needsRead`. @throws {LlmError} as `next` */
  #ready(): readonly ChatChunk[] | undefined | typeof needsRead {
    if (this.#over) return undefined;
    while (this.#offset < this.#text.length) {
      this.#offset = this.#feed(this.#text, this.#offset);
      if (this.#failure !== undefined || this.#stream.finished) {
        this.#text = '';
        this.#offset = 0;
      } else if (this.#batch.length > 0) return this.#takeBatch();
    }
    if (this.#failure !== undefined) {
      // What streamed before the failure is handed over first, in order, as it happened.
      if (this.#batch.length > 0) return this.#takeBatch();
      this.#over = true;
      throw this.#failure;
    }
    if (this.#stream.finished || this.#ended) return this.#finish();
    return needsRead;
  }

  /**
   * After the last batch: resolves once the connection is back in `fetch`'s pool (the end of the
   * body read after the terminal event, then the turn on which undici frees it), so that the
   * next request of the conversation reuses it. Cuts the connection instead when the body was
   * not read to its end. Never rejects.
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
   * Stops reading; the body is cancelled unless it was read (to its terminal event: then its end
   * is read in the background, as `release` does). Never throws.
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
    if (this.#shape === 'other') throw notAnswer(this.#reading, this.#format, text);
    if (this.#shape === 'json') {
      this.#over = true;
      const whole = text + (await this.#source.rest());
      this.#body = 'ended';
      return chunksOf(parseWhole(whole, this.#reading, this.#format));
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
    if (end > wholeReadChars && end - start > this.#sliceChars) {
      const newline = text.indexOf('\n', start + this.#sliceChars);
      if (newline !== -1) end = newline + 1;
      if (this.#sliceChars < maxSliceChars) this.#sliceChars *= 2;
    }
    this.#parser.feed(start === 0 && end === text.length ? text : text.slice(start, end));
    return end;
  }

  #takeBatch(): ChatChunk[] {
    const batch = this.#batch;
    this.#batch = [];
    return batch;
  }

  /** The last batch: what is left, then the assembled response. */
  #finish(): readonly ChatChunk[] {
    this.#over = true;
    if (this.#shape === undefined) throw notAnswer(this.#reading, this.#format, this.#sniffed);
    if (this.#events === 0) throw notAnswer(this.#reading, this.#format, this.#start);
    if (this.#stream.finished && this.#body === 'reading') this.#body = 'done';
    const response = this.#stream.finish();
    const batch = this.#takeBatch();
    batch.push({ type: 'response', response });
    return batch;
  }
}

/**
 * A whole JSON answer: the text redacted (before parsing, so every escaping is caught) and read
 * by the format.
 * @throws {LlmError} `invalid_response` for a body that is not JSON (naming its content type and
 * first bytes) or not an answer of the format, `stream_error` for an error body
 */
export function parseWhole(text: string, reading: Reading, format: WireFormat): ChatResponse {
  const { endpoint } = reading;
  const clean = endpoint.hasSecrets ? endpoint.redact(text) : text;
  let body: unknown;
  try {
    body = JSON.parse(clean);
  } catch (error) {
    if (bodyShape(clean) !== 'json') throw notAnswer(reading, format, clean);
    throw new LlmError(
      'invalid_response',
      `${endpoint.shown} answered with a body that is not valid JSON: ${clean.slice(0, 200)}`,
      { cause: error },
    );
  }
  return format.parseWhole(body, endpoint);
}

/**
 * The `invalid_response` for a 2xx answer that is not of the format (a wrong base URL, a
 * captive portal, a proxy's sign-in page): its content type and first bytes, redacted.
 */
export function notAnswer(reading: Reading, format: WireFormat, start: string): LlmError {
  const { endpoint, contentType } = reading;
  const first = endpoint.redact(start).replace(/\s+/g, ' ').trim().slice(0, 120);
  return new LlmError(
    'invalid_response',
    `${endpoint.shown} answered with content type '${contentType || 'none'}', which is not ${format.answerName} (first bytes: ${first === '' ? '(empty)' : JSON.stringify(first)}). ${format.baseUrlHint}`,
    { responseBody: first },
  );
}
