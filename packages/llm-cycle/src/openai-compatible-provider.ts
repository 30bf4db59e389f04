import { createParser } from 'eventsource-parser';
import { linkSignals } from './abort.js';
import type {
  ChatCallOptions,
  ChatChunk,
  ChatProvider,
  ChatRequest,
  ChatResponse,
  Usage,
} from './chat-provider.js';
import { LlmError } from './llm-error.js';
import type { AssistantMessage, ToolCall } from './messages.js';
import { ResponseAssembler } from './response-assembler.js';

/** Options of `createOpenAICompatibleProvider`. */
export interface OpenAICompatibleProviderOptions {
  /** The API root, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`; `/chat/completions` is appended. */
  readonly baseURL: string;
  /** Sent as `Authorization: Bearer <apiKey>`; never appears in an error message. */
  readonly apiKey?: string;
  /** Extra headers for every request. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The `fetch` to use (default: the global one). */
  readonly fetch?: typeof globalThis.fetch;
  /** Gives up on a request (including reading its stream) after this long, with `LlmError` `timeout`. Default: no limit. */
  readonly timeoutMs?: number;
  /** Sends `stream_options: { include_usage: true }` on streaming requests (default `true`); turn off for servers that refuse it. */
  readonly includeUsage?: boolean;
}

const maxBodyChars = 4096;
/** The largest slice of one network read parsed before its chunks are handed over. */
const maxSliceChars = 64 * 1024;
/** Headers whose values are credentials (`Authorization`, Azure's `api-key`, `x-api-key`, ...). */
const credentialHeader = /authorization|api[-_]?key|token|secret/i;

/**
 * The strings no error may contain, longest first: the API key (4+ characters) and the values
 * of credential headers (8+ characters, with and without their `Bearer ` scheme).
 */
function secretsOf(
  apiKey: string | undefined,
  headers: Readonly<Record<string, string>> | undefined,
): string[] {
  const secrets = new Set<string>();
  if (apiKey !== undefined && apiKey.length >= 4) secrets.add(apiKey);
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (!credentialHeader.test(name) || typeof value !== 'string') continue;
    const scheme = /^(?:bearer|basic|token)\s+(.+)$/i.exec(value);
    for (const candidate of [value, scheme?.[1]]) {
      if (candidate !== undefined && candidate.length >= 8) secrets.add(candidate);
    }
  }
  return [...secrets].sort((a, b) => b.length - a.length);
}

/**
 * A `ChatProvider` speaking the OpenAI Chat Completions API over `fetch`: OpenAI itself and the
 * compatible servers (Ollama, vLLM, llama.cpp server, DeepSeek, Qwen/DashScope).
 *
 * Streaming parses SSE with `eventsource-parser`: comments and keep-alives are ignored, the
 * stream stops at `data: [DONE]`, tool-call deltas are assembled by `index`, usage is read from
 * the final chunk. A server that answers a streaming request with plain JSON is accepted too.
 *
 * Calls reject with `LlmError`: `http_error` (with `statusCode`, `isRetryable`, `retryAfterMs`
 * and the server's message), `network`, `timeout`, `invalid_response`, `stream_error` or
 * `cancelled`. Never throws at creation.
 */
export function createOpenAICompatibleProvider(
  options: OpenAICompatibleProviderOptions,
): ChatProvider {
  return new OpenAICompatibleProvider(options);
}

class OpenAICompatibleProvider implements ChatProvider {
  readonly #url: string;
  readonly #headers: Record<string, string>;
  readonly #fetch: typeof globalThis.fetch;
  readonly #apiKey: string | undefined;
  readonly #timeoutMs: number | undefined;
  readonly #includeUsage: boolean;
  /** The API key and the values of credential headers: never part of an error. */
  readonly #secrets: readonly string[];
  /** The end of the last stream being read after its `[DONE]` (see `#finishInBackground`). */
  #pendingEnd: Promise<void> | undefined;

