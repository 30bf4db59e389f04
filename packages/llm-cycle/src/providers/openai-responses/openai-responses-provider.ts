import type { ChatProvider, ChatRequest, ChatResponse } from '../../chat-provider.js';
import { type Endpoint, resolveEndpoint } from '../http/endpoint.js';
import { HttpProvider } from '../http/http-provider.js';
import type { HttpProviderOptions } from '../http/provider-options.js';
import type { WireFormat, WireStream } from '../http/wire-format.js';
import { EventAssembler } from './event-assembler.js';
import { responsesBody } from './request-body.js';
import { ResponseChain } from './response-chain.js';
import { parseResponseObject } from './response-object.js';

/** Options of `createOpenAIResponsesProvider`. */
export interface OpenAIResponsesProviderOptions extends HttpProviderOptions {
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
}

const defaultBaseURL = 'https://api.openai.com/v1';

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
  if (options.previousResponseId === true && options.store !== true)
    throw new RangeError('previousResponseId needs store: true (the server must keep responses).');
  const endpoint = resolveEndpoint({
    ...options,
    baseURL: options.baseURL ?? defaultBaseURL,
    path: '/responses',
  });
  return new HttpProvider(new ResponsesFormat(options), endpoint, options);
}

/** The Responses wire format, with the provider's `store`, `strict` and response chain. */
class ResponsesFormat implements WireFormat {
  readonly answerName = 'a Responses answer';
  readonly baseUrlHint =
    'Check baseURL: it should be the API root that /responses is appended to, e.g. https://api.openai.com/v1.';
  readonly providerName = 'openai';
  readonly #store: boolean;
  readonly #strict: boolean | undefined;
  readonly #chain: ResponseChain | undefined;

  constructor(options: OpenAIResponsesProviderOptions) {
    this.#store = options.store ?? false;
    this.#strict = options.strict;
    this.#chain = options.previousResponseId === true ? new ResponseChain() : undefined;
  }

  requestBody(request: ChatRequest, stream: boolean): string {
    return responsesBody(request, {
      stream,
      store: this.#store,
      strict: this.#strict,
      ...this.#chain?.continuation(request.messages),
    });
  }

  parseWhole(body: unknown): ChatResponse {
    return parseResponseObject(body);
  }

  startStream(endpoint: Endpoint): WireStream {
    return new EventAssembler(endpoint);
  }

  answered(_request: ChatRequest, response: ChatResponse): void {
    this.#chain?.remember(response);
  }
}
