import { backoffDelay, delay, type IdempotencyStore, type JsonValue } from '@agcore/tools-core';

/** The shortest margin a lease keeps beyond the call's time limit, in milliseconds. */
const minLeaseMarginMs = 1000;
/** How a call waiting on another one's lease asks the store again: 20 ms, doubling, at most 250 ms. */
const waitBackoff = { initialDelayMs: 20, maxDelayMs: 250 } as const;

/** How long a keyed call may hold its key, and how long one waits for another holder. */
export interface KeyedCallLimits {
  /** The call's time limit (the registry's `callTimeLimitMs`). */
  readonly timeLimitMs: number;
  /**
   * The lease taken on the key: the time limit + max(1 s, 10 %). Also how long a call waits for
   * another holder of its key: a lease of the same length taken before the wait began ends within
   * it, so a retry after its holder died always takes the key over rather than timing out.
   */
  readonly leaseMs: number;
}

/**
 * The lease of a keyed call from its time limit: the limit + max(1 s, 10 %), so a holder that
 * runs to its limit still commits inside its lease, and a dead holder's key is free soon after.
 * @throws {TypeError} for a call without a finite time limit (its lease could never end)
 */
export function keyedCallLimits(timeLimitMs: number): KeyedCallLimits {
  if (!Number.isFinite(timeLimitMs) || timeLimitMs <= 0) {
    throw new TypeError(
      `serveTools: an idempotencyStore needs calls with a finite time limit (the registry's timeoutMs), got ${String(timeLimitMs)}: the lease on a key of a node that died could never end.`,
    );
  }
  return { timeLimitMs, leaseMs: timeLimitMs + Math.max(minLeaseMarginMs, timeLimitMs * 0.1) };
}

/** What running under a held key gave: the answer, and the value to commit (a success only). */
export interface HeldRun<T> {
  readonly outcome: T;
  readonly commit?: JsonValue;
}

/** How a keyed call ended. */
export type KeyedOutcome<T> =
  /** Another call with the key committed `value`: nothing ran here. */
  | { readonly kind: 'stored'; readonly value: JsonValue }
  /** This call held the key and ran. */
  | { readonly kind: 'ran'; readonly outcome: T }
  /** Another call held the key past this call's time limit. */
  | { readonly kind: 'timeout' }
  /** The caller went away while this call waited. */
  | { readonly kind: 'cancelled' };

/**
 * Runs `run` once per key across everything that shares `store`: reserves the key for
 * `limits.leaseMs`; a committed key answers its value; a key another call holds is asked again
 * (tools-core backoff) until it is committed, its lease expires (then this call takes it over and
 * runs) or this call's own lease time (its time limit and margin) has passed. A run that commits nothing (it failed, or threw)
 * releases the key, so the next call with it runs at once. A store that rejects rejects this.
 */
export async function runKeyed<T>(
  store: IdempotencyStore,
  key: string,
  limits: KeyedCallLimits,
  signal: AbortSignal,
  run: () => Promise<HeldRun<T>>,
): Promise<KeyedOutcome<T>> {
  const deadline = Date.now() + limits.leaseMs;
  for (let attempt = 1; ; attempt += 1) {
    const found = await store.reserve(key, limits.leaseMs);
    if (found.state === 'done') return { kind: 'stored', value: found.value };
    if (found.state === 'reserved')
      return { kind: 'ran', outcome: await runHolding(store, key, run) };
    const left = deadline - Date.now();
    if (left <= 0) return { kind: 'timeout' };
    try {
      await delay(Math.min(left, backoffDelay(attempt, waitBackoff)), signal);
    } catch {
      return { kind: 'cancelled' };
    }
  }
}

async function runHolding<T>(
  store: IdempotencyStore,
  key: string,
  run: () => Promise<HeldRun<T>>,
): Promise<T> {
  let committed = false;
  try {
    const { outcome, commit } = await run();
    if (commit !== undefined) {
      await store.set(key, commit);
      committed = true;
    }
    return outcome;
  } finally {
    // A release that fails leaves the lease to expire: the answer stays the run's.
    if (!committed) await store.release(key).catch(() => undefined);
  }
}
