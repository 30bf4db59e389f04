// SQL on the system database, for the tables of our own schema (`agcore_durable`: the agent
// catalog). DBOS has no public handle on its pool, so this is the one place that reaches for
// it: in a worker through DBOS's `internal/*` export (the launched executor's system database),
// in a client through the `DBOSClient`'s system database. Both are checked for shape, and a
// DBOS release that moved them is a `DurableRunsError` (`no_database`) naming what to pass.
import type { DBOSClient } from '@dbos-inc/dbos-sdk';
import { getExecutor } from '@dbos-inc/dbos-sdk/internal/dbos';
import { DurableRunsError } from './errors.js';

/** A connection of the pool, for a transaction. */
export interface SqlConnection {
  /** Runs one parameterised statement on this connection. */
  query(text: string, values?: readonly unknown[]): Promise<{ rows: unknown[] }>;
  /** Gives the connection back to its pool. */
  release(): void;
}

/** What we use of a `pg.Pool`. */
export interface SqlPool {
  /** Runs one parameterised statement on a connection of the pool. */
  query(text: string, values?: readonly unknown[]): Promise<{ rows: unknown[] }>;
  /** Takes a connection of the pool (for a transaction); `release()` it after. */
  connect(): Promise<SqlConnection>;
}

function poolOf(holder: unknown): SqlPool | undefined {
  if (typeof holder !== 'object' || holder === null) return undefined;
  const pool = (holder as { pool?: unknown }).pool;
  if (typeof pool !== 'object' || pool === null) return undefined;
  const candidate = pool as Partial<SqlPool>;
  if (typeof candidate.query !== 'function' || typeof candidate.connect !== 'function')
    return undefined;
  return pool as SqlPool;
}

/** The launched worker's system database pool. Throws a `DurableRunsError` before `DBOS.launch()`. */
export function workerPool(): SqlPool {
  let holder: unknown;
  try {
    holder = (getExecutor() as unknown as { systemDatabase?: unknown }).systemDatabase;
  } catch (error) {
    throw new DurableRunsError(
      'no_database',
      'registerQueue: DBOS is not launched: call it after `await DBOS.launch()`.',
      { cause: error },
    );
  }
  const pool = poolOf(holder);
  if (pool === undefined)
    throw new DurableRunsError(
      'no_database',
      'registerQueue: this DBOS release does not expose its system database pool as 5.3 did.',
    );
  return pool;
}

/** The schema of DBOS's tables in the client's system database (`dbos` unless configured). */
export function clientSchema(client: DBOSClient): string {
  const holder = (client as unknown as { systemDatabase?: { schemaName?: unknown } })
    .systemDatabase;
  const name = holder?.schemaName;
  return typeof name === 'string' && name !== '' ? name : 'dbos';
}

/** The client's system database pool (`DurableRunsOptions.pool` when given). */
export function clientPool(client: DBOSClient, given: SqlPool | undefined): SqlPool {
  if (given !== undefined) return given;
  const pool = poolOf((client as unknown as { systemDatabase?: unknown }).systemDatabase);
  if (pool === undefined)
    throw new DurableRunsError(
      'no_database',
      'DurableRuns: this DBOSClient does not expose its system database pool as DBOS 5.3 did: ' +
        'pass `pool` (a pg.Pool on the system database) in the options.',
    );
  return pool;
}
