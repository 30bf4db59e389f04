import { onNextTurn } from './event-loop-turn.js';

/**
 * Synchronous send work (building and serializing a request, and `fetch`'s own synchronous
 * part) allowed in one turn of the event loop before further sends wait for the next turn.
 * About a dozen requests of a small tool loop; their promise continuations (undici connecting
 * and writing) roughly double it, so a turn stays within a few milliseconds.
 */
const sliceBudgetMs = 2;

/**
 * Spreads bursts of requests over turns of the event loop. Starting a thousand conversations
 * at once (a server taking a burst) would otherwise build, serialize and hand to `fetch` a
 * thousand requests in one go, and the process would serve nothing else — no timer, no socket —
 * for a few hundred milliseconds. The pacer runs each send in a microtask (so the call that
 * asked for it returns first) while the current turn has spent less than `sliceBudgetMs` on
 * sends, and queues the others, first come first served, for the following turns (a slice per
 * turn). One conversation never waits a turn: its requests come one per turn at most. A turn's
 * account is closed by one `setImmediate`, scheduled by its first send.
 */
class SendPacer {
  readonly #queue: (() => void)[] = [];
  #spentMs = 0;
  #sliceOpen = false;

  /**
   * Runs `send` after the current synchronous code (a microtask: the caller returns at once), or
   * in a later turn when this one's budget is spent; resolves to its result (a rejection, or an
   * exception `send` throws, is the returned promise's).
   */
  run<T>(send: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const start = (): void => {
        try {
          resolve(this.#timed(send));
        } catch (error) {
          reject(error);
        }
      };
      if (this.#queue.length > 0) this.#queue.push(start);
      else
        queueMicrotask(() => {
          if (this.#queue.length === 0 && this.#spentMs < sliceBudgetMs) start();
          else this.#queue.push(start);
        });
    });
  }

  #timed<T>(send: () => Promise<T>): Promise<T> {
    if (!this.#sliceOpen) {
      this.#sliceOpen = true;
      onNextTurn(this.#nextSlice);
    }
    const start = performance.now();
    try {
      return send();
    } finally {
      this.#spentMs += performance.now() - start;
    }
  }

  /** A new turn: the account starts again, and the queue is served up to the budget. */
  readonly #nextSlice = (): void => {
    this.#sliceOpen = false;
    this.#spentMs = 0;
    const queue = this.#queue;
    let served = 0;
    while (served < queue.length && this.#spentMs < sliceBudgetMs)
      (queue[served++] as () => void)();
    if (served > 0) queue.splice(0, served);
  };
}

/** The pacer of this thread's event loop, shared by every provider. */
export const sendPacer = new SendPacer();
