// The agent catalog, a table of our own schema in the system database: each worker records at
// launch (`registerQueue`) every agent it runs (its queue, its version, its tool names) and
// beats every `heartbeatSec`; clients find an agent's queue there, tell an agent no worker ever
// ran from one whose workers are gone, and a version no live worker runs.
import type { SqlPool } from './system-sql.js';

/** Our schema in the system database. */
export const catalogSchema = 'agcore_durable';
const table = `${catalogSchema}.agents`;
/** How often a worker beats, in seconds. */
export const heartbeatSec = 5;

/** One worker's record of one agent. */
export interface CatalogEntry {
  /** The agent's name. */
  readonly name: string;
  /** The worker's DBOS executor id. */
  readonly executorId: string;
  /** The worker's DBOS `applicationVersion`. */
  readonly version: string;
  /** The queue its runs go on. */
  readonly queue: string;
  /** The names of its registry's tools. */
  readonly tools: readonly string[];
}

/** A record as clients read it. */
export interface CatalogRow extends CatalogEntry {
  /** Whether the worker beat within the client's `staleAfterSec`. */
  readonly live: boolean;
}

/** Creates the schema and table if missing (serialized: two workers launching at once). */
async function ensureCatalog(pool: SqlPool): Promise<void> {
  const connection = await pool.connect();
  try {
    await connection.query('BEGIN');
    await connection.query("SELECT pg_advisory_xact_lock(hashtext('agcore_durable.catalog'))");
    await connection.query(`CREATE SCHEMA IF NOT EXISTS ${catalogSchema}`);
    await connection.query(
      `CREATE TABLE IF NOT EXISTS ${table} (
        name text NOT NULL, executor_id text NOT NULL, version text NOT NULL,
        queue text NOT NULL, tools jsonb NOT NULL,
        heartbeat_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (name, executor_id))`,
    );
    await connection.query('COMMIT');
  } catch (error) {
    await connection.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    connection.release();
  }
}

/** Records `entry` (replacing this worker's earlier record of the agent), beat now. */
export async function recordAgent(pool: SqlPool, entry: CatalogEntry): Promise<void> {
  await ensureCatalog(pool);
  await pool.query(
    `INSERT INTO ${table} (name, executor_id, version, queue, tools, heartbeat_at)
     VALUES ($1, $2, $3, $4, $5, now())
     ON CONFLICT (name, executor_id) DO UPDATE SET version = $3, queue = $4, tools = $5,
       heartbeat_at = now()`,
    [entry.name, entry.executorId, entry.version, entry.queue, JSON.stringify(entry.tools)],
  );
}

/** One beat of this worker for `names`. */
export async function beat(pool: SqlPool, executorId: string, names: readonly string[]) {
  await pool.query(
    `UPDATE ${table} SET heartbeat_at = now() WHERE executor_id = $1 AND name = ANY($2)`,
    [executorId, names],
  );
}

interface Row {
  name: string;
  executor_id: string;
  version: string;
  queue: string;
  tools: string[];
  live: boolean;
}

/** The records (of `agent`, or all), the latest beat first; `[]` when no worker ever recorded one. */
export async function readCatalog(
  pool: SqlPool,
  staleAfterSec: number,
  agent?: string,
): Promise<CatalogRow[]> {
  let rows: unknown[];
  try {
    ({ rows } = await pool.query(
      `SELECT name, executor_id, version, queue, tools,
         heartbeat_at > now() - make_interval(secs => $1) AS live
       FROM ${table} WHERE $2::text IS NULL OR name = $2 ORDER BY heartbeat_at DESC`,
      [staleAfterSec, agent ?? null],
    ));
  } catch (error) {
    // No table yet (42P01) or no schema (3F000): no worker has launched here.
    const code = (error as { code?: unknown }).code;
    if (code === '42P01' || code === '3F000') return [];
    throw error;
  }
  return (rows as Row[]).map((row) => ({
    name: row.name,
    executorId: row.executor_id,
    version: row.version,
    queue: row.queue,
    tools: row.tools,
    live: row.live,
  }));
}
