import type { JsonValue } from '@agcore/tools-core';

/**
 * Where a server keeps the results of calls it committed, by idempotency key, so that a call made
 * again (a retry after a lost answer, on this instance or another) gets the stored result instead
 * of running the tool a second time. A fleet shares one store (a database); `get` and `set` may
 * reject: the call then answers `other` and runs nothing / reports the tool's result anyway.
 */
export interface IdempotencyStore {
  /** The result committed under `key`, or `undefined` when none is. */
  get(key: string): Promise<JsonValue | undefined>;
  /** Commits `value` under `key`. */
  set(key: string, value: JsonValue): Promise<void>;
}

/** Options of `InMemoryIdempotencyStore`. */
export interface InMemoryIdempotencyStoreOptions {
  /** The most keys kept; the oldest goes first. Default 10 000. */
  readonly maxEntries?: number;
}

/**
 * An `IdempotencyStore` in this process's memory: for one instance, or tests. A fleet behind a
 * load balancer needs a shared store instead.
 */
export class InMemoryIdempotencyStore implements IdempotencyStore {
  readonly #entries = new Map<string, JsonValue>();
  readonly #maxEntries: number;

  /** Makes an empty store (`RangeError` for a `maxEntries` that is not a positive integer). */
  constructor(options: InMemoryIdempotencyStoreOptions = {}) {
    const maxEntries = options.maxEntries ?? 10_000;
    if (!Number.isSafeInteger(maxEntries) || maxEntries < 1) {
      throw new RangeError(
        `InMemoryIdempotencyStore: maxEntries must be a positive integer, got ${String(maxEntries)}`,
      );
    }
    this.#maxEntries = maxEntries;
  }

  /** The result committed under `key`, or `undefined`. */
  async get(key: string): Promise<JsonValue | undefined> {
    return this.#entries.get(key);
  }

  /** Commits `value` under `key`, dropping the oldest key past `maxEntries`. */
  async set(key: string, value: JsonValue): Promise<void> {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done !== true) this.#entries.delete(oldest.value);
    }
  }

  /** How many keys are stored. */
  get size(): number {
    return this.#entries.size;
  }
}
