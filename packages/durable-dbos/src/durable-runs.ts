// The client side, for any process that shares the system database (an API server, a CLI):
// start runs, read their events and pauses, send decisions, read results and states.
import type {
  ChatResponse,
  Interruption,
  ResumeDecision,
  RunState,
  StreamEvent,
} from '@agcore/llm-cycle';
import { LlmError } from '@agcore/llm-cycle';
import { ToolError } from '@agcore/tools-core';
import type { DBOSClient } from '@dbos-inc/dbos-sdk';
import { decisionProblems, type PauseRecord } from './decisions.js';
import type { DurableRunInput, RunOutcome } from './types.js';
import {
  decisionsTopic,
  type EventRecord,
  eventsStreamKey,
  pauseEventKey,
  reviveLlmError,
  type SegmentPointer,
  segmentPrefix,
  stateEventKey,
  workflowPrefix,
  workQueueName,
} from './wire.js';

/** Options of `DurableRuns`. */
export interface DurableRunsOptions {
  /** Queue names of agents whose `queue.name` is not the default `agcore-<name>`. */
  readonly queues?: Readonly<Record<string, string>>;
}

/** Options of `DurableRuns.start`: the run's id (the DBOS workflow id) and its input. */
export type DurableStartOptions = DurableRunInput & { readonly runId: string };

/** One run, as `list` reports it. */
export interface DurableRunSummary {
  readonly runId: string;
  readonly agentName: string;
  /** DBOS's status: `ENQUEUED`, `PENDING` (running or waiting), `SUCCESS`, `ERROR`, `CANCELLED`, … */
  readonly status: string;
  readonly executorId?: string;
}

/** Durable runs through a `DBOSClient`. */
export class DurableRuns {
  private readonly client: DBOSClient;
  private readonly queues: Readonly<Record<string, string>>;

  /** Uses `client` (the caller creates and destroys it). */
  constructor(client: DBOSClient, options: DurableRunsOptions = {}) {
    this.client = client;
    this.queues = options.queues ?? {};
  }

  /** Starts a run of `agentName`; a second start with the same `runId` is the same run. */
  async start(agentName: string, options: DurableStartOptions): Promise<{ runId: string }> {
    const { runId, ...input } = options;
    if (typeof runId !== 'string' || runId === '')
      throw new TypeError('start: runId must be a non-empty string.');
    await this.client.enqueue(
      {
        workflowName: `${workflowPrefix}${agentName}`,
        queueName: this.queues[agentName] ?? `agcore-${agentName}`,
        workflowID: runId,
        workflowIDReusePolicy: 'return-existing',
      },
      input,
    );
    return { runId };
  }

  /** The run's events, live, each once (also across a worker's crash), until the run ends. */
  async *events(runId: string): AsyncGenerator<StreamEvent, void, undefined> {
    // The run's stream names its segments in order; each segment's stream holds its events.
    const read = new Set<string>();
    for await (const pointer of this.client.readStream<SegmentPointer>(runId, eventsStreamKey)) {
      if (read.has(pointer.segment)) continue;
      read.add(pointer.segment);
      yield* this.segmentEvents(pointer.segment);
    }
  }

  private async *segmentEvents(segmentId: string): AsyncGenerator<StreamEvent, void, undefined> {
    const seen = new Set<string>();
    for await (const record of this.client.readStream<EventRecord>(segmentId, eventsStreamKey)) {
      for (const { key, event } of record.entries) {
        if (seen.has(key)) continue;
        seen.add(key);
        yield reviveEvent(event);
      }
    }
  }

  /** The calls the run waits on now (`[]` when it does not wait, or its decisions are being applied). */
  async interruptions(runId: string): Promise<Interruption[]> {
    const pause = await this.pause(runId);
    if (pause === undefined || pause.calls.length === 0) return [];
    // The pause's stretch is DELAYED while it waits; once it runs, the decisions are taken.
    if (pause.segment !== undefined) {
      const status = await this.client.getWorkflow(pause.segment);
      if (status?.status !== 'DELAYED') return [];
    }
    return [...pause.calls];
  }

