// Postgres round trips, counted at the `pg` driver and told apart: by the DBOS workflow whose
// code sent them (DBOS keeps the workflow in an AsyncLocalStorage context, so a query knows
// it), and by what they are for. A transaction (BEGIN … COMMIT on one connection) is
// classed as a whole by the statements in it: a write to `streams` is an event write, one to
// `operation_outputs` a DBOS checkpoint, anything about queues the queue.
import { DBOS } from '@dbos-inc/dbos-sdk';
import pg from 'pg';

/** What a round trip was for. */
export type RoundTripKind = 'checkpoint' | 'event write' | 'queue' | 'other';

/** Round trips per kind. */
export type RoundTrips = Record<RoundTripKind, number>;

const kinds: readonly RoundTripKind[] = ['checkpoint', 'event write', 'queue', 'other'];

/** No round trips. */
export function noRoundTrips(): RoundTrips {
  return { checkpoint: 0, 'event write': 0, queue: 0, other: 0 };
}

/** The sum of every kind. */
export function totalRoundTrips(trips: RoundTrips): number {
  return kinds.reduce((sum, kind) => sum + trips[kind], 0);
}

/** `a - b`, per kind, divided by `by`. */
export function perUnit(a: RoundTrips, b: RoundTrips, by: number): RoundTrips {
  const out = noRoundTrips();
  for (const kind of kinds) out[kind] = (a[kind] - b[kind]) / by;
  return out;
}

function classify(sql: string): RoundTripKind | undefined {
  if (/\bstreams\b/.test(sql)) return 'event write';
  if (/queue_name|workflow_queue|\bqueues?\b/i.test(sql)) return 'queue';
  if (/operation_outputs/.test(sql)) return 'checkpoint';
  return undefined;
}

interface Pending {
  count: number;
  kind: RoundTripKind | undefined;
}

/** Counts the round trips of every workflow of this process; `stop()` restores the driver. */
export function countRoundTrips(): {
  of(workflowId: string): RoundTrips;
  stop(): void;
} {
  const counts = new Map<string, RoundTrips>();
  const open = new WeakMap<pg.Client, Pending>();
  const add = (workflowId: string, kind: RoundTripKind, n: number) => {
    const trips = counts.get(workflowId) ?? noRoundTrips();
    trips[kind] += n;
    counts.set(workflowId, trips);
  };
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const workflowId = DBOS.workflowID;
    if (workflowId !== undefined) {
      const first = args[0];
      const sql = typeof first === 'string' ? first : String((first as { text?: unknown })?.text);
      const kind = classify(sql);
      const pending = open.get(this);
      if (/^\s*BEGIN/i.test(sql)) open.set(this, { count: 1, kind: undefined });
      else if (pending !== undefined) {
        pending.count += 1;
        if (kind !== undefined && pending.kind !== 'event write') pending.kind = kind;
        if (/^\s*(COMMIT|ROLLBACK)/i.test(sql)) {
          open.delete(this);
          add(workflowId, pending.kind ?? 'checkpoint', pending.count);
        }
      } else add(workflowId, kind ?? 'checkpoint', 1);
    }
    return (query as (...rest: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  return {
    of: (workflowId) => ({ ...(counts.get(workflowId) ?? noRoundTrips()) }),
    stop: () => {
      pg.Client.prototype.query = query;
    },
  };
}
