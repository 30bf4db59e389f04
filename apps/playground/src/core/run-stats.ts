import type { StreamEvent } from '@agcore/llm-cycle';

/** What the summary table shows, counted from the events of one run. */
export interface RunStats {
  /** Model turns (requests answered). */
  turns: number;
  /** Tool calls that finished (successfully or not). */
  toolCalls: number;
  /** Tool calls whose result is an error. */
  failures: number;
  /** Prompt tokens, summed over turns (0 when the model reports none). */
  promptTokens: number;
  /** Completion tokens, summed over turns. */
  completionTokens: number;
  /** Whether any turn reported usage at all. */
  usageReported: boolean;
  /** Results cut to `maxToolResultBytes` before they reached the model. */
  truncated: number;
  /** Start of the run (`performance.now()`). */
  readonly startedAt: number;
}

/** Fresh counters. Never throws. */
export function createRunStats(): RunStats {
  return {
    turns: 0,
    toolCalls: 0,
    failures: 0,
    promptTokens: 0,
    completionTokens: 0,
    usageReported: false,
    truncated: 0,
    startedAt: performance.now(),
  };
}

/** Counts an event in `stats` (shared by the pretty and JSON timelines). Never throws. */
export function countEvent(event: StreamEvent, stats: RunStats): void {
  // `interrupted` and `stopped` end a run after its tool step: no model turn of their own.
  if (
    event.type === 'turn_complete' &&
    event.reason !== 'interrupted' &&
    event.reason !== 'stopped'
  ) {
    stats.turns += 1;
    if (event.usage !== undefined) {
      stats.usageReported = true;
      stats.promptTokens += event.usage.promptTokens;
      stats.completionTokens += event.usage.completionTokens;
    }
  } else if (event.type === 'tool_execution_completed') {
    stats.toolCalls += 1;
    if (event.error !== undefined) stats.failures += 1;
    if (event.truncated) stats.truncated += 1;
  }
}
