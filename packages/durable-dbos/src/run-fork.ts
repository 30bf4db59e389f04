// Moving a run to another version: a run that waits for decisions, whose version may have no
// worker left, is rewound by DBOS to the step after its last completed one and re-enqueued at
// the new version (DBOS's fork of a workflow that keeps its id: `rewindWorkflow`), so a worker
// of that version replays its journal (nothing recorded runs again) and waits for the
// decisions; the stretches after them run there, with that version's tools.
import type { ResumeDecision } from '@agcore/llm-cycle';
import { readCatalog } from './catalog.js';
import { decisionProblems, type PauseRecord } from './decisions.js';
import { DurableRunsError } from './errors.js';
import type { RunTables } from './run-list.js';
import { pauseEventKey, workflowPrefix } from './wire.js';

/** Options of `DurableRuns.fork`. */
export interface DurableForkOptions {
  /** The `applicationVersion` whose workers continue the run. */
  readonly version: string;
}

/** What `fork` checked and where the run goes on. */
export interface ForkPlan {
  readonly runId: string;
  readonly version: string;
  readonly queueName: string;
  readonly startStep: number;
  readonly pause: PauseRecord;
}

/**
 * Checks that the run can move to `version` and how. Rejects with a `DurableRunsError`:
 * `not_found`, `not_paused` (it does not wait for decisions), `not_stranded` (a live worker of
 * its own version runs it), `unknown_version` (no worker
 * ever registered the agent at that version), `tool_missing` (that version lacks a tool a
 * waiting call needs).
 */
export async function planFork(
  tables: RunTables,
  runId: string,
  options: DurableForkOptions,
): Promise<ForkPlan> {
  if (typeof options?.version !== 'string' || options.version === '')
    throw new TypeError('fork: version must be a non-empty string.');
  const { version } = options;
  const status = await tables.client.getWorkflow(runId);
  if (status === undefined || !status.workflowName.startsWith(workflowPrefix))
    throw new DurableRunsError('not_found', `fork(${JSON.stringify(runId)}): no such run.`);
  const agent = status.workflowName.slice(workflowPrefix.length);
  const pause = await tables.client.getEvent<PauseRecord>(runId, pauseEventKey, 0);
  if (status.status !== 'PENDING' || pause === null || pause.calls.length === 0)
    throw new DurableRunsError(
      'not_paused',
      `fork(${JSON.stringify(runId)}): the run does not wait for decisions (${status.status}); ` +
        'only a waiting run can move to another version.',
    );
  const catalog = await readCatalog(tables.pool, tables.staleAfterSec, agent);
  if (catalog.some((record) => record.live && record.version === status.applicationVersion))
    throw new DurableRunsError(
      'not_stranded',
      `fork(${JSON.stringify(runId)}): a live worker of its version ${JSON.stringify(status.applicationVersion)} ` +
        'runs it: decide it there (its worker gone: takeOver), or stop the workers of that version first.',
    );
  const records = catalog.filter((record) => record.version === version);
  const target = records.find((record) => record.live) ?? records[0];
  if (target === undefined)
    throw new DurableRunsError(
      'unknown_version',
      `fork(${JSON.stringify(runId)}): no worker has registered ${JSON.stringify(agent)} at version ${JSON.stringify(version)}: start one first.`,
    );
  const missing = [...new Set(pause.calls.map((call) => call.toolName))].filter(
    (tool) => !target.tools.includes(tool),
  );
  if (missing.length > 0)
    throw new DurableRunsError(
      'tool_missing',
      `fork(${JSON.stringify(runId)}): version ${JSON.stringify(version)} of ${JSON.stringify(agent)} has no ${missing.join(', ')}, which the run's waiting calls need. Nothing was changed.`,
    );
  const steps = (await tables.client.listWorkflowSteps(runId)) ?? [];
  const startStep = steps.reduce((next, step) => Math.max(next, step.functionID + 1), 0);
  return { runId, version, queueName: status.queueName ?? target.queue, startStep, pause };
}

/** Checks `decisions` against the waiting calls; a `TypeError` naming the problems. */
export function checkForkDecisions(
  plan: ForkPlan,
  decisions: Readonly<Record<string, ResumeDecision>>,
): void {
  const problems = decisionProblems(plan.pause.calls, decisions);
  if (problems.length > 0)
    throw new TypeError(
      `fork(${JSON.stringify(plan.runId)}): ${problems.join('; ')}. Nothing was changed.`,
    );
}

/**
 * Stops the run where it waits and re-enqueues it at the plan's version from its next step;
 * then moves the pause's stretch (a DELAYED workflow of the old version, which only a worker
 * of that version would dequeue) to the new version.
 */
export async function moveRun(tables: RunTables, plan: ForkPlan): Promise<void> {
  await tables.client.cancelWorkflow(plan.runId);
  // The run first: its rewind drops the messages it has not taken, so the stretch must not end
  // (and send its end to the run) before it.
  await tables.client.rewindWorkflow(plan.runId, {
    startStep: plan.startStep,
    applicationVersion: plan.version,
    queueName: plan.queueName,
  });
  if (plan.pause.segment !== undefined) await moveStretch(tables, plan.pause.segment, plan.version);
}

/**
 * A stretch that has not started (DELAYED, or ENQUEUED once decisions ended its delay) keeps
 * its id, input, parent, delay and the messages sent to it, at the new version (one statement:
 * no worker can take it between a cancel and a re-create). One a gone worker was running is
 * rewound there from its next step, like the run.
 */
async function moveStretch(tables: RunTables, segmentId: string, version: string): Promise<void> {
  const moved = await tables.pool.query(
    `UPDATE "${tables.schema}".workflow_status SET application_version = $1
     WHERE workflow_uuid = $2 AND status IN ('DELAYED', 'ENQUEUED')
     RETURNING workflow_uuid`,
    [version, segmentId],
  );
  if (moved.rows.length > 0) return;
  const status = await tables.client.getWorkflow(segmentId);
  if (status?.status !== 'PENDING') return;
  await tables.client.cancelWorkflow(segmentId);
  const steps = (await tables.client.listWorkflowSteps(segmentId)) ?? [];
  await tables.client.rewindWorkflow(segmentId, {
    startStep: steps.reduce((next, step) => Math.max(next, step.functionID + 1), 0),
    applicationVersion: version,
    ...(status.queueName === undefined ? {} : { queueName: status.queueName }),
  });
}
