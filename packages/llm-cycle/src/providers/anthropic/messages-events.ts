/**
 * Reading an Anthropic Messages answer: a whole JSON `message`, or the SSE stream of the
 * streaming guide (docs.anthropic.com/en/docs/build-with-claude/streaming): `message_start`,
 * then per block `content_block_start` / `content_block_delta`* / `content_block_stop`, then
 * `message_delta` (stop reason, cumulative usage) and `message_stop`; `ping` anywhere; an
 * `error` event (e.g. `overloaded_error`) may come mid-stream; unknown event types are
 * skipped, as the guide's versioning policy asks ("new event types may be added").
 */
import type { ChatChunk, ChatResponse } from '../../chat-provider.js';
import { LlmError } from '../../llm-error.js';
import type { Endpoint } from '../http/endpoint.js';
import { eventJson } from '../http/wire.js';
import type { WireStream } from '../http/wire-format.js';
import { isWire, MessageAssembler } from './message-assembler.js';

/** Vendor error types worth sending again (errors guide: 500 `api_error`, 529 `overloaded_error`). */
const retryableTypes = new Set(['api_error', 'overloaded_error', 'rate_limit_error']);

/**
 * The `stream_error` for an error the server reported in a 200 answer (an `error` event, or a
 * body `{ type: 'error', error }`): the vendor's `error.type` is in the message and the body.
 * Retryable for `api_error` / `overloaded_error` / `rate_limit_error` (the cycle retries only
 * when nothing was streamed yet).
 */
export function reportedError(body: unknown, where: string): LlmError {
  const error = isWire(body) && isWire(body.error) ? body.error : {};
  const type = typeof error.type === 'string' ? error.type : 'error';
  const message = typeof error.message === 'string' ? error.message : '(no message)';
  return new LlmError('stream_error', `${where} reported ${type} mid-answer: ${message}`, {
    responseBody: JSON.stringify(body).slice(0, 4096),
    isRetryable: retryableTypes.has(type),
  });
}

/**
 * A whole Messages answer (its redacted JSON) as a response.
 * @throws {LlmError} `invalid_response` for a body that is not a message, `stream_error` for an error body
 */
export function parseMessage(body: unknown, endpoint: Endpoint): ChatResponse {
  const where = endpoint.shown;
  if (isWire(body) && body.type === 'error') throw reportedError(body, where);
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

/** The events of one streamed Messages answer, assembled; `message_stop` ends it. */
export class MessagesEvents implements WireStream {
  finished = false;
  readonly #endpoint: Endpoint;
  readonly #assembler = new MessageAssembler();
  #started = false;

  constructor(endpoint: Endpoint) {
    this.#endpoint = endpoint;
  }

  event(data: string, batch: ChatChunk[]): void {
    const event = eventJson(data, this.#endpoint);
    if (!isWire(event)) return;
    const assembler = this.#assembler;
    const index = typeof event.index === 'number' ? event.index : -1;
    switch (event.type) {
      case 'message_start':
        this.#started = true;
        if (isWire(event.message)) assembler.begin(event.message);
        return;
      case 'content_block_start':
        if (isWire(event.content_block)) assembler.start(index, event.content_block, batch);
        return;
      case 'content_block_delta':
        if (isWire(event.delta)) assembler.delta(index, event.delta, batch);
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
        this.finished = true;
        return;
      case 'error':
        throw reportedError(event, this.#endpoint.shown);
      default:
        return; // `ping`, and event types added later.
    }
  }

  finish(): ChatResponse {
    const where = this.#endpoint.shown;
    if (!this.#started) {
      throw new LlmError(
        'invalid_response',
        `${where} sent no message_start event: not a Messages stream. Check baseURL (the API root, e.g. https://api.anthropic.com).`,
      );
    }
    // A stream cut after `message_delta` lost nothing; before it, the answer is incomplete.
    if (!this.finished && this.#assembler.stopReason === undefined) {
      throw new LlmError(
        'invalid_response',
        `The stream from ${where} ended before the model finished (no message_delta with a stop_reason, no message_stop); the answer is incomplete.`,
      );
    }
    return this.#assembler.finish();
  }
}
