// Retention: finished runs (succeeded, failed, cancelled) that ended before a time are deleted
// with their stretches, through DBOS's `deleteWorkflows` (their steps, inputs, outputs, events,
// streams and messages go with their status rows). The package keeps no row of its own per run
// (the catalog is per agent and worker), so there is nothing of ours to delete beside them.
import { likeLiteral, type RunTables } from './run-list.js';
import { workflowPrefix } from './wire.js';

/** Options of `DurableRuns.retain`. */
export interface DurableRetainOptions {
  /** Runs that ended before this time are removed. */
  readonly olderThan: Date;
  /** At most this many runs per call (1–10 000, default 1000): call again until fewer come back. */
  readonly limit?: number;
}

const finished = ['SUCCESS', 'ERROR', 'CANCELLED', 'MAX_RECOVERY_ATTEMPTS_EXCEEDED'];

/** Removes finished runs; returns their ids, oldest first. Throws a `TypeError` for bad options. */
export async function retainRuns(
  tables: RunTables,
  options: DurableRetainOptions,
): Promise<{ runIds: string[] }> {
  if (!(options?.olderThan instanceof Date) || Number.isNaN(options.olderThan.getTime()))
    throw new TypeError('retain: olderThan must be a valid Date.');
  const limit = options.limit ?? 1000;
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000)
    throw new TypeError(`retain: limit must be an integer from 1 to 10000, got ${String(limit)}.`);
  const { rows } = await tables.pool.query(
    `SELECT workflow_uuid FROM "${tables.schema}".workflow_status
     WHERE name LIKE $1 AND status = ANY($2) AND updated_at < $3
     ORDER BY updated_at, workflow_uuid LIMIT $4`,
    [`${likeLiteral(workflowPrefix)}%`, finished, options.olderThan.getTime(), limit],
  );
  const runIds = (rows as { workflow_uuid: string }[]).map((row) => row.workflow_uuid);
  if (runIds.length > 0) await tables.client.deleteWorkflows(runIds, true);
  return { runIds };
}
