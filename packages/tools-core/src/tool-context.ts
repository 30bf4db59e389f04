import type { JsonValue } from './json.js';

/** A progress report from a running tool. */
export interface ToolProgress {
  /** Work done so far, in the unit of `total` (or a percentage when `total` is absent). */
  readonly progress: number;
  /** Total work, when known. */
  readonly total?: number;
  /** A short human-readable status line. */
  readonly message?: string;
}

/**
 * What a tool is told about the call it serves. Every field added in a later version is
 * optional, so a tool written today keeps compiling and running.
 */
export interface ToolContext {
  /** The conversation (session) the call belongs to; shared by every call in it. */
  readonly sessionId: string;
  /**
   * An id for tracing this call across logs and services. When the runner traces the call
   * with OpenTelemetry (a `ToolRegistry` with a registered tracer provider), the trace id of
   * the call's span: the active span's while the tool runs.
   */
  readonly traceId: string;
  /** Aborted when the call is cancelled or times out; a well-behaved tool stops then. */
  readonly signal: AbortSignal;
  /**
   * When the call's time limit runs out, as a `Date.now()` timestamp (milliseconds since the
   * epoch); absent when the call has no limit. The runner of the call (a `ToolRegistry`) owns
   * the one clock: at this moment it aborts `signal` with a `timeout`. A tool that talks to a
   * server hands the remaining time (`deadline - Date.now()`) on instead of running a timer.
   * When the runner lets progress extend the call (`resetTimeoutOnProgress`), the deadline
   * moves later after each `progress` report: read it when you need it.
   */
  readonly deadline?: number;
  /** The LLM's id for this tool call, when the call came from a model. */
  readonly toolCallId?: string;
  /**
   * The identity of this call for deduplication: `${runId}:${callId}` when an `LlmCycle` makes
   * it, the same on every attempt of that call (a retry, a resume, a replay of the run). A tool
   * with side effects (a payment, an e-mail) passes it to the service as its idempotency key,
   * or records it, so that a call made again is not done twice. Absent when the caller gives
   * none.
   */
  readonly idempotencyKey?: string;
  /** Reports progress to whoever runs the tool; absent when nobody listens. */
  readonly progress?: (update: ToolProgress) => void;
  /**
   * The answer to the question this tool asked by returning `awaitInput(...)`: present when the
   * call is that same call made again, with the same arguments, after a person answered.
   */
  readonly input?: ToolInputAnswer;
  /**
   * Sends a log message to whoever runs the tool (an MCP client, as `notifications/message`,
   * when the tool is served by `serveTools`). Absent when nobody listens: call it as
   * `context.log?.('info', data)`. What the listener drops (a level below the one it asked
   * for) is dropped silently; it never throws.
   */
  readonly log?: (level: ToolLogLevel, data: JsonValue) => void;
}

/** The severity of a `context.log` message: the syslog levels (RFC 5424), as MCP names them. */
export type ToolLogLevel =
  | 'debug'
  | 'info'
  | 'notice'
  | 'warning'
  | 'error'
  | 'critical'
  | 'alert'
  | 'emergency';

/** What a tool that asked with `awaitInput` gets back in `context.input`. */
export interface ToolInputAnswer {
  /** The person's answer, as JSON. */
  readonly value: JsonValue;
  /** The `data` the tool gave to `awaitInput`, when it gave some. */
  readonly data?: JsonValue;
}

const neverAborted: AbortSignal = new AbortController().signal;

/**
 * Makes a `ToolContext`, filling what `partial` leaves out: fresh random ids and a signal
 * that never aborts. Never throws.
 */
export function createToolContext(partial: Partial<ToolContext> = {}): ToolContext {
  return {
    ...partial,
    sessionId: partial.sessionId ?? globalThis.crypto.randomUUID(),
    traceId: partial.traceId ?? globalThis.crypto.randomUUID(),
    signal: partial.signal ?? neverAborted,
  };
}
