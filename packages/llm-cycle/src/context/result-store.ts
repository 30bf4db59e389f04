import type { ResultStore } from '@agcore/tools-core';

/** Where spilled tool results are kept whole (the interface is tools-core's; re-exported here). */
export type { ResultStore };

/** Options of `MemoryResultStore`. */
export interface MemoryResultStoreOptions {
  /** The most UTF-16 code units kept in all (default 64 Mi); the oldest results expire first. */
  readonly maxChars?: number;
}

/**
 * A `ResultStore` in this process's memory, bounded: past `maxChars` the oldest results expire
 * (reading them says so). Not shared with other processes.
 */
export class MemoryResultStore implements ResultStore {
  readonly #results = new Map<string, string>();
  readonly #maxChars: number;
  #chars = 0;

  /** @throws {RangeError} for a `maxChars` that is not a positive integer */
  constructor(options: MemoryResultStoreOptions = {}) {
    const maxChars = options.maxChars ?? 64 * 1024 * 1024;
    if (!Number.isSafeInteger(maxChars) || maxChars < 1) {
      throw new RangeError(
        `MemoryResultStore: maxChars must be a positive integer, got ${String(maxChars)}.`,
      );
    }
    this.#maxChars = maxChars;
  }

  /** Keeps `content` under `handle`, making the oldest results expire when over `maxChars`. */
  put(handle: string, content: string): void {
    this.#forget(handle);
    this.#results.set(handle, content);
    this.#chars += content.length;
    for (const [oldest, kept] of this.#results) {
      if (this.#chars <= this.#maxChars || oldest === handle) break;
      this.#results.delete(oldest);
      this.#chars -= kept.length;
    }
  }

  /** The content under `handle`, or `undefined` when unknown or expired. */
  get(handle: string): string | undefined {
    return this.#results.get(handle);
  }

  #forget(handle: string): void {
    const kept = this.#results.get(handle);
    if (kept === undefined) return;
    this.#results.delete(handle);
    this.#chars -= kept.length;
  }
}
