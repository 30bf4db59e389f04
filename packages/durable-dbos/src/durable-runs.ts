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
import { type DBOSClient, Error as DBOSErrors } from '@dbos-inc/dbos-sdk';
import { type CatalogRow, readCatalog } from './catalog.js';
import { decisionProblems, type PauseRecord } from './decisions.js';
import { DurableRunsError } from './errors.js';
import { checkForkDecisions, type DurableForkOptions, moveRun, planFork } from './run-fork.js';
import {
  type DurableListOptions,
  type DurableRunPage,
  type DurableRunSummary,
  getRun,
  listRuns,
  type RunTables,
} from './run-list.js';
import { type DurableRetainOptions, retainRuns } from './run-retain.js';
import { clientPool, clientSchema, type SqlPool } from './system-sql.js';
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
  /**
   * Queue names by agent, over what the catalog says (workers record each agent's queue at
   * launch, and `start` finds it there).
   */
  readonly queues?: Readonly<Record<string, string>>;
  /** A worker whose last beat is older than this is gone (`no_worker`, `stranded`). Default 30 s. */
  readonly staleAfterSec?: number;
  /**
   * A `pg.Pool` on the system database for the catalog and the run tables; default: the
   * client's own pool.
   */
  readonly pool?: SqlPool;
}

/** One worker's record of one agent (`DurableRuns.agents`). */
export type DurableAgentRecord = CatalogRow;

/** Options of `DurableRuns.start`: the run's id (the DBOS workflow id) and its input. */
export type DurableStartOptions = DurableRunInput & { readonly runId: string };

/** Durable runs through a `DBOSClient`. */
export class DurableRuns {
  private readonly client: DBOSClient;
  private readonly queues: Readonly<Record<string, string>>;
  private readonly options: DurableRunsOptions;
  /** The system database (for the catalog), made on first use. */
  private sql: SqlPool | undefined;

  /** Uses `client` (the caller creates and destroys it). Throws a `TypeError` for a `staleAfterSec` that is not positive. */
  constructor(client: DBOSClient, options: DurableRunsOptions = {}) {
    const stale = options.staleAfterSec;
    if (stale !== undefined && !(typeof stale === 'number' && stale > 0))
      throw new TypeError(
        `DurableRuns: staleAfterSec must be a positive number, got ${String(stale)}.`,
      );
    this.client = client;
    this.queues = options.queues ?? {};
    this.options = options;
  }

  /** The system database's pool. */
  protected pool(): SqlPool {
    this.sql ??= clientPool(this.client, this.options.pool);
    return this.sql;
  }

  /** Seconds after a worker's last beat when it counts as gone. */
  protected get staleAfterSec(): number {
    return this.options.staleAfterSec ?? 30;
  }

  /**
   * Starts a run of `agentName`; a second start with the same `runId` is the same run. The
   * queue is the `queues` option's, else the one the agent's workers recorded. Rejects with a
   * `DurableRunsError` `unknown_agent`, enqueuing nothing, when no worker ever registered the
   * agent here; a run of an agent whose workers are all gone is enqueued (`list` shows it
   * `no_worker` until one is back).
   */
  async start(agentName: string, options: DurableStartOptions): Promise<{ runId: string }> {
    const { runId, ...input } = options;
    if (typeof runId !== 'string' || runId === '')
      throw new TypeError('start: runId must be a non-empty string.');
    await this.client.enqueue(
      {
        workflowName: `${workflowPrefix}${agentName}`,
        queueName: this.queues[agentName] ?? (await this.registeredQueue(agentName)),
        workflowID: runId,
        workflowIDReusePolicy: 'return-existing',
      },
      input,
    );
    return { runId };
  }

  /** What the workers recorded: one record per (agent, worker), `live` when it beat within `staleAfterSec`. */
  async agents(): Promise<DurableAgentRecord[]> {
    return readCatalog(this.pool(), this.staleAfterSec);
  }

  private async registeredQueue(agentName: string): Promise<string> {
    const [latest] = await readCatalog(this.pool(), this.staleAfterSec, agentName);
    if (latest === undefined) {
      throw new DurableRunsError(
        'unknown_agent',
        `start(${JSON.stringify(agentName)}): no worker has registered the agent ${JSON.stringify(agentName)} ` +
          'in this database, so nothing would run it. Start a worker that defines it ' +
          '(defineDurableAgent) and calls agent.registerQueue() after DBOS.launch(), on the same ' +
          'system database; or name its queue in new DurableRuns(client, { queues }). Nothing was enqueued.',
      );
    }
    return latest.queue;
  }

