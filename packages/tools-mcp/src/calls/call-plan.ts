import type { ToolContext, ToolProgress } from '@agcore/tools-core';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { McpCallOptions } from '../types.js';
import { CallAbort } from './call-abort.js';

/**
 * The longest delay `setTimeout` takes (about 24.8 days; a larger one fires at once). Handed
 * to the SDK as the limit of a call that runs on its caller's clock: SDK 1.32.2's
 * `Protocol.request` always starts a timer (60 s unless told otherwise), and it must never
 * decide such a call.
 */
export const callerClockMs = 2_147_483_647;

/** How one `tools/call` request is sent: the SDK's request options and what to undo after. */
export interface CallPlan {
  readonly request: RequestOptions;
  /** Follows the caller's signal for the call's duration; `release()` it when the call ends. */
  readonly abort: CallAbort | undefined;
  /** The call listens to progress (responses are delivered after the notifications before them). */
  readonly listensToProgress: boolean;
  /** The client's limit of the call, for the message; `undefined` on the caller's clock. */
  readonly timeoutMs: number | undefined;
  /** With progress resetting the limit: the longest the call may take in all. */
  readonly maxTotalTimeoutMs: number | undefined;
  /** The caller's idempotency key (`ToolContext.idempotencyKey`), sent in `_meta`. */
  readonly idempotencyKey?: string | undefined;
}

/** Why a call did not start: its signal had aborted, or its deadline had passed. */
export interface NotStarted {
  readonly notStarted: true;
  /** The abort reason, or `'deadline'`. */
  readonly reason: unknown;
}

/** The client's defaults for calls. */
export interface CallDefaults {
  readonly timeoutMs: number;
  readonly resetTimeoutOnProgress: boolean;
  readonly maxTotalTimeoutMs: number | undefined;
}

/** The plan of a call without options: one frozen object, not one per call. */
export function defaultPlan(timeoutMs: number): CallPlan {
  return Object.freeze({
    request: Object.freeze({ timeout: timeoutMs }),
    abort: undefined,
    listensToProgress: false,
    timeoutMs,
    maxTotalTimeoutMs: undefined,
  });
}

/**
 * The plan of a direct `callTool` with `options`: the client's clock (`timeoutMs`), which
 * progress restarts only when asked (`resetTimeoutOnProgress`), up to `maxTotalTimeoutMs`
 * (default 10 × the limit).
 *
 * @throws {TypeError} when `options.timeoutMs` or `maxTotalTimeoutMs` is not a positive number.
 */
export function planCall(
  options: McpCallOptions,
  defaults: CallDefaults,
  fallback: CallPlan,
): CallPlan | NotStarted {
  const { signal, onProgress } = options;
  const timeout = options.timeoutMs;
  if (signal === undefined && onProgress === undefined && timeout === undefined) return fallback;
  if (signal?.aborted === true) return { notStarted: true, reason: signal.reason };
  const timeoutMs =
    timeout === undefined ? defaults.timeoutMs : checkDuration('timeoutMs', timeout);
  const resets =
    onProgress !== undefined &&
    (options.resetTimeoutOnProgress ?? defaults.resetTimeoutOnProgress) === true;
  const maxTotal = options.maxTotalTimeoutMs ?? defaults.maxTotalTimeoutMs;
  const maxTotalTimeoutMs = !resets
    ? undefined
    : maxTotal === undefined
      ? 10 * timeoutMs
      : checkDuration('maxTotalTimeoutMs', maxTotal);
  const abort = signal === undefined ? undefined : CallAbort.follow(signal);
  return {
    // One literal with every field, so that the SDK always sees objects of one shape.
    request: {
      timeout: timeoutMs,
      signal: abort?.sdkSignal(),
      onprogress: onProgress === undefined ? undefined : progressForwarder(onProgress),
      resetTimeoutOnProgress: resets,
      maxTotalTimeout: maxTotalTimeoutMs,
    },
    abort,
    listensToProgress: onProgress !== undefined,
    timeoutMs,
    maxTotalTimeoutMs,
  };
}

/**
 * The plan of a `BaseTool` call: the caller's clock. `context.signal` (which a `ToolRegistry`
 * aborts when its limit runs out, with a `timeout`) ends the call; the SDK's own timer is set
 * beyond reach and progress restarts nothing here (a registry extends a call on progress
 * itself, when asked). A `context.deadline` already past means the call does not start.
 */
export function planToolCall(context: ToolContext): CallPlan | NotStarted {
  const signal = context.signal;
  if (signal.aborted) return { notStarted: true, reason: signal.reason };
  const deadline = context.deadline;
  if (deadline !== undefined && Date.now() >= deadline) {
    return { notStarted: true, reason: 'deadline' };
  }
  const abort = CallAbort.follow(signal);
  const onProgress = context.progress;
  return {
    request: {
      timeout: callerClockMs,
      signal: abort.sdkSignal(),
      onprogress: onProgress === undefined ? undefined : progressForwarder(onProgress),
      resetTimeoutOnProgress: false,
      maxTotalTimeout: undefined,
    },
    abort,
    listensToProgress: onProgress !== undefined,
    timeoutMs: undefined,
    maxTotalTimeoutMs: undefined,
    idempotencyKey: context.idempotencyKey,
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
