import { canonicalJson, ToolError } from '@agcore/tools-core';
import { sha256 } from '../runs/run-seal.js';
import type { LoopVerdict } from '../turn-types.js';

export type { LoopVerdict } from '../turn-types.js';

/** Options of loop detection (`LlmCycleOptions.loopDetection`). */
export interface LoopDetectionOptions {
  /** How often one call (the same tool with the same canonical arguments) may run in one run; default 3. */
  readonly maxRepeats: number;
}

/**
 * Counts the calls of one run (a submit and its resumes) by tool and canonical arguments, once
 * per turn: identical calls in one response are a fan-out (random draws, clocks, cursors held
 * by the server) and share one verdict; a repeat is the same call made again in a later turn,
 * after the model saw its answer. A call may come in `maxRepeats` turns; in the next it is
 * refused with a recoverable `loop_detected` tool message; one more turn after that means the
 * model did not listen, and the run ends. So no run ends on its first response.
 *
 * In memory a call is keyed by the canonical JSON of `[toolName, arguments]`; a run state holds
 * its SHA-256 instead (so a state does not copy every argument twice). The counts of a restored
 * run are looked up by hash until their call comes again.
 */
export class LoopGuard {
  readonly #maxRepeats: number | undefined;
  readonly #counts = new Map<string, number>();
  /** Counts from a run state, by hash, not yet met again. */
  readonly #restored: Map<string, number>;

  /** A guard with `maxRepeats` (`undefined`: off), continuing from a state's `counts` when given. */
  constructor(maxRepeats: number | undefined, counts: readonly (readonly [string, number])[] = []) {
    this.#maxRepeats = maxRepeats;
    this.#restored = new Map(counts);
  }

  /**
   * Counts the calls of one turn (each distinct call once) and says what to do with each, in
   * call order. Never throws.
   */
  admitTurn(
    calls: readonly { readonly toolName: string; readonly input: unknown }[],
  ): LoopVerdict[] {
    if (this.#maxRepeats === undefined) return calls.map(() => 'run');
    if (calls.length === 1) {
      const only = calls[0] as (typeof calls)[number];
      return [this.#admit(canonicalJson([only.toolName, only.input]))];
    }
    const seen = new Map<string, LoopVerdict>();
    return calls.map(({ toolName, input }) => {
      const key = canonicalJson([toolName, input]);
      let verdict = seen.get(key);
      if (verdict === undefined) {
        verdict = this.#admit(key);
        seen.set(key, verdict);
      }
      return verdict;
    });
  }

  #admit(key: string): LoopVerdict {
    const max = this.#maxRepeats as number;
    let count = this.#counts.get(key);
    if (count === undefined && this.#restored.size > 0) {
      const hash = sha256(key);
      count = this.#restored.get(hash);
      this.#restored.delete(hash);
    }
    count = (count ?? 0) + 1;
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

  /** The counts by SHA-256 of their key, for a run state. */
  entries(): [string, number][] {
    return [
      ...this.#restored,
      ...[...this.#counts].map(([key, count]): [string, number] => [sha256(key), count]),
    ];
  }
}
