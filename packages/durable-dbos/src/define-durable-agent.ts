// The worker side: an agent is a DBOS workflow that runs the unchanged LlmCycle with a provider
// and a registry whose every request and call is a recorded step, and that waits for a
// person's decisions with a durable `recv`.
import {
  type ChatResponse,
  LlmCycle,
  type LlmCycleOptions,
  LlmError,
  MemoryRunStore,
  type ResumeDecision,
  type StreamEvent,
} from '@agcore/llm-cycle';
import type { ToolRegistry } from '@agcore/tools-registry';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { decisionProblems, type PauseRecord } from './decisions.js';
import { durableProvider } from './durable-provider.js';
import { durableRegistry } from './durable-registry.js';
import { EventBatch, EventLog } from './event-log.js';
import type { DurableRunInput, RunOutcome } from './types.js';
import { splitInput } from './types.js';
import {
  decisionsTopic,
  eventsStreamKey,
  llmErrorJson,
  pauseEventKey,
  stateEventKey,
  workflowPrefix,
} from './wire.js';

/** The queue of an agent's runs (DBOS `registerQueue` parameters). */
export interface DurableQueueOptions {
  /** The queue's name; default `agcore-<agent name>`. Clients pass it to `DurableRuns`. */
  readonly name?: string;
  /** At most this many runs at once in one worker process. */
  readonly workerConcurrency?: number;
  /** At most `limitPerPeriod` runs started per `periodSec` seconds. */
  readonly rateLimit?: { readonly limitPerPeriod: number; readonly periodSec: number };
}

/** Options of `defineDurableAgent`. */
export interface DurableAgentOptions {
  /** The agent's name: the DBOS workflow is `agcore.agent.<name>`. */
  readonly name: string;
  /** The cycle's options for each run (called in the worker; `runId`, `sessionId`, `runStore` are set by the agent). */
  readonly cycle: () => LlmCycleOptions;
  /** The registry for each run (called in the worker). */
  readonly registry: () => ToolRegistry;
  /** The queue the runs are started on. */
  readonly queue?: DurableQueueOptions;
  /** A wait for decisions longer than this abandons the waiting calls and ends the run `cancelled`. Default: no limit. */
  readonly approvalTimeoutSec?: number;
}

/** A registered agent. */
export interface DurableAgent {
  /** The agent's name. */
  readonly name: string;
  /** The DBOS workflow's name. */
  readonly workflowName: string;
  /** The queue its runs go on. */
  readonly queueName: string;
  /** Registers the queue in the system database; call after `DBOS.launch()`. */
  registerQueue(): Promise<void>;
}

const waitSliceSec = 86_400;

/**
 * Registers an agent as a DBOS workflow; call it in every worker before `DBOS.launch()`.
 * Throws a `TypeError` for a name that is not a non-empty string or a timeout that is not a
 * positive number.
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
  const workflowName = `${workflowPrefix}${options.name}`;
  const queueName = options.queue?.name ?? `agcore-${options.name}`;
  DBOS.registerWorkflow((input: DurableRunInput) => runAgent(options, input), {
    name: workflowName,
  });
  const { workerConcurrency, rateLimit } = options.queue ?? {};
  return {
    name: options.name,
    workflowName,
    queueName,
    registerQueue: async () => {
      await DBOS.registerQueue(queueName, {
        ...(workerConcurrency === undefined ? {} : { workerConcurrency }),
        ...(rateLimit === undefined ? {} : { rateLimit }),
        onConflict: 'always_update',
      });
    },
  };
}

async function runAgent(options: DurableAgentOptions, input: DurableRunInput): Promise<RunOutcome> {
  const runId = DBOS.workflowID ?? '';
  const log = new EventLog();
  const base = options.cycle();
  const { history, prompt } = splitInput(input);
  const registry = durableRegistry(options.registry(), log, {
    maxToolResultBytes: base.maxToolResultBytes === undefined ? 16_384 : base.maxToolResultBytes,
  });
  const cycle = new LlmCycle({
    ...base,
    provider: durableProvider(base.provider, log),
    runId,
    sessionId: runId,
    runStore: new MemoryRunStore(),
    ...(history.length === 0 ? {} : { messages: history }),
  });
  const decided: string[] = [];
  let stretch = 0;
  let stream = cycle.submitStreamWithTools(prompt, registry);
  try {
    for (;;) {
      const response = await drain(stream, log, stretch);
      stretch += 1;
      const state = cycle.state();
      await DBOS.setEvent(stateEventKey, state);
      const calls = response.interruptions ?? [];
      const pause: PauseRecord = { epoch: state.epoch, calls, decided: [...decided] };
      await DBOS.setEvent(pauseEventKey, pause);
      if (calls.length === 0) return await finish({ ok: true, response });
      const decisions = await waitForDecisions(cycle, options.approvalTimeoutSec);
      if (decisions === undefined) return await timedOut(cycle, options, decided);
      decided.push(...Object.keys(decisions));
      await DBOS.setEvent(pauseEventKey, { epoch: state.epoch, calls: [], decided: [...decided] });
      stream = cycle.resumeStream(decisions, registry);
    }
  } catch (error) {
    if (!LlmError.isInstance(error)) throw error;
    return await finish({ ok: false, error: llmErrorJson(error) });
  }
}

async function finish(outcome: RunOutcome): Promise<RunOutcome> {
  await DBOS.closeStream(eventsStreamKey);
  return outcome;
}

async function timedOut(
  cycle: LlmCycle,
  options: DurableAgentOptions,
  decided: readonly string[],
): Promise<RunOutcome> {
  const reason = `no decision within approvalTimeoutSec (${String(options.approvalTimeoutSec)} s)`;
  cycle.abandon(reason);
  const state = cycle.state();
  await DBOS.setEvent(stateEventKey, state);
  await DBOS.setEvent(pauseEventKey, { epoch: state.epoch, calls: [], decided });
  const error = new LlmError('cancelled', `The run was cancelled: ${reason}.`);
  return finish({ ok: false, error: error.toJSON() });
}

/** Runs a stretch of the loop to its end; events no step wrote are written now, in order. */
async function drain(
  stream: AsyncGenerator<StreamEvent, ChatResponse, undefined>,
  log: EventLog,
  stretch: number,
): Promise<ChatResponse> {
  const rest: StreamEvent[] = [];
  let next = await stream.next();
  while (next.done !== true) {
    if (!log.writtenByStep(next.value)) rest.push(next.value);
    next = await stream.next();
  }
  const batch = new EventBatch();
  for (const [index, event] of rest.entries()) batch.add(`w${stretch}:${index}`, event);
  await batch.flush();
  return next.value;
}

/** The first decisions that fit the waiting calls, or `undefined` when the time ran out. */
async function waitForDecisions(
  cycle: LlmCycle,
  timeoutSec: number | undefined,
): Promise<Record<string, ResumeDecision> | undefined> {
  const calls = cycle.interruptions();
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
    if (typeof message === 'object' && decisionProblems(calls, message).length === 0)
      return message;
  }
}
