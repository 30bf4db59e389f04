import type { JsonValue } from '@agcore/tools-core';
import type { ChatResponse } from '../chat-provider.js';
import type { ChatMessage } from '../messages.js';
import type { Usage } from '../types.js';

export type { Interruption } from '../types.js';

/**
 * A decision on one pending call for `resume`: run it (`'approve'`, kind `approval`), answer
 * it with the person's input (`{ input }`, kind `input`: the tool is called again with
 * `context.input = { value: input, data }`), or refuse it (`{ deny: reason }`, either kind: the
 * model gets the tool message `Error [denied]: reason`).
 */
export type ResumeDecision = 'approve' | { readonly deny: string } | { readonly input: JsonValue };

/** One pending call in a `RunState`. */
export interface PendingCall {
  readonly kind: 'approval' | 'input';
  readonly callId: string;
  readonly toolName: string;
  /** The tool's question (kind `input` only). */
  readonly prompt?: string;
  /** What the tool gets back with the answer (kind `input` only, when it gave some). */
  readonly data?: JsonValue;
  /**
   * SHA-256 (hex) of the canonical JSON of `{ arguments, callId, kind, toolName, prompt?, data? }`,
   * the arguments parsed from the call in `response.message`: a state whose pending call was
   * altered is refused with `state_mismatch`.
   */
  readonly hash: string;
}

/** The paused turn of a run, in a `RunState`. */
export interface PendingRun {
  /** Model requests the run made so far (counted against `maxTurns`). */
  readonly turns: number;
  /** Tool calls the model made in the run so far (for `stopAfterToolCalls`). */
  readonly toolCalls: number;
  /** Token use of the run so far (for `stopAfterTokens`). */
  readonly usage: Usage;
  /** The model's answer whose calls are pending: `response.message` has the tool calls. */
  readonly response: ChatResponse;
  /** The tool messages of the calls that already have their answer. */
  readonly results: readonly { readonly callId: string; readonly content: string }[];
  /** The calls waiting for a decision. */
  readonly calls: readonly PendingCall[];
  /** Loop detection: how often each call (SHA-256 of the canonical `[toolName, arguments]`) was made in the run. */
  readonly repeats: readonly (readonly [string, number])[];
}

/**
 * A cycle at rest as plain JSON (`cycle.state()`): write it anywhere, and give it to
 * `new LlmCycle({ ...options, state })`, in this process or another. `messages` never holds the
 * pending turn: it lives in `pending` until the run is resumed or abandoned.
 */
export interface RunState {
  /** The format's version: `1`. */
  readonly version: 1;
  /** The cycle's session id (what tools see in `context.sessionId`). */
  readonly sessionId: string;
  /**
   * The run's id: the paused run's, else the last run's (or, before any ran, the one the next
   * submit uses). A run is a submit and its resumes; tools see `${runId}:${callId}` as
   * `context.idempotencyKey`.
   */
  readonly runId: string;
  /**
   * The run's resume epoch: 0 until it is resumed, one more after each resume. A resume claims
   * `(runId, epoch)` from the run store before it runs anything.
   */
  readonly epoch: number;
  /** The history, as `messages()` gives it (the system prompt first when there is one). */
  readonly messages: readonly ChatMessage[];
  /** The cycle's token use so far (`usage()`). */
  readonly usage: Usage;
  /** The paused run, or `null` when the cycle is not paused. */
  readonly pending: PendingRun | null;
  /** HMAC-SHA-256 (hex) of the canonical JSON of the rest of the state, when `stateSecret` is set. */
  readonly mac?: string;
}
