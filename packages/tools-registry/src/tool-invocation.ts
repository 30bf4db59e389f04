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
  /** The session the call belongs to: the call's `context.sessionId`, else the registry's. */
  readonly sessionId?: string;
  /**
   * The trace id the tool was given: the id of the call's `execute_tool` span when the
   * registry traced it (OpenTelemetry), else the call's `context.traceId`, else the id made
   * when the tool first read `context.traceId`; absent when none of these exists.
   */
  readonly traceId?: string;
}
