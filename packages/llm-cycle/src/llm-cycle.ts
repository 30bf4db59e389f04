import type { JsonValue, ToolDefinition, ToolProgress } from '@agcore/tools-core';
import { ToolError } from '@agcore/tools-core';
import type { ToolCallRequest, ToolInvocation, ToolRegistry } from '@agcore/tools-registry';
import { sleep } from './abort.js';
import type {
  ChatCallOptions,
  ChatChunk,
  ChatProvider,
  ChatRequest,
  ChatResponse,
  Usage,
} from './chat-provider.js';
import type { CompactionOptions, CompactionStrategy, TokenEstimator } from './compaction.js';
import {
  describeBrokenToolPairs,
  dropOldestExchanges,
  estimateDefinitionTokens,
  estimateTokens,
} from './compaction.js';
import { EventStream } from './event-stream.js';
import { LlmError } from './llm-error.js';
import type { ChatMessage, ContentPart, ToolCall, ToolMessage } from './messages.js';
import type { ResolvedRetryOptions, RetryOptions } from './retry.js';
import { resolveRetryOptions, retryDelay } from './retry.js';
import type { StreamEvent, ToolExecutionCompletedEvent } from './stream-events.js';
import { truncateUtf8 } from './truncate.js';

/** Options of `LlmCycle`. */
export interface LlmCycleOptions {
  /** The model behind the cycle, e.g. `createOpenAICompatibleProvider(...)` or a `ScriptedProvider`. */
  readonly provider: ChatProvider;
  /** The model name sent with every request. */
  readonly model: string;
  /** Sent first in every request and first in `messages()`; never compacted away. */
  readonly systemPrompt?: string;
  /** Most model requests one tool loop call makes (default 10). */
  readonly maxTurns?: number;
  /** Time limit of each tool call, in milliseconds (default 60 000). */
  readonly toolTimeoutMs?: number;
  /** Tool messages longer than this many UTF-8 bytes are cut, with a marker (default 16 384, at least 64; `null` turns it off). */
  readonly maxToolResultBytes?: number | null;
  /** Retries of failed requests (408, 409, 429, 5xx, network, timeout). */
  readonly retry?: RetryOptions;
  /** Compacts the history before a request when it would exceed a token budget. Off by default. */
  readonly compaction?: CompactionOptions;
  /** What to do when the model calls a tool that is not registered: end the loop (`'fail'`, default) or tell the model (`'return_to_model'`). */
  readonly onUnknownTool?: 'fail' | 'return_to_model';
  /** The session id given to tools in `context.sessionId` (default a random UUID). */
  readonly sessionId?: string;
  /** Extra request body fields (temperature, max_tokens, tool_choice, ...), sent with every request. */
  readonly parameters?: Readonly<Record<string, JsonValue>>;
  /**
   * A history to start from, such as what `messages()` returned earlier. A leading system
   * message is taken as the system prompt (or dropped when it repeats `systemPrompt`).
   */
  readonly messages?: readonly ChatMessage[];
}

/** Options of one submit call. */
export interface SubmitOptions {
  /** Aborting it stops the request in flight and the running tools; the call rejects with `LlmError` `cancelled`. */
  readonly signal?: AbortSignal;
  /** The trace id given to this call's tools in `context.traceId` (default a fresh UUID per loop call). */
  readonly traceId?: string;
}

const zeroUsage: Usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };

interface PreparedCall {
  readonly call: ToolCall;
  readonly input: unknown;
  readonly parseError?: ToolError;
}

interface SettledCall {
  readonly message: ToolMessage;
  readonly invocation: ToolInvocation;
  readonly truncated: boolean;
}

/**
 * A conversation with a chat model: it keeps the history, retries failed requests, compacts
 * the history when it grows past a budget, and runs the automatic tool loop against a
 * `ToolRegistry`, streaming or not.
 *
 * History rule: a call adds its prompt and every turn it completed; a call that fails before
 * the first response leaves the history as it was. An assistant message with tool calls is
 * always followed by one tool message per call, whatever happens. Only one submit may run at
 * a time on a cycle (another one rejects with `busy`).
 */
