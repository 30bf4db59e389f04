import { type BaseTool, type ToolContext, ToolError, type ToolProgress } from '@agcore/tools-core';
import { type CallClock, CallContext } from './call-context.js';
import { watchAbort } from './caller-signal.js';
import { type Deadline, scheduleDeadline } from './deadline-queue.js';
import type { TimePolicy } from './options.js';

/**
 * What a tool's run came to: a value (still to be checked) or a `ToolError`; and the first
 * exception of the progress listener, if it threw (the call went on).
 */
export type Outcome = (
  | { value: unknown; error?: undefined }
  | { value?: undefined; error: ToolError }
) & {
  listenerError?: { readonly error: unknown };
  /** The trace id the tool was given, or made when it read one. */
  traceId?: string;
};

/** Everything one run of a tool needs besides the tool and its arguments. */
export interface CallRequest {
  readonly time: TimePolicy;
  /** `performance.now()` when the invocation started: the call's time counts from there. */
  readonly startedAt: number;
  readonly callerSignal: AbortSignal | undefined;
  readonly context: Partial<ToolContext> | undefined;
  readonly sessionId: string;
  readonly callId: string | undefined;
  /** The trace id to give the tool instead of the context's (the call's span's). */
  readonly traceId: string | undefined;
  /** Receives the tool's progress reports; `undefined` when nobody listens. */
  readonly listener: ((update: ToolProgress) => void) | undefined;
}

/**
 * One run of a tool under the registry's one clock: the call's deadline (extended by progress
 * only when the time policy says so, never past its maximum), the caller's signal, and the
 * tool's own promise, whichever comes first. The verdict when time runs out is `timeout`.
 * Settles exactly once and never rejects. Closures are made only for what a call uses.
 */
class ToolCall implements CallClock {
  readonly context: CallContext;
  readonly promise: Promise<Outcome>;
  #resolve: ((outcome: Outcome) => void) | undefined;
  #settled = false;
  #expiresAt: number;
  #wallOffset: number | undefined;
  #timer: Deadline | undefined;
  #unwatch: (() => void) | undefined;
  #listenerError: { readonly error: unknown } | undefined;

  constructor(
    private readonly name: string,
    private readonly request: CallRequest,
  ) {
    const { time } = request;
    this.#expiresAt = request.startedAt + Math.min(time.timeoutMs, time.maxTotalTimeoutMs);
    const reports = request.listener !== undefined || this.extendsOnProgress();
    this.context = new CallContext(
      request.context,
      request.sessionId,
      request.callId,
      reports ? (update) => this.report(update) : undefined,
      this,
      request.traceId,
    );
    this.promise = new Promise<Outcome>((resolve) => {
      this.#resolve = resolve;
    });
  }

  deadline(): number | undefined {
    if (this.#expiresAt === Number.POSITIVE_INFINITY) return undefined;
    // Date.now() - performance.now(), taken once per call so the deadline reads the same twice.
    this.#wallOffset ??= Date.now() - performance.now();
    return Math.round(this.#wallOffset + this.#expiresAt);
  }

  start(tool: BaseTool<unknown>, args: unknown): void {
    const { callerSignal } = this.request;
    if (callerSignal !== undefined) {
      if (callerSignal.aborted) {
        this.settle({ error: this.cancelled() });
        return;
      }
      this.#unwatch = watchAbort(callerSignal, () => this.abort(this.cancelled()));
    }
    const limitMs = this.#expiresAt - this.request.startedAt;
    if (limitMs !== Number.POSITIVE_INFINITY) {
      this.#timer = scheduleDeadline(limitMs, this);
    }
    try {
      const pending: unknown = tool.execute(args, this.context);
      if ((typeof pending !== 'object' && typeof pending !== 'function') || pending === null) {
        this.settle({ value: pending });
        return;
      }
      // Promise.resolve adopts any thenable (a throwing `then` getter becomes a rejection); a
      // native promise (what an async execute returns) needs no adoption.
      (pending instanceof Promise ? pending : Promise.resolve(pending)).then(
        (value: unknown) => this.settle({ value }),
        (error: unknown) => this.fail(error),
      );
    } catch (error) {
      this.fail(error);
    }
  }

  private extendsOnProgress(): boolean {
    const { time } = this.request;
    return time.resetTimeoutOnProgress && time.timeoutMs !== Number.POSITIVE_INFINITY;
  }

  private report(update: ToolProgress): void {
    if (this.#settled) return;
    if (this.extendsOnProgress()) {
      const { time, startedAt } = this.request;
      this.#expiresAt = Math.min(
        performance.now() + time.timeoutMs,
        startedAt + time.maxTotalTimeoutMs,
      );
    }
    const { listener } = this.request;
    if (listener === undefined) return;
    try {
      listener(update);
    } catch (error) {
      this.#listenerError ??= { error };
    }
  }

  private fail(error: unknown): void {
    this.settle({ error: ToolError.from(error, this.name) });
  }

  /** Called by the deadline queue when the scheduled time has come. */
  expire(): void {
    this.#timer = undefined;
    if (this.#settled) return;
    const remaining = this.#expiresAt - performance.now();
    if (remaining >= 1) {
      // Progress moved the deadline since this timer was set.
      this.#timer = scheduleDeadline(Math.ceil(remaining), this);
      return;
    }
    this.abort(this.timedOut());
  }

  private abort(error: ToolError): void {
    this.context.abort(error);
    this.settle({ error });
  }

  private settle(outcome: Outcome): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#timer?.cancel();
    this.#unwatch?.();
    if (this.#listenerError !== undefined) outcome.listenerError = this.#listenerError;
    const traceId = this.context.knownTraceId();
    if (traceId !== undefined) outcome.traceId = traceId;
    this.#resolve?.(outcome);
  }

  private cancelled(): ToolError {
    return new ToolError('cancelled', `Tool '${this.name}' was cancelled by the caller.`, {
      toolName: this.name,
      cause: this.request.callerSignal?.reason,
    });
  }

  private timedOut(): ToolError {
    const { time, startedAt } = this.request;
    const { timeoutMs, maxTotalTimeoutMs } = time;
    const elapsed = this.#expiresAt - startedAt;
    const message =
      maxTotalTimeoutMs < timeoutMs || (this.extendsOnProgress() && elapsed >= maxTotalTimeoutMs)
        ? `did not finish within its maximum of ${maxTotalTimeoutMs} ms (maxTotalTimeoutMs) and was aborted. Raise maxTotalTimeoutMs or make the tool faster.`
        : this.extendsOnProgress()
          ? `reported no progress for ${timeoutMs} ms and was aborted. Raise the timeout (timeoutMs) or report progress more often.`
          : `did not finish within ${timeoutMs} ms and was aborted. Raise the timeout (timeoutMs) or make the tool faster.`;
    return new ToolError('timeout', `Tool '${this.name}' ${message}`, { toolName: this.name });
  }
}

/** Runs `tool` once under the call's clock and signal; the promise never rejects. */
export function runToolCall(
  tool: BaseTool<unknown>,
  args: unknown,
  request: CallRequest,
): Promise<Outcome> {
  const call = new ToolCall(tool.name, request);
  call.start(tool, args);
  return call.promise;
}
