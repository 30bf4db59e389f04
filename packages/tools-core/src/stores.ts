/**
 * The store interfaces that carry a run's and a call's identity across processes. They are
 * types only: the in-memory implementations live beside the engine that uses them (llm-cycle,
 * tools-mcp-server) and the shared ones in a store package (`@agcore/store-postgres`), so no
 * package depends on a database it does not use. The packages that use a store re-export its
 * interface from here.
 */
import type { JsonValue } from './json.js';

/**
 * Where resumes of paused runs are claimed, so that a run state resumed twice (in two cycles,
 * one after the other or at once) runs its approved calls once: each resume claims
 * `(runId, epoch)` before it runs anything, and only the first claim of a pair is granted.
 */
export interface RunStore {
  /**
   * Claims epoch `epoch` of run `runId`, atomically: resolves `true` to the first claim of the
   * pair and `false` to every later one. A store may also refuse (`false`) an epoch older than
   * one it granted for that run: a stale state. A store shared by processes (a database row
   * per run, a conditional write) extends the guarantee across them.
   * @throws what the store's backend throws; the cycle ends that resume with `callback_failed`
   */
  claim(runId: string, epoch: number): Promise<boolean>;
}

/**
 * Where spilled tool results are kept whole (`spill: { store }`). A store shared by processes
 * (a database, a bucket) lets a run resumed elsewhere read them; the default `MemoryResultStore`
 * lives as long as its process. Both methods may be synchronous or return a promise.
 */
export interface ResultStore {
  /** Keeps `content` under `handle` (a result of the run `runId`). May throw: the model then gets the cut result without a handle. */
  put(handle: string, content: string, runId: string): void | Promise<void>;
  /** The content kept under `handle`, or `undefined` when it is unknown or expired. */
  get(handle: string): string | undefined | Promise<string | undefined>;
}

/** What `IdempotencyStore.reserve` found under a key. */
export type IdempotencyReservation =
  /** Nobody held the key (or its holder's lease expired): the caller now holds it and runs the call. */
  | { readonly state: 'reserved' }
  /** A call with this key committed its result: the caller answers with it and runs nothing. */
  | { readonly state: 'done'; readonly value: JsonValue }
  /** Another call holds an unexpired lease on the key: the caller waits and asks again. */
  | { readonly state: 'in_progress' };

/**
 * Where a server keeps the results of calls it committed, by idempotency key, so that a call made
 * again (a retry after a lost answer, on this instance or another) gets the stored result instead
 * of running the tool a second time. A fleet shares one store (a database). Every method may
 * reject: the call then answers `other` and runs nothing (or reports the tool's result anyway
 * when only the commit failed).
 */
export interface IdempotencyStore {
  /** The result committed under `key`, or `undefined` when none is. */
  get(key: string): Promise<JsonValue | undefined>;
  /**
   * Commits `value` under `key` and ends the caller's lease. A key that already holds a
   * committed result keeps it (the first result wins).
   */
  set(key: string, value: JsonValue): Promise<void>;
  /**
   * Takes a lease of `leaseMs` on `key`, atomically: `reserved` when nobody holds the key (or
   * its lease expired: its holder died), `done` with the committed result, `in_progress` while
   * another caller's lease runs. Of any number of concurrent reservations of a free key, one
   * is `reserved`.
   */
  reserve(key: string, leaseMs: number): Promise<IdempotencyReservation>;
  /** Gives up the caller's lease on `key` without a result (its call failed), so the next reservation is granted at once. */
  release(key: string): Promise<void>;
}
