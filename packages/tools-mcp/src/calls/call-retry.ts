import { backoffDelay, delay } from '@agcore/tools-core';
import { McpToolError } from '../mcp-tool-error.js';
import type { McpRetryOptions } from '../types.js';

const defaultBackoffMs = 200;

/** A checked `McpRetryOptions`: the attempts in all, and the first wait. */
export interface RetryPolicy {
  readonly attempts: number;
  readonly backoffMs: number;
}

/**
 * `options` checked, or `undefined` when there is nothing to retry (absent, or one attempt).
 *
 * @throws {TypeError} when `attempts` is not a positive integer or `backoffMs` not a number ≥ 0.
 */
export function retryPolicy(options: McpRetryOptions | undefined): RetryPolicy | undefined {
  if (options === undefined) return undefined;
  const { attempts, backoffMs = defaultBackoffMs } = options;
  if (!Number.isInteger(attempts) || attempts < 1) {
    throw new TypeError(
      `McpClient: retry.attempts must be a positive integer, got ${String(attempts)}.`,
    );
  }
  if (typeof backoffMs !== 'number' || !Number.isFinite(backoffMs) || backoffMs < 0) {
    throw new TypeError(
      `McpClient: retry.backoffMs must be a number of milliseconds ≥ 0, got ${String(backoffMs)}.`,
    );
  }
  return attempts === 1 ? undefined : { attempts, backoffMs };
}

/** One call made with retries: how to make an attempt and what bounds them all. */
export interface RetriedCall<T> {
  /** Makes one attempt. */
  readonly attempt: () => Promise<T>;
  /** Whether the call may run twice (read-only by annotation, or carrying an idempotency key). */
  readonly safe: () => Promise<boolean>;
  /** Aborts the waits between attempts too. */
  readonly signal: AbortSignal | undefined;
  /** When the call's time limit, which spans every attempt, runs out (epoch ms). */
  readonly deadline: number | undefined;
  /** The error for a call whose signal aborted while it waited to try again. */
  readonly stopped: (reason: unknown) => McpToolError;
}

/**
 * Whether a failed attempt may be made again: the server's answer never came (a cut response
 * stream, a lost or unreachable server), so the call may or may not have run. A server's own
 * answer (an error result, a refusal), a time limit or the caller's abort is final.
 */
export function isRetryable(error: unknown): boolean {
  return error instanceof McpToolError && error.code === 'mcp_error';
}

/**
 * Runs `call` up to `policy.attempts` times while its failures are retryable and the call is
 * safe to repeat, waiting tools-core's backoff between attempts; never past the deadline, never
 * after the signal aborts. Rejects with the last attempt's error (or `stopped(reason)`).
 */
export async function runWithRetry<T>(policy: RetryPolicy, call: RetriedCall<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await call.attempt();
    } catch (error) {
      if (attempt >= policy.attempts || !isRetryable(error) || !(await call.safe())) throw error;
      const waitMs = backoffDelay(attempt, {
        initialDelayMs: policy.backoffMs,
        maxDelayMs: policy.backoffMs * 16,
      });
      if (call.deadline !== undefined && Date.now() + waitMs >= call.deadline) throw error;
      try {
        await delay(waitMs, call.signal);
      } catch (reason) {
        throw call.stopped(reason);
      }
    }
  }
}