  /**
   * The run's events, live, each once (also across a worker's crash), until the run ends. With
   * `{ follow: false }`: the events written so far, then the end (each stream still open is
   * read until no event came for 1 s: a waiting run's timeline).
   */
  async *events(
    runId: string,
    options: { readonly follow?: boolean } = {},
  ): AsyncGenerator<StreamEvent, void, undefined> {
    // The run's stream names its segments in order; each segment's stream holds its events.
    const read = new Set<string>();
    const pointers = readSoFar<SegmentPointer>(this.client, runId, options.follow);
    for await (const pointer of pointers) {
      if (read.has(pointer.segment)) continue;
      read.add(pointer.segment);
      yield* this.segmentEvents(pointer.segment, options.follow);
    }
  }

  private async *segmentEvents(
    segmentId: string,
    follow: boolean | undefined,
  ): AsyncGenerator<StreamEvent, void, undefined> {
    const seen = new Set<string>();
    for await (const record of readSoFar<EventRecord>(this.client, segmentId, follow)) {
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
    // runs. Sent once per pause and version (the key), so a decision sent twice is applied once,
    // and one sent again after `fork` (which moved the stretch to another version) is applied.
    const version = (await this.client.getWorkflow(runId))?.applicationVersion ?? '';
    const to = pause?.segment ?? runId;
    await this.client.send(to, decisions, decisionsTopic, `${runId}:decisions:${epoch}:${version}`);
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

  /**
   * A page of runs, newest first, by `state`, `agent` and age (`olderThan`: created before);
   * pass the page's `cursor` for the next. Throws a `TypeError` for options out of range.
   */
  async list(options: DurableListOptions = {}): Promise<DurableRunPage> {
    return listRuns(this.tables(), options);
  }

  /** One run (`undefined` for an id that is no run). */
  async get(runId: string): Promise<DurableRunSummary | undefined> {
    return getRun(this.tables(), runId);
  }

  /**
   * Removes finished runs (succeeded, failed, cancelled) that ended before `olderThan`, with
   * their stretches, events and journal; at most `limit` (default 1000) a call. Returns their ids.
   */
  async retain(options: DurableRetainOptions): Promise<{ runIds: string[] }> {
    return retainRuns(this.tables(), options);
  }

  /**
   * Moves a run that waits for decisions to the workers of `version` (when its own version has
   * none left: `list` shows it `stranded`). The run keeps its id; DBOS rewinds it to the step
   * after its last completed one and re-enqueues it at `version`, whose worker replays the
   * journal (nothing recorded runs again) and waits for the decisions, then runs on with its
   * tools. With `decisions`, they are sent too (checked first, like `decide`). Rejects with a
   * `DurableRunsError`, changing nothing: `not_found`, `not_paused`, `not_stranded` (a live
   * worker of its own version runs it), `unknown_version`,
   * `tool_missing` (the version lacks a tool a waiting call needs); a `TypeError` for
   * decisions that do not fit.
   */
  async fork(
    runId: string,
    options: DurableForkOptions & {
      readonly decisions?: Readonly<Record<string, ResumeDecision>>;
    },
  ): Promise<void> {
    const tables = this.tables();
    const plan = await planFork(tables, runId, options);
    if (options.decisions !== undefined) checkForkDecisions(plan, options.decisions);
    await moveRun(tables, plan);
    if (options.decisions !== undefined) await this.decide(runId, options.decisions);
  }

  private tables(): RunTables {
    return {
      client: this.client,
      pool: this.pool(),
      schema: clientSchema(this.client),
      staleAfterSec: this.staleAfterSec,
    };
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

/** The workflow's events stream; unless `follow`, it ends after 1 s without a value. */
async function* readSoFar<T>(
  client: DBOSClient,
  workflowId: string,
  follow: boolean | undefined,
): AsyncGenerator<T, void, undefined> {
  if (follow !== false) {
    yield* client.readStream<T>(workflowId, eventsStreamKey);
    return;
  }
  try {
    yield* client.readStream<T>(workflowId, eventsStreamKey, { timeoutSeconds: 1 });
  } catch (error) {
    if (!DBOSErrors.isStreamTimeoutError(error)) throw error;
  }
}

function reviveEvent(event: StreamEvent): StreamEvent {
  if (event.type !== 'tool_execution_completed' || event.error === undefined) return event;
  const json = event.error as unknown as { code: ToolError['code']; message: string };
  return { ...event, error: new ToolError(json.code, json.message) };
}
