/** How long to wait between attempts: exponential, capped, optionally jittered. */
export interface BackoffOptions {
  /** The first wait, in milliseconds. */
  readonly initialDelayMs: number;
  /** The longest wait, in milliseconds. */
  readonly maxDelayMs: number;
  /** Randomize each wait between 50% and 100% of its value (default `true`). */
  readonly jitter?: boolean;
}

/**
 * The wait before attempt number `attempt` (1 for the first retry): `initialDelayMs` doubled
 * per attempt, at most `maxDelayMs`, and with `jitter` a random value between half of that and
 * all of it. The one backoff rule of agcore (model requests, MCP reconnects). Never throws.
 */
export function backoffDelay(attempt: number, options: BackoffOptions): number {
  const exponent = Math.max(0, Math.min(attempt - 1, 52));
  const base = Math.min(options.maxDelayMs, options.initialDelayMs * 2 ** exponent);
  return options.jitter === false ? base : base / 2 + Math.random() * (base / 2);
}
