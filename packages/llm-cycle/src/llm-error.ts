import type { ChatResponse } from './chat-provider.js';

/**
 * The stable codes of `LlmError`. Match on these, never on messages.
 *
 * | code | meaning | retried by the cycle |
 * |---|---|---|
 * | `http_error` | the server answered with a non-2xx status other than 429 (`statusCode`, the server's message and, from a native provider, its error `type`) | 408, 409, 5xx (Anthropic's 529 `overloaded_error` included) |
 * | `rate_limited` | the server answered HTTP 429 (`statusCode` 429, `retryAfterMs` from `retry-after`/`retry-after-ms`, the server's message) | yes, after `retryAfterMs` when given |
 * | `network` | the connection failed or was cut (also mid-stream) | yes, unless a stream already yielded events |
 * | `timeout` | the provider's `timeoutMs` passed before the response was complete | yes, same rule |
 * | `invalid_response` | the server's answer is not a Chat Completions response (bad JSON, no choices, a stream that ended without finishing) | no |
 * | `stream_error` | the server reported an error inside an SSE stream | no |
 * | `cancelled` | the caller's `AbortSignal` aborted (or a stream consumer stopped early) | no |
 * | `max_turns_exceeded` | the tool loop reached `maxTurns`; `response` is the last response | no |
 * | `tool_error` | a fatal tool error ended the loop; `cause` is the `ToolError`, `toolName` is set | no |
 * | `compaction_failed` | the compaction strategy threw or broke a tool-call/tool-message pair | no |
 * | `busy` | a submit was started while another one on the same cycle is still running | no |
 * | `provider_error` | a custom `ChatProvider` threw something that is not an `LlmError`; `cause` is what it threw | no |
 * | `state_mismatch` | a run state was refused (malformed, another version, pending calls altered, a bad HMAC), or there is no paused run to resume; nothing ran | no |
 * | `loop_detected` | the model kept making the same call (tool and canonical arguments) after being told it would not run again | no |
 * | `callback_failed` | a callback of the application (the approval policy, a stop condition, the run store's `claim`) threw or returned something it may not; `cause` is what it threw | no |
 * | `state_conflict` | a resume whose `(runId, epoch)` the run store refused: the state was resumed already (here or in another cycle), or a later epoch of the run was; nothing ran | no |
 */
export type LlmErrorCode =
  | 'http_error'
  | 'rate_limited'
  | 'network'
  | 'timeout'
  | 'invalid_response'
  | 'stream_error'
  | 'cancelled'
  | 'max_turns_exceeded'
  | 'tool_error'
  | 'compaction_failed'
  | 'busy'
  | 'provider_error'
  | 'state_mismatch'
  | 'loop_detected'
  | 'callback_failed'
  | 'state_conflict';

/** Every `LlmErrorCode`. */
export const llmErrorCodes: readonly LlmErrorCode[] = Object.freeze([
  'http_error',
  'rate_limited',
  'network',
  'timeout',
  'invalid_response',
  'stream_error',
  'cancelled',
  'max_turns_exceeded',
  'tool_error',
  'compaction_failed',
  'busy',
  'provider_error',
  'state_mismatch',
  'loop_detected',
  'callback_failed',
  'state_conflict',
]);

/** Options of the `LlmError` constructor. */
export interface LlmErrorOptions {
  /** The underlying error (for `tool_error`, the `ToolError`). */
  readonly cause?: unknown;
  /** The HTTP status, for `http_error` and `rate_limited`. */
  readonly statusCode?: number;
  /** Whether the same request may succeed if sent again. Defaults from `code` and `statusCode`. */
  readonly isRetryable?: boolean;
  /** How long the server asked us to wait before retrying (`Retry-After`), in milliseconds. */
  readonly retryAfterMs?: number;
  /** The tool whose error ended the loop (`tool_error`), or the call's tool (`loop_detected`, `callback_failed`). */
  readonly toolName?: string;
  /** The last response, for `max_turns_exceeded`. */
  readonly response?: ChatResponse;
  /** The raw error body of the server, when there was one (at most 4 KiB); for an answer that is not Chat Completions, its first bytes (redacted). */
  readonly responseBody?: string;
}

