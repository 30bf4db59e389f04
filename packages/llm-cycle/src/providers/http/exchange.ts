import { LlmError } from '../../llm-error.js';

/** The time limits of one request. */
export interface ExchangeLimits {
  /** Time without a byte before giving up, in milliseconds (`Infinity`: none). */
  readonly idleTimeoutMs: number;
  /** Time for the whole request before giving up, in milliseconds (`Infinity`: none). */
  readonly timeoutMs: number;
}

/** `setTimeout` takes at most this (about 24.8 days); a later deadline is checked again then. */
const maxTimerMs = 2_147_483_647;

/**
 * The clocks of every open exchange, served by one timer: opening and closing an exchange is a
 * set operation, not a timer to schedule and clear (which costs more than the rest of a
 * request's bookkeeping). The timer fires at the nearest deadline, asks each exchange whether
 * a limit ran out, and re-arms. It is `unref`'d: open sockets keep the process alive, not it.
 */
class ExchangeClock {
  readonly #open = new Set<Exchange>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #armedFor = Number.POSITIVE_INFINITY;

  add(exchange: Exchange, deadline: number): void {
    this.#open.add(exchange);
    if (deadline < this.#armedFor - 1) this.#arm(deadline);
  }

  delete(exchange: Exchange): void {
    this.#open.delete(exchange);
  }

  #arm(at: number): void {
    clearTimeout(this.#timer);
    this.#armedFor = at;
    const delayMs = Math.min(maxTimerMs, Math.max(1, Math.ceil(at - performance.now())));
    this.#timer = setTimeout(this.#tick, delayMs);
    (this.#timer as { unref?: () => void }).unref?.();
  }

  readonly #tick = (): void => {
    this.#timer = undefined;
    this.#armedFor = Number.POSITIVE_INFINITY;
    const now = performance.now();
    let next = Number.POSITIVE_INFINITY;
    for (const exchange of [...this.#open]) next = Math.min(next, exchange.check(now));
    if (next !== Number.POSITIVE_INFINITY) this.#arm(next);
  };
}

const clock = new ExchangeClock();

/**
 * One request from `fetch` to the end of its body: its deadlines on the shared clock, what
 * stops it when a limit runs out, and what a failure along the way means.
 *
 * `fetch` gets a signal of the exchange's own, which the caller's signal (if any) aborts: when a
 * limit runs out before the headers, the exchange aborts it, so the request itself ends (its
 * connection closed, or its place in undici's queue given up) rather than only the promise: a
 * request abandoned without it held its socket until the server answered (or undici's headers
 * timeout of 300 s), could still reach the server after its limit, and each retry left one more
 * open. A body being read is cancelled instead (`whenExpired`), which closes the connection at
 * once. The idle limit runs from the moment the request is sent, streamed or not: a server that
 * accepts the connection and never answers fails within it (a non-streamed answer sends no byte
 * until it is complete, so a long one needs a larger idle limit, or streaming). A read only notes
 * the time (`touch`): a fast stream costs no timer work per read.
 */
export class Exchange {
  /** The caller's signal, if any: its abort means `cancelled`. */
  readonly #callerSignal: AbortSignal | undefined;
  readonly #controller = new AbortController();
  /** Forwards the caller's abort to `#controller`, while the exchange is open. */
  #forward: (() => void) | undefined;
  readonly #limits: ExchangeLimits;
  readonly #where: string;
  readonly #started = performance.now();
  #lastActivity = this.#started;
  #fired: 'idle' | 'total' | undefined;
  #onExpire: (() => void) | undefined;

  /** Starts the clocks of a request to `where` (the URL as messages show it). */
  constructor(callerSignal: AbortSignal | undefined, limits: ExchangeLimits, where: string) {
    this.#callerSignal = callerSignal;
    if (callerSignal?.aborted) this.#controller.abort(callerSignal.reason);
    else if (callerSignal !== undefined) {
      const forward = (): void => this.#controller.abort(callerSignal.reason);
      this.#forward = forward;
      callerSignal.addEventListener('abort', forward, { once: true });
    }
    this.#limits = limits;
    this.#where = where;
    const first = Math.min(limits.idleTimeoutMs, limits.timeoutMs);
    if (first !== Number.POSITIVE_INFINITY) clock.add(this, this.#started + first);
  }

  /** The signal to give `fetch`: aborted by the caller's, or by a limit that ran out before the headers. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Notes that bytes (or the headers) arrived: moves the idle deadline. */
  touch(): void {
    this.#lastActivity = performance.now();
  }

  /** Stops the clocks; the request is over. */
  dispose(): void {
    this.#onExpire = undefined;
    clock.delete(this);
    if (this.#forward !== undefined) {
      this.#callerSignal?.removeEventListener('abort', this.#forward);
      this.#forward = undefined;
    }
  }

  /**
   * `response`, or the timeout when a limit runs out first: the request is then aborted (the
   * connection closed, or the request taken out of undici's queue before it is sent).
   */
  guard(response: Promise<Response>): Promise<Response> {
    return new Promise((resolve, reject) => {
      this.#onExpire = () => {
        reject(this.failure(undefined, 'waiting for the answer'));
        this.#controller.abort();
      };
      response.then(resolve, reject);
    });
  }

  /** Calls `cancel` when a limit runs out (the body being read). */
  whenExpired(cancel: () => void): void {
    this.#onExpire = cancel;
  }

  /** Whether a limit ran out. */
  get expired(): boolean {
    return this.#fired !== undefined;
  }

  /** Fires the limit that ran out by `now`, or returns the next deadline. */
  check(now: number): number {
    const total = this.#started + this.#limits.timeoutMs;
    const idle = this.#lastActivity + this.#limits.idleTimeoutMs;
    if (total - now <= 0.5) this.#fire('total');
    else if (idle - now <= 0.5) this.#fire('idle');
    else return Math.min(total, idle);
    return Number.POSITIVE_INFINITY;
  }

  /**
   * What a failure while `doing` something means: `cancelled` when the caller aborted,
   * `timeout` (naming the limit) when a clock ran out, an `LlmError` as it is, else `network`.
   */
  failure(error: unknown, doing: string): LlmError {
    const caller = this.#callerSignal;
    if (caller?.aborted) {
      return new LlmError(
        'cancelled',
        `The request to ${this.#where} was cancelled while ${doing}.`,
        { cause: caller.reason ?? error },
      );
    }
    // Already mapped (a timeout says what it was waiting for when it fired).
    if (LlmError.isInstance(error)) return error;
    if (this.#fired !== undefined) return this.#timeoutError(doing, error);
    return new LlmError(
      'network',
      `Network error while ${doing} (${this.#where}): ${describeCause(error)}. Check that the server is reachable; the request is retried unless it had already streamed events.`,
      { cause: error },
    );
  }

  #fire(kind: 'idle' | 'total'): void {
    if (this.#fired !== undefined) return;
    this.#fired = kind;
    const onExpire = this.#onExpire;
    this.dispose();
    onExpire?.();
  }

  #timeoutError(doing: string, cause: unknown): LlmError {
    const message =
      this.#fired === 'idle'
        ? `${this.#where} sent nothing for idleTimeoutMs (${this.#limits.idleTimeoutMs} ms) while ${doing}; the server or the network stalled. Try again, or raise idleTimeoutMs (provider option or per request) for a server that pauses longer.`
        : `The request to ${this.#where} took longer than timeoutMs (${this.#limits.timeoutMs} ms, the total limit) while ${doing}. Try again, or raise timeoutMs (provider option or per request).`;
    return new LlmError('timeout', message, cause === undefined ? {} : { cause });
  }
}

/** An error's message with its cause's (undici puts the reason in `cause`). */
function describeCause(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause;
  if (cause instanceof Error && cause.message !== '') return `${error.message} (${cause.message})`;
  return error.message;
}
