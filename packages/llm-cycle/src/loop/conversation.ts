import { ToolError } from '@agcore/tools-core';
import type { ToolRegistry } from '@agcore/tools-registry';
import type { ChatResponse, Usage } from '../chat-provider.js';
import { LlmError } from '../llm-error.js';
import type { ChatMessage, SystemMessage } from '../messages.js';
import { readDecisions } from '../runs/resume-decisions.js';
import type { Interruption, PendingRun, RunState } from '../runs/run-state.js';
import type { RunOrigin } from '../runs/run-store.js';
import {
  interruptionsOf,
  pendingRunOf,
  type RunIdentity,
  restoreTurn,
  stateOf,
} from './paused-run.js';
import { addUsage, RunCounters } from './run-counters.js';
import type { Round } from './tool-round.js';
import type { ToolTurn } from './tool-step.js';

/**
 * What a cycle remembers between submits: the history, the token use, and the paused turn
 * (which stays out of the history until it is resumed or abandoned). Every change to the
 * history goes through here, one whole turn at a time.
 */
export class Conversation {
  /** The history without the system prompt (compaction may replace it). */
  history: ChatMessage[];
  #usage: Usage;
  #paused: PendingRun | undefined;
  #run: RunOrigin;

  /**
   * A conversation starting from `history` (and, restored from a state, its usage and paused
   * run), its run identity as `run` says.
   */
  constructor(
    readonly system: SystemMessage | undefined,
    history: ChatMessage[],
    usage: Usage,
    paused: PendingRun | undefined,
    run: RunOrigin,
  ) {
    this.history = history;
    this.#usage = usage;
    this.#paused = paused;
    this.#run = { ...run };
  }

  /** The id of the current (or last) run. */
  get runId(): string {
    return this.#run.runId;
  }

  /** The current run's resume epoch: what the next resume claims. */
  get epoch(): number {
    return this.#run.epoch;
  }

  /** Starts a run for a fresh submit: the id not used yet, else a new random one, epoch 0. */
  startRun(): string {
    const run = this.#run;
    this.#run = run.used
      ? { runId: globalThis.crypto.randomUUID(), epoch: 0, used: true }
      : { ...run, used: true };
    return this.#run.runId;
  }

  /** The resume of epoch `epoch` was granted: the run goes on in the next epoch. */
  claimed(epoch: number): void {
    this.#run = { ...this.#run, epoch: epoch + 1 };
  }

  /** The history as the next request sends it: the system prompt first. A copy. */
  messages(): ChatMessage[] {
    return this.system === undefined ? [...this.history] : [this.system, ...this.history];
  }

  /** Token use so far. */
  get usage(): Usage {
    return this.#usage;
  }

  /** Counts a response's token use. */
  addUsage(usage: Usage | undefined): void {
    this.#usage = addUsage(this.#usage, usage);
  }

  /** The ids of the calls the paused run waits on; `undefined` when it is not paused. */
  waitingIds(): string[] | undefined {
    return this.#paused?.calls.map((call) => call.callId);
  }

  /** The calls the paused run waits on (empty when not paused). */
  interruptions(): Interruption[] {
    return this.#paused === undefined ? [] : interruptionsOf(this.#paused);
  }

  /** The conversation as a run state. */
  state(sessionId: string, secret: string | Uint8Array | undefined): RunState {
    const identity: RunIdentity = { sessionId, runId: this.#run.runId, epoch: this.#run.epoch };
    return stateOf(identity, this.messages(), this.#usage, this.#paused, secret);
  }

  /** Puts a turn whose calls all have their answer into the history; nothing is paused any more. */
  commit(turn: ToolTurn): void {
    this.history.push(turn.message, ...turn.toolMessages());
    this.#paused = undefined;
  }

  /** Keeps `turn` aside, paused; returns what it waits on. */
  pause(turn: ToolTurn, response: ChatResponse, run: RunCounters): Interruption[] {
    this.#paused = pendingRunOf(turn, response, run);
    return interruptionsOf(this.#paused);
  }

  /** Answers every waiting call `Error [cancelled]: reason` and commits the paused turn, if any. */
  abandon(reason: string, maxBytes: number | null): void {
    if (this.#paused === undefined) return;
    const turn = restoreTurn(this.#paused);
    const message = reason === '' ? 'The run was abandoned.' : reason;
    turn.closeUnanswered((toolName) => new ToolError('cancelled', message, { toolName }), maxBytes);
    this.commit(turn);
  }

  /**
   * The paused turn as a round decided by `decisions`, with the run's counters.
   * @throws {LlmError} `state_mismatch` when nothing is paused
   * @throws {TypeError} for decisions that do not answer exactly the waiting calls
   */
  resumed(
    decisions: unknown,
    registry: ToolRegistry,
    maxRepeats: number | undefined,
  ): { round: Round; run: RunCounters } {
    const paused = this.#paused;
    if (paused === undefined) {
      throw new LlmError(
        'state_mismatch',
        'This LlmCycle has no paused run to resume (it was never paused, or was resumed or abandoned already). Nothing was run.',
      );
    }
    const turn = restoreTurn(paused);
    const plan = readDecisions(decisions, turn);
    const response = paused.response;
    return {
      round: { ...plan, registry, turn, response, ask: [], fresh: false },
      run: new RunCounters(maxRepeats, this.#run.runId, paused),
    };
  }

  /** Takes back messages a submit added and never committed a turn after. */
  drop(added: readonly ChatMessage[]): void {
    if (added.length === 0) return;
    const drop = new Set(added);
    this.history = this.history.filter((message) => !drop.has(message));
  }
}
