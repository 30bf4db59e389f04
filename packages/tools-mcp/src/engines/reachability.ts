import type { McpUnreachableOptions } from '../types.js';

/** When an HTTP server counts as unreachable: `McpUnreachableOptions` checked, defaults filled. */
export interface UnreachablePolicy {
  /** Consecutive failures needed (default 5). */
  readonly failures: number;
  /** The least time from the first of them to the last, in ms (default 10 000). */
  readonly windowMs: number;
}

/** The defaults the README documents: 5 consecutive failures spanning at least 10 s. */
export const defaultUnreachable: UnreachablePolicy = { failures: 5, windowMs: 10_000 };

/**
 * `options` checked, the defaults filled in.
 *
 * @throws {TypeError} when `failures` is not a positive integer or `windowMs` not a number ≥ 0.
 */
export function unreachablePolicy(options: McpUnreachableOptions | undefined): UnreachablePolicy {
  const { failures = defaultUnreachable.failures, windowMs = defaultUnreachable.windowMs } =
    options ?? {};
  if (!Number.isInteger(failures) || failures < 1) {
    throw new TypeError(
      `McpClient: unreachableAfter.failures must be a positive integer, got ${String(failures)}.`,
    );
  }
  if (typeof windowMs !== 'number' || !Number.isFinite(windowMs) || windowMs < 0) {
    throw new TypeError(
      `McpClient: unreachableAfter.windowMs must be a number of milliseconds ≥ 0, got ${String(windowMs)}.`,
    );
  }
  return { failures, windowMs };
}

/**
 * Decides when an HTTP server is unreachable: after `failures` consecutive failed requests or
 * pings, the first and the last at least `windowMs` apart, with no answered request between.
 * One failure says nothing (behind a balancer the next request may reach a live node); any
 * answer starts the count over.
 */
export class ReachabilityWindow {
  private count = 0;
  private firstAt = 0;

  constructor(
    private readonly policy: UnreachablePolicy,
    private readonly now: () => number = Date.now,
  ) {}

  /** Consecutive failures so far (0 after an answer). */
  get failures(): number {
    return this.count;
  }

  /** A request or ping failed without an answer: whether the server is now unreachable. */
  failed(): boolean {
    const at = this.now();
    if (this.count === 0) this.firstAt = at;
    this.count += 1;
    return this.count >= this.policy.failures && at - this.firstAt >= this.policy.windowMs;
  }

  /** A request was answered: the server is reachable, the count starts over. */
  answered(): void {
    this.count = 0;
  }
}
