import type { ResultCut, TruncationOptions } from './head-tail.js';
import { MemoryResultStore, type ResultStore } from './result-store.js';
import type { ResolvedSpill } from './spill.js';
import {
  type ResolvedToolSearch,
  resolveToolSearch,
  type ToolSearchOptions,
} from './tool-search.js';

/** `spill: { store }`: where results over the limit are kept whole (default a `MemoryResultStore`). */
export interface SpillOptions {
  readonly store: ResultStore;
}

/** `clearOldResults`: how long tool results stay whole in what is sent. */
export interface ClearOldResultsOptions {
  /** A result is sent whole in this many requests after it arrived, then as its head + a marker (an integer >= 1). */
  readonly keepTurns: number;
  /** Bytes of a cleared result that are still sent (default 256). */
  readonly headBytes?: number;
}

/** Clearing, resolved. */
export interface ResolvedClearing {
  readonly keepTurns: number;
  readonly headBytes: number;
}

/** The context budget options of `LlmCycleOptions`. */
export interface BudgetOptions {
  readonly maxToolResultBytes?: number | null | undefined;
  readonly truncation?: TruncationOptions | undefined;
  readonly spill?: true | SpillOptions | undefined;
  readonly clearOldResults?: ClearOldResultsOptions | undefined;
  readonly toolSearch?: ToolSearchOptions | undefined;
}

/** The budget options checked, defaults filled in. */
export interface ResolvedBudget {
  readonly resultCut: ResultCut | null;
  readonly spill: ResolvedSpill | undefined;
  readonly clearing: ResolvedClearing | undefined;
  readonly toolSearch: ResolvedToolSearch | undefined;
}

/** Room left in a tool message for the marker and the slice header of `read_result`. */
const markerRoom = 256;

/**
 * Checks the budget options. The limit is `maxToolResultBytes` (default 16 384; with both
 * `truncation.head` and `.tail` given and no limit, `head + tail + 256`).
 * @throws {RangeError} for a size out of range
 * @throws {TypeError} for `spill` without a limit, or options of the wrong shape
 */
export function resolveBudget(options: BudgetOptions): ResolvedBudget {
  const truncation = options.truncation;
  if (truncation !== undefined && (typeof truncation !== 'object' || truncation === null)) {
    throw new TypeError('LlmCycle: truncation must be { head?, tail? } (bytes).');
  }
  const head = size('truncation.head', truncation?.head);
  const tail = size('truncation.tail', truncation?.tail);
  const resultCut = cutOf(options.maxToolResultBytes, head, tail);
  return {
    resultCut,
    spill: spillOf(options.spill, resultCut),
    clearing: clearingOf(options.clearOldResults),
    toolSearch: resolveToolSearch(options.toolSearch),
  };
}

function cutOf(
  given: number | null | undefined,
  head: number | undefined,
  tail: number | undefined,
): ResultCut | null {
  if (given === null) return null;
  const fallback = head !== undefined && tail !== undefined ? head + tail + markerRoom : 16 * 1024;
  const limit = given ?? fallback;
  // Below 64 bytes the truncation marker itself would not fit.
  if (typeof limit !== 'number' || !(limit >= 64)) {
    throw new RangeError(
      `LlmCycle: maxToolResultBytes must be at least 64 (room for the truncation marker) or null, got ${String(limit)}.`,
    );
  }
  return {
    limit,
    head: head ?? Math.floor((limit * 3) / 4),
    tail: tail ?? Math.floor(limit / 4),
  };
}

function spillOf(
  option: true | SpillOptions | undefined,
  cut: ResultCut | null,
): ResolvedSpill | undefined {
  if (option === undefined) return undefined;
  const store = option === true ? new MemoryResultStore() : option?.store;
  if (
    typeof store !== 'object' ||
    store === null ||
    typeof store.put !== 'function' ||
    typeof store.get !== 'function'
  ) {
    throw new TypeError('LlmCycle: spill must be true or { store } with put and get methods.');
  }
  if (cut === null) {
    throw new TypeError(
      'LlmCycle: spill needs a result limit; give maxToolResultBytes a number (not null).',
    );
  }
  if (cut.limit < 4 * markerRoom) {
    throw new RangeError(
      `LlmCycle: with spill, maxToolResultBytes must be at least ${4 * markerRoom} (room for a read_result slice), got ${cut.limit}.`,
    );
  }
  return { store, readBytes: cut.limit - markerRoom };
}

function clearingOf(option: ClearOldResultsOptions | undefined): ResolvedClearing | undefined {
  if (option === undefined) return undefined;
  if (typeof option !== 'object' || option === null) {
    throw new TypeError('LlmCycle: clearOldResults must be { keepTurns, headBytes? }.');
  }
  const { keepTurns } = option;
  if (!Number.isSafeInteger(keepTurns) || keepTurns < 1) {
    throw new RangeError(
      `LlmCycle: clearOldResults.keepTurns must be an integer >= 1, got ${String(keepTurns)}.`,
    );
  }
  return { keepTurns, headBytes: size('clearOldResults.headBytes', option.headBytes) ?? 256 };
}

function size(name: string, value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(
      `LlmCycle: ${name} must be an integer >= 0 (bytes), got ${String(value)}.`,
    );
  }
  return value;
}
