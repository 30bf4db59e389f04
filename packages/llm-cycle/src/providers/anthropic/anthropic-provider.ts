import type {
  ChatCallOptions,
  ChatChunk,
  ChatProvider,
  ChatRequest,
  ChatResponse,
} from '../../chat-provider.js';
import { LlmError } from '../../llm-error.js';
import { BodyReader, type Reading } from '../http/body-reader.js';
import { type Endpoint, resolveEndpoint } from '../http/endpoint.js';
import { nextTurn } from '../http/event-loop-turn.js';
import type { Exchange } from '../http/exchange.js';
import {
  cleanError,
  openExchange,
  type ProviderLimits,
  positiveLimit,
  post,
  readingOf,
} from '../http/post.js';
import { isWire } from './message-assembler.js';
import { MessagesStream, parseMessage } from './messages-stream.js';
import { messagesBody } from './request-body.js';

/** Options of `createAnthropicProvider`. */
export interface AnthropicProviderOptions {
  /** Sent as `x-api-key`; never appears in an error, event, history or cassette. */
  readonly apiKey: string;
  /**
   * The API root (default `https://api.anthropic.com`, as the official SDK); `/v1/messages` is
   * appended to its path (`/messages` when the path already ends in `/v1`).
   */
  readonly baseURL?: string;
  /** The `anthropic-version` header (default `2023-06-01`). */
  readonly version?: string;
  /** Beta features, sent as `anthropic-beta` (comma-separated), e.g. `['interleaved-thinking-2025-05-14']`. */
  readonly beta?: readonly string[];
  /**
   * Puts a prompt-cache breakpoint (`cache_control: { type: 'ephemeral' }`) after the tool
   * definitions and after the system prompt (default `true`): later turns read them from the
   * cache (`usage.cacheReadTokens`) instead of paying for them again.
   */
  readonly cacheTools?: boolean;
  /** `max_tokens` (required by the API) when the request's parameters do not set it (default 4096). */
  readonly maxTokens?: number;
  /** Extra headers for every request (credential values are redacted like the key). */
  readonly headers?: Readonly<Record<string, string>>;
  /** The `fetch` to use (default: the global one); a cassette's `fetch` records or replays. */
  readonly fetch?: typeof globalThis.fetch;
  /** Gives up when the server sends no byte for this long, in ms (default 60 000; `Infinity`: never). */
  readonly idleTimeoutMs?: number;
  /** Gives up when a whole request takes longer, in ms (default: none for streams, 600 000 otherwise). */
  readonly timeoutMs?: number;
  /** Refuses an answer larger than this many bytes with `invalid_response` (default 32 MiB). */
  readonly maxResponseBytes?: number;
}

const defaultBaseURL = 'https://api.anthropic.com';
const defaultVersion = '2023-06-01';
const defaultMaxTokens = 4096;
const defaultIdleTimeoutMs = 60_000;
const defaultMaxResponseBytes = 32 * 1024 * 1024;

/**
 * A `ChatProvider` speaking the Anthropic Messages API (`POST /v1/messages`) over `fetch`, on
 * the shared HTTP layer (limits, idle timeout, size cap, secret scrubbing, one connection per
 * conversation, send pacer). The neutral history is mapped to Messages and back: tool calls ↔
 * `tool_use`, tool messages ↔ `tool_result` in a user turn, `thinking` blocks (with their
 * `signature`) kept in `provider_state` and sent back unchanged, `stop_reason` normalized.
 *
 * Calls reject with `LlmError`: `http_error` or, for a 429, `rate_limited` (with `statusCode`, `retryAfterMs`, the vendor's
 * `error.type` and message; 429, 529 and 5xx are retryable), `stream_error` for an `error`
 * event mid-stream, `invalid_response`, `network`, `timeout` or `cancelled`.
 * @throws {RangeError} at creation, for a limit that is not a positive number
 * @throws {TypeError} at creation, for an empty `apiKey`
 */
export function createAnthropicProvider(options: AnthropicProviderOptions): ChatProvider {
  return new AnthropicProvider(options);
}

class AnthropicProvider implements ChatProvider {
  readonly providerName = 'anthropic';
  readonly #endpoint: Endpoint;
  readonly #fetch: typeof globalThis.fetch;
  readonly #limits: ProviderLimits;
  readonly #maxTokens: number;
  readonly #cacheTools: boolean;

