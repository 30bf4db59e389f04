import type { ToolContext, ToolError, ToolProgress } from '@agcore/tools-core';

const knownContextKeys: ReadonlySet<string> = new Set([
  'sessionId',
  'traceId',
  'signal',
  'toolCallId',
  'progress',
  'deadline',
  'idempotencyKey',
]);

/** What a `CallContext` reads from the call that owns it. */
export interface CallClock {
  /** The current deadline as a `Date.now()` timestamp, `undefined` without a limit. */
  deadline(): number | undefined;
}

/**
 * The `ToolContext` of one call. Its `signal` and `traceId` are made on first use: creating an
 * AbortSignal costs microseconds on Node (more than the rest of `invoke`) and most tools never
 * read it. `deadline` is read from the call's clock, so it moves when progress extends the
 * call. Read them as properties; spreading the object (`{ ...context }`) copies only the data
 * fields, so pass the context itself (or `createToolContext(context)`) to derive one.
 */
export class CallContext implements ToolContext {
  readonly sessionId: string;
  readonly toolCallId: string | undefined;
  readonly idempotencyKey: string | undefined;
  readonly progress: ((update: ToolProgress) => void) | undefined;
  #controller: AbortController | undefined;
  #abortReason: ToolError | undefined;
  #traceId: string | undefined;
  readonly #clock: CallClock;

  constructor(
    partial: Partial<ToolContext> | undefined,
    sessionId: string,
    callId: string | undefined,
    progress: ((update: ToolProgress) => void) | undefined,
    clock: CallClock,
    traceId: string | undefined,
  ) {
    this.sessionId = partial?.sessionId ?? sessionId;
    this.toolCallId = callId;
    // A field of its own (not copied below as an unknown key): the loop sets it on every call.
    this.idempotencyKey = partial?.idempotencyKey;
    this.progress = progress;
    this.#clock = clock;
    this.#traceId = traceId ?? partial?.traceId;
    if (partial !== undefined) {
      // Fields added to ToolContext later pass through untouched.
      for (const key of Object.keys(partial)) {
        if (!knownContextKeys.has(key)) {
          Object.defineProperty(this, key, {
            value: (partial as Record<string, unknown>)[key],
            enumerable: true,
          });
        }
      }
    }
  }

  get deadline(): number | undefined {
    return this.#clock.deadline();
  }

  get traceId(): string {
    this.#traceId ??= globalThis.crypto.randomUUID();
    return this.#traceId;
  }

  /** The trace id as it stands: given, or made because the tool read it; else `undefined`. */
  knownTraceId(): string | undefined {
    return this.#traceId;
  }

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#abortReason !== undefined) this.#controller.abort(this.#abortReason);
    }
    return this.#controller.signal;
  }

  /** Aborts the signal (now, or when it is first read). */
  abort(reason: ToolError): void {
    this.#abortReason = reason;
    this.#controller?.abort(reason);
  }
}
