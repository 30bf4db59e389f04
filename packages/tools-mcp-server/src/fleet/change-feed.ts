import type { ChangeFeed, ServerChange } from '@agcore/tools-core';

/** The change feed a fleet shares (the interface is tools-core's; re-exported here). */
export type { ChangeFeed, ServerChange };

/**
 * A `ChangeFeed` in this process's memory: for one process serving several `serveTools`
 * servers, or tests. A fleet of processes needs a shared feed instead (Postgres `LISTEN/NOTIFY`).
 */
export class InMemoryChangeFeed implements ChangeFeed {
  readonly #listeners = new Set<(change: ServerChange) => void>();

  /** Calls every listener subscribed now with `change`; a listener that throws stops no other. */
  async publish(change: ServerChange): Promise<void> {
    for (const listener of [...this.#listeners]) {
      try {
        listener(change);
      } catch {
        // A listener's failure is its own: the others still hear the change.
      }
    }
  }

  /** Adds `listener`; returns the function that removes it. */
  subscribe(listener: (change: ServerChange) => void): () => void {
    const own = (change: ServerChange) => listener(change);
    this.#listeners.add(own);
    return () => {
      this.#listeners.delete(own);
    };
  }

  /** How many listeners are subscribed. */
  get size(): number {
    return this.#listeners.size;
  }
}
