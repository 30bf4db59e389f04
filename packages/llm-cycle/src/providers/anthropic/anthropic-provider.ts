import type { ChatProvider, ChatRequest, ChatResponse } from '../../chat-provider.js';
import { LlmError } from '../../llm-error.js';
import { type Endpoint, resolveEndpoint } from '../http/endpoint.js';
import { HttpProvider } from '../http/http-provider.js';
import { type HttpProviderOptions, positiveLimit } from '../http/provider-options.js';
import type { WireFormat, WireStream } from '../http/wire-format.js';
import { isWire } from './message-assembler.js';
import { MessagesEvents, parseMessage } from './messages-events.js';
import { messagesBody } from './request-body.js';

/** Options of `createAnthropicProvider`. */
export interface AnthropicProviderOptions extends HttpProviderOptions {
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
}

const defaultBaseURL = 'https://api.anthropic.com';
const defaultVersion = '2023-06-01';
const defaultMaxTokens = 4096;

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
  if (typeof options.apiKey !== 'string' || options.apiKey === '')
    throw new TypeError(
      'createAnthropicProvider needs apiKey (e.g. process.env.ANTHROPIC_API_KEY).',
    );
  const baseURL = (options.baseURL ?? defaultBaseURL).replace(/\/+$/, '');
  const endpoint = resolveEndpoint({
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
  return new HttpProvider(new MessagesFormat(options), endpoint, options);
}

/** The Messages wire format, with the provider's `max_tokens` and cache breakpoints. */
class MessagesFormat implements WireFormat {
  readonly answerName = 'a Messages answer';
  readonly baseUrlHint =
    'Check baseURL: it should be the API root that /v1/messages is appended to, e.g. https://api.anthropic.com.';
  readonly providerName = 'anthropic';
  readonly #maxTokens: number;
  readonly #cacheTools: boolean;

  /** @throws {RangeError} for a `maxTokens` that is not a positive number */
  constructor(options: AnthropicProviderOptions) {
    this.#maxTokens = positiveLimit(options.maxTokens, 'maxTokens') ?? defaultMaxTokens;
    this.#cacheTools = options.cacheTools ?? true;
  }

  requestBody(request: ChatRequest, stream: boolean): string {
    return messagesBody(request, {
      stream,
      maxTokens: this.#maxTokens,
      cacheTools: this.#cacheTools,
    });
  }

  parseWhole(body: unknown, endpoint: Endpoint): ChatResponse {
    return parseMessage(body, endpoint);
  }

  startStream(endpoint: Endpoint): WireStream {
    return new MessagesEvents(endpoint);
  }

  httpError(error: LlmError): LlmError {
    return withVendorType(error);
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