  constructor(options: AnthropicProviderOptions) {
    if (typeof options.apiKey !== 'string' || options.apiKey === '')
      throw new TypeError(
        'createAnthropicProvider needs apiKey (e.g. process.env.ANTHROPIC_API_KEY).',
      );
    const baseURL = (options.baseURL ?? defaultBaseURL).replace(/\/+$/, '');
    this.#endpoint = resolveEndpoint({
      baseURL,
      path: baseURL.endsWith('/v1') ? '/messages' : '/v1/messages',
      headers: {
        ...(options.headers ?? {}),
        'x-api-key': options.apiKey,
        'anthropic-version': options.version ?? defaultVersion,
        ...(options.beta !== undefined && options.beta.length > 0
          ? { 'anthropic-beta': options.beta.join(',') }
          : {}),
      },
    });
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.#limits = {
      idleTimeoutMs: positiveLimit(options.idleTimeoutMs, 'idleTimeoutMs') ?? defaultIdleTimeoutMs,
      timeoutMs: positiveLimit(options.timeoutMs, 'timeoutMs'),
      maxResponseBytes:
        positiveLimit(options.maxResponseBytes, 'maxResponseBytes') ?? defaultMaxResponseBytes,
    };
    this.#maxTokens = positiveLimit(options.maxTokens, 'maxTokens') ?? defaultMaxTokens;
    this.#cacheTools = options.cacheTools ?? true;
  }

  async chat(request: ChatRequest, options: ChatCallOptions = {}): Promise<ChatResponse> {
    const exchange = this.#exchange(options, false);
    try {
      const response = await this.#post(request, false, exchange);
      const reading = this.#reading(exchange, response);
      if (reading.contentType.includes('event-stream')) {
        // A proxy that always streams: the stream assembled.
        return await this.#assemble(response, reading);
      }
      const source = new BodyReader(response.body as ReadableStream<Uint8Array>, reading);
      const answer = parseMessage(await source.rest(), reading);
      // Read to its end: the connection is free on the next turn (see connection-release.ts).
      await nextTurn();
      return answer;
    } catch (error) {
      throw this.#clean(error, exchange);
    } finally {
      exchange.dispose();
    }
  }

  async *chatStream(
    request: ChatRequest,
    options: ChatCallOptions = {},
  ): AsyncGenerator<ChatChunk, void, undefined> {
    for await (const batch of this.chatStreamBatches(request, options)) {
      for (const chunk of batch) yield chunk;
    }
  }

  async *chatStreamBatches(
    request: ChatRequest,
    options: ChatCallOptions = {},
  ): AsyncGenerator<readonly ChatChunk[], void, undefined> {
    const exchange = this.#exchange(options, true);
    let answer: MessagesStream | undefined;
    try {
      const response = await this.#post(request, true, exchange);
      const reading = this.#reading(exchange, response);
      if (reading.contentType.includes('json')) {
        // A whole message to a streamed request: one batch.
        const source = new BodyReader(response.body as ReadableStream<Uint8Array>, reading);
        const whole = parseMessage(await source.rest(), reading);
        await nextTurn();
        yield chunksOf(whole);
        return;
      }
      answer = new MessagesStream(response.body as ReadableStream<Uint8Array>, reading);
      for (let batch = await answer.next(); batch !== undefined; batch = await answer.next())
        yield batch;
      // The next request of this conversation must find the connection back in the pool.
      await answer.release();
    } catch (error) {
      throw this.#clean(error, exchange);
    } finally {
      answer?.close();
      exchange.dispose();
    }
  }

  async #assemble(response: Response, reading: Reading): Promise<ChatResponse> {
    const answer = new MessagesStream(response.body as ReadableStream<Uint8Array>, reading);
    try {
      let final: ChatResponse | undefined;
      for (let batch = await answer.next(); batch !== undefined; batch = await answer.next()) {
        const last = batch[batch.length - 1];
        if (last?.type === 'response') final = last.response;
      }
      await answer.release();
      return final as ChatResponse;
    } finally {
      answer.close();
    }
  }

  #exchange(options: ChatCallOptions, stream: boolean): Exchange {
    return openExchange(options, this.#limits, stream, this.#endpoint.shown);
  }

  #reading(exchange: Exchange, response: Response): Reading {
    const { maxResponseBytes } = this.#limits;
    return readingOf(exchange, response, this.#endpoint, maxResponseBytes, 'a Messages answer');
  }

  /** Sends the request (when the pacer lets it go) and resolves once a 2xx answer's headers came. */
  #post(request: ChatRequest, stream: boolean, exchange: Exchange): Promise<Response> {
    return post({
      fetch: this.#fetch,
      endpoint: this.#endpoint,
      exchange,
      body: () =>
        messagesBody(request, { stream, maxTokens: this.#maxTokens, cacheTools: this.#cacheTools }),
      onHttpError: withVendorType,
    });
  }

  #clean(error: unknown, exchange: Exchange): unknown {
    return cleanError(error, exchange, this.#endpoint);
  }
}

/**
 * The `http_error` with the vendor's `error.type` (errors guide: `{ type: 'error', error: {
 * type, message } }`, e.g. `overloaded_error` with 529) added to its message.
 */
function withVendorType(error: LlmError): LlmError {
  let type: unknown;
  try {
    const body: unknown = JSON.parse(error.responseBody ?? '');
    type = isWire(body) && isWire(body.error) ? body.error.type : undefined;
  } catch {
    return error;
  }
  if (typeof type !== 'string') return error;
  return new LlmError(error.code, `${error.message} (${type})`, {
    ...(error.statusCode === undefined ? {} : { statusCode: error.statusCode }),
    ...(error.retryAfterMs === undefined ? {} : { retryAfterMs: error.retryAfterMs }),
    ...(error.responseBody === undefined ? {} : { responseBody: error.responseBody }),
  });
}

/** A whole response as the chunks of a stream. */
function chunksOf(response: ChatResponse): ChatChunk[] {
  const chunks: ChatChunk[] = [];
  const message = response.message;
  if (message.reasoning_content !== undefined)
    chunks.push({ type: 'assistant_reasoning_delta', text: message.reasoning_content });
  if (typeof message.content === 'string' && message.content !== '')
    chunks.push({ type: 'assistant_text_delta', text: message.content });
  message.tool_calls?.forEach((call, index) => {
    chunks.push({
      type: 'tool_call_delta',
      index,
      callId: call.id,
      toolName: call.function.name,
      argumentsDelta: call.function.arguments,
    });
  });
  chunks.push({ type: 'response', response });
  return chunks;
}
