// The worker side: an agent is two DBOS workflows. The run (`agcore.agent.<name>`, id = the
// run id, on the agent's queue) only waits: for its segments, and for a person's decisions
// with a durable `recv`. A segment (`agcore.segment.<name>`, on the agent's work queue, see
// segment.ts) runs the unchanged LlmCycle with a provider and a registry whose every request
// and call is a recorded step. A run that waits for a person runs no segment, so it holds no
// slot of the work queue.
import { LlmError, type ResumeDecision, type RunState } from '@agcore/llm-cycle';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { decisionProblems, type PauseRecord } from './decisions.js';
import { registerAgent } from './register.js';
import { agentCycle, runSegment, type SegmentInput, type SegmentResult } from './segment.js';
import type { DurableAgentOptions, DurableRunInput, RunOutcome } from './types.js';
import {
  decisionsTopic,
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

const waitSliceSec = 86_400;
const segmentSliceSec = 30;

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
  const start: StartSegment = (id, input) =>
    DBOS.startWorkflow(segment, { workflowID: id, queueName: work })(input).then(() => undefined);
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

type StartSegment = (segmentId: string, input: SegmentInput) => Promise<void>;

async function runAgent(
  options: DurableAgentOptions,
  input: DurableRunInput,
  startSegment: StartSegment,
): Promise<RunOutcome> {
  const runId = DBOS.workflowID ?? '';
  const decided: string[] = [];
  let next: SegmentInput = { runId, start: input };
  for (let index = 0; ; index += 1) {
    const result = await segmentResult(runId, index, next, startSegment);
    if ('thrown' in result) throw new Error(`A stretch of run ${runId} failed: ${result.thrown}`);
    if (result.state !== undefined) await DBOS.setEvent(stateEventKey, result.state);
    if (!result.ok) return await finish({ ok: false, error: result.error });
    const { state, response } = result;
    const calls = response.interruptions ?? [];
    const pause: PauseRecord = { epoch: state.epoch, calls, decided: [...decided] };
    await DBOS.setEvent(pauseEventKey, pause);
    if (calls.length === 0) return await finish({ ok: true, response });
    const decisions = await waitForDecisions(pause, options.approvalTimeoutSec);
    if (decisions === undefined) return await timedOut(runId, state, options, decided);
    decided.push(...Object.keys(decisions));
    await DBOS.setEvent(pauseEventKey, { epoch: state.epoch, calls: [], decided: [...decided] });
    next = { runId, state, decisions };
  }
}

/** Starts segment `index` of the run, points the run's events at it, and waits for its end. */
async function segmentResult(
  runId: string,
  index: number,
  input: SegmentInput,
  startSegment: StartSegment,
): Promise<SegmentResult> {
  const segmentId = `${runId}:s${String(index)}`;
  await startSegment(segmentId, input);
  const pointer: SegmentPointer = { segment: segmentId };
  await DBOS.writeStream(eventsStreamKey, pointer);
  for (;;) {
    // The segment sends its result as its last act; one that is cancelled or lost sends none,
    // so the wait is sliced and the segment's status looked at between slices.
    const message = await DBOS.recv<SegmentResult>(segmentTopic, segmentSliceSec);
    if (message !== null) return message;
    const status = await DBOS.getWorkflowStatus(segmentId);
    if (status?.status === 'CANCELLED' || status?.status === 'ERROR') {
      const message = `The run was cancelled: its stretch ${segmentId} ended ${status.status}.`;
      return { ok: false, error: new LlmError('cancelled', message).toJSON() };
    }
  }
}

async function finish(outcome: RunOutcome): Promise<RunOutcome> {
  await DBOS.closeStream(eventsStreamKey);
  return outcome;
}

async function timedOut(
  runId: string,
  paused: RunState,
  options: DurableAgentOptions,
  decided: readonly string[],
): Promise<RunOutcome> {
  const reason = `no decision within approvalTimeoutSec (${String(options.approvalTimeoutSec)} s)`;
  // Pure: the cycle is made from the paused state and abandoned in memory, no request is sent.
  const cycle = agentCycle(options.cycle(), runId, { state: paused });
  cycle.abandon(reason);
  const state = cycle.state();
  await DBOS.setEvent(stateEventKey, state);
  await DBOS.setEvent(pauseEventKey, { epoch: state.epoch, calls: [], decided });
  const error = new LlmError('cancelled', `The run was cancelled: ${reason}.`);
  return finish({ ok: false, error: error.toJSON() });
}

/** The first decisions that fit the waiting calls, or `undefined` when the time ran out. */
async function waitForDecisions(
  pause: PauseRecord,
  timeoutSec: number | undefined,
): Promise<Record<string, ResumeDecision> | undefined> {
  const deadline = timeoutSec === undefined ? undefined : (await DBOS.now()) + timeoutSec * 1000;
  for (;;) {
    let wait = waitSliceSec;
    if (deadline !== undefined) {
      const left = (deadline - (await DBOS.now())) / 1000;
      if (left <= 0) return undefined;
      wait = Math.min(wait, left);
    }
    const message = await DBOS.recv<Record<string, ResumeDecision>>(decisionsTopic, wait);
    if (message === null) continue;
    if (typeof message === 'object' && decisionProblems(pause.calls, message).length === 0)
      return message;
  }
}