/** The plain-object form of an `LlmError`, as `JSON.stringify` writes it. */
export interface LlmErrorJson {
  readonly name: 'LlmError';
  readonly code: LlmErrorCode;
  readonly message: string;
  readonly statusCode?: number;
  readonly isRetryable: boolean;
  readonly retryAfterMs?: number;
  readonly toolName?: string;
}

const brand = Symbol.for('@agcore/llm-cycle.LlmError');

/** Whether an HTTP status is worth retrying: 408, 409, 429 and every 5xx. Never throws. */
export function isRetryableStatus(statusCode: number): boolean {
  return statusCode === 408 || statusCode === 409 || statusCode === 429 || statusCode >= 500;
}

/**
 * The one error class of the LLM cycle, with a stable `code` and the standard `cause`.
 *
 * `instanceof LlmError` and `LlmError.isInstance(value)` hold for errors made by any copy of
 * this package in the same process. Messages never contain the API key.
 */
export class LlmError extends Error {
  /** What went wrong, as a stable code. */
  readonly code: LlmErrorCode;
  /** The HTTP status, for `http_error` and `rate_limited`. */
  readonly statusCode?: number;
  /** Whether sending the same request again may succeed. */
  readonly isRetryable: boolean;
  /** The wait the server asked for (`Retry-After` / `retry-after-ms`), in milliseconds. */
  readonly retryAfterMs?: number;
  /** The tool whose fatal error ended the loop (`tool_error`), or the call's tool (`loop_detected`, `callback_failed`). */
  readonly toolName?: string;
  /** The last response, for `max_turns_exceeded`. */
  readonly response?: ChatResponse;
  /** The server's raw error body, when there was one (at most 4 KiB). */
  readonly responseBody?: string;

  /** Makes an error; prefer a message that says what failed and what to do. */
  constructor(code: LlmErrorCode, message: string, options: LlmErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'LlmError';
    this.code = code;
    Object.defineProperty(this, brand, { value: true });
    if (options.statusCode !== undefined) this.statusCode = options.statusCode;
    this.isRetryable =
      options.isRetryable ??
      (code === 'network' ||
        code === 'timeout' ||
        code === 'rate_limited' ||
        (code === 'http_error' &&
          options.statusCode !== undefined &&
          isRetryableStatus(options.statusCode)));
    if (options.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
    if (options.toolName !== undefined) this.toolName = options.toolName;
    if (options.response !== undefined) this.response = options.response;
    if (options.responseBody !== undefined) this.responseBody = options.responseBody;
  }

  /** The JSON form (without `cause`, `response` and `responseBody`). */
  toJSON(): LlmErrorJson {
    return {
      name: 'LlmError',
      code: this.code,
      message: this.message,
      ...(this.statusCode === undefined ? {} : { statusCode: this.statusCode }),
      isRetryable: this.isRetryable,
      ...(this.retryAfterMs === undefined ? {} : { retryAfterMs: this.retryAfterMs }),
      ...(this.toolName === undefined ? {} : { toolName: this.toolName }),
    };
  }

  /** Tells whether `value` is an `LlmError` from any copy of this package. Never throws. */
  static isInstance(value: unknown): value is LlmError {
    if (typeof value !== 'object' || value === null) return false;
    try {
      return (value as { [brand]?: unknown })[brand] === true;
    } catch {
      return false; // A proxy whose `get` trap throws is no LlmError.
    }
  }

  /** Makes `instanceof` hold across copies of the package; subclasses keep the usual rule. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class `instanceof` was asked about (a subclass keeps the usual rule)
    if (this !== LlmError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return LlmError.isInstance(value);
  }
}
