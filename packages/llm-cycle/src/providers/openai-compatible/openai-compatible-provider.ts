import type {
  ChatCallOptions,
  ChatChunk,
  ChatProvider,
  ChatRequest,
  ChatResponse,
} from '../../chat-provider.js';
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
import { parseJsonAnswer } from './completion.js';
import { followsDeepSeekRule, isDeepSeekHost, isDeepSeekModel } from './dialects.js';
import { requestBody, type SendReasoning } from './request-body.js';
import { StreamedAnswer } from './streamed-answer.js';

/** Options of `createOpenAICompatibleProvider`. */
export interface OpenAICompatibleProviderOptions {
  /**
   * The API root, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`;
   * `/chat/completions` is appended to its path (a query such as Azure's `?api-version=` stays).
   * User info (`https://user:password@host/v1`) is sent as `Authorization: Basic`.
   */
  readonly baseURL: string;
  /** Sent as `Authorization: Bearer <apiKey>`; never appears in an error, event or history. */
  readonly apiKey?: string;
  /** Extra headers for every request (credential values are redacted like the key). */
  readonly headers?: Readonly<Record<string, string>>;
  /** The `fetch` to use (default: the global one). */
  readonly fetch?: typeof globalThis.fetch;
  /**
   * Gives up when the server sends no byte for this long, in ms (default 60 000; `Infinity`:
   * never), from the moment the request is sent. A non-streamed answer sends no byte until it is
   * complete: long non-streamed generations need a larger value (or streaming).
   */
  readonly idleTimeoutMs?: number;
  /** Gives up when a whole request takes longer, in ms (default: none for streams, 600 000 otherwise). */
  readonly timeoutMs?: number;
  /** Refuses an answer larger than this many bytes with `invalid_response` (default 32 MiB). */
  readonly maxResponseBytes?: number;
  /** Sends `stream_options: { include_usage: true }` on streaming requests (default `true`); turn off for servers that refuse it. */
  readonly includeUsage?: boolean;
  /**
   * Which assistant messages go back with their `reasoning_content`: `never`, `tool-calls` (only
   * those with tool calls: what DeepSeek's thinking mode requires) or `always`, whatever the
   * server. Default: `tool-calls` where DeepSeek's rule applies (see `deepseek`), else `never`.
   */
  readonly sendReasoning?: SendReasoning;
  /**
   * The server is DeepSeek's API or follows its reasoning rule (`true`), or does not (`false`).
   * Default: decided per request, `true` for a base URL on deepseek.com, else from the request's
   * model (`deepseek-*`, also after a `provider/` prefix) and from what the server answered to
   * that model before (a DeepSeek model name, `reasoning_content` on a tool-call message).
   */
  readonly deepseek?: boolean;
}

const defaultIdleTimeoutMs = 60_000;
const defaultMaxResponseBytes = 32 * 1024 * 1024;
/** A bound on the models one provider remembers (a server could be sent a new name per request). */
const maxLearnedModels = 256;

/**
 * A `ChatProvider` speaking the OpenAI Chat Completions API over `fetch`: OpenAI, Azure OpenAI
 * and the compatible servers (DeepSeek, Qwen/DashScope, Ollama, vLLM, Mistral, Groq, xAI,
 * Moonshot, OpenRouter, llama.cpp). Their dialects are read as described in the README.
 *
 * Calls reject with `LlmError`: `http_error` or, for a 429, `rate_limited` (with `statusCode`, `isRetryable`, `retryAfterMs`
 * and the server's message), `network`, `timeout` (naming the limit), `invalid_response`,
 * `stream_error` or `cancelled`; no secret is in any of them.
 * @throws {RangeError} at creation, for a time or size limit that is not a positive number
 */
export function createOpenAICompatibleProvider(
  options: OpenAICompatibleProviderOptions,
): ChatProvider {
  return new OpenAICompatibleProvider(options);
}

class OpenAICompatibleProvider implements ChatProvider {
  readonly #endpoint: Endpoint;
  readonly #fetch: typeof globalThis.fetch;
  readonly #limits: ProviderLimits;
  readonly #includeUsage: boolean;
  readonly #sendReasoning: SendReasoning | undefined;
  /** DeepSeek's rule on or off by option or host; `undefined`: decided per request. */
  readonly #deepSeek: boolean | undefined;
  /** The request models whose answers showed DeepSeek's rule (at most `maxLearnedModels`). */
  readonly #deepSeekModels = new Set<string>();

