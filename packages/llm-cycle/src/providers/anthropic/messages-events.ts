/**
 * Reading an Anthropic Messages answer: a whole JSON `message`, or the SSE stream of the
 * streaming guide (docs.anthropic.com/en/docs/build-with-claude/streaming): `message_start`,
 * then per block `content_block_start` / `content_block_delta`* / `content_block_stop`, then
 * `message_delta` (stop reason, cumulative usage) and `message_stop`; `ping` anywhere; an
 * `error` event (e.g. `overloaded_error`) may come mid-stream; unknown event types are
 * skipped, as the guide's versioning policy asks ("new event types may be added").
 */
import { createParser, type EventSourceParser } from 'eventsource-parser';
import type { ChatChunk, ChatResponse } from '../../chat-provider.js';
import { LlmError } from '../../llm-error.js';
import { BodyReader, type Reading } from '../http/body-reader.js';
import { releaseAfterDone } from '../http/connection-release.js';
import { nextTurn } from '../http/event-loop-turn.js';
import { isWire, MessageAssembler } from './message-assembler.js';

/** Vendor error types worth sending again (errors guide: 500 `api_error`, 529 `overloaded_error`). */
const retryableTypes = new Set(['api_error', 'overloaded_error', 'rate_limit_error']);

/**
 * The `stream_error` for an error the server reported in a 200 answer (an `error` event, or a
 * body `{ type: 'error', error }`): the vendor's `error.type` is in the message and the body.
 * Retryable for `api_error` / `overloaded_error` / `rate_limit_error` (the cycle retries only
 * when nothing was streamed yet).
 */
export function reportedError(body: unknown, data: string, where: string): LlmError {
  const error = isWire(body) && isWire(body.error) ? body.error : {};
  const type = typeof error.type === 'string' ? error.type : 'error';
  const message = typeof error.message === 'string' ? error.message : '(no message)';
  return new LlmError('stream_error', `${where} reported ${type} mid-answer: ${message}`, {
    responseBody: data.slice(0, 4096),
    isRetryable: retryableTypes.has(type),
  });
}

/** Parses JSON text of the server, redacted first. @throws {LlmError} `invalid_response` */
function parseWire(text: string, reading: Reading, what: string): unknown {
  const clean = reading.endpoint.hasSecrets ? reading.endpoint.redact(text) : text;
  try {
    return JSON.parse(clean);
  } catch (error) {
    throw new LlmError(
      'invalid_response',
      `${reading.endpoint.shown} sent ${what} that is not JSON: ${clean.slice(0, 200)}`,
      { cause: error, responseBody: clean.slice(0, 200) },
    );
  }
}

/**
 * A whole Messages answer as a response.
 * @throws {LlmError} `invalid_response` for a body that is not a message, `stream_error` for an error body
 */
export function parseMessage(text: string, reading: Reading): ChatResponse {
  const body = parseWire(text, reading, 'a body');
  const where = reading.endpoint.shown;
  if (isWire(body) && body.type === 'error') throw reportedError(body, text, where);
  if (!isWire(body) || body.type !== 'message' || !Array.isArray(body.content)) {
    throw new LlmError(
      'invalid_response',
      `${where} answered with JSON that is not a Messages answer (no type 'message' with content); check baseURL (the API root, e.g. https://api.anthropic.com).`,
    );
  }
  const assembler = new MessageAssembler();
  assembler.begin(body);
  for (const block of body.content) if (isWire(block)) assembler.addBlock(block);
  return assembler.finish();
}

/**
 * A streamed answer read batch by batch (the chunks of one network read), the last batch
 * holding the `response` chunk. `release()` hands the connection back after the end.
 */
export class MessagesStream {
  readonly #source: BodyReader;
  readonly #reading: Reading;
  readonly #assembler = new MessageAssembler();
  readonly #parser: EventSourceParser;
  #batch: ChatChunk[] = [];
  #started = false;
  #stopped = false;
  #over = false;
  #failure: LlmError | undefined;
  #body: 'reading' | 'done' | 'ended' | 'released' = 'reading';

