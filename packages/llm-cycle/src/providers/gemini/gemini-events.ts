/**
 * Reading a Gemini answer: a whole `GenerateContentResponse` (`:generateContent`), or the SSE
 * stream of `:streamGenerateContent?alt=sse`, where each `data:` is a whole
 * `GenerateContentResponse` carrying the new parts. There is no terminal event: the stream ends
 * with the body, complete when a candidate had a `finishReason` (or the prompt was blocked).
 * An error (`{ error: { code, message, status, details } }`, ai.google.dev/gemini-api/docs/troubleshooting)
 * may come instead of a chunk; it is a `stream_error`. 429s and their `google.rpc.RetryInfo`
 * are read by `withVendorDetail`.
 */
import type { ChatChunk, ChatResponse } from '../../chat-provider.js';
import { LlmError } from '../../llm-error.js';
import type { Endpoint } from '../http/endpoint.js';
import { eventJson } from '../http/wire.js';
import type { WireStream } from '../http/wire-format.js';
import { AnswerAssembler } from './answer-assembler.js';
import { isPart } from './request-body.js';

/** Statuses worth sending again (troubleshooting guide: 500 INTERNAL, 503 UNAVAILABLE, 504 DEADLINE_EXCEEDED). */
const retryableStatuses = new Set([
  'INTERNAL',
  'UNAVAILABLE',
  'DEADLINE_EXCEEDED',
  'RESOURCE_EXHAUSTED',
]);

/** The `stream_error` for an error the server reported in a 2xx answer. */
export function reportedError(body: Record<string, unknown>, where: string): LlmError {
  const error = isPart(body.error) ? body.error : {};
  const status = typeof error.status === 'string' ? error.status : 'ERROR';
  const message = typeof error.message === 'string' ? error.message : '(no message)';
  return new LlmError('stream_error', `${where} reported ${status} mid-answer: ${message}`, {
    responseBody: JSON.stringify(body).slice(0, 4096),
    isRetryable: retryableStatuses.has(status),
  });
}

/**
 * A whole answer (its redacted JSON) as a response.
 * @throws {LlmError} `invalid_response` for a body that is not a `GenerateContentResponse`,
 * `stream_error` for an error body
 */
export function parseAnswer(body: unknown, endpoint: Endpoint): ChatResponse {
  const where = endpoint.shown;
  if (isPart(body) && isPart(body.error)) throw reportedError(body, where);
  if (!isPart(body) || (!Array.isArray(body.candidates) && !isPart(body.promptFeedback)))
    throw notAnAnswer(where);
  const assembler = new AnswerAssembler();
  assembler.add(body, undefined);
  return assembler.finish();
}

function notAnAnswer(where: string): LlmError {
  return new LlmError(
    'invalid_response',
    `${where} answered with JSON that is not a Gemini answer (no candidates, no promptFeedback); check baseURL (the API root, e.g. https://generativelanguage.googleapis.com/v1beta).`,
  );
}

/** The chunks of one streamed answer, assembled; the stream ends with the body. */
export class GeminiEvents implements WireStream {
  readonly finished = false;
  readonly #endpoint: Endpoint;
  readonly #assembler = new AnswerAssembler();

  constructor(endpoint: Endpoint) {
    this.#endpoint = endpoint;
  }

  event(data: string, batch: ChatChunk[]): void {
    const chunk = eventJson(data, this.#endpoint);
    if (!isPart(chunk)) return;
    if (isPart(chunk.error)) throw reportedError(chunk, this.#endpoint.shown);
    this.#assembler.add(chunk, batch);
  }

  finish(): ChatResponse {
    const where = this.#endpoint.shown;
    const assembler = this.#assembler;
    if (!assembler.started) throw notAnAnswer(where);
    if (assembler.finishReason === undefined && assembler.blockReason === undefined) {
      throw new LlmError(
        'invalid_response',
        `The stream from ${where} ended before the model finished (no candidate with a finishReason); the answer is incomplete.`,
      );
    }
    return assembler.finish();
  }
}
