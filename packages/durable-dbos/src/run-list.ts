// Runs as operators see them: a page of runs by state, agent and age (keyset over DBOS's
// workflow table, newest first), one run, and retention of finished runs. A run's state comes
// from DBOS's status, its outcome (a run that ended with an error returns it), its pause (the
// calls it waits on) and the catalog (whether a live worker runs its agent at its version).
import type { DBOSClient, WorkflowStatus } from '@dbos-inc/dbos-sdk';
import { type CatalogRow, readCatalog } from './catalog.js';
import type { PauseRecord } from './decisions.js';
import type { SqlPool } from './system-sql.js';
import type { RunOutcome } from './types.js';
import { pauseEventKey, workflowPrefix } from './wire.js';

/** Where a run is, as `list` and `get` report it. */
export type DurableRunState =
  /** Enqueued, not yet dequeued by a worker. */
  | 'pending'
  /** A worker runs it (a stretch of its loop). */
  | 'running'
  /** It waits for decisions (`interruptions`, `decide`). */
  | 'waiting_approval'
  | 'succeeded'
  /** It ended with an error (`result()` rejects with it). */
  | 'failed'
  /** Cancelled, or its wait for decisions timed out. */
  | 'cancelled'
  /** Unfinished, and no live worker runs its version (`version` says which); `fork` moves it on. */
  | 'stranded'
  /** Unfinished, and no live worker runs its agent at all. */
  | 'no_worker';

/** Every state, in the order a run goes through them. */
export const runStates: readonly DurableRunState[] = [
  'pending',
  'running',
  'waiting_approval',
  'succeeded',
  'failed',
  'cancelled',
  'stranded',
  'no_worker',
];

/** One run, as `list` and `get` report it. */
export interface DurableRunSummary {
  readonly runId: string;
  readonly agentName: string;
  readonly state: DurableRunState;
  /** DBOS's status: `ENQUEUED`, `PENDING` (running or waiting), `SUCCESS`, `ERROR`, `CANCELLED`, … */
  readonly status: string;
  /** The `applicationVersion` of the workers that run it. */
  readonly version?: string;
  readonly executorId?: string;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  /** How many calls wait for a decision (`waiting_approval` only). */
  readonly waiting?: number;
}

/** Options of `DurableRuns.list`. */
export interface DurableListOptions {
  /** Only runs in this state (or these). */
  readonly state?: DurableRunState | readonly DurableRunState[];
  /** Only runs of this agent. */
  readonly agent?: string;
  /** Only runs created before this time. */
  readonly olderThan?: Date;
  /** At most this many runs (1–1000, default 50). */
  readonly limit?: number;
  /** The `cursor` of the previous page. */
  readonly cursor?: string;
}

/** A page of runs, newest first; `cursor` is absent on the last page. */
export interface DurableRunPage {
  readonly runs: DurableRunSummary[];
  readonly cursor?: string;
}

/** What `list`, `get` and `retain` need. */
export interface RunTables {
  readonly client: DBOSClient;
  readonly pool: SqlPool;
  readonly schema: string;
  readonly staleAfterSec: number;
}

interface StatusRow {
  workflow_uuid: string;
  status: string;
  name: string;
  created_at: string;
  updated_at: string;
  application_version: string | null;
  executor_id: string | null;
}

const unfinished = ['ENQUEUED', 'PENDING', 'DELAYED'];
const statusesOf: Readonly<Record<DurableRunState, readonly string[]>> = {
  pending: ['ENQUEUED', 'DELAYED'],
  running: ['PENDING'],
  waiting_approval: ['PENDING'],
  succeeded: ['SUCCESS'],
  failed: ['SUCCESS', 'ERROR', 'MAX_RECOVERY_ATTEMPTS_EXCEEDED'],
  cancelled: ['SUCCESS', 'CANCELLED'],
  stranded: unfinished,
  no_worker: unfinished,
};

/** A page of runs. Throws a `TypeError` for options out of range or a cursor not of `list`. */
export async function listRuns(
  tables: RunTables,
  options: DurableListOptions,
): Promise<DurableRunPage> {
  const states = checkedStates(options.state);
  const limit = options.limit ?? 50;
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
    throw new TypeError(`list: limit must be an integer from 1 to 1000, got ${String(limit)}.`);
  if (options.olderThan !== undefined && !(options.olderThan instanceof Date))
    throw new TypeError('list: olderThan must be a Date.');
  const statuses =
    states === undefined ? undefined : [...new Set(states.flatMap((state) => statusesOf[state]))];
  const catalog = await readCatalog(tables.pool, tables.staleAfterSec);
  const runs: DurableRunSummary[] = [];
  let after = options.cursor === undefined ? undefined : parseCursor(options.cursor);
  for (;;) {
    const rows = await statusRows(tables, { ...options, statuses, after, limit });
    const summaries = await summarize(tables, rows, catalog);
    for (const [index, summary] of summaries.entries()) {
      if (states !== undefined && !states.includes(summary.state)) continue;
      runs.push(summary);
      if (runs.length === limit) {
        const row = rows[index];
        const more = index < rows.length - 1 || rows.length === limit;
        return more && row !== undefined ? { runs, cursor: cursorOf(row) } : { runs };
      }
    }
    const last = rows.at(-1);
    if (rows.length < limit || last === undefined) return { runs };
    after = [Number(last.created_at), last.workflow_uuid];
  }
}

