import type { JsonValue } from '@agcore/tools-core';
import type { ChatProvider, ChatRequest, ChatResponse } from '../../chat-provider.js';
import { LlmError } from '../../llm-error.js';
import { type Endpoint, resolveEndpoint } from '../http/endpoint.js';
import { HttpProvider } from '../http/http-provider.js';
import type { HttpProviderOptions } from '../http/provider-options.js';
import type { WireFormat, WireStream } from '../http/wire-format.js';
import { GeminiEvents, parseAnswer } from './gemini-events.js';
import { geminiBody, isPart } from './request-body.js';
import { checkTools } from './tool-schema.js';

/** How much the model thinks: a token budget (Gemini 2.5) or a level (Gemini 3). */
export interface GeminiThinking {
  /** `thinkingConfig.thinkingBudget`: tokens (`0`: off, `-1`: dynamic). */
  readonly budget?: number;
  /** `thinkingConfig.thinkingLevel` (Gemini 3): `minimal`, `low`, `medium`, `high`. */
  readonly level?: 'minimal' | 'low' | 'medium' | 'high';
  /** `thinkingConfig.includeThoughts`: thought summaries come as reasoning. */
  readonly includeThoughts?: boolean;
}

/** Options of `createGeminiProvider`. */
export interface GeminiProviderOptions extends HttpProviderOptions {
  /** Sent as `x-goog-api-key`; never appears in an error, event, history or cassette. */
  readonly apiKey: string;
  /**
   * The API root (default `https://generativelanguage.googleapis.com/v1beta`, as the official
   * SDK); `/models/{model}:generateContent` (or `:streamGenerateContent?alt=sse`) is appended.
   */
  readonly baseURL?: string;
  /** `generationConfig.thinkingConfig` of every request (a request's parameters override it). */
  readonly thinking?: GeminiThinking;
}

const defaultBaseURL = 'https://generativelanguage.googleapis.com/v1beta';

/**
 * A `ChatProvider` speaking the Gemini API (`models/{model}:generateContent` and
 * `:streamGenerateContent?alt=sse`) over `fetch`, on the shared HTTP layer (limits, idle
 * timeout, size cap, secret scrubbing, one connection per conversation, send pacer). The
 * neutral history is mapped to `contents` and back: tool calls ↔ `functionCall` parts (parallel
 * calls; an id made when Gemini gives none), tool messages ↔ `functionResponse` by name and id,
 * the model's parts (with their `thoughtSignature`) kept in `provider_state` and sent back
 * exactly, `finishReason` normalized (`SAFETY`, `RECITATION`, … and a blocked prompt →
 * `content_filter`; `MALFORMED_FUNCTION_CALL` → `malformed_function_call`).
 *
 * Calls reject with `LlmError`: `http_error` or, for a 429, `rate_limited` (with `retryAfterMs`
 * from `google.rpc.RetryInfo.retryDelay`, the vendor's `status` in the message), `http_error`
 * before sending for a tool Gemini refuses (see `tool-schema.ts`), `stream_error` for an error
 * mid-stream, `invalid_response`, `network`, `timeout` or `cancelled`.
 * @throws {RangeError} at creation, for a limit that is not a positive number
 * @throws {TypeError} at creation, for an empty `apiKey`
 */
export function createGeminiProvider(options: GeminiProviderOptions): ChatProvider {
  if (typeof options.apiKey !== 'string' || options.apiKey === '')
    throw new TypeError('createGeminiProvider needs apiKey (e.g. process.env.GEMINI_API_KEY).');
  const endpoint = resolveEndpoint({
    baseURL: (options.baseURL ?? defaultBaseURL).replace(/\/+$/, ''),
    path: '/models',
    headers: { ...(options.headers ?? {}), 'x-goog-api-key': options.apiKey },
  });
  return new HttpProvider(new GeminiFormat(endpoint, options.thinking), endpoint, options);
}

