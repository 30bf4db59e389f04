import type { LlmError, RetryDetails, RetryOptions } from '@agcore/llm-cycle';
import { type Colors, formatDuration } from '../core/output.js';

/** Retries after the first attempt: the cycle's default, named so each line can say `(1/3)`. */
export const maxRetries = 3;

/** The idle limit of the OpenAI-compatible provider when `--idle-timeout` is not given. */
const defaultIdleTimeoutMs = 60_000;

/** A retry as the `--json` output has it (`{"type":"request_retry", ...}`). */
export interface RetryRecord {
  readonly type: 'request_retry';
  /** 1 for the first retry. */
  readonly attempt: number;
  readonly maxRetries: number;
  /** How long the cycle waits before sending again. */
  readonly delayMs: number;
  /** What went wrong, in a few words (`no byte for 60 s`). */
  readonly reason: string;
  readonly error: { readonly code: string; readonly message: string };
}

/** Where the notices go: a line for people, a record for `--json`. */
export interface RetrySink {
  readonly line: (text: string) => void;
  readonly record?: (record: RetryRecord) => void;
}

/**
 * What went wrong with a request, in a few words a waiting person reads: `no byte for 60 s`
 * (the idle limit), `HTTP 503`, `cannot connect`. Never throws.
 */
export function retryReason(error: LlmError, idleTimeoutMs = defaultIdleTimeoutMs): string {
  if (error.code === 'timeout' && error.message.includes('idleTimeoutMs')) {
    return `no byte for ${formatDuration(idleTimeoutMs)}`;
  }
  if (error.code === 'timeout') return 'no answer in time';
  if (
    (error.code === 'http_error' || error.code === 'rate_limited') &&
    error.statusCode !== undefined
  ) {
    return `HTTP ${error.statusCode}`;
  }
  if (error.code === 'network') return 'cannot connect';
  return error.code.replaceAll('_', ' ');
}

/**
 * The cycle's retry options for the playground: the default number of retries, and a notice
 * per retry as it happens (`↻ no byte for 60 s — retrying (1/3) in 0.5 s`, or a
 * `request_retry` record with `--json`), so a server that never answers is not waited on in
 * silence. Never throws.
 */
export function retryNotices(
  sink: RetrySink,
  colors: Colors,
  idleTimeoutMs: number | undefined,
): RetryOptions {
  return {
    maxRetries,
    onRetry: ({ attempt, delayMs, error }: RetryDetails) => {
      const reason = retryReason(error, idleTimeoutMs);
      if (sink.record !== undefined) {
        sink.record({
          type: 'request_retry',
          attempt,
          maxRetries,
          delayMs,
          reason,
          error: { code: error.code, message: error.message },
        });
        return;
      }
      sink.line(
        colors.yellow(
          `  ↻ ${reason} — retrying (${attempt}/${maxRetries}) in ${formatDuration(delayMs)}`,
        ),
      );
    },
  };
}