export class LlmCycle {
  /** The session id tools see in `context.sessionId`. */
  readonly sessionId: string;
  readonly #provider: ChatProvider;
  readonly #model: string;
  readonly #system: ChatMessage | undefined;
  readonly #maxTurns: number;
  readonly #toolTimeoutMs: number;
  readonly #maxToolResultBytes: number | null;
  readonly #retry: ResolvedRetryOptions;
  readonly #compaction:
    | { maxTokens: number; strategy: CompactionStrategy; estimate: TokenEstimator }
    | undefined;
  readonly #returnUnknownTool: boolean;
  readonly #parameters: Readonly<Record<string, JsonValue>> | undefined;
  #history: ChatMessage[];
  #usage: Usage = zeroUsage;
  #busy = false;

  /**
   * @throws {RangeError} when a number option is out of range (maxTurns < 1, negative timeouts or sizes).
   * @throws {TypeError} when `messages` starts with a system message other than `systemPrompt`.
   */
  constructor(options: LlmCycleOptions) {
    this.#provider = options.provider;
    this.#model = options.model;
    const [first, ...rest] = options.messages ?? [];
    const savedSystem = first?.role === 'system' ? first : undefined;
    if (
      savedSystem !== undefined &&
      options.systemPrompt !== undefined &&
      savedSystem.content !== options.systemPrompt
    ) {
      throw new TypeError(
        'LlmCycle: `messages` starts with a system message that differs from `systemPrompt`; give the system prompt once (either option).',
      );
    }
    this.#system =
      options.systemPrompt === undefined
        ? savedSystem
        : { role: 'system', content: options.systemPrompt };
    this.#maxTurns = options.maxTurns ?? 10;
    if (!Number.isInteger(this.#maxTurns) || this.#maxTurns < 1) {
      throw new RangeError(`LlmCycle: maxTurns must be an integer >= 1, got ${options.maxTurns}.`);
    }
    this.#toolTimeoutMs = options.toolTimeoutMs ?? 60_000;
    if (!(this.#toolTimeoutMs > 0))
      throw new RangeError(`LlmCycle: toolTimeoutMs must be > 0, got ${options.toolTimeoutMs}.`);
    this.#maxToolResultBytes =
      options.maxToolResultBytes === undefined ? 16 * 1024 : options.maxToolResultBytes;
    // Below 64 bytes the truncation marker itself would not fit.
    if (this.#maxToolResultBytes !== null && !(this.#maxToolResultBytes >= 64)) {
      throw new RangeError(
        `LlmCycle: maxToolResultBytes must be at least 64 (room for the truncation marker) or null, got ${options.maxToolResultBytes}.`,
      );
    }
    this.#retry = resolveRetryOptions(options.retry);
    if (options.compaction !== undefined) {
      if (!(options.compaction.maxTokens > 0)) {
        throw new RangeError(
          `LlmCycle: compaction.maxTokens must be > 0, got ${options.compaction.maxTokens}.`,
        );
      }
      this.#compaction = {
        maxTokens: options.compaction.maxTokens,
        strategy: options.compaction.strategy ?? dropOldestExchanges(),
        estimate: options.compaction.estimateTokens ?? estimateTokens,
      };
    }
    this.#returnUnknownTool = options.onUnknownTool === 'return_to_model';
    this.#parameters = options.parameters;
    this.sessionId = options.sessionId ?? globalThis.crypto.randomUUID();
    this.#history =
      options.messages === undefined
        ? []
        : savedSystem === undefined
          ? [...options.messages]
          : rest;
  }

  /**
   * The full history, as the next request would send it: the system prompt first (when there
   * is one), then every message of the conversation so far (after compaction). A copy.
   */
  messages(): ChatMessage[] {
    return this.#system === undefined ? [...this.#history] : [this.#system, ...this.#history];
  }

  /** Token use summed over every request of this cycle (responses without usage count as 0). */
  usage(): Usage {
    return this.#usage;
  }

  /**
   * Sends `prompt` as a user message and resolves to the answer (no tools).
   * @throws {LlmError} `http_error`, `network`, `timeout`, `invalid_response`, `stream_error`, `cancelled`, `compaction_failed`, `busy`, `provider_error`
   */
  submit(
    prompt: string | readonly ContentPart[],
    options: SubmitOptions = {},
  ): Promise<ChatResponse> {
    return drain(this.#run([{ role: 'user', content: prompt }], undefined, false, options));
  }

  /**
   * Appends `messages` to the history and asks the model (no tools). An empty array just asks again.
   * @throws {LlmError} as `submit`
   */
  submitMessages(
    messages: readonly ChatMessage[],
    options: SubmitOptions = {},
  ): Promise<ChatResponse> {
    return drain(this.#run([...messages], undefined, false, options));
  }

  /**
   * Streams the answer to `prompt` (no tools): `assistant_text_delta` events, then `turn_complete`.
   * The generator's return value is the response. Stopping the iteration early cancels the request.
   * @throws {LlmError} while iterating, as `submit`
   */
  submitStream(
    prompt: string | readonly ContentPart[],
    options: SubmitOptions = {},
  ): AsyncGenerator<StreamEvent, ChatResponse, undefined> {
    return new EventStream(
      this.#run([{ role: 'user', content: prompt }], undefined, true, options),
    );
  }

  /**
   * Sends `prompt` with the registry's tool definitions and runs the tool loop: while the
   * assistant message carries tool calls, runs them (in parallel, through `registry.invokeAll`)
   * and asks again. Resolves to the final response.
   * @throws {LlmError} as `submit`, plus `max_turns_exceeded` (with `response`) and `tool_error` (with the `ToolError` as `cause`)
   */
  submitWithTools(
    prompt: string | readonly ContentPart[],
    registry: ToolRegistry,
    options: SubmitOptions = {},
  ): Promise<ChatResponse> {
    return drain(this.#run([{ role: 'user', content: prompt }], registry, false, options));
  }

  /**
   * `submitWithTools`, streamed: see `StreamEvent` for the events and their order. The
   * generator's return value is the final response; errors are thrown while iterating, and the
   * history is what `submitWithTools` would leave. Stopping the iteration early (`break`)
   * cancels the request and the running tools.
   * @throws {LlmError} while iterating, as `submitWithTools`
   */
  submitStreamWithTools(
    prompt: string | readonly ContentPart[],
    registry: ToolRegistry,
    options: SubmitOptions = {},
  ): AsyncGenerator<StreamEvent, ChatResponse, undefined> {
    return new EventStream(this.#run([{ role: 'user', content: prompt }], registry, true, options));
  }

  /**
   * The cycle, streaming (`emit`: yields the events, in batches) or not (yields nothing).
   * The one place that touches the history; see the class comment for its rules.
   */
  async *#run(
    added: ChatMessage[],
    registry: ToolRegistry | undefined,
    emit: boolean,
    options: SubmitOptions,
  ): AsyncGenerator<readonly StreamEvent[], ChatResponse, undefined> {
    if (this.#busy) {
      throw new LlmError(
        'busy',
        'This LlmCycle is already running a submit; wait for it (or use another LlmCycle) before submitting again.',
      );
    }
    const callerSignal = options.signal;
    if (callerSignal?.aborted) {
      throw new LlmError('cancelled', 'The call was cancelled before it started.', {
        cause: callerSignal.reason,
      });
    }
    this.#busy = true;
    const controller = new AbortController();
    const signal = controller.signal;
    const onAbort = (): void => controller.abort(callerSignal?.reason);
    callerSignal?.addEventListener('abort', onAbort, { once: true });
    // The provider gets the caller's signal only: a consumer that stops a stream early closes it
    // through the iterator, and fetch with a signal costs measurably more per request.
    const providerOptions: ChatCallOptions =
      callerSignal === undefined ? {} : { signal: callerSignal };
    let committed = false;
    for (const message of added) this.#history.push(message);
    try {
      const definitions: readonly ToolDefinition[] =
        registry === undefined ? [] : registry.definitions();
      const definitionTokens =
        this.#compaction === undefined ? 0 : estimateDefinitionTokens(definitions);
      const traceId = options.traceId ?? globalThis.crypto.randomUUID();
      for (let turn = 1; ; turn++) {
        if (this.#compaction !== undefined) await this.#compact(definitionTokens, signal);
        const request: ChatRequest = {
          model: this.#model,
          messages:
            this.#system === undefined ? this.#history.slice() : [this.#system, ...this.#history],
          ...(definitions.length > 0 ? { tools: definitions } : {}),
          ...(this.#parameters === undefined ? {} : { parameters: this.#parameters }),
        };

        let response: ChatResponse | undefined;
        if (emit) {
          for (let attempt = 1; response === undefined; attempt++) {
            let yielded = false;
            try {
              const provider = this.#provider;
              if (provider.chatStreamBatches !== undefined) {
                for await (const batch of provider.chatStreamBatches(request, providerOptions)) {
                  // A batch is yielded as it is unless it holds the `response` chunk.
                  let events: readonly ChatChunk[] = batch;
                  for (const chunk of batch) {
                    if (chunk.type === 'response') {
                      response = chunk.response;
                      events = batch.filter((item) => item.type !== 'response');
                    }
                  }
                  if (events.length > 0) {
                    yielded = true;
                    yield events as readonly StreamEvent[];
                  }
                }
              } else {
                for await (const chunk of provider.chatStream(request, providerOptions)) {
                  if (chunk.type !== 'response') {
                    yielded = true;
                    yield [chunk];
                  } else {
                    response = chunk.response;
                  }
                }
              }
              if (response === undefined) {
                throw new LlmError(
                  'invalid_response',
                  'The provider stream ended without its final response chunk.',
                );
              }
            } catch (error) {
              if (yielded) throw error;
              await this.#beforeRetry(error, attempt, signal);
            }
          }
        } else {
          for (let attempt = 1; response === undefined; attempt++) {
            try {
              response = await this.#provider.chat(request, providerOptions);
            } catch (error) {
              await this.#beforeRetry(error, attempt, signal);
            }
          }
        }

        if (response.usage !== undefined) {
          const total = this.#usage;
          this.#usage = {
            promptTokens: total.promptTokens + response.usage.promptTokens,
            completionTokens: total.completionTokens + response.usage.completionTokens,
            totalTokens: total.totalTokens + response.usage.totalTokens,
          };
        }
        const calls = response.message.tool_calls;
        if (registry === undefined || calls === undefined || calls.length === 0) {
          this.#history.push(response.message);
          committed = true;
          if (emit) {
            yield [
              {
                type: 'turn_complete',
                reason: response.finishReason,
                ...(response.usage === undefined ? {} : { usage: response.usage }),
              },
            ];
          }
          return response;
        }

        const prepared = calls.map(prepareCall);
        const settled: (SettledCall | undefined)[] = new Array(prepared.length);
        const queue = emit ? new EventQueue<StreamEvent>() : undefined;
        // The calls start now; events about them are yielded in the design's order, and the
        // queue holds progress and completions until `turn_complete` has been yielded.
        const running = this.#runTools(registry, prepared, settled, queue, signal, traceId);
        let drained = false;
        let toolsFailure: unknown;
        try {
          if (queue !== undefined) {
            running.then(
              () => queue.close(),
              () => queue.close(),
            );
            const started: StreamEvent[] = prepared.map(({ call, input }) => ({
              type: 'tool_execution_started',
              toolName: call.function.name,
              callId: call.id,
              input,
            }));
            started.push({
              type: 'turn_complete',
              reason: 'tool_calls',
              ...(response.usage === undefined ? {} : { usage: response.usage }),
            });
            yield started;
            for (let events = await queue.take(); events !== undefined; events = await queue.take())
              yield events;
          }
          drained = true;
        } finally {
          // A consumer that stopped iterating early cancels the calls still running; either way
          // the assistant message is committed with one tool message per call.
          if (!drained)
            controller.abort(new LlmError('cancelled', 'The stream consumer stopped iterating.'));
          toolsFailure = await running.then(
            () => undefined,
            (error: unknown) => error ?? new Error('invokeAll rejected'),
          );
          this.#history.push(
            response.message,
            ...prepared.map(
              (entry, index) => this.#settledOrCancelled(entry, settled[index]).message,
            ),
          );
          committed = true;
        }
        if (signal.aborted) throw this.#cancelled(callerSignal, undefined);
        if (toolsFailure !== undefined) {
          throw new LlmError(
            'tool_error',
            `Running the tool calls failed: ${toolsFailure instanceof Error ? toolsFailure.message : String(toolsFailure)}`,
            {
              cause: toolsFailure,
            },
          );
        }
        const fatal = this.#firstFatal(settled);
        if (fatal !== undefined) {
          const { error, toolName } = fatal;
          throw new LlmError(
            'tool_error',
            `Tool '${toolName}' failed with ${error.code} (${error.message}); the tool loop stopped. The history is whole: fix the cause and submit again to go on.`,
            { cause: error, toolName },
          );
        }
        if (turn >= this.#maxTurns) {
          throw new LlmError(
            'max_turns_exceeded',
            `The tool loop reached maxTurns (${this.#maxTurns}) and the model still calls tools; raise maxTurns or submit again to go on. The last response is in error.response.`,
            { response },
          );
        }
      }
    } catch (error) {
      if (signal.aborted) throw this.#cancelled(callerSignal, error);
      if (LlmError.isInstance(error)) throw error;
      throw new LlmError(
        'provider_error',
        `The chat provider failed: ${error instanceof Error ? error.message : String(error)}`,
        {
          cause: error,
        },
      );
    } finally {
      if (!committed) {
        const drop = new Set(added);
        this.#history = this.#history.filter((message) => !drop.has(message));
      }
      callerSignal?.removeEventListener('abort', onAbort);
      this.#busy = false;
    }
  }

  async #beforeRetry(error: unknown, attempt: number, signal: AbortSignal): Promise<void> {
    if (signal.aborted) throw error;
    const delayMs = retryDelay(error, attempt, this.#retry);
    if (delayMs === undefined || !LlmError.isInstance(error)) throw error;
    try {
      this.#retry.onRetry?.({ attempt, delayMs, error });
    } catch {
      // A logging hook must not change the outcome of the request.
    }
    await sleep(delayMs, signal);
  }

  #cancelled(callerSignal: AbortSignal | undefined, cause: unknown): LlmError {
    if (LlmError.isInstance(cause) && cause.code === 'cancelled') return cause;
    return new LlmError(
      'cancelled',
      'The call was cancelled; the history keeps every turn that completed.',
      {
        cause: cause ?? callerSignal?.reason,
      },
    );
  }

  async #compact(definitionTokens: number, signal: AbortSignal): Promise<void> {
    const compaction = this.#compaction;
    if (compaction === undefined) return;
    const systemTokens = this.#system === undefined ? 0 : compaction.estimate([this.#system]);
    const budget = compaction.maxTokens - systemTokens - definitionTokens;
    if (compaction.estimate(this.#history) <= budget) return;
    let result: readonly ChatMessage[];
    try {
      result = await compaction.strategy({
        messages: this.#history.slice(),
        maxTokens: budget,
        estimateTokens: compaction.estimate,
        signal,
      });
    } catch (error) {
      if (signal.aborted) throw error;
      throw new LlmError(
        'compaction_failed',
        `The compaction strategy failed: ${error instanceof Error ? error.message : String(error)}`,
        {
          cause: error,
        },
      );
    }
    if (!Array.isArray(result))
      throw new LlmError(
        'compaction_failed',
        'The compaction strategy did not return an array of messages.',
      );
    const broken = describeBrokenToolPairs(result);
    if (broken !== undefined) {
      throw new LlmError(
        'compaction_failed',
        `The compaction strategy broke a tool-call pair: ${broken}. Keep each assistant tool-call message with its tool messages.`,
      );
    }
    this.#history = [...result];
  }

  async #runTools(
    registry: ToolRegistry,
    prepared: readonly PreparedCall[],
    settled: (SettledCall | undefined)[],
    queue: EventQueue<StreamEvent> | undefined,
    signal: AbortSignal,
    traceId: string,
  ): Promise<void> {
    const requests: ToolCallRequest[] = [];
    const positions: number[] = [];
    prepared.forEach((entry, index) => {
      if (entry.parseError !== undefined) {
        const invocation: ToolInvocation = {
          toolName: entry.call.function.name,
          callId: entry.call.id,
          input: entry.input,
          output: { ok: false, error: entry.parseError },
          durationMs: 0,
        };
        settled[index] = this.#settle(entry, invocation, registry);
        queue?.push(completedEvent(entry.call, settled[index]));
        return;
      }
      requests.push({ name: entry.call.function.name, args: entry.input, callId: entry.call.id });
      positions.push(index);
    });
    if (requests.length === 0) return;
    const invocations = await registry.invokeAll(requests, {
      timeoutMs: this.#toolTimeoutMs,
      signal,
      context: { sessionId: this.sessionId, traceId },
      ...(queue === undefined
        ? {}
        : {
            onProgress: (progress: ToolProgress, call: ToolCallRequest) => {
              queue.push({
                type: 'tool_execution_progress',
                toolName: call.name,
                callId: call.callId ?? '',
                progress,
              });
            },
            onResult: (invocation: ToolInvocation, index: number) => {
              const position = positions[index] ?? index;
              const entry = prepared[position];
              if (entry === undefined) return;
              const result = this.#settle(entry, invocation, registry);
              settled[position] = result;
              queue.push(completedEvent(entry.call, result));
            },
          }),
    });
    invocations.forEach((invocation, index) => {
      const position = positions[index] ?? index;
      const entry = prepared[position];
      if (entry !== undefined && settled[position] === undefined)
        settled[position] = this.#settle(entry, invocation, registry);
    });
  }

  #settle(entry: PreparedCall, invocation: ToolInvocation, registry: ToolRegistry): SettledCall {
    let content: string;
    if (invocation.output.ok) {
      const value = invocation.output.value;
      content = typeof value === 'string' ? value : JSON.stringify(value);
    } else {
      const error = invocation.output.error;
      content = `Error [${error.code}]: ${error.message}`;
      if (error.code === 'not_found' && this.#returnUnknownTool) {
        content += ` Available tools: ${registry.listTools().join(', ') || '(none)'}.`;
      }
    }
    let truncated = false;
    if (this.#maxToolResultBytes !== null) {
      const cut = truncateUtf8(content, this.#maxToolResultBytes);
      content = cut.text;
      truncated = cut.truncated;
    }
    return {
      message: { role: 'tool', tool_call_id: entry.call.id, content },
      invocation,
      truncated,
    };
  }

  #settledOrCancelled(entry: PreparedCall, settled: SettledCall | undefined): SettledCall {
    if (settled !== undefined) return settled;
    const error = new ToolError(
      'cancelled',
      `Tool '${entry.call.function.name}' was cancelled before it finished.`,
      {
        toolName: entry.call.function.name,
      },
    );
    return {
      message: {
        role: 'tool',
        tool_call_id: entry.call.id,
        content: `Error [cancelled]: ${error.message}`,
      },
      invocation: {
        toolName: entry.call.function.name,
        callId: entry.call.id,
        input: entry.input,
        output: { ok: false, error },
        durationMs: 0,
      },
      truncated: false,
    };
  }

  /** The first fatal tool error of the turn (in call order) and the tool it came from. */
  #firstFatal(
    settled: readonly (SettledCall | undefined)[],
  ): { error: ToolError; toolName: string } | undefined {
    for (const result of settled) {
      if (result === undefined || result.invocation.output.ok) continue;
      const error = result.invocation.output.error;
      if (error.isRecoverable()) continue;
      if (error.code === 'not_found' && this.#returnUnknownTool) continue;
      return { error, toolName: error.toolName ?? result.invocation.toolName };
    }
    return undefined;
  }
}

function prepareCall(call: ToolCall): PreparedCall {
  const raw = call.function.arguments;
  if (raw.trim() === '') return { call, input: {} };
  try {
    return { call, input: JSON.parse(raw) as unknown };
  } catch (error) {
    const name = call.function.name;
    return {
      call,
      input: raw,
      parseError: new ToolError(
        'invalid_arguments',
        `The arguments of tool '${name}' are not valid JSON (${error instanceof Error ? error.message : String(error)}). Call it again with a JSON object that matches its parameters schema.`,
        { toolName: name, cause: error },
      ),
    };
  }
}

function completedEvent(call: ToolCall, result: SettledCall): ToolExecutionCompletedEvent {
  const { output, durationMs } = result.invocation;
  return output.ok
    ? {
        type: 'tool_execution_completed',
        toolName: call.function.name,
        callId: call.id,
        output: output.value,
        durationMs,
        truncated: result.truncated,
      }
    : {
        type: 'tool_execution_completed',
        toolName: call.function.name,
        callId: call.id,
        error: output.error,
        durationMs,
        truncated: result.truncated,
      };
}

async function drain(
  generator: AsyncGenerator<readonly StreamEvent[], ChatResponse, undefined>,
): Promise<ChatResponse> {
  for (;;) {
    const step = await generator.next();
    if (step.done === true) return step.value;
  }
}

/** A single-consumer queue of events pushed by callbacks and taken by the stream, all at once. */
class EventQueue<T> {
  #items: T[] = [];
  #closed = false;
  #wake: (() => void) | undefined;

  push(item: T): void {
    this.#items.push(item);
    this.#notify();
  }

  close(): void {
    this.#closed = true;
    this.#notify();
  }

  /** Every item pushed since the last call (waiting for one), or `undefined` once closed and empty. */
  async take(): Promise<T[] | undefined> {
    for (;;) {
      if (this.#items.length > 0) {
        const items = this.#items;
        this.#items = [];
        return items;
      }
      if (this.#closed) return undefined;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
    }
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}
