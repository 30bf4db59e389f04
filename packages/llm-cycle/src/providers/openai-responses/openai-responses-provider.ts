import { redactError } from '@agcore/tools-core';
import type {
  ChatCallOptions,
  ChatChunk,
  ChatProvider,
  ChatRequest,
  ChatResponse,
} from '../../chat-provider.js';
import { LlmError } from '../../llm-error.js';
import { checkContentLength, type Reading } from '../http/body-reader.js';
import { type Endpoint, resolveEndpoint } from '../http/endpoint.js';
import { Exchange } from '../http/exchange.js';
import { httpError, isRedirect, redirected } from '../http/http-error.js';
import { sendPacer } from '../http/send-pacer.js';
import { responsesBody } from './request-body.js';
import { ResponseChain } from './response-chain.js';
import { ResponsesStream } from './responses-stream.js';

/** Options of `createOpenAIResponsesProvider`. */
export interface OpenAIResponsesProviderOptions {
  /** Sent as `Authorization: Bearer <apiKey>`; never appears in an error, event or history. */
  readonly apiKey?: string;
  /** The API root (default `https://api.openai.com/v1`); `/responses` is appended to its path. */
  readonly baseURL?: string;
  /**
   * Sent as `store` (default `false`: OpenAI keeps nothing, and reasoning items go back with
   * their `encrypted_content`, asked for with `include: ["reasoning.encrypted_content"]`).
   */
  readonly store?: boolean;
  /**
   * With `store: true`: continue from the last response this provider returned in the
   * conversation (`previous_response_id`), sending only the messages after it (default
   * `false`: the whole history every turn, as for the other providers). The server's copy is
   * then what the model sees of the earlier turns: a history edited or compacted before that
   * response is not sent. A provider made afresh (another process) sends the whole history once.
   * @throws {RangeError} at creation without `store: true`
   */
  readonly previousResponseId?: boolean;
  /** Sets `strict` on every function tool (default: not sent, the server's default). */
  readonly strict?: boolean;
  /** Extra headers for every request (e.g. `OpenAI-Organization`; credential values are redacted). */
  readonly headers?: Readonly<Record<string, string>>;
  /** The `fetch` to use (default: the global one). */
  readonly fetch?: typeof globalThis.fetch;
  /** Gives up when the server sends no byte for this long, in ms (default 60 000). */
  readonly idleTimeoutMs?: number;
  /** Gives up when a whole request takes longer, in ms (default: none for streams, 600 000 otherwise). */
  readonly timeoutMs?: number;
  /** Refuses an answer larger than this many bytes with `invalid_response` (default 32 MiB). */
  readonly maxResponseBytes?: number;
}

const defaultBaseURL = 'https://api.openai.com/v1';
const defaultIdleTimeoutMs = 60_000;
const defaultWholeTimeoutMs = 600_000;
const defaultMaxResponseBytes = 32 * 1024 * 1024;

/**
 * A `ChatProvider` speaking the OpenAI Responses API (`POST /v1/responses`) over `fetch`, on
 * the same HTTP layer as the Chat Completions provider (limits, idle timeout, size cap, secret
 * scrubbing, the send pacer, one connection per conversation). The history stays the neutral
 * one; reasoning items and output item ids are kept in `message.provider_state` and sent back.
 *
 * Calls reject with `LlmError`: `http_error` or, for a 429, `rate_limited` (with `statusCode`, `isRetryable`, `retryAfterMs`),
 * `network`, `timeout`, `invalid_response`, `stream_error` (an `error` event or a failed
 * response, with the vendor's `type`/`code`) or `cancelled`; no secret is in any of them.
 * @throws {RangeError} at creation, for a limit that is not a positive number, or
 * `previousResponseId` without `store: true`
 */
export function createOpenAIResponsesProvider(
  options: OpenAIResponsesProviderOptions,
): ChatProvider {
  return new OpenAIResponsesProvider(options);
}

class OpenAIResponsesProvider implements ChatProvider {
  readonly providerName = 'openai';
  readonly #endpoint: Endpoint;
  readonly #fetch: typeof globalThis.fetch;
  readonly #idleTimeoutMs: number;
  readonly #timeoutMs: number | undefined;
  readonly #maxResponseBytes: number;
  readonly #store: boolean;
  readonly #strict: boolean | undefined;
  readonly #chain: ResponseChain | undefined;

  constructor(options: OpenAIResponsesProviderOptions) {
    this.#endpoint = responsesEndpoint(
      resolveEndpoint({ ...options, baseURL: options.baseURL ?? defaultBaseURL }),
    );
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.#idleTimeoutMs = positive(options.idleTimeoutMs, 'idleTimeoutMs') ?? defaultIdleTimeoutMs;
    this.#timeoutMs = positive(options.timeoutMs, 'timeoutMs');
    this.#maxResponseBytes =
      positive(options.maxResponseBytes, 'maxResponseBytes') ?? defaultMaxResponseBytes;
    this.#store = options.store ?? false;
    this.#strict = options.strict;
    if (options.previousResponseId === true && !this.#store)
      throw new RangeError(
        'previousResponseId needs store: true (the server must keep responses).',
      );
    this.#chain = options.previousResponseId === true ? new ResponseChain() : undefined;
  }

