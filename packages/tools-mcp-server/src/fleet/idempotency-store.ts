import type { IdempotencyReservation, IdempotencyStore, JsonValue } from '@agcore/tools-core';

/** Where a server keeps committed results by idempotency key (the interface is tools-core's; re-exported here). */
export type { IdempotencyReservation, IdempotencyStore };

/** Options of `InMemoryIdempotencyStore`. */
export interface InMemoryIdempotencyStoreOptions {
  /** The most keys kept; the oldest goes first. Default 10 000. */
  readonly maxEntries?: number;
}

type Entry =
  | { readonly state: 'done'; readonly value: JsonValue }
  | { readonly state: 'leased'; readonly until: number };

/**
 * An `IdempotencyStore` in this process's memory: for one instance, or tests. A fleet behind a
 * load balancer needs a shared store instead.
 */
export class InMemoryIdempotencyStore implements IdempotencyStore {
  readonly #entries = new Map<string, Entry>();
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
    const entry = this.#entries.get(key);
    return entry?.state === 'done' ? entry.value : undefined;
  }

  /** Commits `value` under `key` (a key already committed keeps its first result), dropping the oldest key past `maxEntries`. */
  async set(key: string, value: JsonValue): Promise<void> {
    if (this.#entries.get(key)?.state === 'done') return;
    this.#put(key, { state: 'done', value });
  }

  /**
   * Takes a lease of `leaseMs` on `key`: `reserved` when the key is free or its lease ran out,
   * `done` with a committed result, `in_progress` while another lease runs. Check and take
   * happen in one synchronous step, so concurrent reservations in the process get one `reserved`.
   * @throws {RangeError} (as a rejection) for a `leaseMs` that is not a positive finite number
   */
  async reserve(key: string, leaseMs: number): Promise<IdempotencyReservation> {
    if (typeof leaseMs !== 'number' || !Number.isFinite(leaseMs) || leaseMs <= 0) {
      throw new RangeError(
        `InMemoryIdempotencyStore.reserve: leaseMs must be a positive number, got ${String(leaseMs)}`,
      );
    }
    const entry = this.#entries.get(key);
    if (entry?.state === 'done') return { state: 'done', value: entry.value };
    const now = Date.now();
    if (entry !== undefined && entry.until > now) return { state: 'in_progress' };
    this.#put(key, { state: 'leased', until: now + leaseMs });
    return { state: 'reserved' };
  }

  /** Gives up the lease on `key` (a committed result stays). */
  async release(key: string): Promise<void> {
    if (this.#entries.get(key)?.state === 'leased') this.#entries.delete(key);
  }

  /** How many keys are stored (committed or leased). */
  get size(): number {
    return this.#entries.size;
  }

  #put(key: string, entry: Entry): void {
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    if (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done !== true) this.#entries.delete(oldest.value);
    }
  }
}