  constructor(options: OpenAICompatibleProviderOptions) {
    this.#url = `${options.baseURL.replace(/\/+$/, '')}/chat/completions`;
    this.#apiKey = options.apiKey === '' ? undefined : options.apiKey;
    this.#secrets = secretsOf(this.#apiKey, options.headers);
    this.#headers = {
      'content-type': 'application/json',
      ...(options.headers ?? {}),
      ...(this.#apiKey === undefined ? {} : { authorization: `Bearer ${this.#apiKey}` }),
    };
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.#timeoutMs = options.timeoutMs;
    this.#includeUsage = options.includeUsage ?? true;
  }

  async chat(request: ChatRequest, options: ChatCallOptions = {}): Promise<ChatResponse> {
    const { signal, dispose, timeoutSignal } = this.#signals(options.signal);
    try {
      const response = await this.#post(request, false, signal, timeoutSignal, options.signal);
      return parseCompletion(
        await this.#readJson(response, timeoutSignal, options.signal),
        this.#redactor,
      );
    } catch (error) {
      throw this.#redactError(error);
    } finally {
      dispose();
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
    const { signal, dispose, timeoutSignal } = this.#signals(options.signal);
    let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
    try {
      const response = await this.#post(request, true, signal, timeoutSignal, options.signal);
      const contentType = response.headers.get('content-type') ?? '';
      if (contentType.includes('application/json')) {
        yield chunksOf(
          parseCompletion(
            await this.#readJson(response, timeoutSignal, options.signal),
            this.#redactor,
          ),
        );
        return;
      }
      if (response.body === null)
        throw new LlmError(
          'invalid_response',
          `${this.#url} sent an empty body for a streaming request.`,
        );
      reader = response.body.getReader();
      const decoder = new TextDecoder();
      const assembler = new ResponseAssembler();
      let batch: ChatChunk[] = [];
      let finished = false;
      // Each SSE event is applied as the parser finds it (no intermediate list); `[DONE]` ends
      // the stream, whatever follows it in the same read.
      const parser = createParser({
        onEvent: (event) => {
          if (finished) return;
          if (event.data === '[DONE]') finished = true;
          else applyStreamChunk(event.data, assembler, batch, this.#redactor);
        },
      });
      // A large read (a fast local server) is parsed in slices, growing from 1 KiB: the first
      // events reach the consumer before the rest of the read is parsed.
      let sliceChars = 1024;
      while (!finished) {
        let read: Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>['read']>>;
        try {
          read = await reader.read();
        } catch (error) {
          throw this.#mapError(
            error,
            timeoutSignal,
            options.signal,
            'reading the stream (the connection was cut mid-stream)',
          );
        }
        if (read.done) break;
        const text = decoder.decode(read.value, { stream: true });
        for (let start = 0; start < text.length && !finished; ) {
          let end = text.length;
          if (end - start > sliceChars) {
            const newline = text.indexOf('\n', start + sliceChars);
            if (newline !== -1) end = newline + 1;
            if (sliceChars < maxSliceChars) sliceChars *= 2;
          }
          parser.feed(start === 0 && end === text.length ? text : text.slice(start, end));
          start = end;
          if (batch.length > 0) {
            const full = batch;
            batch = [];
            yield full;
          }
        }
      }
      if (finished) {
        this.#finishInBackground(reader);
        reader = undefined;
      } else if (assembler.finishReason === undefined) {
        throw new LlmError(
          'invalid_response',
          `The stream from ${this.#url} ended before the model finished (no finish_reason and no [DONE]); the answer is incomplete.`,
        );
      }
      yield [{ type: 'response', response: assembler.finish() }];
    } catch (error) {
      throw this.#redactError(error);
    } finally {
      if (reader !== undefined) reader.cancel().catch(() => undefined);
      dispose();
    }
  }

  /**
   * After `[DONE]` the response is handed over at once and its end is read in the background:
   * servers end the response right after `[DONE]`, and reading that end lets `fetch` keep the
   * connection alive; a server that holds the stream open is cut after a short wait. The next
   * request of this provider waits for that end (usually already there), so it reuses the
   * connection instead of opening another one.
   */
  #finishInBackground(reader: ReadableStreamDefaultReader<Uint8Array>): void {
    const pending = endsSoon(reader, 50).then(async (ended) => {
      if (ended) {
        // Node's fetch (undici) frees the connection on the turn of the event loop after the
        // end: a request sent before that would open a second connection.
        await nextTurn();
      } else {
        reader.cancel().catch(() => undefined);
      }
      if (this.#pendingEnd === pending) this.#pendingEnd = undefined;
    });
    this.#pendingEnd = pending;
  }

  #signals(callerSignal: AbortSignal | undefined): {
    signal: AbortSignal | undefined;
    timeoutSignal: AbortSignal | undefined;
    dispose: () => void;
  } {
    const timeoutSignal =
      this.#timeoutMs === undefined ? undefined : AbortSignal.timeout(this.#timeoutMs);
    if (timeoutSignal === undefined)
      return { signal: callerSignal, timeoutSignal, dispose: () => undefined };
    const linked = linkSignals([callerSignal, timeoutSignal]);
    return { signal: linked.signal, timeoutSignal, dispose: linked.dispose };
  }

