import type { Interruption, ResumeDecision } from '@agcore/llm-cycle';
import { LlmError } from '@agcore/llm-cycle';
import { describeThrown } from '@agcore/tools-core';
import type { RunStats } from '../core/run-stats.js';

/** Where a run of the page stands, for its buttons. */
export type PageRunStatus = 'starting' | 'running' | 'paused' | 'finished';

/** What the API drives: a flow's run or one chat message (one at a time). */
export interface PageRun {
  /** The id the page's requests name. */
  readonly id: string;
  readonly status: PageRunStatus;
  /** The calls that wait for a decision now. */
  readonly waiting: readonly Interruption[];
  /** Records a decision; returns the refusal's message, or `undefined`. */
  decide(callId: string, decision: ResumeDecision): string | undefined;
  /** Writes the paused run to `file`; resolves to the refusal's message, or `undefined`. */
  save(file: string): Promise<string | undefined>;
  /** Cancels the request and tools (a paused run is abandoned). Never throws. */
  cancel(): void;
}

/** The summary the page shows (the terminal's table, as numbers). */
export function summaryOf(stats: RunStats) {
  return {
    turns: stats.turns,
    toolCalls: stats.toolCalls,
    failures: stats.failures,
    promptTokens: stats.promptTokens,
    completionTokens: stats.completionTokens,
    usageReported: stats.usageReported,
    truncated: stats.truncated,
    wallMs: Math.round(performance.now() - stats.startedAt),
  };
}

/** A failure as the page shows it: its code (an `LlmError`'s) and message. Never throws. */
export function describeFailure(failure: unknown): { code?: string; message: string } {
  const message = describeThrown(failure);
  return LlmError.isInstance(failure) ? { code: failure.code, message } : { message };
}
