// The worker side: an agent is two DBOS workflows. The run (`agcore.agent.<name>`, id = the
// run id, on the agent's queue) only waits for its segments, in the process's wait room (one
// timer for every waiting run, see wait-room.ts). A segment (`agcore.segment.<name>`, on the
// agent's work queue, see segment.ts) runs the unchanged LlmCycle with a provider and a
// registry whose every request and call is a recorded step. When the run pauses, its next
// segment is started DELAYED (until `approvalTimeoutSec`, or for good): the decisions are sent
// to it and end its delay (`DurableRuns.decide`), or the deadline does. So a run that waits
// for a person runs no segment, holds no slot of the work queue, and no timer of the worker.
import { LlmError } from '@agcore/llm-cycle';
import { DBOS } from '@dbos-inc/dbos-sdk';
import type { PauseRecord } from './decisions.js';
import { registerAgent } from './register.js';
import { type Awaiting, runSegment, type SegmentInput, type SegmentResult } from './segment.js';
import type { DurableAgentOptions, DurableRunInput, RunOutcome } from './types.js';
import { untilStretchEnds } from './wait-room.js';
import {
  eventsStreamKey,
  pauseEventKey,
  type SegmentPointer,
  segmentPrefix,
  segmentTopic,
  stateEventKey,
  workflowPrefix,
  workQueueName,
} from './wire.js';

/** A registered agent. */
export interface DurableAgent {
  /** The agent's name. */
  readonly name: string;
  /** The DBOS workflow's name. */
  readonly workflowName: string;
  /** The queue its runs go on (no concurrency limit: a run there only waits). */
  readonly queueName: string;
  /** The queue the stretches of its runs go on, `<queueName>.work` (`workerConcurrency` is here). */
  readonly workQueueName: string;
  /** The version it was defined with (`undefined`: DBOS's `applicationVersion`, whatever it is). */
  readonly version: string | undefined;
  /**
   * Runs `stores.migrate()` when given, registers both queues in the system database and records the agent (queue, version, tool
   * names) in the catalog clients read, then beats every 5 s; call after `DBOS.launch()`.
   * Rejects with a `DurableRunsError` `version_mismatch` when `version` is not DBOS's
   * `applicationVersion`.
   */
  registerQueue(): Promise<void>;
}

/**
 * Registers an agent as two DBOS workflows (its runs, and the stretches they run on the work
 * queue); call it in every worker before `DBOS.launch()`.
 * Throws a `TypeError` for a name or a `version` that is not a non-empty string, or a timeout
 * that is not a positive number.
 */
export function defineDurableAgent(options: DurableAgentOptions): DurableAgent {
  if (typeof options.name !== 'string' || options.name === '') {
    throw new TypeError('defineDurableAgent: name must be a non-empty string.');
  }
  const timeout = options.approvalTimeoutSec;
  if (timeout !== undefined && !(typeof timeout === 'number' && timeout > 0)) {
    throw new TypeError(
      `defineDurableAgent: approvalTimeoutSec must be a positive number, got ${String(timeout)}.`,
    );
  }
  if (
    options.version !== undefined &&
    (typeof options.version !== 'string' || options.version === '')
  )
    throw new TypeError('defineDurableAgent: version must be a non-empty string.');
  const workflowName = `${workflowPrefix}${options.name}`;
  const queueName = options.queue?.name ?? `agcore-${options.name}`;
  const work = workQueueName(queueName);
  const segment = DBOS.registerWorkflow((input: SegmentInput) => runSegment(options, input), {
    name: `${segmentPrefix}${options.name}`,
  });
  const start: StartSegment = (id, input, delaySeconds) =>
    DBOS.startWorkflow(segment, {
      workflowID: id,
      queueName: work,
      ...(delaySeconds === undefined ? {} : { enqueueOptions: { delaySeconds } }),
    })(input).then(() => undefined);
  DBOS.registerWorkflow((input: DurableRunInput) => runAgent(options, input, start), {
    name: workflowName,
  });
  return {
    name: options.name,
    workflowName,
    queueName,
    workQueueName: work,
    version: options.version,
    registerQueue: () => registerAgent({ options, queueName, workQueueName: work }),
  };
}

/** Starts a segment on the work queue, DELAYED for `delaySeconds` when given. */
type StartSegment = (
  segmentId: string,
  input: SegmentInput,
  delaySeconds?: number,
) => Promise<void>;

/** A wait with no `approvalTimeoutSec`: DELAYED for ten years, until decisions come. */
const foreverSec = 10 * 365 * 86_400;

async function runAgent(
  options: DurableAgentOptions,
  input: DurableRunInput,
  startSegment: StartSegment,
): Promise<RunOutcome> {
  const runId = DBOS.workflowID ?? '';
  const decided: string[] = [];
  let next: SegmentInput = { runId, start: input };
  for (let index = 0; ; index += 1) {
    const segmentId = `${runId}:s${String(index)}`;
    await startSegment(segmentId, next, 'awaiting' in next ? delayOf(next.awaiting) : undefined);
    const pointer: SegmentPointer = { segment: segmentId };
    await DBOS.writeStream(eventsStreamKey, pointer);
    if ('awaiting' in next) {
      const { calls } = next.awaiting;
      const pause: PauseRecord = { epoch: next.state.epoch, calls, decided: [...decided] };
      await DBOS.setEvent(pauseEventKey, { ...pause, segment: segmentId });
    }
    const result = await segmentEnd(segmentId);
    if ('waiting' in result) continue; // woken without decisions that fit: wait again
    if ('thrown' in result) throw new Error(`A stretch of run ${runId} failed: ${result.thrown}`);
    decided.push(...(result.decided ?? []));
    if (result.state !== undefined) await DBOS.setEvent(stateEventKey, result.state);
    const ended: PauseRecord = {
      epoch: result.state?.epoch ?? 0,
      calls: [],
      decided: [...decided],
    };
    if (!result.ok) {
      await DBOS.setEvent(pauseEventKey, ended);
      return await finish({ ok: false, error: result.error });
    }
    const calls = result.response.interruptions ?? [];
    if (calls.length === 0) {
      await DBOS.setEvent(pauseEventKey, ended);
      return await finish({ ok: true, response: result.response });
    }
    const timeout = options.approvalTimeoutSec;
    const deadline = timeout === undefined ? undefined : (await DBOS.now()) + timeout * 1000;
    const awaiting: Awaiting = { calls, ...(deadline === undefined ? {} : { deadline }) };
    next = { runId, state: result.state, awaiting };
  }
}

/** How long a pause's stretch stays DELAYED: until its deadline, or until decisions come. */
function delayOf(awaiting: Awaiting): number {
  if (awaiting.deadline === undefined) return foreverSec;
  return Math.max(0.001, (awaiting.deadline - Date.now()) / 1000);
}

/**
 * Waits (in the process's wait room: no timer of its own) for the stretch's end. The stretch
 * sends its result as its last act; one that is cancelled or lost sends none.
 */
async function segmentEnd(segmentId: string): Promise<SegmentResult> {
  await untilStretchEnds(segmentId);
  const message = await DBOS.recv<SegmentResult>(segmentTopic, 0);
  if (message !== null) return message;
  const status = await DBOS.getWorkflowStatus(segmentId);
  const ended = status?.status ?? 'lost';
  const text = `The run was cancelled: its stretch ${segmentId} ended ${ended}.`;
  return { ok: false, error: new LlmError('cancelled', text).toJSON() };
}

async function finish(outcome: RunOutcome): Promise<RunOutcome> {
  await DBOS.closeStream(eventsStreamKey);
  return outcome;
}
