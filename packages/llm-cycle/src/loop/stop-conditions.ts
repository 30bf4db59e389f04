import { describeThrown, type JsonValue } from '@agcore/tools-core';
import type { ChatResponse, Usage } from '../chat-provider.js';
import { LlmError } from '../llm-error.js';

/** What a `StopCondition` sees after a tool turn (counts are of the run: the submit and its resumes). */
export interface RunProgress {
  /** Model requests the run made. */
  readonly turns: number;
  /** Tool calls the model made in the run. */
  readonly toolCalls: number;
  /** Token use of the run's requests. */
  readonly usage: Usage;
  /** The answer of the turn that just ended (its calls are answered in the history). */
  readonly response: ChatResponse;
  /** That turn's calls. */
  readonly calls: readonly {
    readonly toolName: string;
    readonly callId: string;
    readonly input: JsonValue;
  }[];
}

/**
 * Ends the tool loop gracefully when it holds after a tool turn: return `true` or a reason
 * (a string, the response's `stopReason`), else `false`. It must be synchronous; one that
 * throws ends the submit with `LlmError` `callback_failed` (the history whole).
 */
export type StopCondition = (progress: RunProgress) => boolean | string;

/** Holds once the model made at least `count` tool calls in the run. @throws {RangeError} for a count that is not an integer >= 1 */
export function stopAfterToolCalls(count: number): StopCondition {
  checkCount('stopAfterToolCalls', count);
  const reason = `stopAfterToolCalls(${count})`;
  return (progress) => (progress.toolCalls >= count ? reason : false);
}

/** Holds once the run's requests used at least `count` tokens (`usage.totalTokens`). @throws {RangeError} as `stopAfterToolCalls` */
export function stopAfterTokens(count: number): StopCondition {
  checkCount('stopAfterTokens', count);
  const reason = `stopAfterTokens(${count})`;
  return (progress) => (progress.usage.totalTokens >= count ? reason : false);
}

/** Holds when the turn called the tool `name` (whatever came of the call). */
export function stopOnTool(name: string): StopCondition {
  if (typeof name !== 'string' || name === '') {
    throw new TypeError(`stopOnTool: name must be a tool name, got ${String(name)}.`);
  }
  const reason = `stopOnTool(${JSON.stringify(name)})`;
  return (progress) => (progress.calls.some((call) => call.toolName === name) ? reason : false);
}

/**
 * The reason of the first condition that holds after a tool turn, or `undefined`.
 * @throws {LlmError} `callback_failed` when a condition throws or returns something that is
 * not a boolean or a string (a promise included)
 */
export function firstStop(
  conditions: readonly StopCondition[],
  seen: RunProgress,
): string | undefined {
  for (const condition of conditions) {
    let verdict: unknown;
    try {
      verdict = condition(seen);
    } catch (error) {
      throw failed(`threw: ${describeThrown(error)}`, error);
    }
    if (verdict === false) continue;
    if (verdict === true) return 'stopWhen';
    if (typeof verdict === 'string') return verdict === '' ? 'stopWhen' : verdict;
    throw failed(
      `returned ${isThenable(verdict) ? 'a promise (stop conditions must be synchronous)' : describeThrown(verdict)}, not a boolean or a reason string`,
      undefined,
    );
  }
  return undefined;
}

/** Whether `value` looks like a promise (read without letting a hostile object throw). */
function isThenable(value: unknown): boolean {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  try {
    return typeof (value as { then?: unknown }).then === 'function';
  } catch {
    return false;
  }
}

function failed(what: string, cause: unknown): LlmError {
  return new LlmError(
    'callback_failed',
    `A stopWhen condition ${what}. The history is whole; fix the condition and submit again to go on.`,
    cause === undefined ? {} : { cause },
  );
}

function checkCount(name: string, count: number): void {
  if (!Number.isSafeInteger(count) || count < 1) {
    throw new RangeError(`${name}: count must be an integer >= 1, got ${String(count)}.`);
  }
}
