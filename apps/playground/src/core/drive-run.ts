import type { Interruption, LlmCycle, ResumeDecision, StreamEvent } from '@agcore/llm-cycle';
import type { ToolRegistry } from '@agcore/tools-registry';

/** What `driveRun` needs. */
export interface DriveOptions {
  readonly cycle: LlmCycle;
  readonly registry: ToolRegistry;
  readonly signal: AbortSignal;
  /** `undefined`: the cycle is paused already (restored from a state); go on from there. */
  readonly prompt: string | undefined;
  /** Receives every event of the submit and of each resume. */
  readonly onEvent: (event: StreamEvent) => void;
  /** The decisions on the waiting calls, or `'keep'` to leave the run paused. */
  readonly onPause: (
    interruptions: Interruption[],
  ) => Promise<Record<string, ResumeDecision> | 'keep'>;
}

/** How a driven run ended: whole, paused (kept so), or with an error. */
export interface DriveResult {
  readonly paused: boolean;
  readonly failure?: unknown;
}

/**
 * Streams a submit, and each time the run pauses, gets the decisions and resumes it, until it
 * ends or `onPause` keeps it paused. When getting decisions fails (no flag and nobody to ask,
 * Ctrl-C at the question), the run is abandoned with that reason, so the history is whole.
 */
export async function driveRun(options: DriveOptions): Promise<DriveResult> {
  const { cycle, registry, signal } = options;
  try {
    let stream =
      options.prompt === undefined
        ? undefined
        : cycle.submitStreamWithTools(options.prompt, registry, { signal });
    for (;;) {
      if (stream !== undefined) for await (const event of stream) options.onEvent(event);
      const waiting = cycle.interruptions();
      if (waiting.length === 0) return { paused: false };
      let decisions: Record<string, ResumeDecision> | 'keep';
      try {
        decisions = await options.onPause(waiting);
      } catch (error) {
        cycle.abandon(
          `No decision was given: ${error instanceof Error ? error.message : String(error)}`,
        );
        throw error;
      }
      if (decisions === 'keep') return { paused: true };
      stream = cycle.resumeStream(decisions, registry, { signal });
    }
  } catch (failure) {
    return { paused: cycle.interruptions().length > 0, failure };
  }
}
