import type { JsonValue } from '@agcore/tools-core';
import type { ChatResponse, Usage } from '../chat-provider.js';
import type { PendingRun } from '../runs/run-state.js';
import { LoopGuard } from './loop-guard.js';
import type { RunProgress } from './stop-conditions.js';
import type { PreparedCall, ToolTurn } from './tool-step.js';

/** No tokens. */
export const zeroUsage: Usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };

/** `total` plus `usage` (a response without usage counts as 0). */
export function addUsage(total: Usage, usage: Usage | undefined): Usage {
  if (usage === undefined) return total;
  const sum: { -readonly [K in keyof Usage]: Usage[K] } = {
    promptTokens: total.promptTokens + usage.promptTokens,
    completionTokens: total.completionTokens + usage.completionTokens,
    totalTokens: total.totalTokens + usage.totalTokens,
  };
  // The counts a native provider reports, kept once either side has them.
  for (const key of ['cacheReadTokens', 'cacheWriteTokens', 'reasoningTokens'] as const) {
    const [a, b] = [total[key], usage[key]];
    if (a !== undefined || b !== undefined) sum[key] = (a ?? 0) + (b ?? 0);
  }
  return sum;
}

/** What one run (a submit and its resumes) has done so far: what `maxTurns`, the loop guard and the stop conditions count. */
export class RunCounters {
  /** Model requests made. */
  turns = 0;
  /** Tool calls the model made. */
  toolCalls = 0;
  /** Token use of the requests. */
  usage: Usage = zeroUsage;
  readonly guard: LoopGuard;
  /** The run's id (`RunState.runId`): tools get `${runId}:${callId}` as `context.idempotencyKey`. */
  readonly runId: string;

  /** Fresh counters, or those of a paused run. */
  constructor(maxRepeats: number | undefined, runId: string, paused?: PendingRun) {
    this.runId = runId;
    this.guard = new LoopGuard(maxRepeats, paused?.repeats);
    if (paused !== undefined) {
      this.turns = paused.turns;
      this.toolCalls = paused.toolCalls;
      this.usage = paused.usage;
    }
  }

  /** What a stop condition sees after `turn`, the turn of `response`. */
  progress(response: ChatResponse, turn: ToolTurn): RunProgress {
    return {
      turns: this.turns,
      toolCalls: this.toolCalls,
      usage: this.usage,
      response,
      calls: turn.calls.map(({ call, input }: PreparedCall) => ({
        toolName: call.function.name,
        callId: call.id,
        input: input as JsonValue,
      })),
    };
  }
}
