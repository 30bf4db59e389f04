// A segment: one stretch of a run's loop, from its start (or a resume with decisions) to its
// end or its next pause, as a child workflow of the run on the agent's work queue. The run's
// own workflow only waits (for a segment, for a person), so a run that waits for a person holds
// no slot of the work queue: `workerConcurrency` counts running runs only.
import {
  type ChatMessage,
  type ChatResponse,
  type Interruption,
  LlmCycle,
  type LlmCycleOptions,
  LlmError,
  type LlmErrorJson,
  MemoryRunStore,
  type ResumeDecision,
  type RunState,
  type StreamEvent,
} from '@agcore/llm-cycle';
import { describeThrown } from '@agcore/tools-core';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { decisionProblems } from './decisions.js';
import { durableProvider } from './durable-provider.js';
import { durableRegistry } from './durable-registry.js';
import { EventLog, writeEvents } from './event-log.js';
import type { DurableAgentOptions, DurableRunInput } from './types.js';
import { splitInput } from './types.js';
import { decisionsTopic, eventsStreamKey, llmErrorJson, segmentTopic } from './wire.js';

/** The calls a paused run waits on, and when the wait ends (DBOS's clock, epoch ms). */
export interface Awaiting {
  readonly calls: readonly Interruption[];
  readonly deadline?: number;
}

/**
 * What a segment runs: the run's start, a resume of its paused state with decisions, or a
 * pause: a stretch started DELAYED that takes the decisions sent to it when it runs.
 */
export type SegmentInput = { readonly runId: string } & (
  | { readonly start: DurableRunInput }
  | {
      readonly state: RunState;
      readonly decisions: Readonly<Record<string, ResumeDecision>>;
    }
  | { readonly state: RunState; readonly awaiting: Awaiting }
);

/**
 * How a segment ended: sent to the run's workflow on `segmentTopic`, and returned. `decided`:
 * the calls the decisions it took were for; `waiting`: it took none and the wait goes on.
 */
export type SegmentResult =
  | {
      readonly ok: true;
      readonly state: RunState;
      readonly response: ChatResponse;
      readonly decided?: readonly string[];
    }
  | {
      readonly ok: false;
      readonly state?: RunState;
      readonly error: LlmErrorJson;
      readonly decided?: readonly string[];
    }
  | { readonly ok: false; readonly thrown: string }
  | { readonly ok: false; readonly waiting: true };

type Stretch = Exclude<SegmentInput, { readonly awaiting: Awaiting }>;
type Pause = Extract<SegmentInput, { readonly awaiting: Awaiting }>;

/** The cycle of a run as the agent's options make it, from a history or from a state. */
export function agentCycle(
  base: LlmCycleOptions,
  runId: string,
  from: { readonly messages?: readonly ChatMessage[]; readonly state?: RunState },
  log?: EventLog,
): LlmCycle {
  return new LlmCycle({
    ...base,
    ...(log === undefined ? {} : { provider: durableProvider(base.provider, log) }),
    runId,
    sessionId: runId,
    runStore: new MemoryRunStore(),
    ...(from.messages === undefined || from.messages.length === 0
      ? {}
      : { messages: from.messages }),
    ...(from.state === undefined ? {} : { state: from.state }),
  });
}

/** The segment workflow's body. */
export async function runSegment(
  options: DurableAgentOptions,
  input: SegmentInput,
): Promise<SegmentResult> {
  const log = new EventLog();
  let result: SegmentResult;
  try {
    result =
      'awaiting' in input
        ? await afterWait(options, input, log)
        : await stretch(options, input, log);
  } catch (error) {
    result = { ok: false, thrown: describeThrown(error) };
  }
  // Before the end is sent (so before any wait and before the run completes): the events
  // still pending, then those no step wrote, in one write made on every path.
  await writeEvents([...(await log.batch.take()), ...log.leftover()]);
  await DBOS.closeStream(eventsStreamKey);
  await DBOS.send(input.runId, result, segmentTopic);
  return result;
}

/** A pause's stretch: the decisions sent to it, then the loop; or the end of the wait. */
async function afterWait(
  options: DurableAgentOptions,
  input: Pause,
  log: EventLog,
): Promise<SegmentResult> {
  const decisions = await receiveDecisions(input.awaiting.calls);
  if (decisions !== undefined) {
    const result = await stretch(
      options,
      { runId: input.runId, state: input.state, decisions },
      log,
    );
    return 'thrown' in result ? result : { ...result, decided: Object.keys(decisions) };
  }
  const { deadline } = input.awaiting;
  if (deadline !== undefined && (await DBOS.now()) >= deadline) return timedOut(options, input);
  return { ok: false, waiting: true };
}

/** The first decisions sent to this stretch that fit the waiting calls (others are dropped). */
async function receiveDecisions(
  calls: readonly Interruption[],
): Promise<Record<string, ResumeDecision> | undefined> {
  for (;;) {
    const message = await DBOS.recv<Record<string, ResumeDecision>>(decisionsTopic, 0);
    if (message === null) return undefined;
    if (typeof message === 'object' && decisionProblems(calls, message).length === 0)
      return message;
  }
}

/** No decision before the deadline: the waiting calls are abandoned, the run ends `cancelled`. */
function timedOut(options: DurableAgentOptions, input: Pause): SegmentResult {
  const reason = `no decision within approvalTimeoutSec (${String(options.approvalTimeoutSec)} s)`;
  // Pure: the cycle is made from the paused state and abandoned in memory, no request is sent.
  const cycle = agentCycle(options.cycle(), input.runId, { state: input.state });
  cycle.abandon(reason);
  const error = new LlmError('cancelled', `The run was cancelled: ${reason}.`);
  return { ok: false, state: cycle.state(), error: error.toJSON(), decided: [] };
}

async function stretch(
  options: DurableAgentOptions,
  input: Stretch,
  log: EventLog,
): Promise<SegmentResult> {
  const own = options.cycle();
  const store = options.stores?.resultStore;
  const base = own.spill !== undefined || store === undefined ? own : { ...own, spill: { store } };
  const registry = durableRegistry(options.registry(), log, {
    maxToolResultBytes: base.maxToolResultBytes === undefined ? 16_384 : base.maxToolResultBytes,
  });
  let cycle: LlmCycle;
  let stream: AsyncGenerator<StreamEvent, ChatResponse, undefined>;
  if ('start' in input) {
    const { history, prompt } = splitInput(input.start);
    cycle = agentCycle(base, input.runId, { messages: history }, log);
    stream = cycle.submitStreamWithTools(prompt, registry);
  } else {
    cycle = agentCycle(base, input.runId, { state: input.state }, log);
    stream = cycle.resumeStream(input.decisions, registry);
  }
  try {
    const response = await drain(stream, log);
    return { ok: true, state: cycle.state(), response };
  } catch (error) {
    if (!LlmError.isInstance(error)) throw error;
    return { ok: false, state: cycle.state(), error: llmErrorJson(error) };
  }
}

/**
 * Runs the stretch to its end, keeping the events no step wrote for the stretch's last write
 * (made on every path, an empty one when nothing is left, from the workflow: no timing
 * decides whether it happens, so a replay makes the same recorded writes).
 */
async function drain(
  stream: AsyncGenerator<StreamEvent, ChatResponse, undefined>,
  log: EventLog,
): Promise<ChatResponse> {
  const rest = log.unwritten;
  let next = await stream.next();
  while (next.done !== true) {
    if (!log.writtenByStep(next.value)) rest.push({ key: `w:${rest.length}`, event: next.value });
    next = await stream.next();
  }
  return next.value;
}
