import type { ChatProvider, ChatRequest, ChatResponse } from '../../chat-provider.js';
import { type Endpoint, resolveEndpoint } from '../http/endpoint.js';
import { HttpProvider } from '../http/http-provider.js';
import type { HttpProviderOptions } from '../http/provider-options.js';
import type { WireFormat, WireStream } from '../http/wire-format.js';
import { parseCompletion } from './completion.js';
import { followsDeepSeekRule, isDeepSeekHost, isDeepSeekModel } from './dialects.js';
import { requestBody, type SendReasoning } from './request-body.js';
import { ChatCompletionsStream } from './stream-chunk.js';

/** Options of `createOpenAICompatibleProvider`. */
export interface OpenAICompatibleProviderOptions extends HttpProviderOptions {
  /**
   * The API root, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`;
   * `/chat/completions` is appended to its path (a query such as Azure's `?api-version=` stays).
   * User info (`https://user:password@host/v1`) is sent as `Authorization: Basic`.
   */
  readonly baseURL: string;
  /** Sent as `Authorization: Bearer <apiKey>`; never appears in an error, event or history. */
  readonly apiKey?: string;
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
  const endpoint = resolveEndpoint({ ...options, path: '/chat/completions' });
  return new HttpProvider(new ChatCompletionsFormat(options, endpoint), endpoint, options);
}

/**
 * The Chat Completions wire format, with what one provider learns: which models follow
 * DeepSeek's reasoning rule (see `dialects.ts`).
 */
class ChatCompletionsFormat implements WireFormat {
  readonly answerName = 'a Chat Completions answer';
  readonly baseUrlHint =
    'Check baseURL: it should be the API root that /chat/completions is appended to, e.g. https://api.openai.com/v1.';
  readonly #includeUsage: boolean;
  readonly #sendReasoning: SendReasoning | undefined;
  /** DeepSeek's rule on or off by option or host; `undefined`: decided per request. */
  readonly #deepSeek: boolean | undefined;
  /** The request models whose answers showed DeepSeek's rule (at most `maxLearnedModels`). */
  readonly #deepSeekModels = new Set<string>();

  constructor(options: OpenAICompatibleProviderOptions, endpoint: Endpoint) {
    this.#includeUsage = options.includeUsage ?? true;
    this.#sendReasoning = options.sendReasoning;
    this.#deepSeek = options.deepseek ?? (isDeepSeekHost(endpoint.hostname) ? true : undefined);
  }

  requestBody(request: ChatRequest, stream: boolean): string {
    return requestBody(request, {
      stream,
      includeUsage: this.#includeUsage,
      sendReasoning: this.#sendReasoningFor(request.model),
    });
  }

  parseWhole(body: unknown): ChatResponse {
    return parseCompletion(body);
  }

  startStream(endpoint: Endpoint): WireStream {
    return new ChatCompletionsStream(endpoint);
  }

  /** Remembers that answers to the request's model follow DeepSeek's rule, when `response` shows it. */
  answered(request: ChatRequest, response: ChatResponse): void {
    const model = request.model;
    if (this.#deepSeek !== undefined || this.#deepSeekModels.has(model)) return;
    if (!followsDeepSeekRule(response)) return;
    if (this.#deepSeekModels.size >= maxLearnedModels) this.#deepSeekModels.clear();
    this.#deepSeekModels.add(model);
  }

  /** How reasoning goes back in a request to `model` (the rule of `dialects.ts`). */
  #sendReasoningFor(model: string): SendReasoning {
    if (this.#sendReasoning !== undefined) return this.#sendReasoning;
    const deepSeek = this.#deepSeek ?? (isDeepSeekModel(model) || this.#deepSeekModels.has(model));
    return deepSeek ? 'tool-calls' : 'never';
  }
}