  async #post(
    request: ChatRequest,
    stream: boolean,
    signal: AbortSignal | undefined,
    timeoutSignal: AbortSignal | undefined,
    callerSignal: AbortSignal | undefined,
  ): Promise<Response> {
    const body: Record<string, unknown> = {
      ...(request.parameters ?? {}),
      model: request.model,
      messages: request.messages,
    };
    if (request.tools !== undefined && request.tools.length > 0) body.tools = request.tools;
    if (stream) {
      body.stream = true;
      if (this.#includeUsage) body.stream_options = { include_usage: true };
    }
    if (this.#pendingEnd !== undefined) await this.#pendingEnd;
    let response: Response;
    try {
      response = await this.#fetch(this.#url, {
        method: 'POST',
        headers: this.#headers,
        body: JSON.stringify(body),
        ...(signal === undefined ? {} : { signal }),
      });
    } catch (error) {
      throw this.#mapError(error, timeoutSignal, callerSignal, 'sending the request');
    }
    if (!response.ok) throw await this.#httpError(response);
    return response;
  }

  async #readJson(
    response: Response,
    timeoutSignal: AbortSignal | undefined,
    callerSignal: AbortSignal | undefined,
  ): Promise<unknown> {
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      throw this.#mapError(error, timeoutSignal, callerSignal, 'reading the response');
    }
    try {
      return JSON.parse(text) as unknown;
    } catch (error) {
      throw new LlmError(
        'invalid_response',
        `${this.#url} answered with a body that is not JSON: ${this.#redact(text).slice(0, 200)}`,
        { cause: jsonErrorWithout(text, error, this.#redactor) },
      );
    }
  }

  async #httpError(response: Response): Promise<LlmError> {
    let text = '';
    try {
      text = await response.text();
    } catch {
      // The status alone still makes a useful error.
    }
    text = this.#redact(text).slice(0, maxBodyChars);
    const detail = serverMessage(text);
    const retryAfterMs = readRetryAfter(response.headers);
    return new LlmError(
      'http_error',
      `${this.#url} answered HTTP ${response.status}${response.statusText === '' ? '' : ` ${response.statusText}`}${detail === '' ? '' : `: ${detail}`}`,
      {
        statusCode: response.status,
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
        ...(text === '' ? {} : { responseBody: text }),
      },
    );
  }

  #redact(text: string): string {
    for (const secret of this.#secrets) {
      if (text.includes(secret)) text = text.split(secret).join('[redacted]');
    }
    return text;
  }

  readonly #redactor = (text: string): string => this.#redact(text);

  /**
   * The error with every secret taken out of its message, `responseBody` and `cause` (a
   * server may echo the key back, a JSON parse error quotes the text it choked on).
   */
  #redactError(error: unknown): unknown {
    if (this.#secrets.length === 0 || !LlmError.isInstance(error)) return error;
    const cause: unknown = error.cause;
    const causeText =
      cause instanceof Error ? `${cause.message}\n${cause.stack ?? ''}` : String(cause);
    const leaks = (text: string | undefined): boolean =>
      text !== undefined && this.#redact(text) !== text;
    if (!leaks(error.message) && !leaks(error.responseBody) && !leaks(causeText)) return error;
    let safeCause: unknown = cause;
    if (leaks(causeText)) {
      safeCause =
        cause instanceof Error
          ? Object.assign(new Error(this.#redact(cause.message)), { name: cause.name })
          : this.#redact(String(cause));
    }
    return new LlmError(error.code, this.#redact(error.message), {
      ...(safeCause === undefined ? {} : { cause: safeCause }),
      ...(error.statusCode === undefined ? {} : { statusCode: error.statusCode }),
      isRetryable: error.isRetryable,
      ...(error.retryAfterMs === undefined ? {} : { retryAfterMs: error.retryAfterMs }),
      ...(error.responseBody === undefined
        ? {}
        : { responseBody: this.#redact(error.responseBody) }),
    });
  }

  #mapError(
    error: unknown,
    timeoutSignal: AbortSignal | undefined,
    callerSignal: AbortSignal | undefined,
    doing: string,
  ): LlmError {
    if (LlmError.isInstance(error)) return error;
    if (callerSignal?.aborted) {
      return new LlmError(
        'cancelled',
        `The request to ${this.#url} was cancelled while ${doing}.`,
        { cause: callerSignal.reason ?? error },
      );
    }
    if (timeoutSignal?.aborted) {
      return new LlmError(
        'timeout',
        `The request to ${this.#url} took longer than ${this.#timeoutMs} ms (while ${doing}); raise timeoutMs or try again.`,
        {
          cause: error,
        },
      );
    }
    const detail = this.#redact(describeCause(error));
    return new LlmError('network', `Network error while ${doing} to ${this.#url}: ${detail}`, {
      cause: error,
    });
  }
}

/** Resolves on the next turn of the event loop (`setImmediate` where there is one). Never throws. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => {
    if (typeof globalThis.setImmediate === 'function') globalThis.setImmediate(resolve);
    else setTimeout(resolve, 0);
  });
}

/** Whether the stream ends, with no more data, within `waitMs`. Never throws. */
async function endsSoon(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  waitMs: number,
): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), waitMs);
  });
  try {
    const result = await Promise.race([
      reader.read().then(
        (read) => read.done === true && read.value === undefined,
        () => false,
      ),
      late,
    ]);
    return result;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The `JSON.parse` error of `text` without the secrets: V8 quotes the text around the error,
 * so the error of the redacted text is returned instead when `text` held a secret. Never throws.
 */
function jsonErrorWithout(text: string, error: unknown, redact: (text: string) => string): unknown {
  const safe = redact(text);
  if (safe === text) return error;
  try {
    JSON.parse(safe);
  } catch (redacted) {
    return redacted;
  }
  return new SyntaxError('The text is not valid JSON.');
}

function describeCause(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause;
  if (cause instanceof Error && cause.message !== '') return `${error.message} (${cause.message})`;
  return error.message;
}

function serverMessage(text: string): string {
  if (text === '') return '';
  try {
    const body = JSON.parse(text) as unknown;
    if (isRecord(body)) {
      const error = body.error;
      if (isRecord(error) && typeof error.message === 'string') return error.message;
      if (typeof error === 'string') return error;
      if (typeof body.message === 'string') return body.message;
      if (typeof body.detail === 'string') return body.detail;
    }
  } catch {
    // Not JSON: use the text.
  }
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}

function readRetryAfter(headers: Headers): number | undefined {
  const milliseconds = headers.get('retry-after-ms');
  if (milliseconds !== null) {
    const value = Number.parseFloat(milliseconds);
    if (Number.isFinite(value) && value >= 0) return Math.round(value);
  }
  const retryAfter = headers.get('retry-after');
  if (retryAfter === null) return undefined;
  const seconds = Number(retryAfter);
  if (retryAfter.trim() !== '' && Number.isFinite(seconds) && seconds >= 0)
    return Math.round(seconds * 1000);
  const date = Date.parse(retryAfter);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - Date.now());
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readUsage(value: unknown): Usage | undefined {
  if (!isRecord(value)) return undefined;
  const promptTokens = typeof value.prompt_tokens === 'number' ? value.prompt_tokens : 0;
  const completionTokens =
    typeof value.completion_tokens === 'number' ? value.completion_tokens : 0;
  const totalTokens =
    typeof value.total_tokens === 'number' ? value.total_tokens : promptTokens + completionTokens;
  return { promptTokens, completionTokens, totalTokens };
}

/**
 * Applies one SSE `data` payload and appends the normalized chunks it makes (maybe none) to
 * `batch`. `redact` cleans the server's text quoted in errors.
 * @throws {LlmError} `invalid_response` (not a JSON object), `stream_error` (an error event)
 */
function applyStreamChunk(
  data: string,
  assembler: ResponseAssembler,
  batch: ChatChunk[],
  redact: (text: string) => string,
): void {
  if (data === '') return;
  let chunk: unknown;
  try {
    chunk = JSON.parse(data);
  } catch (error) {
    if (data.trim() === '') return;
    throw new LlmError(
      'invalid_response',
      `The stream sent a data line that is not JSON: ${redact(data).slice(0, 200)}`,
      { cause: jsonErrorWithout(data, error, redact) },
    );
  }
  if (!isRecord(chunk))
    throw new LlmError(
      'invalid_response',
      `The stream sent a chunk that is not an object: ${redact(data).slice(0, 200)}`,
    );
  if (chunk.error !== undefined && chunk.error !== null) {
    const error = chunk.error;
    const message =
      isRecord(error) && typeof error.message === 'string' ? error.message : JSON.stringify(error);
    throw new LlmError(
      'stream_error',
      `The server reported an error mid-stream: ${redact(message)}`,
      { responseBody: redact(data).slice(0, maxBodyChars) },
    );
  }
  if (assembler.id === '' && typeof chunk.id === 'string') assembler.id = chunk.id;
  if (assembler.model === '' && typeof chunk.model === 'string') assembler.model = chunk.model;
  if (chunk.usage !== undefined && chunk.usage !== null) {
    const usage = readUsage(chunk.usage);
    if (usage !== undefined) assembler.usage = usage;
  }
  const choices = chunk.choices;
  if (!Array.isArray(choices) || choices.length === 0) return;
  const choice: unknown = choices[0];
  if (!isRecord(choice)) return;
  if (typeof choice.finish_reason === 'string' && choice.finish_reason !== '')
    assembler.finishReason = choice.finish_reason;
  const delta = choice.delta;
  if (!isRecord(delta)) return;
  const content = delta.content;
  if (typeof content === 'string' && content !== '') {
    assembler.addText(content);
    batch.push({ type: 'assistant_text_delta', text: content });
  }
  if (typeof delta.refusal === 'string' && delta.refusal !== '')
    assembler.addRefusal(delta.refusal);
  const toolCalls = delta.tool_calls;
  if (!Array.isArray(toolCalls)) return;
  for (const item of toolCalls) {
    if (!isRecord(item)) continue;
    const fn = isRecord(item.function) ? item.function : undefined;
    const id = typeof item.id === 'string' && item.id !== '' ? item.id : undefined;
    const name = typeof fn?.name === 'string' && fn.name !== '' ? fn.name : undefined;
    const rawArguments = fn?.arguments;
    const argumentsDelta =
      typeof rawArguments === 'string'
        ? rawArguments
        : rawArguments === undefined || rawArguments === null
          ? ''
          : JSON.stringify(rawArguments);
    const index = assembler.addToolCallDelta(
      typeof item.index === 'number' ? item.index : undefined,
      id,
      name,
      argumentsDelta,
    );
    batch.push({
      type: 'tool_call_delta',
      index,
      ...(id === undefined ? {} : { callId: id }),
      ...(name === undefined ? {} : { toolName: name }),
      argumentsDelta,
    });
  }
}

/**
 * Reads a non-streaming Chat Completions body; `redact` cleans the server's text quoted in errors.
 * @throws {LlmError} `invalid_response`, or `stream_error` for a body that carries `error`
 */
export function parseCompletion(
  body: unknown,
  redact: (text: string) => string = (text) => text,
): ChatResponse {
  if (!isRecord(body))
    throw new LlmError(
      'invalid_response',
      'The server answered with something that is not a JSON object.',
    );
  if (body.error !== undefined && body.error !== null) {
    const error = body.error;
    const message =
      isRecord(error) && typeof error.message === 'string' ? error.message : JSON.stringify(error);
    throw new LlmError('stream_error', `The server reported an error: ${redact(message)}`);
  }
  const choices = body.choices;
  const choice: unknown = Array.isArray(choices) ? choices[0] : undefined;
  if (!isRecord(choice) || !isRecord(choice.message)) {
    throw new LlmError(
      'invalid_response',
      `The server's answer has no choices[0].message: ${redact(JSON.stringify(body)).slice(0, 300)}`,
    );
  }
  const raw = choice.message;
  const toolCalls: ToolCall[] = [];
  if (Array.isArray(raw.tool_calls)) {
    for (const item of raw.tool_calls) {
      if (!isRecord(item) || !isRecord(item.function)) continue;
      const fn = item.function;
      const args = fn.arguments;
      toolCalls.push({
        id:
          typeof item.id === 'string' && item.id !== ''
            ? item.id
            : `call_${globalThis.crypto.randomUUID().replaceAll('-', '')}`,
        type: 'function',
        function: {
          name: typeof fn.name === 'string' ? fn.name : '',
          arguments:
            typeof args === 'string'
              ? args
              : args === undefined || args === null
                ? ''
                : JSON.stringify(args),
        },
      });
    }
  }
  const content = typeof raw.content === 'string' ? raw.content : null;
  const message: AssistantMessage = {
    role: 'assistant',
    content: content === null && toolCalls.length === 0 ? '' : content,
    ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
    ...(typeof raw.refusal === 'string' ? { refusal: raw.refusal } : {}),
  };
  const usage = readUsage(body.usage);
  return {
    id: typeof body.id === 'string' ? body.id : '',
    model: typeof body.model === 'string' ? body.model : '',
    message,
    finishReason:
      typeof choice.finish_reason === 'string' && choice.finish_reason !== ''
        ? choice.finish_reason
        : 'unknown',
    ...(usage === undefined ? {} : { usage }),
  };
}

/** The chunks a stream of `response` would have carried: its text, its tool calls, then itself. */
export function chunksOf(response: ChatResponse): ChatChunk[] {
  const chunks: ChatChunk[] = [];
  const { content, tool_calls: toolCalls } = response.message;
  if (content !== null && content !== '')
    chunks.push({ type: 'assistant_text_delta', text: content });
  if (toolCalls !== undefined) {
    toolCalls.forEach((call, index) => {
      chunks.push({
        type: 'tool_call_delta',
        index,
        callId: call.id,
        toolName: call.function.name,
        argumentsDelta: call.function.arguments,
      });
    });
  }
  chunks.push({ type: 'response', response });
  return chunks;
}
