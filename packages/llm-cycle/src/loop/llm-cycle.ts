import { describeThrown } from '@agcore/tools-core';
import type { ToolRegistry } from '@agcore/tools-registry';
import type { ChatResponse, Usage } from '../chat-provider.js';
import { ContextBudget } from '../context/context-budget.js';
import type { RequestBreakdown } from '../context/request-breakdown.js';
import { LlmError } from '../llm-error.js';
import type { ChatMessage, ContentPart } from '../messages.js';
import {
  SubmitTrace,
  streamedRequest,
  wantsSpans,
  wholeRequest,
} from '../observability/tracing.js';
import type { Interruption, ResumeDecision, RunState } from '../runs/run-state.js';
import { claimResume } from '../runs/run-store.js';
import type { StreamEvent } from '../stream-events.js';
import { Conversation } from './conversation.js';
import {
  type LlmCycleOptions,
  type ResolvedCycleOptions,
  resolveCycleOptions,
  type SubmitOptions,
} from './cycle-options.js';
import { EventStream } from './event-stream.js';
import { LoopRounds } from './loop-rounds.js';
import { RunCounters } from './run-counters.js';
import {
  cancelledError,
  drain,
  finalResponse,
  openSubmission,
  type Submission,
  turnComplete,
} from './submission.js';
import type { Round } from './tool-round.js';
import { TurnRequests } from './turn-request.js';

export type { LlmCycleOptions, SubmitOptions } from './cycle-options.js';

/** How a run starts: with new messages, or with the decisions on a paused turn. */
interface RunStart {
  readonly added: ChatMessage[];
  readonly resumed?: { readonly round: Round; readonly run: RunCounters };
}

/**
 * A conversation with a chat model: it keeps the history, retries failed requests, compacts
 * the history when it grows past a budget, and runs the automatic tool loop against a
 * `ToolRegistry`, streaming or not — pausing when calls wait for a person, resuming later
 * (`resume`, possibly in another process from `state()`).
 *
 * History rule: a call adds its prompt and every turn it completed; a call that fails before
 * the first response leaves the history as it was. An assistant message with tool calls is
 * always followed by one tool message per call, whatever happens; a paused turn is not in the
 * history until it is resumed or abandoned. Only one submit may run at a time on a cycle, and
 * none while it is paused (`busy`).
 */
export class LlmCycle {
  /** The session id tools see in `context.sessionId`. */
  readonly sessionId: string;
  readonly #options: ResolvedCycleOptions;
  readonly #conversation: Conversation;
  readonly #budget: ContextBudget;
  readonly #requests: TurnRequests;
  #busy = false;

