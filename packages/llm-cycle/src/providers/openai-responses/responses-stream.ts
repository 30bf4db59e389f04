import { createParser, type EventSourceParser } from 'eventsource-parser';
import type { ChatChunk, ChatResponse } from '../../chat-provider.js';
import { LlmError } from '../../llm-error.js';
import { BodyReader, type Reading } from '../http/body-reader.js';
import { releaseAfterDone } from '../http/connection-release.js';
import { nextTurn } from '../http/event-loop-turn.js';
import { bodyShape, chunksOf } from '../http/wire.js';
import { EventAssembler } from './event-assembler.js';
import { parseResponseObject } from './response-object.js';

/** How much of the start of a body error messages quote. */
const startChars = 200;

/**
 * A streamed Responses answer read batch by batch (the chunks of one network read, never an
 * empty batch), the last batch holding the `response` chunk. A body whose content type does not
 * say what it is is recognised by its first bytes: SSE is streamed, JSON is read whole (a proxy
 * that does not stream), anything else is refused. After the last batch, `release()` hands the
 * connection back to `fetch`'s pool (see `connection-release.ts`).
 */
export class ResponsesStream {
  readonly #source: BodyReader;
  readonly #reading: Reading;
  readonly #assembler = new EventAssembler();
  readonly #parser: EventSourceParser;
  #shape: 'sse' | 'json' | 'other' | undefined;
  #batch: ChatChunk[] = [];
  #sniffed = '';
  #start = '';
  #failure: unknown;
  #over = false;
  #body: 'reading' | 'done' | 'ended' | 'released' = 'reading';

  /** Reads `body`; nothing is read before the first `next()`. */
  constructor(body: ReadableStream<Uint8Array>, reading: Reading) {
    this.#source = new BodyReader(body, reading);
    this.#reading = reading;
    const type = reading.contentType;
    this.#shape = type.includes('event-stream')
      ? 'sse'
      : type.includes('json')
        ? 'json'
        : undefined;
    const { redact, hasSecrets } = reading.endpoint;
    this.#parser = createParser({
      onEvent: (event) => {
        if (this.#failure !== undefined) return;
        try {
          this.#assembler.apply(hasSecrets ? redact(event.data) : event.data, this.#batch);
        } catch (error) {
          this.#failure = error;
        }
      },
    });
  }

  /**
   * The next batch of chunks, or `undefined` after the batch with the response.
   * @throws {LlmError} `invalid_response`, `stream_error`, `network`, `timeout`, `cancelled`
   */
  async next(): Promise<readonly ChatChunk[] | undefined> {
    while (!this.#over) {
      const text = await this.#source.next();
      if (text === undefined) {
        this.#body = 'ended';
        return this.#finish();
      }
      if (this.#shape !== 'sse') {
        const whole = await this.#accept(text);
        if (whole !== undefined) return whole;
        continue;
      }
      this.#feed(text);
      if (this.#failure !== undefined) throw this.#failure;
      if (this.#assembler.finished) {
        this.#body = 'done';
        return this.#finish();
      }
      if (this.#batch.length > 0) return this.#take();
    }
    return undefined;
  }

  /** Resolves once the connection is back in the pool (or was cut). Never rejects. */
  release(): Promise<void> {
    const body = this.#body;
    this.#body = 'released';
    this.#over = true;
    if (body === 'ended') return nextTurn();
    if (body === 'done') return releaseAfterDone(this.#source.reader, () => this.#source.cancel());
    if (body === 'reading') this.#source.cancel();
    return Promise.resolve();
  }

  /** Stops reading (see `release`). Never throws. */
  close(): void {
    if (this.#body !== 'released') void this.release();
  }

  #feed(text: string): void {
    if (this.#start.length < startChars) this.#start += text.slice(0, startChars);
    this.#parser.feed(text);
  }

  #take(): ChatChunk[] {
    const batch = this.#batch;
    this.#batch = [];
    return batch;
  }

  async #accept(text: string): Promise<readonly ChatChunk[] | undefined> {
    if (this.#shape === undefined) {
      this.#sniffed += text;
      if (this.#sniffed.trim() === '') return undefined;
      this.#shape = bodyShape(this.#sniffed);
      text = this.#sniffed;
    }
    if (this.#shape === 'other') throw notResponses(this.#reading, text);
    if (this.#shape === 'json') {
      this.#over = true;
      const whole = text + (await this.#source.rest());
      this.#body = 'ended';
      return chunksOf(parseWholeAnswer(whole, this.#reading));
    }
    this.#feed(text);
    if (this.#failure !== undefined) throw this.#failure;
    return undefined;
  }

  /** The last batch: what is left, then the response. */
  #finish(): readonly ChatChunk[] {
    this.#over = true;
    if (this.#shape === undefined) throw notResponses(this.#reading, this.#sniffed);
    if (this.#shape === 'sse' && this.#assembler.events === 0)
      throw notResponses(this.#reading, this.#start);
    const response = this.#assembler.response(this.#reading.endpoint.shown);
    const batch = this.#take();
    batch.push({ type: 'response', response });
    return batch;
  }
}

/**
 * A whole JSON answer, redacted before parsing (so every escaping is caught).
 * @throws {LlmError} `invalid_response` (not JSON, not a Responses object), `stream_error`
 */
export function parseWholeAnswer(text: string, reading: Reading): ChatResponse {
  const { endpoint } = reading;
  const clean = endpoint.hasSecrets ? endpoint.redact(text) : text;
  let body: unknown;
  try {
    body = JSON.parse(clean);
  } catch (error) {
    if (bodyShape(clean) !== 'json') throw notResponses(reading, clean);
    throw new LlmError(
      'invalid_response',
      `${endpoint.shown} answered with a body that is not valid JSON: ${clean.slice(0, 200)}`,
      { cause: error },
    );
  }
  return parseResponseObject(body);
}

/** The `invalid_response` for a 2xx answer that is no Responses answer (a wrong base URL, a portal). */
export function notResponses(reading: Reading, start: string): LlmError {
  const { endpoint, contentType } = reading;
  const first = endpoint.redact(start).replace(/\s+/g, ' ').trim().slice(0, 120);
  return new LlmError(
    'invalid_response',
    `${endpoint.shown} answered with content type '${contentType || 'none'}', which is not a Responses answer (first bytes: ${first === '' ? '(empty)' : JSON.stringify(first)}). Check baseURL: it should be the API root that /responses is appended to, e.g. https://api.openai.com/v1.`,
    { responseBody: first },
  );
}
