/** Calls in flight per caller signal, for signals that served more than one call. */
const watched = new WeakMap<AbortSignal, Set<CallAbort>>();
/** The signal of the last call that was linked one by one (see `CallAbort.follow`). */
let recentSignal: AbortSignal | undefined;

/**
 * The abort signal the SDK gets for one call, following the caller's signal for the call's
 * duration.
 *
 * SDK internals (checked against 1.32.2): `Protocol.request` adds an 'abort' listener to the signal it is given and
 * never removes it: handed the caller's own signal, a long-lived one would collect a listener
 * per call, and aborting it later would send `notifications/cancelled` for calls long
 * finished. So each call gets its own signal. It is this small object rather than an
 * `AbortController`, because EventTarget work is most of what a signal costs per call; it
 * offers what `Protocol.request` uses (`aborted`, `reason`, `throwIfAborted()`, one 'abort'
 * listener); sdk-internals.test.ts and the cancellation tests of this package hold it to that.
 *
 * The caller's signal reaches it through one listener per call, removed when the call ends;
 * a signal that serves call after call (a session's signal, a shared `ToolContext`) gets a
 * single listener for its lifetime instead, and a set of the calls in flight.
 */
export class CallAbort {
  /** Whether the caller's signal aborted during the call. */
  aborted = false;
  /** The caller's abort reason, once aborted. */
  reason: unknown = undefined;
  private listener: (() => void) | undefined = undefined;
  private calls: Set<CallAbort> | undefined = undefined;
  /** The listener on the caller's signal when linked one by one (a function: Node wraps an
   * object listener in an async closure, which costs more). */
  private onAbort: (() => void) | undefined = undefined;

  private constructor(private readonly signal: AbortSignal) {}

  /** Starts following `signal` (not aborted yet); call `release()` when the call ends. */
  static follow(signal: AbortSignal): CallAbort {
    const call = new CallAbort(signal);
    let calls = watched.get(signal);
    if (calls === undefined && signal === recentSignal) {
      const inFlight = new Set<CallAbort>();
      signal.addEventListener(
        'abort',
        () => {
          for (const pending of inFlight) pending.abort(signal.reason);
          inFlight.clear();
        },
        { once: true },
      );
      watched.set(signal, inFlight);
      calls = inFlight;
    }
    if (calls === undefined) {
      recentSignal = signal;
      const onAbort = (): void => call.abort(signal.reason);
      call.onAbort = onAbort;
      signal.addEventListener('abort', onAbort, { once: true });
    } else {
      calls.add(call);
      call.calls = calls;
    }
    return call;
  }

  /** The object to pass to the SDK as `RequestOptions.signal`. */
  sdkSignal(): AbortSignal {
    return this as unknown as AbortSignal;
  }

  /** Stops following the caller's signal. Never throws. */
  release(): void {
    this.listener = undefined;
    if (this.calls !== undefined) this.calls.delete(this);
    else if (this.onAbort !== undefined) this.signal.removeEventListener('abort', this.onAbort);
  }

  /** SDK side: `AbortSignal.throwIfAborted()`. */
  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }

  /** SDK side: the one 'abort' listener of `Protocol.request`. */
  addEventListener(type: string, listener: () => void): void {
    if (type === 'abort') this.listener = listener;
  }

  /** SDK side, for completeness. */
  removeEventListener(type: string, listener: () => void): void {
    if (type === 'abort' && this.listener === listener) this.listener = undefined;
  }

  private abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listener = this.listener;
    this.listener = undefined;
    listener?.();
  }
}