  /**
   * @throws {RangeError} when a number option is out of range (maxTurns < 1, negative timeouts or sizes, maxParallelToolCalls < 1, loopDetection.maxRepeats < 1) or `stateSecret` is under 32 bytes.
   * @throws {TypeError} when `messages` starts with a system message other than `systemPrompt`, or `state` comes with `messages` or another `sessionId`.
   * @throws {LlmError} `state_mismatch` when `state` is refused (malformed, another version, altered pending calls, a bad HMAC).
   */
  constructor(options: LlmCycleOptions) {
    const resolved = resolveCycleOptions(options);
    this.#options = resolved;
    this.#conversation = new Conversation(
      resolved.system,
      resolved.history,
      resolved.usage,
      resolved.pending,
      resolved.run,
    );
    this.sessionId = resolved.sessionId;
    this.#budget = new ContextBudget(resolved);
    this.#requests = new TurnRequests(resolved, this.#conversation, this.#budget);
  }

  /**
   * Where the context of the last model request went: bytes and estimated tokens of the system
   * prompt, the tool definitions, the history and the new tool results, as sent (after
   * `clearOldResults`), with the usage the server reported for it when it did. `undefined`
   * before the first request.
   */
  lastRequestBreakdown(): RequestBreakdown | undefined {
    return this.#budget.lastRequestBreakdown();
  }

  /**
   * The full history, as the next request would send it: the system prompt first (when there
   * is one), then every message of the conversation so far (after compaction; whole, where
   * `clearOldResults` clears only what is sent). A copy.
   */
  messages(): ChatMessage[] {
    return this.#conversation.messages();
  }

  /** Token use summed over every request of this cycle (responses without usage count as 0). */
  usage(): Usage {
    return this.#conversation.usage;
  }

  /**
   * The cycle at rest as plain JSON: history, token use and the paused run (or `null`), with its
   * HMAC when `stateSecret` is set. Give it to `new LlmCycle({ ...options, state })`.
   * @throws {LlmError} `busy` while a submit runs
   */
  state(): RunState {
    this.#refuseWhileRunning('state()');
    return this.#conversation.state(this.sessionId, this.#options.stateSecret);
  }

  /** The calls the paused run waits on, in call order; empty when the cycle is not paused. */
  interruptions(): Interruption[] {
    return this.#conversation.interruptions();
  }

  /**
   * Ends the paused run without running its waiting calls: each is answered `Error [cancelled]:
   * reason`, and the turn goes into the history. Does nothing when the cycle is not paused.
   * @throws {TypeError} for a reason that is not a string
   * @throws {LlmError} `busy` while a submit runs (cancel it with its signal)
   */
  abandon(reason: string): void {
    if (typeof reason !== 'string') throw new TypeError('abandon: reason must be a string.');
    this.#refuseWhileRunning('abandon()');
    this.#conversation.abandon(reason, this.#options.maxToolResultBytes);
  }

  /**
   * Sends `prompt` as a user message and resolves to the answer (no tools).
   * @throws {LlmError} `http_error`, `rate_limited`, `network`, `timeout`, `invalid_response`, `stream_error`, `cancelled`, `compaction_failed`, `busy`, `provider_error`
   */
  submit(
    prompt: string | readonly ContentPart[],
    options: SubmitOptions = {},
  ): Promise<ChatResponse> {
    return drain(
      this.#run({ added: [{ role: 'user', content: prompt }] }, undefined, false, options),
    );
  }

  /**
   * Appends `messages` to the history and asks the model (no tools). An empty array just asks again.
   * @throws {LlmError} as `submit`
   */
  submitMessages(
    messages: readonly ChatMessage[],
    options: SubmitOptions = {},
  ): Promise<ChatResponse> {
    return drain(this.#run({ added: [...messages] }, undefined, false, options));
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
      this.#run({ added: [{ role: 'user', content: prompt }] }, undefined, true, options),
    );
  }

  /**
   * Sends `prompt` with the registry's tool definitions and runs the tool loop: while the
   * assistant message carries tool calls, runs them (in parallel, each through
   * `registry.invoke`, at most `maxParallelToolCalls` at once) and asks again. Resolves to the
   * final response — or, when calls wait for a person, to the paused turn's response with
   * `interruptions` (answer them with `resume`).
   * @throws {LlmError} as `submit`, plus `max_turns_exceeded` (with `response`), `tool_error` (with the `ToolError` as `cause`), `loop_detected` and `callback_failed`
   */
  submitWithTools(
    prompt: string | readonly ContentPart[],
    registry: ToolRegistry,
    options: SubmitOptions = {},
  ): Promise<ChatResponse> {
    return drain(
      this.#run({ added: [{ role: 'user', content: prompt }] }, registry, false, options),
    );
  }

  /**
   * `submitWithTools`, streamed: see `StreamEvent` for the events and their order. The
   * generator's return value is the final (or paused) response; errors are thrown while
   * iterating, and the history is what `submitWithTools` would leave. Stopping the iteration
   * early (`break`) cancels the request and the running tools (a run that already paused stays
   * paused).
   * @throws {LlmError} while iterating, as `submitWithTools`
   */
  submitStreamWithTools(
    prompt: string | readonly ContentPart[],
    registry: ToolRegistry,
    options: SubmitOptions = {},
  ): AsyncGenerator<StreamEvent, ChatResponse, undefined> {
    return new EventStream(
      this.#run({ added: [{ role: 'user', content: prompt }] }, registry, true, options),
    );
  }

  /**
   * Goes on with the paused run: `decisions` maps each waiting call's id to `'approve'`,
   * `{ deny: reason }` or (for a call that asked with `awaitInput`) `{ input: value }`. Approved
   * calls run, answered ones run again with `context.input`, denied ones are answered
   * `Error [denied]: reason`; then the loop goes on as `submitWithTools` would.
   * @throws {TypeError} naming the pending calls without a decision, the ids that are not pending, and malformed decisions (nothing runs; still paused)
   * @throws {LlmError} `state_mismatch` when the cycle is not paused, `busy` while a submit runs, and as `submitWithTools`
   */
  resume(
    decisions: Readonly<Record<string, ResumeDecision>>,
    registry: ToolRegistry,
    options: SubmitOptions = {},
  ): Promise<ChatResponse> {
    return drain(this.#resume(decisions, registry, false, options));
  }

  /**
   * `resume`, streamed: the events of the resumed calls (`tool_execution_started` for those
   * that run or are denied now), then the loop's as `submitStreamWithTools` yields them.
   * @throws {TypeError} while iterating, as `resume`
   * @throws {LlmError} while iterating, as `resume`
   */
  resumeStream(
    decisions: Readonly<Record<string, ResumeDecision>>,
    registry: ToolRegistry,
    options: SubmitOptions = {},
  ): AsyncGenerator<StreamEvent, ChatResponse, undefined> {
    return new EventStream(this.#resume(decisions, registry, true, options));
  }

  async *#resume(
    decisions: unknown,
    registry: ToolRegistry,
    emit: boolean,
    options: SubmitOptions,
  ): AsyncGenerator<readonly StreamEvent[], ChatResponse, undefined> {
    this.#refuseWhileRunning('resume()');
    const tools = this.#budget.tools(registry);
    const resumed = this.#conversation.resumed(decisions, tools, this.#options.maxRepeats);
    return yield* this.#run({ added: [], resumed }, tools, emit, options);
  }

  /**
   * The loop, streaming (`emit`: yields the events, in batches) or not (yields nothing): a model
   * request, then the tool step when the answer calls tools, until an answer without calls, a
   * pause or a stop condition. What each request sends (compaction included) is `TurnRequests`;
   * the history changes here, through the conversation, one whole turn at a time (see the class
   * comment).
   */
  async *#run(
    start: RunStart,
    registry: ToolRegistry | undefined,
    emit: boolean,
    options: SubmitOptions,
  ): AsyncGenerator<readonly StreamEvent[], ChatResponse, undefined> {
    // The user's registry with the built-in tools beside it (read_result, search_tools).
    const tools = registry === undefined ? undefined : this.#budget.tools(registry);
    const submission = this.#begin(start, tools, emit, options);
    let failure: LlmError | undefined;
    const conversation = this.#conversation;
    const run =
      start.resumed?.run ?? new RunCounters(this.#options.maxRepeats, conversation.startRun());
    const rounds = new LoopRounds(this.#options, this.sessionId, conversation, submission, run);
    let round = start.resumed?.round;
    try {
      if (round !== undefined) {
        const { epoch } = conversation;
        const signal = submission.controller.signal;
        await claimResume(this.#options.runStore, run.runId, epoch, signal);
        conversation.claimed(epoch);
      }
      for (;;) {
        if (round === undefined) {
          const next = this.#requests.next(submission);
          const call = next instanceof Promise ? await next : next;
          run.turns++;
          const response = emit
            ? yield* streamedRequest(call, submission.trace)
            : await wholeRequest(call, submission.trace);
          this.#requests.answered(response, run);
          const calls = response.message.tool_calls;
          if (tools === undefined || calls === undefined || calls.length === 0) {
            const final = finalResponse(response, tools !== undefined);
            this.#conversation.history.push(final.message);
            submission.committed = true;
            if (emit) yield [turnComplete(final.finishReason, final.usage)];
            return final;
          }
          const planned = rounds.plan(response, tools);
          round = planned instanceof Promise ? await planned : planned;
        }
        if (emit) yield* rounds.stream(round);
        else await rounds.execute(round);
        const ended = rounds.after(round);
        if (ended !== undefined) {
          const paused = ended.response.interruptions?.length;
          if (paused !== undefined) submission.trace?.note('agcore.run.interruptions', paused);
          if (emit) yield ended.events;
          return ended.response;
        }
        round = undefined;
      }
    } catch (error) {
      failure = this.#failure(error, submission);
      throw failure;
    } finally {
      this.#end(submission);
      submission.trace?.end(failure);
    }
  }

  /**
   * Starts a submit: refuses a second one, one on a paused cycle (but a resume) and an aborted
   * signal; adds the prompt to the history.
   */
  #begin(
    start: RunStart,
    registry: ToolRegistry | undefined,
    emit: boolean,
    options: SubmitOptions,
  ): Submission {
    this.#refuseWhileRunning('a submit');
    const waiting = this.#conversation.waitingIds();
    if (waiting !== undefined && start.resumed === undefined) {
      throw new LlmError(
        'busy',
        `This LlmCycle is paused: calls ${waiting.map((id) => JSON.stringify(id)).join(', ')} wait for a decision. Call resume(decisions, registry) or abandon(reason) before submitting again.`,
      );
    }
    if (options.signal?.aborted) {
      throw new LlmError('cancelled', 'The call was cancelled before it started.', {
        cause: options.signal.reason,
      });
    }
    const { added } = start;
    const submission = openSubmission(added, registry, emit, options, this.#options.compaction);
    if (wantsSpans(this.#options.tracing)) {
      submission.trace = SubmitTrace.start(this.#options);
      if (start.resumed !== undefined) submission.trace?.note('agcore.run.resumed', true);
    }
    this.#busy = true;
    submission.callerSignal?.addEventListener('abort', submission.onAbort, { once: true });
    for (const message of added) this.#conversation.history.push(message);
    return submission;
  }

  #refuseWhileRunning(what: string): void {
    if (!this.#busy) return;
    throw new LlmError(
      'busy',
      `This LlmCycle is already running a submit; wait for it (or use another LlmCycle) before ${what}.`,
    );
  }

  /** What a submit throws: `cancelled` once aborted, an `LlmError` as is, else `provider_error`. */
  #failure(error: unknown, submission: Submission): LlmError {
    if (submission.controller.signal.aborted) return cancelledError(submission, error);
    if (LlmError.isInstance(error)) return error;
    return new LlmError('provider_error', `The chat provider failed: ${describeThrown(error)}`, {
      cause: error,
    });
  }

  /** Ends a submit: a call that committed nothing leaves the history as it was. */
  #end(submission: Submission): void {
    if (!submission.committed) this.#conversation.drop(submission.added);
    submission.callerSignal?.removeEventListener('abort', submission.onAbort);
    this.#busy = false;
  }
}
