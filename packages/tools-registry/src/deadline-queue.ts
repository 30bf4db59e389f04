/** A scheduled deadline; `cancel()` it when the work ends first. */
export interface Deadline {
  cancel(): void;
}

/** What a deadline calls when its time has come (an object, so no closure per call). */
export interface Expiring {
  expire(): void;
}

type Timer = ReturnType<typeof setTimeout> & { ref?: () => unknown; unref?: () => unknown };

class Slot implements Deadline {
  constructor(
    readonly at: number,
    public target: Expiring | undefined,
    private readonly queue: DeadlineQueue,
  ) {}

  cancel(): void {
    if (this.target === undefined) return;
    this.target = undefined;
    this.queue.trim();
  }
}

const queues = new Map<number, DeadlineQueue>();

/**
 * The one queue that is empty but keeps its timer (unref'd, so it holds no process open): calls
 * made one after another with the same limit then cost no `setTimeout`/`clearTimeout` each. Any
 * other queue is dropped as soon as it empties, so distinct limits leave nothing behind.
 */
let idle: DeadlineQueue | undefined;

/**
 * Deadlines that all share one duration, served by a single timer.
 *
 * With one duration, deadlines expire in the order they were scheduled, so a FIFO queue and
 * one timer for its head replace a `setTimeout` per call (which costs more than the rest of
 * `invoke`). Cancelled slots are dropped lazily, from the head.
 */
class DeadlineQueue {
  private readonly slots: Slot[] = [];
  private head = 0;
  private timer: Timer | undefined;

  constructor(private readonly durationMs: number) {}

  schedule(target: Expiring): Deadline {
    const slot = new Slot(performance.now() + this.durationMs, target, this);
    this.slots.push(slot);
    if (idle === this) {
      idle = undefined;
      this.timer?.ref?.();
    }
    // A timer kept while idle fires no later than this slot's time; expire() re-arms it.
    if (this.timer === undefined) this.arm(this.durationMs);
    return slot;
  }

  /** Drops cancelled and fired slots from the head; parks or drops the queue when empty. */
  trim(): void {
    const { slots } = this;
    while (this.head < slots.length && (slots[this.head] as Slot).target === undefined) this.head++;
    if (this.head === slots.length) {
      slots.length = 0;
      this.head = 0;
      if (idle !== this) {
        idle?.dispose();
        idle = this;
        this.timer?.unref?.();
      }
    } else if (this.head > 1024 && this.head * 2 > slots.length) {
      slots.splice(0, this.head);
      this.head = 0;
    }
  }

  /** Stops the timer and forgets the queue. */
  dispose(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (idle === this) idle = undefined;
    if (queues.get(this.durationMs) === this) queues.delete(this.durationMs);
  }

  /**
   * Arms the timer for at most `delayMs`, rounded down to a power of two: expire() re-arms for
   * what is left. The platform keeps a list per distinct delay forever (Node's timer lists live
   * in an object whose deleted keys still take room), so 100 000 distinct limits must not
   * become 100 000 distinct delays; powers of two give at most ~32.
   */
  private arm(delayMs: number): void {
    const delay = delayMs < 1 ? 0 : 2 ** Math.floor(Math.log2(delayMs));
    this.timer = setTimeout(() => this.expire(), delay) as Timer;
  }

  private expire(): void {
    this.timer = undefined;
    const now = performance.now();
    const { slots } = this;
    while (this.head < slots.length) {
      const slot = slots[this.head] as Slot;
      if (slot.target !== undefined && slot.at > now) break;
      this.head++;
      const target = slot.target;
      slot.target = undefined;
      target?.expire();
    }
    const next = slots[this.head];
    if (next !== undefined && this.timer === undefined) this.arm(next.at - now);
    this.trim();
    // Idle with nothing left to time: no reason to keep the queue.
    if (idle === this && this.timer === undefined) this.dispose();
  }
}

/** How many durations have a queue (for tests: at most one empty queue is kept). */
export function activeDeadlineQueues(): number {
  return queues.size;
}

/**
 * Calls `target.expire()` after `durationMs` unless cancelled first. Cheap to schedule and
 * cancel: calls with the same duration share one timer.
 */
export function scheduleDeadline(durationMs: number, target: Expiring): Deadline {
  let queue = queues.get(durationMs);
  if (queue === undefined) {
    queue = new DeadlineQueue(durationMs);
    queues.set(durationMs, queue);
  }
  return queue.schedule(target);
}
