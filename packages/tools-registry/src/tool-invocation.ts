import type { AwaitingInput, JsonValue, ToolError } from '@agcore/tools-core';

/**
 * The outcome of an invocation: a JSON value, the `ToolError` that explains the failure, or a
 * tool that asks a person before it can finish (it returned `awaitInput(...)`).
 *
 * The third outcome is its own (`awaitingInput` is set; the tool did not fail: its stats count
 * no failure), but it comes with `ok: false` and an `error` (code `other`) that says the tool
 * asks a question this caller did not answer: code written before it existed, `if (output.ok)
 * … else output.error`, keeps compiling and reads a real `ToolError`, never an `undefined`.
 * Callers that can answer check `output.awaitingInput` first (`LlmCycle` does).
 */
export type ToolOutput =
  | { readonly ok: true; readonly value: JsonValue; readonly awaitingInput?: undefined }
  | { readonly ok: false; readonly error: ToolError; readonly awaitingInput?: undefined }
  | { readonly ok: false; readonly error: ToolError; readonly awaitingInput: AwaitingInput };

/** The record of one tool call: what went in, what came out, how long it took. */
export interface ToolInvocation {
  /** The name the call asked for. */
  readonly toolName: string;
  /** The call's id (the LLM's `tool_call_id`), when given. */
  readonly callId?: string;
  /** The arguments as received. */
  readonly input: unknown;
  /** The result, the error, or the question the tool asks. */
  readonly output: ToolOutput;
  /** Wall time from the start of `invoke` to its end, in milliseconds. */
  readonly durationMs: number;
  /** The session the call belongs to: the call's `context.sessionId`, else the registry's. */
  readonly sessionId?: string;
  /**
   * The trace id the tool was given: the id of the call's `execute_tool` span when the
   * registry traced it (OpenTelemetry), else the call's `context.traceId`, else the id made
   * when the tool first read `context.traceId`; absent when none of these exists.
   */
  readonly traceId?: string;
}
