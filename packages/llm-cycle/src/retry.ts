import { backoffDelay } from '@agcore/tools-core';
import { LlmError } from './llm-error.js';

/** How the cycle retries a failed request. */
export interface RetryOptions {
  /** Retries after the first attempt (default 3; 0 turns retries off). */
  readonly maxRetries?: number;
  /** The first backoff delay (default 500 ms); each retry doubles it. */
  readonly initialDelayMs?: number;
  /** The longest wait before a retry, backoff or `Retry-After` (default 60 000 ms). A `Retry-After` longer than this is not waited for: the error is thrown. */
  readonly maxDelayMs?: number;
  /** Randomizes each backoff delay between 50% and 100% of its value (default `true`). `Retry-After` is honoured exactly. */
  readonly jitter?: boolean;
  /** Called before each wait, e.g. to log. Exceptions from it are ignored. */
  readonly onRetry?: (details: RetryDetails) => void;
}

/** What `RetryOptions.onRetry` is told. */
export interface RetryDetails {
  /** 1 for the first retry. */
  readonly attempt: number;
  /** How long the cycle waits before sending again. */
  readonly delayMs: number;
  /** The error that caused the retry. */
  readonly error: LlmError;
}

/** `RetryOptions` with every default filled in. */
export interface ResolvedRetryOptions {
  readonly maxRetries: number;
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
  readonly jitter: boolean;
  readonly onRetry: ((details: RetryDetails) => void) | undefined;
}

/** Fills in the defaults of `RetryOptions`. @throws {RangeError} for a negative or non-finite number */
export function resolveRetryOptions(options: RetryOptions | undefined): ResolvedRetryOptions {
  const resolved = {
    maxRetries: options?.maxRetries ?? 3,
    initialDelayMs: options?.initialDelayMs ?? 500,
    maxDelayMs: options?.maxDelayMs ?? 60_000,
    jitter: options?.jitter ?? true,
    onRetry: options?.onRetry,
  };
  for (const key of ['maxRetries', 'initialDelayMs', 'maxDelayMs'] as const) {
    const value = resolved[key];
    if (!Number.isFinite(value) || value < 0)
      throw new RangeError(`retry.${key} must be a finite number >= 0, got ${value}.`);
  }
  return resolved;
}

/**
 * The wait before retry number `attempt` (1-based) after `error`, or `undefined` when the error
 * must not be retried: not retryable, retries used up, or a `Retry-After` beyond `maxDelayMs`.
 */
export function retryDelay(
  error: unknown,
  attempt: number,
  options: ResolvedRetryOptions,
): number | undefined {
  if (!LlmError.isInstance(error) || !error.isRetryable || attempt > options.maxRetries)
    return undefined;
  if (error.retryAfterMs !== undefined)
    return error.retryAfterMs <= options.maxDelayMs ? error.retryAfterMs : undefined;
  return backoffDelay(attempt, options);
}
