// Where the runs of a worker process wait for their stretches. A run's workflow only waits (for
// the stretch it started; a stretch that waits for a person is a DELAYED workflow, a row in
// Postgres), and a DBOS `recv` that waits holds a timer and a notification callback per
// waiting workflow and polls once per wait. Here every waiting run of the process shares one
// loop: one timer, and one `listWorkflows` query a tick for all of them, which wakes a run
// when its stretch has ended. What a waiting run costs the worker is
// then a pending promise and its entry here: no timer, no listener. (A cancelled run is woken
// by its stretch: `DurableRuns.cancel` cancels the stretch with the run.)
import { AsyncResource } from 'node:async_hooks';
import { DBOS, type WorkflowStatusString } from '@dbos-inc/dbos-sdk';

/** How often the waiting runs' stretches are looked at: 250 ms, +1 ms per 20 waiting runs. */
const tickMs = (waiting: number) => 250 + Math.floor(waiting / 20);
/** At most this many ids in one query. */
const chunk = 500;
const ended: WorkflowStatusString[] = [
  'SUCCESS',
  'ERROR',
  'CANCELLED',
  'MAX_RECOVERY_ATTEMPTS_EXCEEDED',
];

interface Waiter {
  readonly segmentId: string;
  readonly wake: () => void;
}

const waiters = new Set<Waiter>();
let polling = false;
// Made at import, outside any workflow: the loop must not run in the context of the workflow
// that happened to start it (DBOS would count its queries as that workflow's operations).
const scope = new AsyncResource('agcore.wait-room');

/** Resolves when the stretch `segmentId` has ended (done, failed or cancelled). */
export function untilStretchEnds(segmentId: string): Promise<void> {
  return new Promise((resolve) => {
    waiters.add({ segmentId, wake: resolve });
    if (polling) return;
    polling = true;
    scope.runInAsyncScope(() => {
      void loop();
    });
  });
}

/** How many runs of this process wait now (for tests). */
export function waitingRuns(): number {
  return waiters.size;
}

async function loop(): Promise<void> {
  try {
    while (waiters.size > 0) {
      await new Promise<void>((resolve) => setTimeout(resolve, tickMs(waiters.size)).unref());
      await tick().catch(() => undefined); // a lost connection: the next tick tries again
    }
  } finally {
    polling = false;
  }
}

async function tick(): Promise<void> {
  const batch = [...waiters];
  const ids = [...new Set(batch.map((waiter) => waiter.segmentId))];
  const done = new Set<string>();
  for (let start = 0; start < ids.length; start += chunk) {
    const workflows = await DBOS.listWorkflows({
      workflowIDs: ids.slice(start, start + chunk),
      status: ended,
      loadInput: false,
      loadOutput: false,
    });
    for (const workflow of workflows) done.add(workflow.workflowID);
  }
  for (const waiter of batch) {
    if (!done.has(waiter.segmentId)) continue;
    waiters.delete(waiter);
    waiter.wake();
  }
}
