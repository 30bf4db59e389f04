// The run's events, written from inside the steps that make them (a model request's deltas, a
// tool call's start and end) so a reader sees them live. A step that runs again after a crash
// writes them again under the same keys, and `DurableRuns.events` hands each key on once.
// Events the loop makes outside any step are written by the workflow at a point where no step
// is in flight (the end of a stretch of the loop), so the journal's order never depends on
// timing.
//
// Every stream write is a Postgres transaction (four round trips in DBOS), so a step's events
// go in batches: the first event of a batch waits `flushAfterMs` for company, and the step's
// end writes what is left before the step's checkpoint. A fast step is one write; a slow one
// (a long answer, a slow tool) still shows its events within `flushAfterMs`.

import type { StreamEvent } from '@agcore/llm-cycle';
import { delay } from '@agcore/tools-core';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { type EventEntry, type EventRecord, eventsStreamKey } from './wire.js';

/** How long the first event of a batch waits for the next before it is written. */
const flushAfterMs = 20;

/** The events of one step (or of the end of a stretch), written in order, in few writes. */
export class EventBatch {
  #pending: EventEntry[] = [];
  #writing: Promise<void> = Promise.resolve();
  #scheduled = false;

  /** Adds an event; it is written within `flushAfterMs`, or by `flush()`. */
  add(key: string, event: StreamEvent): void {
    this.#pending.push({ key, event });
    if (this.#scheduled) return;
    this.#scheduled = true;
    void delay(flushAfterMs).then(() => {
      if (this.#scheduled) void this.flush().catch(() => undefined);
    });
  }

  /** Writes what is pending; resolves when every write so far is done, rejects when one failed. */
  flush(): Promise<void> {
    this.#scheduled = false;
    const entries = this.#pending;
    this.#pending = [];
    if (entries.length > 0) this.#writing = this.#writing.then(() => writeEvents(entries));
    return this.#writing;
  }
}

/** Appends `entries` to the events stream of the current workflow, in one write. */
export function writeEvents(entries: readonly EventEntry[]): Promise<void> {
  const record: EventRecord = { entries };
  return DBOS.writeStream(eventsStreamKey, record);
}

/** Per workflow execution: counters that name steps the same on every replay. */
export class EventLog {
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

  /** Whether the loop's `event` was written already by the step that made it. */
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