/** One run, or `undefined` for an id that is no run of an agent. */
export async function getRun(
  tables: RunTables,
  runId: string,
): Promise<DurableRunSummary | undefined> {
  const { rows } = await tables.pool.query(
    `SELECT workflow_uuid, status, name, created_at, updated_at, application_version, executor_id
     FROM "${tables.schema}".workflow_status WHERE workflow_uuid = $1 AND name LIKE $2`,
    [runId, `${likeLiteral(workflowPrefix)}%`],
  );
  if (rows.length === 0) return undefined;
  const catalog = await readCatalog(tables.pool, tables.staleAfterSec);
  const [summary] = await summarize(tables, rows as StatusRow[], catalog);
  return summary;
}

function checkedStates(state: DurableListOptions['state']): readonly DurableRunState[] | undefined {
  if (state === undefined) return undefined;
  const states = typeof state === 'string' ? [state] : state;
  for (const one of states) {
    if (!runStates.includes(one))
      throw new TypeError(
        `list: state ${JSON.stringify(one)} is not one of ${runStates.join(', ')}.`,
      );
  }
  return states;
}

/** `text` as a LIKE pattern that matches only itself (backslash the escape). */
export function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (character) => `\\${character}`);
}

function cursorOf(row: StatusRow): string {
  return Buffer.from(JSON.stringify([Number(row.created_at), row.workflow_uuid])).toString(
    'base64url',
  );
}

function parseCursor(cursor: string): [number, string] {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString());
    if (Array.isArray(value) && typeof value[0] === 'number' && typeof value[1] === 'string')
      return [value[0], value[1]];
  } catch {
    // fall through to the TypeError
  }
  throw new TypeError('list: cursor is not one list returned.');
}

async function statusRows(
  tables: RunTables,
  query: {
    readonly statuses: readonly string[] | undefined;
    readonly agent?: string;
    readonly olderThan?: Date;
    readonly after: [number, string] | undefined;
    readonly limit: number;
  },
): Promise<StatusRow[]> {
  const name = `${likeLiteral(workflowPrefix)}${query.agent === undefined ? '%' : likeLiteral(query.agent)}`;
  const { rows } = await tables.pool.query(
    `SELECT workflow_uuid, status, name, created_at, updated_at, application_version, executor_id
     FROM "${tables.schema}".workflow_status
     WHERE name LIKE $1 AND ($2::text[] IS NULL OR status = ANY($2))
       AND ($3::bigint IS NULL OR created_at < $3)
       AND ($4::bigint IS NULL OR (created_at, workflow_uuid) < ($4, $5::text))
     ORDER BY created_at DESC, workflow_uuid DESC LIMIT $6`,
    [
      name,
      query.statuses ?? null,
      query.olderThan?.getTime() ?? null,
      query.after?.[0] ?? null,
      query.after?.[1] ?? null,
      query.limit,
    ],
  );
  return rows as StatusRow[];
}

async function summarize(
  tables: RunTables,
  rows: readonly StatusRow[],
  catalog: readonly CatalogRow[],
): Promise<DurableRunSummary[]> {
  const finished = rows.filter((row) => row.status === 'SUCCESS').map((row) => row.workflow_uuid);
  const outputs = new Map<string, WorkflowStatus>();
  if (finished.length > 0) {
    const loaded = await tables.client.listWorkflows({ workflowIDs: finished, loadOutput: true });
    for (const workflow of loaded) outputs.set(workflow.workflowID, workflow);
  }
  return Promise.all(
    rows.map(async (row) => {
      const agentName = row.name.slice(workflowPrefix.length);
      const pause =
        row.status === 'PENDING'
          ? await tables.client.getEvent<PauseRecord>(row.workflow_uuid, pauseEventKey, 0)
          : null;
      const outcome = outputs.get(row.workflow_uuid)?.output as RunOutcome | undefined;
      const waiting = pause?.calls.length ?? 0;
      const state = stateOf(row, agentName, { outcome, waiting, catalog });
      return {
        runId: row.workflow_uuid,
        agentName,
        state,
        status: row.status,
        ...(row.application_version === null ? {} : { version: row.application_version }),
        ...(row.executor_id === null ? {} : { executorId: row.executor_id }),
        createdAt: new Date(Number(row.created_at)),
        updatedAt: new Date(Number(row.updated_at)),
        ...(state === 'waiting_approval' ? { waiting } : {}),
      };
    }),
  );
}

function stateOf(
  row: StatusRow,
  agentName: string,
  seen: {
    readonly outcome: RunOutcome | undefined;
    readonly waiting: number;
    readonly catalog: readonly CatalogRow[];
  },
): DurableRunState {
  switch (row.status) {
    case 'CANCELLED':
      return 'cancelled';
    case 'SUCCESS':
      if (seen.outcome === undefined || seen.outcome.ok) return 'succeeded';
      return seen.outcome.error.code === 'cancelled' ? 'cancelled' : 'failed';
    case 'ENQUEUED':
    case 'PENDING':
    case 'DELAYED': {
      const live = seen.catalog.filter((entry) => entry.name === agentName && entry.live);
      if (live.length === 0) return 'no_worker';
      if (!live.some((entry) => entry.version === row.application_version)) return 'stranded';
      if (row.status !== 'PENDING') return 'pending';
      return seen.waiting > 0 ? 'waiting_approval' : 'running';
    }
    default:
      return 'failed';
  }
}
