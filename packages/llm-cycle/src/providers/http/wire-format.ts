/**
 * The strategy the HTTP driver (`http-provider.ts`, `answer-reader.ts`) runs a wire format with.
 * The driver owns everything a request does on the network, the same for every format: `fetch`,
 * the send pacer, the time limits (`timeoutMs`, `idleTimeoutMs`), `maxResponseBytes`, decoding,
 * telling SSE from JSON (by content type, else by the first bytes), SSE parsing, handing the
 * chunks of a network read over as one batch, releasing the connection to the pool (or cutting
 * it when the consumer stops early), mapping network failures and redacting secrets from every
 * error. A wire format knows its bytes only: what a request body is, what a whole JSON answer
 * means, what each SSE event adds, which event ends the stream, what its errors say.
 *
 * ## Adding a wire format
 *
 * A provider is its own folder `providers/<format>/` (a row in `scripts/check-deps.mjs`, an
 * entry of its own so the root entry does not load it) with:
 * - an options type that extends `HttpProviderOptions` (the shared `headers`, `fetch`,
 *   `idleTimeoutMs`, `timeoutMs`, `maxResponseBytes`) with the format's own;
 * - a `WireFormat`: `requestBody`, `url` when the address depends on the request, `parseWhole`,
 *   `startStream` (a fresh `WireStream` per answer), `httpError` for the vendor's error bodies;
 * - `create<Format>Provider(options)`: resolves its endpoint (`resolveEndpoint`: base URL, path,
 *   credential headers; every credential becomes a secret) and returns
 *   `new HttpProvider(format, endpoint, options)`.
 *
 * Gemini, for instance: `url` is `…/models/{model}:generateContent`, or
 * `:streamGenerateContent?alt=sse` for a stream; each SSE `data:` is a whole
 * `GenerateContentResponse`, so `event` parses it and pushes its parts' deltas; there is no
 * terminal sentinel, so `finished` stays `false` and the stream ends with the body, where
 * `finish` checks that a candidate had a `finishReason`; an error (`{ error: { code, message,
 * status, details } }`) is mapped by `httpError` (a 429's `RetryInfo.retryDelay` as
 * `retryAfterMs`) and, inside a stream, thrown by `event`. The driver's suite
 * (`http/driver.test.ts`) runs over every dialect of `test-support/dialects`, so a new format
 * listed there gets the shared checks (stalls, size limit, wrong content type, cut connection,
 * release) for free.
 */
import type { ChatChunk, ChatRequest, ChatResponse } from '../../chat-provider.js';
import type { LlmError } from '../../llm-error.js';
import type { Endpoint } from './endpoint.js';

/** One wire format, as the HTTP driver runs it. Made once per provider (it may keep state). */
export interface WireFormat {
  /** The answer as messages name it: `a Chat Completions answer`, `a Messages answer`. */
  readonly answerName: string;
  /**
   * What to check when a 2xx answer is not of this format (a wrong base URL, a login page),
   * e.g. `Check baseURL: it should be the API root that /responses is appended to, e.g. …`.
   */
  readonly baseUrlHint: string;
  /** The `gen_ai.provider.name` of the service (`anthropic`, `openai`), if the format names one. */
  readonly providerName?: string;
  /**
   * The JSON body of `request`. Called only when the send pacer lets the request go. Never
   * throws for JSON input.
   */
  requestBody(request: ChatRequest, stream: boolean): string;
  /** The URL of `request`, when it is not the endpoint's (e.g. the model in the path). */
  url?(request: ChatRequest, stream: boolean): string;
  /**
   * A whole answer, parsed from its redacted JSON text.
   * @throws {LlmError} `invalid_response` for a body that is not an answer of this format,
   * `stream_error` for an error the server reported in a 2xx body
   */
  parseWhole(body: unknown, endpoint: Endpoint): ChatResponse;
  /** What assembles one streamed answer (a fresh one per answer). */
  startStream(endpoint: Endpoint): WireStream;
  /** Adds the vendor's detail to the `http_error` of a non-2xx answer (default: as it is). */
  httpError?(error: LlmError): LlmError;
  /** Told of every complete answer (to learn from it, or remember its id). Must not throw. */
  answered?(request: ChatRequest, response: ChatResponse): void;
}

/**
 * The SSE events of one streamed answer, turned into chunks and assembled. Per event the driver
 * makes no allocation of its own: keep `event` lean (it is the hot path of a stream).
 */
export interface WireStream {
  /**
   * Whether the terminal event came (`[DONE]`, `message_stop`, `response.completed`): what
   * follows is not parsed, and the end of the body is read for the connection to be reused.
   * A format without one leaves it `false`; its stream ends with the body.
   */
  readonly finished: boolean;
  /**
   * Applies one event's `data`, pushing the chunks it makes (maybe none) on `batch`. The data
   * is as the server sent it: redact what is passed on (`endpoint.redact`).
   * @throws {LlmError} `stream_error` for an error the server reported, `invalid_response` for
   * data that is not of this format (the chunks pushed before it are handed over first)
   */
  event(data: string, batch: ChatChunk[]): void;
  /**
   * The assembled answer, after the terminal event or at the end of the body.
   * @throws {LlmError} `invalid_response` when the stream ended before the answer was complete
   */
  finish(): ChatResponse;
}