  /**
   * Sends decisions for the waiting calls (a decision for each). Throws a `TypeError`, sending
   * nothing, for an id that does not wait or a decision of the wrong kind; decisions for calls
   * decided already are not sent again (a decision sent twice is applied once).
   */
  async decide(runId: string, decisions: Readonly<Record<string, ResumeDecision>>): Promise<void> {
    const pause = await this.pause(runId);
    const decided = new Set(pause?.decided ?? []);
    const ids = Object.keys(decisions);
    if (ids.length > 0 && ids.every((id) => decided.has(id))) return;
    const problems = decisionProblems(pause?.calls ?? [], decisions);
    if (problems.length > 0) {
      throw new TypeError(
        `decide(${JSON.stringify(runId)}): ${problems.join('; ')}. Nothing was sent.`,
      );
    }
    const epoch = pause?.epoch ?? 0;
    // To the pause's stretch (a DELAYED workflow), whose delay then ends: it takes them when it
    // runs. Sent once per pause (the key), so a decision sent twice is applied once.
    const to = pause?.segment ?? runId;
    await this.client.send(to, decisions, decisionsTopic, `${runId}:decisions:${epoch}`);
    if (pause?.segment !== undefined)
      await this.client.setWorkflowDelay(pause.segment, { delayUntilEpochMS: Date.now() });
  }

  /** The run's final response; rejects with the `LlmError` it ended with (`cancelled` when cancelled or timed out). */
  async result(runId: string): Promise<ChatResponse> {
    let outcome: RunOutcome;
    try {
      outcome = await this.client.retrieveWorkflow<RunOutcome>(runId).getResult();
    } catch (error) {
      const status = await this.client.getWorkflow(runId);
      if (status?.status === 'CANCELLED') {
        throw new LlmError('cancelled', `The run ${runId} was cancelled.`, { cause: error });
      }
      throw error;
    }
    if (!outcome.ok) throw reviveLlmError(outcome.error);
    return outcome.response;
  }

  /** The run's latest `RunState` (sealed when the agent's cycle has a `stateSecret`), or `undefined` before its first pause or end. */
  async state(runId: string): Promise<RunState | undefined> {
    return (await this.client.getEvent<RunState>(runId, stateEventKey, 0)) ?? undefined;
  }

  /** Cancels the run (a waiting one too, and the stretch it runs); `result` then rejects with `cancelled`. */
  async cancel(runId: string): Promise<void> {
    await this.client.cancelWorkflow(runId, { cancelChildren: true });
  }

  /** Runs of every agent, optionally by DBOS status. */
  async list(options: { status?: string } = {}): Promise<DurableRunSummary[]> {
    const workflows = await this.client.listWorkflows({
      ...(options.status === undefined ? {} : { status: options.status as never }),
    });
    return workflows
      .filter((workflow) => workflow.workflowName.startsWith(workflowPrefix))
      .map((workflow) => ({
        runId: workflow.workflowID,
        agentName: workflow.workflowName.slice(workflowPrefix.length),
        status: workflow.status,
        ...(workflow.executorId === undefined ? {} : { executorId: workflow.executorId }),
      }));
  }

  /**
   * Dead-worker takeover, for a supervisor: puts the unfinished runs of `executorId`, and the
   * stretches of runs it was running, back on their queues so live workers continue them from
   * their journal. Returns their workflow ids (a run's id; `<runId>:s<n>` for a stretch).
   */
  async takeOver(executorId: string): Promise<string[]> {
    const runs = await this.client.listWorkflows({ executorId, status: 'PENDING' });
    const ids: string[] = [];
    for (const run of runs) {
      const queueName = this.queueOf(run.workflowName, run.queueName);
      if (queueName === undefined) continue;
      await this.client.resumeWorkflow(run.workflowID, { queueName });
      ids.push(run.workflowID);
    }
    return ids;
  }

  /** The queue a run or a segment of an agent goes back on; `undefined` for other workflows. */
  private queueOf(workflowName: string, queueName: string | undefined): string | undefined {
    if (workflowName.startsWith(workflowPrefix)) {
      const agentName = workflowName.slice(workflowPrefix.length);
      return queueName ?? this.queues[agentName] ?? `agcore-${agentName}`;
    }
    if (!workflowName.startsWith(segmentPrefix)) return undefined;
    const agentName = workflowName.slice(segmentPrefix.length);
    return queueName ?? workQueueName(this.queues[agentName] ?? `agcore-${agentName}`);
  }

  private async pause(runId: string): Promise<PauseRecord | undefined> {
    return (await this.client.getEvent<PauseRecord>(runId, pauseEventKey, 0)) ?? undefined;
  }
}

function reviveEvent(event: StreamEvent): StreamEvent {
  if (event.type !== 'tool_execution_completed' || event.error === undefined) return event;
  const json = event.error as unknown as { code: ToolError['code']; message: string };
  return { ...event, error: new ToolError(json.code, json.message) };
}