  constructor(options: OpenAICompatibleProviderOptions) {
    this.#endpoint = resolveEndpoint(options);
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.#limits = {
      idleTimeoutMs: positiveLimit(options.idleTimeoutMs, 'idleTimeoutMs') ?? defaultIdleTimeoutMs,
      timeoutMs: positiveLimit(options.timeoutMs, 'timeoutMs'),
      maxResponseBytes:
        positiveLimit(options.maxResponseBytes, 'maxResponseBytes') ?? defaultMaxResponseBytes,
    };
    this.#includeUsage = options.includeUsage ?? true;
    this.#sendReasoning = options.sendReasoning;
    this.#deepSeek =
      options.deepseek ?? (isDeepSeekHost(this.#endpoint.hostname) ? true : undefined);
  }

  async chat(request: ChatRequest, options: ChatCallOptions = {}): Promise<ChatResponse> {
    const exchange = this.#exchange(options, false);
    try {
      const response = await this.#post(request, false, exchange);
      const reading = this.#reading(exchange, response);
      if (reading.contentType.includes('json')) {
        const source = new BodyReader(response.body as ReadableStream<Uint8Array>, reading);
        const answer = parseJsonAnswer(await source.rest(), reading);
        // Read to its end: the connection is free on the next turn (see connection-release.ts).
        await nextTurn();
        this.#learn(request.model, answer);
        return answer;
      }
      // An SSE answer to a non-streamed request (proxies that always stream): assembled.
      const answer = new StreamedAnswer(response.body as ReadableStream<Uint8Array>, reading);
      try {
        let final: ChatResponse | undefined;
        for (let batch = await answer.next(); batch !== undefined; batch = await answer.next()) {
          const last = batch[batch.length - 1];
          if (last?.type === 'response') final = last.response;
        }
        await answer.release();
        this.#learn(request.model, final as ChatResponse);
        return final as ChatResponse;
      } finally {
        answer.close();
      }
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
    let answer: StreamedAnswer | undefined;
    try {
      const response = await this.#post(request, true, exchange);
      answer = new StreamedAnswer(
        response.body as ReadableStream<Uint8Array>,
        this.#reading(exchange, response),
      );
      for (let batch = await answer.next(); batch !== undefined; batch = await answer.next()) {
        const last = batch[batch.length - 1];
        if (last?.type === 'response') this.#learn(request.model, last.response);
        yield batch;
      }
      // The next request of this conversation must find the connection back in the pool.
      await answer.release();
    } catch (error) {
      throw this.#clean(error, exchange);
    } finally {
      answer?.close();
      exchange.dispose();
    }
  }

  #exchange(options: ChatCallOptions, stream: boolean): Exchange {
    return openExchange(options, this.#limits, stream, this.#endpoint.shown);
  }

  #reading(exchange: Exchange, response: Response): Reading {
    return readingOf(
      exchange,
      response,
      this.#endpoint,
      this.#limits.maxResponseBytes,
      'a Chat Completions answer',
    );
  }

  /**
   * Sends the request (built and serialized only when the pacer lets it go: see `send-pacer.ts`)
   * and resolves to the response, once its headers came and its status is 2xx.
   */
  #post(request: ChatRequest, stream: boolean, exchange: Exchange): Promise<Response> {
    return post({
      fetch: this.#fetch,
      endpoint: this.#endpoint,
      exchange,
      body: () =>
        requestBody(request, {
          stream,
          includeUsage: this.#includeUsage,
          sendReasoning: this.#sendReasoningFor(request.model),
        }),
    });
  }

  /** How reasoning goes back in a request to `model` (the rule of `dialects.ts`). */
  #sendReasoningFor(model: string): SendReasoning {
    if (this.#sendReasoning !== undefined) return this.#sendReasoning;
    const deepSeek = this.#deepSeek ?? (isDeepSeekModel(model) || this.#deepSeekModels.has(model));
    return deepSeek ? 'tool-calls' : 'never';
  }

  /** Remembers that answers to `model` follow DeepSeek's rule, when `response` shows it. */
  #learn(model: string, response: ChatResponse): void {
    if (this.#deepSeek !== undefined || this.#deepSeekModels.has(model)) return;
    if (!followsDeepSeekRule(response)) return;
    if (this.#deepSeekModels.size >= maxLearnedModels) this.#deepSeekModels.clear();
    this.#deepSeekModels.add(model);
  }

  /** The error as the caller sees it: mapped by the exchange, every secret taken out. */
  #clean(error: unknown, exchange: Exchange): unknown {
    return cleanError(error, exchange, this.#endpoint);
  }
}
