import { ToolError } from '@agcore/tools-core';
import { repeatKey } from './run-seal.js';

/** Options of loop detection (`LlmCycleOptions.loopDetection`). */
export interface LoopDetectionOptions {
  /** How often one call (the same tool with the same canonical arguments) may run in one run; default 3. */
  readonly maxRepeats: number;
}

/** What the guard says about a call: run it, refuse it (the model is told), or refuse it and end the run. */
export type LoopVerdict = 'run' | 'refuse' | 'stop';

/**
 * Counts the calls of one run (a submit and its resumes) by tool and canonical arguments. The
 * first `maxRepeats` of one call run; the next is refused with a recoverable `loop_detected`
 * tool message; one more after that means the model did not listen, and the run ends.
 */
export class LoopGuard {
  readonly #maxRepeats: number | undefined;
  readonly #counts: Map<string, number>;

  /** A guard with `maxRepeats` (`undefined`: off), continuing from `counts` when given. */
  constructor(maxRepeats: number | undefined, counts: readonly (readonly [string, number])[] = []) {
    this.#maxRepeats = maxRepeats;
    this.#counts = new Map(counts);
  }

  /** Counts one call and says what to do with it. Never throws. */
  admit(toolName: string, input: unknown): LoopVerdict {
    const max = this.#maxRepeats;
    if (max === undefined) return 'run';
    const key = repeatKey(toolName, input);
    const count = (this.#counts.get(key) ?? 0) + 1;
    this.#counts.set(key, count);
    if (count <= max) return 'run';
    return count === max + 1 ? 'refuse' : 'stop';
  }

  /** The tool message of a refused call. */
  refusal(toolName: string): ToolError {
    return new ToolError(
      'loop_detected',
      `Tool '${toolName}' was already called ${this.#maxRepeats} times with these same arguments in this run, so it was not run again. Use the results you already have, or call it with other arguments.`,
      { toolName },
    );
  }

  /** The counts, for a run state. */
  entries(): [string, number][] {
    return [...this.#counts];
  }
}
