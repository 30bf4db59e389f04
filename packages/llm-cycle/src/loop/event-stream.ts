import type { ChatResponse } from '../chat-provider.js';
import type { StreamEvent } from '../stream-events.js';

const noEvents: readonly StreamEvent[] = Object.freeze([]);

/**
 * The async generator that `submitStream` and `submitStreamWithTools` return, over a source
 * that yields the events in batches (those of one network read, of one tool step).
 *
 * An async generator step costs several promise hops and a context switch; handing the
 * events of a batch over from a buffer costs one resolved promise each, which is most of a
 * long stream's client-side cost. It behaves as the source would if it yielded the events one
 * by one: `next`, `return` and `throw` run in call order; `return` and `throw` go to the source
 * (so a consumer's `break` runs its cleanup) and drop the events still buffered.
 */
export class EventStream implements AsyncGenerator<StreamEvent, ChatResponse, undefined> {
  readonly #source: AsyncGenerator<readonly StreamEvent[], ChatResponse, undefined>;
  #batch: readonly StreamEvent[] = noEvents;
  #index = 0;
  /** Operations (`next` that had to pull, `return`, `throw`) started and not settled yet. */
  #pending = 0;
  #last: Promise<unknown> = Promise.resolve();

  /** Wraps `source`; nothing runs until the first `next()`. */
  constructor(source: AsyncGenerator<readonly StreamEvent[], ChatResponse, undefined>) {
    this.#source = source;
  }

  /** The next event, or the final response once the stream is over. Rejects as the source does. */
  next(): Promise<IteratorResult<StreamEvent, ChatResponse>> {
    if (this.#pending === 0 && this.#index < this.#batch.length) {
      const value = this.#batch[this.#index++] as StreamEvent;
      return Promise.resolve({ value, done: false });
    }
    return this.#enqueue(this.#pullNext);
  }

  /**
   * The next event once the buffer is empty: the source's next batch, on callbacks (one
   * reaction a batch, not an async function's frame and awaits: this runs once per batch).
   */
  readonly #pullNext = (): Promise<IteratorResult<StreamEvent, ChatResponse>> => {
    if (this.#index < this.#batch.length) {
      return Promise.resolve({ value: this.#batch[this.#index++] as StreamEvent, done: false });
    }
    return this.#source.next().then(this.#take);
  };

  /** Takes a step of the source: the first event of its batch, or the end. */
  readonly #take = (
    step: IteratorResult<readonly StreamEvent[], ChatResponse>,
  ):
    | IteratorResult<StreamEvent, ChatResponse>
    | Promise<IteratorResult<StreamEvent, ChatResponse>> => {
    if (step.done === true) {
      this.#drop();
      return step;
    }
    this.#batch = step.value;
    this.#index = 0;
    return this.#pullNext();
  };

  /** Stops the stream early (what `break` calls): the source's cleanup runs (requests and tools are cancelled). */
  return(
    value?: ChatResponse | PromiseLike<ChatResponse>,
  ): Promise<IteratorResult<StreamEvent, ChatResponse>> {
    return this.#enqueue(() => {
      this.#drop();
      // An async generator's `return()` takes no value too (as `break` calls it).
      return this.#pull(this.#source.return(value as ChatResponse | PromiseLike<ChatResponse>));
    });
  }

  /** Throws `error` into the source at the point it stopped, as an async generator's `throw` does. */
  throw(error: unknown): Promise<IteratorResult<StreamEvent, ChatResponse>> {
    return this.#enqueue(() => {
      this.#drop();
      return this.#pull(this.#source.throw(error));
    });
  }

  /** The stream itself. */
  [Symbol.asyncIterator](): this {
    return this;
  }

  /** The next event: from the buffer, else from `first` (a step already asked of the source), else from the source. */
  async #pull(
    first: Promise<IteratorResult<readonly StreamEvent[], ChatResponse>> | undefined,
  ): Promise<IteratorResult<StreamEvent, ChatResponse>> {
    let pending = first;
    for (;;) {
      if (pending === undefined && this.#index < this.#batch.length) {
        return { value: this.#batch[this.#index++] as StreamEvent, done: false };
      }
      const step = await (pending ?? this.#source.next());
      pending = undefined;
      if (step.done === true) {
        this.#drop();
        return step;
      }
      this.#batch = step.value;
      this.#index = 0;
    }
  }

  #drop(): void {
    this.#batch = noEvents;
    this.#index = 0;
  }

  /** Runs `operation` after every operation started before it, as an async generator queues its requests. */
  #enqueue(
    operation: () => Promise<IteratorResult<StreamEvent, ChatResponse>>,
  ): Promise<IteratorResult<StreamEvent, ChatResponse>> {
    this.#pending++;
    const result = this.#pending === 1 ? operation() : this.#last.then(operation, operation);
    // Registered before the caller's own reaction, so `#pending` is down when the caller resumes.
    this.#last = result.then(this.#settled, this.#settled);
    return result;
  }

  readonly #settled = (): void => {
    this.#pending--;
  };
}
