import type { ToolRegistry } from '@agcore/tools-registry';
import type { ChatRequest, ChatResponse, Usage } from './chat-provider.js';
import { compactHistory } from './compaction.js';
import {
  type LlmCycleOptions,
  type ResolvedCycleOptions,
  resolveCycleOptions,
  type SubmitOptions,
} from './cycle-options.js';
import { EventQueue } from './event-queue.js';
import { EventStream } from './event-stream.js';
import { LlmError } from './llm-error.js';
import type { ChatMessage, ContentPart } from './messages.js';
import type { ModelCall } from './model-request.js';
import type { StreamEvent } from './stream-events.js';
import {
  cancelledError,
  drain,
  finalResponse,
  openSubmission,
  type Submission,
  turnComplete,
} from './submission.js';
import { type ToolStepSettings, ToolTurn } from './tool-step.js';
import {
  loadTracingApi,
  SubmitTrace,
  streamedRequest,
  wantsSpans,
  wholeRequest,
} from './tracing.js';

export type { LlmCycleOptions, SubmitOptions } from './cycle-options.js';

const zeroUsage: Usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };

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
  readonly #options: ResolvedCycleOptions;
  #history: ChatMessage[];
  #usage: Usage = zeroUsage;
  #busy = false;

  /**
   * @throws {RangeError} when a number option is out of range (maxTurns < 1, negative timeouts or sizes, maxParallelToolCalls < 1).
   * @throws {TypeError} when `messages` starts with a system message other than `systemPrompt`.
   */
  constructor(options: LlmCycleOptions) {
    this.#options = resolveCycleOptions(options);
    this.#history = this.#options.history;
    this.sessionId = this.#options.sessionId;
  }

  /**
   * The full history, as the next request would send it: the system prompt first (when there
   * is one), then every message of the conversation so far (after compaction). A copy.
   */
  messages(): ChatMessage[] {
    const system = this.#options.system;
    return system === undefined ? [...this.#history] : [system, ...this.#history];
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
   * Streams the answer to `prompt` (no tools): `assistant_reasoning_delta` and
   * `assistant_text_delta` events, then `turn_complete`. The generator's return value is the
   * response. Stopping the iteration early cancels the request.
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
   * assistant message carries tool calls, runs them (in parallel, each through
   * `registry.invoke`, at most `maxParallelToolCalls` at once) and asks again. Resolves to the
   * final response.
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
   * The loop, streaming (`emit`: yields the events, in batches) or not (yields nothing): a model
   * request, then the tool step when the answer calls tools, until an answer without calls.
   * The one place that touches the history; see the class comment for its rules.
   */
  async *#run(
    added: ChatMessage[],
    registry: ToolRegistry | undefined,
    emit: boolean,
    options: SubmitOptions,
  ): AsyncGenerator<readonly StreamEvent[], ChatResponse, undefined> {
    if (wantsSpans(this.#options.tracing)) await loadTracingApi();
    const submission = this.#begin(added, registry, emit, options);
    let failure: LlmError | undefined;
    try {
      for (let turn = 1; ; turn++) {
        if (this.#options.compaction !== undefined) await this.#compact(submission);
        const call = this.#modelCall(submission);
        const response = emit
          ? yield* streamedRequest(call, submission.trace)
          : await wholeRequest(call, submission.trace);
        this.#addUsage(response.usage);
        const calls = response.message.tool_calls;
        if (registry === undefined || calls === undefined || calls.length === 0) {
          const final = finalResponse(response, registry !== undefined);
          this.#history.push(final.message);
          submission.committed = true;
          if (emit) yield [turnComplete(final.finishReason, final.usage)];
          return final;
        }
        const toolTurn = new ToolTurn(response.message);
        if (emit) yield* this.#streamTools(toolTurn, response, registry, submission);
        else await this.#runTools(toolTurn, registry, submission);
        this.#afterTools(toolTurn, response, turn, submission);
      }
    } catch (error) {
      failure = this.#failure(error, submission);
      throw failure;
    } finally {
      this.#end(submission);
      submission.trace?.end(failure);
    }
  }

  /** Starts a submit: refuses a second one and an aborted signal, adds the prompt to the history. */
  #begin(
    added: ChatMessage[],
    registry: ToolRegistry | undefined,
    emit: boolean,
    options: SubmitOptions,
  ): Submission {
    if (this.#busy) {
      throw new LlmError(
        'busy',
        'This LlmCycle is already running a submit; wait for it (or use another LlmCycle) before submitting again.',
      );
    }
    if (options.signal?.aborted) {
      throw new LlmError('cancelled', 'The call was cancelled before it started.', {
        cause: options.signal.reason,
      });
    }
    const submission = openSubmission(added, registry, emit, options, this.#options.compaction);
    if (wantsSpans(this.#options.tracing)) submission.trace = SubmitTrace.start(this.#options);
    this.#busy = true;
    submission.callerSignal?.addEventListener('abort', submission.onAbort, { once: true });
    for (const message of added) this.#history.push(message);
    return submission;
  }

  /** Compacts the history when it is over the budget (see `compactHistory`). */
  async #compact(submission: Submission): Promise<void> {
    const options = this.#options;
    if (options.compaction === undefined) return;
    const compacted = await compactHistory(
      this.#history,
      options.system,
      submission.definitionTokens,
      options.compaction,
      submission.controller.signal,
    );
    if (compacted !== undefined) this.#history = compacted;
  }

  /** The next model request: the history, the tools, the parameters. */
  #modelCall(submission: Submission): ModelCall {
    const options = this.#options;
    const request: ChatRequest = {
      model: options.model,
      messages: this.messages(),
      ...(submission.definitions.length > 0 ? { tools: submission.definitions } : {}),
      ...(options.parameters === undefined ? {} : { parameters: options.parameters }),
    };
    return {
      provider: options.provider,
      request,
      options: submission.providerOptions,
      retry: options.retry,
      signal: submission.controller.signal,
    };
  }

  /**
   * The tool step, streamed: the calls start at once; their `tool_execution_started` events and
   * `turn_complete` go first, then progress and completions as they come. The assistant message
   * is committed with one tool message per call, also when the consumer stops early (which
   * cancels the calls still running).
   */
  async *#streamTools(
    toolTurn: ToolTurn,
    response: ChatResponse,
    registry: ToolRegistry,
    submission: Submission,
  ): AsyncGenerator<readonly StreamEvent[], void, undefined> {
    const queue = new EventQueue<StreamEvent>();
    const running = toolTurn.run(this.#toolSettings(registry, submission, queue));
    void running.then(() => queue.close());
    let drained = false;
    try {
      const started: StreamEvent[] = toolTurn.startedEvents();
      started.push(turnComplete('tool_calls', response.usage));
      yield started;
      for (let events = await queue.take(); events !== undefined; events = await queue.take())
        yield events;
      drained = true;
    } finally {
      if (!drained)
        submission.controller.abort(
          new LlmError('cancelled', 'The stream consumer stopped iterating.'),
        );
      await running;
      this.#commit(toolTurn, submission);
    }
  }

  /** The tool step, not streamed: every call of the turn, then the commit. */
  async #runTools(
    toolTurn: ToolTurn,
    registry: ToolRegistry,
    submission: Submission,
  ): Promise<void> {
    try {
      await toolTurn.run(this.#toolSettings(registry, submission, undefined));
    } finally {
      this.#commit(toolTurn, submission);
    }
  }

  #toolSettings(
    registry: ToolRegistry,
    submission: Submission,
    events: EventQueue<StreamEvent> | undefined,
  ): ToolStepSettings {
    const options = this.#options;
    return {
      registry,
      sessionId: this.sessionId,
      traceId: submission.trace?.traceId ?? submission.traceId,
      runInTrace: submission.trace?.runInContext,
      toolTimeoutMs: options.toolTimeoutMs,
      maxParallelToolCalls: options.maxParallelToolCalls,
      maxToolResultBytes: options.maxToolResultBytes,
      returnUnknownTool: options.returnUnknownTool,
      signal: submission.controller.signal,
      events,
    };
  }

  #commit(toolTurn: ToolTurn, submission: Submission): void {
    this.#history.push(toolTurn.message, ...toolTurn.toolMessages());
    submission.committed = true;
  }

  /** After a tool step: stops on cancel, on a fatal tool error and at `maxTurns`. */
  #afterTools(
    toolTurn: ToolTurn,
    response: ChatResponse,
    turn: number,
    submission: Submission,
  ): void {
    if (submission.controller.signal.aborted) throw cancelledError(submission, undefined);
    const fatal = toolTurn.firstFatal(this.#options.returnUnknownTool);
    if (fatal !== undefined) {
      const { error, toolName } = fatal;
      throw new LlmError(
        'tool_error',
        `Tool '${toolName}' failed with ${error.code} (${error.message}); the tool loop stopped. The history is whole: fix the cause and submit again to go on.`,
        { cause: error, toolName },
      );
    }
    if (turn >= this.#options.maxTurns) {
      throw new LlmError(
        'max_turns_exceeded',
        `The tool loop reached maxTurns (${this.#options.maxTurns}) and the model still calls tools; raise maxTurns or submit again to go on. The last response is in error.response.`,
        { response },
      );
    }
  }

  #addUsage(usage: Usage | undefined): void {
    if (usage === undefined) return;
    const total = this.#usage;
    this.#usage = {
      promptTokens: total.promptTokens + usage.promptTokens,
      completionTokens: total.completionTokens + usage.completionTokens,
      totalTokens: total.totalTokens + usage.totalTokens,
    };
  }

  /** What a submit throws: `cancelled` once aborted, an `LlmError` as is, else `provider_error`. */
  #failure(error: unknown, submission: Submission): LlmError {
    if (submission.controller.signal.aborted) return cancelledError(submission, error);
    if (LlmError.isInstance(error)) return error;
    return new LlmError(
      'provider_error',
      `The chat provider failed: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }

  /** Ends a submit: a call that committed nothing leaves the history as it was. */
  #end(submission: Submission): void {
    if (!submission.committed) {
      const drop = new Set(submission.added);
      this.#history = this.#history.filter((message) => !drop.has(message));
    }
    submission.callerSignal?.removeEventListener('abort', submission.onAbort);
    this.#busy = false;
  }
}
