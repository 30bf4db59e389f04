import { describeThrown, type RunStore } from '@agcore/tools-core';
import { LlmError } from '../llm-error.js';
import { untilAborted } from './abortable.js';

/** The run a conversation starts with: its id, its epoch, and whether a run used the id already. */
export interface RunOrigin {
  readonly runId: string;
  readonly epoch: number;
  readonly used: boolean;
}

/** Where resumes of paused runs are claimed (the interface is tools-core's; re-exported here). */
export type { RunStore };

/**
 * A `RunStore` in memory, for one process: it keeps, per run id, the highest epoch it granted
 * (a few dozen bytes per run that was ever resumed; runs never resumed take nothing). Every
 * `LlmCycle` without a `runStore` uses one shared instance (shared by all copies of this
 * package in the process, too).
 */
export class MemoryRunStore implements RunStore {
  readonly #granted = new Map<string, number>();

  /**
   * `true` when `epoch` is above every epoch granted for `runId` so far (then it is granted),
   * else `false`. Check and grant happen in one synchronous step, so concurrent claims in the
   * process get one `true`.
   * @throws {TypeError} (as a rejection) for a run id that is not a non-empty string or an epoch that is not an integer >= 0
   */
  claim(runId: string, epoch: number): Promise<boolean> {
    if (typeof runId !== 'string' || runId === '') {
      return Promise.reject(
        new TypeError('MemoryRunStore.claim: runId must be a non-empty string.'),
      );
    }
    if (!Number.isSafeInteger(epoch) || epoch < 0) {
      return Promise.reject(
        new TypeError(`MemoryRunStore.claim: epoch must be an integer >= 0, got ${String(epoch)}.`),
      );
    }
    const granted = this.#granted.get(runId);
    if (granted !== undefined && epoch <= granted) return Promise.resolve(false);
    this.#granted.set(runId, epoch);
    return Promise.resolve(true);
  }
}

const processStoreKey = Symbol.for('@agcore/llm-cycle.processRunStore');

/** The process's `MemoryRunStore`, made on first use (and shared by copies of this package). */
export function processRunStore(): RunStore {
  const holder = globalThis as { [processStoreKey]?: RunStore };
  holder[processStoreKey] ??= new MemoryRunStore();
  return holder[processStoreKey];
}

/**
 * Claims the resume of epoch `epoch` of run `runId` from `store`, before anything runs.
 * @throws {LlmError} `state_conflict` when the store refuses (the state was resumed already,
 * here or elsewhere, or a later epoch was); `callback_failed` when the store throws, rejects
 * or answers something that is not a boolean (nothing ran; the run stays paused);
 * `cancelled` when `signal` aborts first (the store may still have granted the claim)
 */
export async function claimResume(
  store: RunStore,
  runId: string,
  epoch: number,
  signal: AbortSignal,
): Promise<void> {
  let granted: unknown;
  try {
    let claim: Promise<boolean>;
    try {
      claim = store.claim(runId, epoch);
    } catch (error) {
      claim = Promise.reject(error);
    }
    granted = await untilAborted(claim, signal);
  } catch (error) {
    if (signal.aborted) {
      throw new LlmError('cancelled', 'The resume was cancelled while its run was being claimed.', {
        cause: signal.reason,
      });
    }
    throw new LlmError(
      'callback_failed',
      `The run store failed to claim epoch ${epoch} of run ${JSON.stringify(runId)}: ${describeThrown(error)}. Nothing was run; the run is still paused, resume again once the store works.`,
      { cause: error },
    );
  }
  if (granted === true) return;
  if (granted === false) {
    throw new LlmError(
      'state_conflict',
      `Run ${JSON.stringify(runId)} was already resumed from epoch ${epoch} (this state was used before, here or in another LlmCycle sharing the run store), so it was not resumed again. Nothing was run; go on from the state the first resume left.`,
    );
  }
  throw new LlmError(
    'callback_failed',
    `The run store answered ${describeThrown(granted)} to the claim of epoch ${epoch} of run ${JSON.stringify(runId)}, not true or false. Nothing was run; the run is still paused.`,
  );
}