/** The Gemini wire format: the model in the path, the thinking config of the options. */
class GeminiFormat implements WireFormat {
  readonly answerName = 'a Gemini answer';
  readonly baseUrlHint =
    'Check baseURL: it should be the API root that /models/{model}:generateContent is appended to, e.g. https://generativelanguage.googleapis.com/v1beta.';
  readonly providerName = 'gcp.gemini';
  readonly #base: string;
  readonly #query: string;
  readonly #thinking: Readonly<Record<string, JsonValue>> | undefined;

  constructor(endpoint: Endpoint, thinking: GeminiThinking | undefined) {
    const query = endpoint.url.indexOf('?');
    this.#base = query < 0 ? endpoint.url : endpoint.url.slice(0, query);
    this.#query = query < 0 ? '' : endpoint.url.slice(query + 1);
    this.#thinking = thinking === undefined ? undefined : thinkingConfig(thinking);
  }

  /** @throws {LlmError} `http_error`, before sending, for a tool Gemini refuses */
  url(request: ChatRequest, stream: boolean): string {
    checkTools(request.tools);
    const model = encodeURIComponent(request.model.replace(/^models\//, ''));
    const method = stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
    const query = this.#query === '' ? '' : `${stream ? '&' : '?'}${this.#query}`;
    return `${this.#base}/${model}:${method}${query}`;
  }

  requestBody(request: ChatRequest): string {
    return geminiBody(
      request,
      this.#thinking === undefined ? {} : { thinkingConfig: this.#thinking },
    );
  }

  parseWhole(body: unknown, endpoint: Endpoint): ChatResponse {
    return parseAnswer(body, endpoint);
  }

  startStream(endpoint: Endpoint): WireStream {
    return new GeminiEvents(endpoint);
  }

  httpError(error: LlmError): LlmError {
    return withVendorDetail(error);
  }
}

function thinkingConfig(thinking: GeminiThinking): Record<string, JsonValue> {
  return {
    ...(thinking.budget === undefined ? {} : { thinkingBudget: thinking.budget }),
    ...(thinking.level === undefined ? {} : { thinkingLevel: thinking.level }),
    ...(thinking.includeThoughts === undefined
      ? {}
      : { includeThoughts: thinking.includeThoughts }),
  };
}

/**
 * The `http_error` with the vendor's `error.status` (`RESOURCE_EXHAUSTED`, `INVALID_ARGUMENT`)
 * in its message and, for a 429 without `Retry-After`, the `retryDelay` of its
 * `google.rpc.RetryInfo` detail (`"37s"`, `"1.5s"`) as `retryAfterMs`.
 */
function withVendorDetail(error: LlmError): LlmError {
  let body: unknown;
  try {
    body = JSON.parse(error.responseBody ?? '');
  } catch {
    return error;
  }
  const detail = isPart(body) && isPart(body.error) ? body.error : undefined;
  if (detail === undefined) return error;
  const status = typeof detail.status === 'string' ? ` (${detail.status})` : '';
  const retryAfterMs = error.retryAfterMs ?? retryDelayOf(detail.details);
  return new LlmError(error.code, `${error.message}${status}`, {
    ...(error.statusCode === undefined ? {} : { statusCode: error.statusCode }),
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    ...(error.responseBody === undefined ? {} : { responseBody: error.responseBody }),
  });
}

/** `retryDelay` of the `type.googleapis.com/google.rpc.RetryInfo` detail, in ms. */
function retryDelayOf(details: unknown): number | undefined {
  if (!Array.isArray(details)) return undefined;
  for (const detail of details) {
    if (!isPart(detail) || detail['@type'] !== 'type.googleapis.com/google.rpc.RetryInfo') continue;
    const match = /^(\d+(?:\.\d+)?)s$/.exec(String(detail.retryDelay));
    if (match !== null) return Math.round(Number(match[1]) * 1000);
  }
  return undefined;
}
