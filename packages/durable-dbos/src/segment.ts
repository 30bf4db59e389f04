// A segment: one stretch of a run's loop, from its start (or a resume with decisions) to its
// end or its next pause, as a child workflow of the run on the agent's work queue. The run's
// own workflow only waits (for a segment, for a person), so a run that waits for a person holds
// no slot of the work queue: `workerConcurrency` counts running runs only.
import {
  type ChatMessage,
  type ChatResponse,
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
import { durableProvider } from './durable-provider.js';
import { durableRegistry } from './durable-registry.js';
import { EventLog, writeEvents } from './event-log.js';
import type { DurableAgentOptions, DurableRunInput } from './types.js';
import { splitInput } from './types.js';
import { type EventEntry, eventsStreamKey, llmErrorJson, segmentTopic } from './wire.js';

/** What a segment runs: the run's start, or a resume of its paused state. */
export type SegmentInput = { readonly runId: string } & (
  | { readonly start: DurableRunInput }
  | {
      readonly state: RunState;
      readonly decisions: Readonly<Record<string, ResumeDecision>>;
    }
);

/** How a segment ended: sent to the run's workflow on `segmentTopic`, and returned. */
export type SegmentResult =
  | { readonly ok: true; readonly state: RunState; readonly response: ChatResponse }
  | { readonly ok: false; readonly state?: RunState; readonly error: LlmErrorJson }
  | { readonly ok: false; readonly thrown: string };

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
    result = await stretch(options, input, log);
  } catch (error) {
    result = { ok: false, thrown: describeThrown(error) };
  }
  await DBOS.closeStream(eventsStreamKey);
  await DBOS.send(input.runId, result, segmentTopic);
  return result;
}

async function stretch(
  options: DurableAgentOptions,
  input: SegmentInput,
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
 * Runs the stretch to its end; events no step wrote are written at the end, in order, in one
 * write (from the workflow, where no timer may decide when: a replay makes the same writes).
 */
async function drain(
  stream: AsyncGenerator<StreamEvent, ChatResponse, undefined>,
  log: EventLog,
): Promise<ChatResponse> {
  const rest: EventEntry[] = [];
  let next = await stream.next();
  while (next.done !== true) {
    if (!log.writtenByStep(next.value)) rest.push({ key: `w:${rest.length}`, event: next.value });
    next = await stream.next();
  }
  if (rest.length > 0) await writeEvents(rest);
  return next.value;
}
