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
