import type { JsonValue, ToolError } from '@agcore/tools-core';

/** The outcome of an invocation: a JSON value, or the `ToolError` that explains the failure. */
export type ToolOutput =
  | { readonly ok: true; readonly value: JsonValue }
  | { readonly ok: false; readonly error: ToolError };

/** The record of one tool call: what went in, what came out, how long it took. */
export interface ToolInvocation {
  /** The name the call asked for. */
  readonly toolName: string;
  /** The call's id (the LLM's `tool_call_id`), when given. */
  readonly callId?: string;
  /** The arguments as received. */
  readonly input: unknown;
  /** The result or the error. */
  readonly output: ToolOutput;
  /** Wall time from the start of `invoke` to its end, in milliseconds. */
  readonly durationMs: number;
}
