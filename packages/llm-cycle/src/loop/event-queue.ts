/** A single-consumer queue of items pushed by callbacks and taken by a stream, all at once. */
export class EventQueue<T> {
  #items: T[] = [];
  #closed = false;
  #wake: (() => void) | undefined;

  /** Adds an item (ignored once closed). */
  push(item: T): void {
    if (this.#closed) return;
    this.#items.push(item);
    this.#notify();
  }

  /** No more items will come; `take` drains what is left, then returns `undefined`. */
  close(): void {
    this.#closed = true;
    this.#notify();
  }

  /** Every item pushed since the last call (waiting for one), or `undefined` once closed and empty. */
  async take(): Promise<T[] | undefined> {
    for (;;) {
      if (this.#items.length > 0) {
        const items = this.#items;
        this.#items = [];
        return items;
      }
      if (this.#closed) return undefined;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
    }
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}
