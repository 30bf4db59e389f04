import type { ToolProgress } from '@agcore/tools-core';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { CallAbort } from './call-abort.js';
import type { McpCallOptions } from './types.js';

/** How one `tools/call` request is sent: the SDK's request options and what to undo after. */
export interface CallPlan {
  readonly request: RequestOptions;
  /** Follows the caller's signal for the call's duration; `release()` it when the call ends. */
  readonly abort: CallAbort | undefined;
  /** The call listens to progress (responses are delivered after the notifications before them). */
  readonly listensToProgress: boolean;
  /** The call's time limit, for the error message. */
  readonly timeoutMs: number;
}

/** The client's defaults for calls. */
export interface CallDefaults {
  readonly timeoutMs: number;
  readonly maxTotalTimeoutMs: number | undefined;
}

/** The plan of a call without options: one frozen object, not one per call. */
export function defaultPlan(timeoutMs: number): CallPlan {
  return Object.freeze({
    request: Object.freeze({ timeout: timeoutMs }),
    abort: undefined,
    listensToProgress: false,
    timeoutMs,
  });
}

/**
 * The plan of a call with `options`, or `undefined` when its signal has already aborted.
 *
 * @throws {TypeError} when `options.timeoutMs` is not a positive number.
 */
export function planCall(
  options: McpCallOptions,
  defaults: CallDefaults,
  fallback: CallPlan,
): CallPlan | undefined {
  const { signal, onProgress } = options;
  const timeout = options.timeoutMs;
  if (signal === undefined && onProgress === undefined && timeout === undefined) return fallback;
  if (signal?.aborted === true) return undefined;
  const timeoutMs =
    timeout === undefined ? defaults.timeoutMs : checkDuration('timeoutMs', timeout);
  const abort = signal === undefined ? undefined : CallAbort.follow(signal);
  return {
    // One literal with every field, so that the SDK always sees objects of one shape.
    request: {
      timeout: timeoutMs,
      signal: abort?.sdkSignal(),
      onprogress: onProgress === undefined ? undefined : progressForwarder(onProgress),
      resetTimeoutOnProgress: onProgress !== undefined,
      maxTotalTimeout:
        onProgress === undefined
          ? undefined
          : (options.maxTotalTimeoutMs ?? defaults.maxTotalTimeoutMs),
    },
    abort,
    listensToProgress: onProgress !== undefined,
    timeoutMs,
  };
}

/** Hands the SDK's progress notifications on as `ToolProgress`, without absent fields. */
function progressForwarder(
  onProgress: (update: ToolProgress) => void,
): NonNullable<RequestOptions['onprogress']> {
  return (progress) => {
    onProgress(
      progress.total === undefined && progress.message === undefined
        ? { progress: progress.progress }
        : {
            progress: progress.progress,
            ...(progress.total === undefined ? {} : { total: progress.total }),
            ...(progress.message === undefined ? {} : { message: progress.message }),
          },
    );
  };
}

/**
 * `value` when it is a positive finite number of milliseconds.
 *
 * @throws {TypeError} otherwise, naming the option.
 */
export function checkDuration(name: string, value: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new TypeError(
      `McpClient: ${name} must be a positive number of milliseconds, got ${String(value)}.`,
    );
  }
  return value;
}