  async chat(request: ChatRequest, options: ChatCallOptions = {}): Promise<ChatResponse> {
    let last: ChatResponse | undefined;
    for await (const batch of this.#answer(request, options, false)) {
      const chunk = batch[batch.length - 1];
      if (chunk?.type === 'response') last = chunk.response;
    }
    return last as ChatResponse;
  }

  async *chatStream(
    request: ChatRequest,
    options: ChatCallOptions = {},
  ): AsyncGenerator<ChatChunk, void, undefined> {
    for await (const batch of this.#answer(request, options, true)) yield* batch;
  }

  chatStreamBatches(
    request: ChatRequest,
    options: ChatCallOptions = {},
  ): AsyncGenerator<readonly ChatChunk[], void, undefined> {
    return this.#answer(request, options, true);
  }

  /** One request, streamed or not: the batches of its answer, the last with the response. */
  async *#answer(
    request: ChatRequest,
    options: ChatCallOptions,
    stream: boolean,
  ): AsyncGenerator<readonly ChatChunk[], void, undefined> {
    const exchange = this.#exchange(options, stream);
    let answer: ResponsesStream | undefined;
    try {
      const response = await this.#post(request, stream, exchange);
      const reading = this.#reading(exchange, response);
      const body = response.body as ReadableStream<Uint8Array>;
      answer = new ResponsesStream(body, reading);
      for (let batch = await answer.next(); batch !== undefined; batch = await answer.next()) {
        const last = batch[batch.length - 1];
        if (last?.type === 'response') this.#chain?.remember(last.response);
        yield batch;
      }
      await answer.release();
    } catch (error) {
      throw this.#clean(error, exchange);
    } finally {
      answer?.close();
      exchange.dispose();
    }
  }

  #exchange(options: ChatCallOptions, stream: boolean): Exchange {
    return new Exchange(
      options.signal,
      {
        idleTimeoutMs: positive(options.idleTimeoutMs, 'idleTimeoutMs') ?? this.#idleTimeoutMs,
        timeoutMs:
          positive(options.timeoutMs, 'timeoutMs') ??
          this.#timeoutMs ??
          (stream ? Number.POSITIVE_INFINITY : defaultWholeTimeoutMs),
      },
      this.#endpoint.shown,
    );
  }

  #reading(exchange: Exchange, response: Response): Reading {
    const reading: Reading = {
      exchange,
      endpoint: this.#endpoint,
      maxResponseBytes: this.#maxResponseBytes,
      contentType: response.headers.get('content-type') ?? '',
    };
    checkContentLength(response, reading);
    if (response.body === null) {
      throw new LlmError(
        'invalid_response',
        `${this.#endpoint.shown} answered with an empty body; a Responses answer was expected.`,
      );
    }
    return reading;
  }

  /** Sends the request when the pacer lets it go; resolves once a 2xx status came. */
  async #post(request: ChatRequest, stream: boolean, exchange: Exchange): Promise<Response> {
    let response: Response;
    try {
      response = await sendPacer.run(() => this.#send(request, stream, exchange));
    } catch (error) {
      if (isRedirect(error)) throw redirected(this.#endpoint.shown);
      throw exchange.failure(error, 'sending the request');
    }
    exchange.touch();
    if (response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400)) {
      await response.body?.cancel().catch(() => undefined);
      throw redirected(this.#endpoint.shown);
    }
    if (!response.ok) throw await httpError(response, this.#endpoint.shown, this.#endpoint.redact);
    return response;
  }

  #send(request: ChatRequest, stream: boolean, exchange: Exchange): Promise<Response> {
    if (exchange.expired) return Promise.reject(exchange.failure(undefined, 'waiting to be sent'));
    exchange.touch();
    const body = responsesBody(request, {
      stream,
      store: this.#store,
      strict: this.#strict,
      ...this.#chain?.continuation(request.messages),
    });
    return exchange.guard(
      this.#fetch(this.#endpoint.url, {
        method: 'POST',
        headers: this.#endpoint.headers,
        body,
        redirect: 'manual',
        signal: exchange.signal,
      }),
    );
  }

  #clean(error: unknown, exchange: Exchange): unknown {
    const mapped = LlmError.isInstance(error)
      ? error
      : exchange.failure(error, 'reading the response');
    return this.#endpoint.hasSecrets ? redactError(mapped, this.#endpoint.redact) : mapped;
  }
}

/**
 * The shared endpoint (credentials, secrets, user info) with `/responses` where it appends
 * `/chat/completions`: the one place the path differs, so nothing of it is copied.
 */
function responsesEndpoint(endpoint: Endpoint): Endpoint {
  const swap = (text: string): string =>
    text.replace(/\/chat\/completions(?=[?#]|$)/, '/responses');
  return { ...endpoint, url: swap(endpoint.url), shown: swap(endpoint.shown) };
}

/**
 * `value` when it is a positive number (`Infinity` included), `undefined` when absent.
 * @throws {RangeError} for zero, a negative number, `NaN` or a non-number
 */
function positive(value: number | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !(value > 0))
    throw new RangeError(
      `${name} must be a number of milliseconds (or bytes) > 0, got ${String(value)}.`,
    );
  return value;
}
