import type { ToolRegistry } from '@agcore/tools-registry';
import type { ChatResponse } from '../chat-provider.js';
import { LlmError } from '../llm-error.js';
import type { StreamEvent } from '../stream-events.js';
import type { Conversation } from './conversation.js';
import type { ResolvedCycleOptions } from './cycle-options.js';
import type { EventQueue } from './event-queue.js';
import { interruptionEvents } from './paused-run.js';
import { closeTurn, endRound } from './round-end.js';
import type { RunCounters } from './run-counters.js';
import { firstStop } from './stop-conditions.js';
import { cancelledError, type Submission, turnComplete } from './submission.js';
import { planRound, type Round, runRound, streamRound } from './tool-round.js';
import type { ToolStepSettings, ToolTurn } from './tool-step.js';

/** How a submit ends after a round without an error: paused, or stopped by a condition. */
export interface RoundEnding {
  readonly response: ChatResponse;
  readonly events: StreamEvent[];
}

/**
 * The tool steps of one submit (or resume): deciding a fresh turn's calls, running a round
 * (streamed or not), and what comes after it — the pause, the commit and the checks that end
 * the run. Every turn goes into the history whole, through the conversation.
 */
export class LoopRounds {
  constructor(
    private readonly options: ResolvedCycleOptions,
    private readonly sessionId: string,
    private readonly conversation: Conversation,
    private readonly submission: Submission,
    private readonly run: RunCounters,
  ) {}

  /** The round of a fresh turn (see `planRound`); a turn whose planning failed is committed. */
  plan(response: ChatResponse, registry: ToolRegistry): Round | Promise<Round> {
    const { submission, run } = this;
    run.toolCalls += response.message.tool_calls?.length ?? 0;
    const context = {
      registry,
      policy: this.options.approval,
      guard: run.guard,
      sessionId: this.sessionId,
      runId: run.runId,
      traceId: submission.trace?.traceId ?? submission.traceId,
      signal: submission.controller.signal,
      timeoutMs: this.options.toolTimeoutMs,
    };
    return planRound(response, context, this.options.maxToolResultBytes, (turn) =>
      this.#commit(turn),
    );
  }

  /** The round, not streamed. */
  execute(round: Round): Promise<void> {
    return runRound(round, this.#settings(round.registry, undefined));
  }

  /** The round, streamed; a consumer that stops early cancels it and the turn is committed. */
  stream(round: Round): AsyncGenerator<readonly StreamEvent[], void, undefined> {
    const { submission } = this;
    return streamRound(
      round,
      (events) => this.#settings(round.registry, events),
      // Made only then: an error's stack costs microseconds, every round.
      () =>
        submission.controller.abort(
          new LlmError('cancelled', 'The stream consumer stopped iterating.'),
        ),
      () => {
        const ending = 'the stream consumer stopped iterating';
        closeTurn(round.turn, ending, this.options.maxToolResultBytes);
        this.#commit(round.turn);
      },
    );
  }

  /**
   * After a round: pauses when calls wait and nothing ends the run, else commits the turn and
   * stops on cancel, a fatal tool error, a repeated refused call; then a `stopWhen` condition
   * and `maxTurns`. Returns how the submit ends when it pauses or stops gracefully.
   */
  after(round: Round): RoundEnding | undefined {
    const { submission, run, options } = this;
    const end = endRound(round, submission.controller.signal.aborted, options);
    if (end.pause) {
      const interruptions = this.conversation.pause(round.turn, round.response, run);
      submission.committed = true;
      const response = { ...round.response, interruptions };
      return { response, events: interruptionEvents(interruptions) };
    }
    this.#commit(round.turn);
    if (end.cancelled) throw cancelledError(submission, undefined);
    if (end.error !== undefined) throw end.error;
    const stopReason =
      options.stopWhen.length === 0
        ? undefined
        : firstStop(options.stopWhen, run.progress(round.response, round.turn));
    if (stopReason !== undefined) {
      const response = { ...round.response, stopReason };
      return { response, events: [turnComplete('stopped', undefined)] };
    }
    if (run.turns >= options.maxTurns) {
      throw new LlmError(
        'max_turns_exceeded',
        `The tool loop reached maxTurns (${options.maxTurns}) and the model still calls tools; raise maxTurns or submit again to go on. The last response is in error.response.`,
        { response: round.response },
      );
    }
    return undefined;
  }

  #settings(registry: ToolRegistry, events: EventQueue<StreamEvent> | undefined): ToolStepSettings {
    const { options, submission } = this;
    return {
      registry,
      sessionId: this.sessionId,
      runId: this.run.runId,
      traceId: submission.trace?.traceId ?? submission.traceId,
      runInTrace: submission.trace?.runInContext,
      toolTimeoutMs: options.toolTimeoutMs,
      maxParallelToolCalls: options.maxParallelToolCalls,
      maxToolResultBytes: options.maxToolResultBytes,
      resultCut: options.resultCut,
      spill: options.spill,
      returnUnknownTool: options.returnUnknownTool,
      signal: submission.controller.signal,
      events,
    };
  }

  /** Puts a turn whose calls all have their answer into the history. */
  #commit(turn: ToolTurn): void {
    this.conversation.commit(turn);
    this.submission.committed = true;
  }
}
