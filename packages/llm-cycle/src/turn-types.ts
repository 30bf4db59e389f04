/**
 * The types a tool turn is read through, shared by the loop (which runs the turn) and the run's
 * approval and resume steps (which decide its calls): the loop's `ToolTurn` and `LoopGuard` are
 * what these interfaces describe, so the run's side needs no import of the loop.
 */
import type { JsonValue, ToolError } from '@agcore/tools-core';
import type { ToolCall } from './messages.js';

/** A tool call with its arguments parsed (or the reason they could not be). */
export interface PreparedCall {
  readonly call: ToolCall;
  /** The parsed arguments; the raw string when they are not JSON. */
  readonly input: unknown;
  readonly parseError?: ToolError;
}

/** Why a call of the turn has no verdict yet: it waits for approval, or for a person's answer. */
export type Waiting =
  | { readonly kind: 'approval' }
  | { readonly kind: 'input'; readonly prompt: string; readonly data?: JsonValue };

/** What the guard says about a call: run it, refuse it (the model is told), or refuse it and end the run. */
export type LoopVerdict = 'run' | 'refuse' | 'stop';

/** The calls of one assistant message, as approval and resume read them (the loop's `ToolTurn`). */
export interface TurnCalls {
  readonly calls: readonly PreparedCall[];
  /** Per call, why it has no verdict yet (`undefined`: it has one, or was never held). */
  readonly waiting: readonly (Waiting | undefined)[];
  /** The positions of the calls that have no verdict yet, in call order. */
  pending(): number[];
}

/** The loop guard as the approval plan uses it (the loop's `LoopGuard`). */
export interface TurnGuard {
  /** Counts the calls of one turn and says what to do with each, in call order. Never throws. */
  admitTurn(
    calls: readonly { readonly toolName: string; readonly input: unknown }[],
  ): LoopVerdict[];
  /** The error a refused call is answered with. */
  refusal(toolName: string): ToolError;
}