  /** Reads `body`; nothing is read before the first `next()`. */
  constructor(body: ReadableStream<Uint8Array>, reading: Reading) {
    this.#source = new BodyReader(body, reading);
    this.#reading = reading;
    this.#parser = createParser({
      onEvent: (event) => {
        if (this.#stopped || this.#failure !== undefined) return;
        try {
          this.#apply(event.data);
        } catch (error) {
          this.#failure = LlmError.isInstance(error)
            ? error
            : new LlmError('invalid_response', String(error), { cause: error });
        }
      },
    });
  }

  /**
   * The next batch of chunks (never empty), or `undefined` after the batch with the response.
   * @throws {LlmError} `invalid_response`, `stream_error`, `network`, `timeout`, `cancelled`
   */
  async next(): Promise<readonly ChatChunk[] | undefined> {
    while (!this.#over) {
      // What streamed before a failure is handed over first, in order, as it happened.
      if (this.#batch.length > 0) {
        const batch = this.#batch;
        this.#batch = [];
        return batch;
      }
      if (this.#failure !== undefined) throw this.#failure;
      if (this.#stopped) return this.#finish();
      const text = await this.#source.next();
      if (text === undefined) {
        this.#body = 'ended';
        return this.#finish();
      }
      this.#parser.feed(text);
    }
    return undefined;
  }

  /** After the last batch: resolves once the connection is back in the pool (or cut). Never rejects. */
  release(): Promise<void> {
    const body = this.#body;
    this.#body = 'released';
    this.#over = true;
    if (body === 'ended') return nextTurn();
    if (body === 'done') return releaseAfterDone(this.#source.reader, () => this.#source.cancel());
    if (body === 'reading') this.#source.cancel();
    return Promise.resolve();
  }

  /** Stops reading (the body is cancelled unless read to `message_stop`). Never throws. */
  close(): void {
    if (this.#body !== 'released') void this.release();
  }

  #apply(data: string): void {
    const event = parseWire(data, this.#reading, 'an event');
    if (!isWire(event)) return;
    const assembler = this.#assembler;
    const index = typeof event.index === 'number' ? event.index : -1;
    switch (event.type) {
      case 'message_start':
        this.#started = true;
        if (isWire(event.message)) assembler.begin(event.message);
        return;
      case 'content_block_start':
        if (isWire(event.content_block)) assembler.start(index, event.content_block, this.#batch);
        return;
      case 'content_block_delta':
        if (isWire(event.delta)) assembler.delta(index, event.delta, this.#batch);
        return;
      case 'content_block_stop':
        assembler.stop(index);
        return;
      case 'message_delta':
        if (isWire(event.delta) && event.delta.stop_reason != null)
          assembler.stopReason = event.delta.stop_reason;
        assembler.addUsage(event.usage);
        return;
      case 'message_stop':
        this.#stopped = true;
        this.#body = 'done';
        return;
      case 'error':
        throw reportedError(event, data, this.#reading.endpoint.shown);
      default:
        return; // `ping`, and event types added later.
    }
  }

  #finish(): readonly ChatChunk[] {
    this.#over = true;
    const where = this.#reading.endpoint.shown;
    if (!this.#started) {
      throw new LlmError(
        'invalid_response',
        `${where} answered with content type '${this.#reading.contentType || 'none'}' and no message_start event: not a Messages stream. Check baseURL (the API root, e.g. https://api.anthropic.com).`,
      );
    }
    // A stream cut after `message_delta` lost nothing; before it, the answer is incomplete.
    if (!this.#stopped && this.#assembler.stopReason === undefined) {
      throw new LlmError(
        'invalid_response',
        `The stream from ${where} ended before the model finished (no message_delta with a stop_reason, no message_stop); the answer is incomplete.`,
      );
    }
    return [{ type: 'response', response: this.#assembler.finish() }];
  }
}
