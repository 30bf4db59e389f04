// The run's events. A stretch of the loop keeps one batch of events that are not written yet,
// in the order the loop made them, and writes it in one stream write when:
// - a step has been running for `flushAfterMs` with events pending (so a slow tool or a long
//   answer shows its events within 20 ms; the write is made from the step, unrecorded),
// - a model request's step ends (its deltas are written before its checkpoint, as they were
//   streamed),
// - the stretch ends: whatever is left goes with the events the loop made outside any step in
//   one recorded write of the workflow, before the stretch sends its end to the run (so before
//   any wait for a person and before the run completes).
// A fast tool step therefore writes nothing of its own: its start and end go with the next
// model request's write or the stretch's last. A step that runs again after a crash writes its
// events again under the same keys, and `DurableRuns.events` hands each key on once; a tool
// step the journal answers on a replay makes its start and end events again from its record,
// so a crash loses only the progress events of tool calls that had finished (see the README).
// Timers exist only while a step runs: a stretch waiting for nothing holds none.

import type { StreamEvent } from '@agcore/llm-cycle';
import { delay } from '@agcore/tools-core';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { type EventEntry, type EventRecord, eventsStreamKey } from './wire.js';

/** How long a running step's pending events wait for company before they are written. */
const flushAfterMs = 20;

/** The pending events of one stretch of the loop, written in order, in few writes. */
export class EventBatch {
  #pending: EventEntry[] = [];
  #writing: Promise<void> = Promise.resolve();
  #timer: AbortController | undefined;
  #active = 0;

  /**
   * A step starts (call it inside the step): while any step runs, pending events are written
   * within `flushAfterMs`. Returns the function to call when the step's body ends.
   */
  enter(): () => void {
    this.#active += 1;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.#active -= 1;
      if (this.#active === 0) this.#cancel();
    };
  }

  /**
   * Adds an event. From inside a running step it is written within `flushAfterMs`; with
   * `live: false` (an event made again from a recorded step, in the workflow) it waits for the
   * next write.
   */
  add(key: string, event: StreamEvent, live = true): void {
    this.#pending.push({ key, event });
    if (!live || this.#active === 0 || this.#timer !== undefined) return;
    const timer = new AbortController();
    this.#timer = timer;
    delay(flushAfterMs, timer.signal).then(
      () => {
        if (this.#timer === timer) void this.flush().catch(() => undefined);
      },
      () => undefined,
    );
  }

  /** From inside a step: writes what is pending; resolves when every write so far is done. */
  flush(): Promise<void> {
    this.#cancel();
    const entries = this.#pending;
    this.#pending = [];
    if (entries.length > 0) this.#writing = this.#writing.then(() => writeEvents(entries));
    return this.#writing;
  }

  /** At the stretch's end (in the workflow): waits for the writes in flight, returns what is left. */
  async take(): Promise<EventEntry[]> {
    this.#cancel();
    await this.#writing.catch(() => undefined);
    const entries = this.#pending;
    this.#pending = [];
    return entries;
  }

  #cancel(): void {
    this.#timer?.abort();
    this.#timer = undefined;
  }
}

/** Appends `entries` to the events stream of the current workflow, in one write. */
export function writeEvents(entries: readonly EventEntry[]): Promise<void> {
  const record: EventRecord = { entries };
  return DBOS.writeStream(eventsStreamKey, record);
}

/** Per workflow execution: counters that name steps the same on every replay. */
export class EventLog {
  /** The stretch's pending events. */
  readonly batch = new EventBatch();
  /** The events the loop made that no step had written when it made them (see `leftover`). */
  readonly unwritten: EventEntry[] = [];
  private modelRequests = 0;
  private readonly toolRuns = new Map<string, number>();
  /** The ids of the calls that ran as tool steps (their events were written by the step). */
  readonly stepCalls = new Set<string>();

  /** The key prefix of the next model request: `m0`, `m1`, … in request order. */
  nextModelKey(): string {
    const key = `m${this.modelRequests}`;
    this.modelRequests += 1;
    return key;
  }

  /** The key prefix of this run of the call: `t:<callId>:<n>` (a call that asked runs again). */
  nextToolKey(callId: string): string {
    const count = this.toolRuns.get(callId) ?? 0;
    this.toolRuns.set(callId, count + 1);
    this.stepCalls.add(callId);
    return `t:${callId}:${count}`;
  }

  /**
   * The events the loop made outside any step, for the stretch's last write: those of
   * `unwritten` no step wrote. Asked at the end, since a call queued behind
   * `maxParallelToolCalls` has its `tool_execution_started` from the loop before its step
   * starts (and writes its own).
   */
  leftover(): EventEntry[] {
    return this.unwritten.filter((entry) => !this.writtenByStep(entry.event));
  }

  /**
   * Whether the loop's `event` is written by the step that made it (for a tool event: whether
   * its call has run as a step in this stretch so far).
   */
  writtenByStep(event: StreamEvent): boolean {
    switch (event.type) {
      case 'assistant_reasoning_delta':
      case 'assistant_text_delta':
      case 'tool_call_delta':
        return true;
      case 'turn_complete':
        return event.reason !== 'interrupted' && event.reason !== 'stopped';
      case 'tool_execution_started':
      case 'tool_execution_progress':
      case 'tool_execution_completed':
        return this.stepCalls.has(event.callId);
      default:
        return false;
    }
  }
}
