import type {
  ChatCallOptions,
  ChatChunk,
  ChatProvider,
  ChatRequest,
  ChatResponse,
} from '../../chat-provider.js';
import type { LlmError } from '../../llm-error.js';
import { AnswerReader, parseWhole } from './answer-reader.js';
import { BodyReader, type Reading } from './body-reader.js';
import type { Endpoint } from './endpoint.js';
import { nextTurn } from './event-loop-turn.js';
import type { Exchange } from './exchange.js';
import { cleanError, openExchange, post, readingOf } from './post.js';
import {
  type HttpProviderOptions,
  type ProviderLimits,
  resolveLimits,
} from './provider-options.js';
import type { WireFormat } from './wire-format.js';

/**
 * A `ChatProvider` over `fetch` for one wire format (the strategy, see `wire-format.ts`): every
 * request goes through the shared HTTP layer (the send pacer, the exchange's limits, the size
 * cap, one kept-alive connection per conversation, secrets out of every error), and its answer
 * is read by the one driver, `AnswerReader`, whatever shape it comes in (SSE or JSON, asked
 * for or not).
 */
export class HttpProvider implements ChatProvider {
  readonly #format: WireFormat;
  readonly #endpoint: Endpoint;
  readonly #fetch: typeof globalThis.fetch;
  readonly #limits: ProviderLimits;
  readonly #onHttpError: ((error: LlmError) => LlmError) | undefined;

  /**
   * A provider speaking `format` to `endpoint`.
   * @throws {RangeError} for a time or size limit in `options` that is not a positive number
   */
  constructor(format: WireFormat, endpoint: Endpoint, options: HttpProviderOptions) {
    this.#format = format;
    this.#endpoint = endpoint;
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.#limits = resolveLimits(options);
    this.#onHttpError = format.httpError?.bind(format);
  }

  /** The format's `gen_ai.provider.name`, if it names one. */
  get providerName(): string | undefined {
    return this.#format.providerName;
  }

  /** Sends `request` and resolves to the whole answer (an SSE answer is assembled). @throws {LlmError} */
  async chat(request: ChatRequest, options: ChatCallOptions = {}): Promise<ChatResponse> {
    const exchange = this.#exchange(options, false);
    try {
      const response = await this.#post(request, false, exchange);
      const reading = this.#reading(exchange, response);
      const body = response.body as ReadableStream<Uint8Array>;
      let answer: ChatResponse;
      if (reading.contentType.includes('json')) {
        answer = parseWhole(await new BodyReader(body, reading).rest(), reading, this.#format);
        // Read to its end: the connection is free on the next turn (see connection-release.ts).
        await nextTurn();
      } else {
        // An SSE answer to a non-streamed request (proxies that always stream), or a body whose
        // content type says nothing: assembled.
        answer = await this.#assemble(body, reading);
      }
      this.#format.answered?.(request, answer);
      return answer;
    } catch (error) {
      throw cleanError(error, exchange, this.#endpoint);
    } finally {
      exchange.dispose();
    }
  }

  /** Sends `request` and streams the answer; the last chunk is `response`. @throws {LlmError} while iterating */
  async *chatStream(
    request: ChatRequest,
    options: ChatCallOptions = {},
  ): AsyncGenerator<ChatChunk, void, undefined> {
    for await (const batch of this.chatStreamBatches(request, options)) {
      for (const chunk of batch) yield chunk;
    }
  }

  /** `chatStream` in batches, the chunks of one network read together. @throws {LlmError} while iterating */
  async *chatStreamBatches(
    request: ChatRequest,
    options: ChatCallOptions = {},
  ): AsyncGenerator<readonly ChatChunk[], void, undefined> {
    const exchange = this.#exchange(options, true);
    let answer: AnswerReader | undefined;
    try {
      const response = await this.#post(request, true, exchange);
      const body = response.body as ReadableStream<Uint8Array>;
      answer = new AnswerReader(body, this.#reading(exchange, response), this.#format);
      for (let batch = await answer.next(); batch !== undefined; batch = await answer.next()) {
        const last = batch[batch.length - 1];
        if (last?.type === 'response') this.#format.answered?.(request, last.response);
        yield batch;
      }
      // The next request of this conversation must find the connection back in the pool.
      await answer.release();
    } catch (error) {
      throw cleanError(error, exchange, this.#endpoint);
    } finally {
      answer?.close();
      exchange.dispose();
    }
  }

  /** A streamed (or unrecognised) answer to a non-streamed request, read to its response. */
  async #assemble(body: ReadableStream<Uint8Array>, reading: Reading): Promise<ChatResponse> {
    const answer = new AnswerReader(body, reading, this.#format);
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
    return readingOf(exchange, response, this.#endpoint, maxResponseBytes, this.#format.answerName);
  }

  /**
   * Sends the request (built and serialized only when the pacer lets it go: see `send-pacer.ts`)
   * and resolves to the response, once its headers came and its status is 2xx.
   */
  #post(request: ChatRequest, stream: boolean, exchange: Exchange): Promise<Response> {
    const format = this.#format;
    return post({
      fetch: this.#fetch,
      endpoint: this.#endpoint,
      exchange,
      url: format.url?.(request, stream),
      body: () => format.requestBody(request, stream),
      onHttpError: this.#onHttpError,
    });
  }
}
