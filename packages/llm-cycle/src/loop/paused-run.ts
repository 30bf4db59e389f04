import type { JsonValue } from '@agcore/tools-core';
import type { ChatResponse, Usage } from '../chat-provider.js';
import type { ChatMessage } from '../messages.js';
import { bindingHash, stateMac } from '../runs/run-seal.js';
import type { Interruption, PendingCall, PendingRun, RunState } from '../runs/run-state.js';
import type { StreamEvent } from '../stream-events.js';
import type { RunCounters } from './run-counters.js';
import { ToolTurn, type Waiting } from './tool-step.js';

/** A deep copy through JSON: what a run state holds is plain JSON, never the caller's objects. */
function plain<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/**
 * The paused turn as it goes into a run state: the answer, the tool messages of the calls that
 * have theirs, and each waiting call bound to its hash.
 */
export function pendingRunOf(turn: ToolTurn, response: ChatResponse, run: RunCounters): PendingRun {
  const results: { callId: string; content: string }[] = [];
  const calls: PendingCall[] = [];
  turn.calls.forEach((entry, position) => {
    const result = turn.results[position];
    const callId = entry.call.id;
    const toolName = entry.call.function.name;
    if (result !== undefined) {
      results.push({ callId, content: result.message.content });
      return;
    }
    const waiting = turn.waiting[position] as Waiting;
    const binding =
      waiting.kind === 'approval'
        ? { kind: waiting.kind, callId, toolName }
        : {
            kind: waiting.kind,
            callId,
            toolName,
            prompt: waiting.prompt,
            ...(waiting.data === undefined ? {} : { data: plain(waiting.data) }),
          };
    calls.push({
      ...binding,
      hash: bindingHash({ ...binding, arguments: entry.input as JsonValue }),
    });
  });
  const { id, model, message, finishReason, usage, reasoning } = response;
  return {
    turns: run.turns,
    toolCalls: run.toolCalls,
    usage: run.usage,
    response: plain({
      id,
      model,
      message,
      finishReason,
      ...(usage === undefined ? {} : { usage }),
      ...(reasoning === undefined ? {} : { reasoning }),
    }),
    results,
    calls,
    repeats: run.guard.entries(),
  };
}

/** The turn of a paused run, its waiting calls waiting again. */
export function restoreTurn(paused: PendingRun): ToolTurn {
  const waiting = new Map<string, Waiting>(
    paused.calls.map((call): [string, Waiting] => [
      call.callId,
      call.kind === 'approval'
        ? { kind: 'approval' }
        : {
            kind: 'input',
            prompt: call.prompt ?? '',
            ...(call.data === undefined ? {} : { data: call.data }),
          },
    ]),
  );
  return ToolTurn.restore(paused.response.message, paused.results, waiting);
}

/** What a paused run waits on, in call order. */
export function interruptionsOf(paused: PendingRun): Interruption[] {
  const turn = restoreTurn(paused);
  return turn.pending().map((position) => {
    const { call, input } = turn.calls[position] as ToolTurn['calls'][number];
    const waiting = turn.waiting[position] as Waiting;
    return {
      kind: waiting.kind,
      callId: call.id,
      toolName: call.function.name,
      input: input as JsonValue,
      ...(waiting.kind === 'input' ? { prompt: waiting.prompt } : {}),
    };
  });
}

/** The events that end a streamed submit that paused: one request per waiting call, then `turn_complete` `interrupted`. */
export function interruptionEvents(interruptions: readonly Interruption[]): StreamEvent[] {
  const events: StreamEvent[] = interruptions.map((item) =>
    item.kind === 'approval'
      ? {
          type: 'tool_approval_requested',
          toolName: item.toolName,
          callId: item.callId,
          input: item.input,
        }
      : {
          type: 'tool_input_requested',
          toolName: item.toolName,
          callId: item.callId,
          prompt: item.prompt ?? '',
        },
  );
  events.push({ type: 'turn_complete', reason: 'interrupted' });
  return events;
}

/** Who a state belongs to: the session, the run and the run's resume epoch. */
export interface RunIdentity {
  readonly sessionId: string;
  readonly runId: string;
  readonly epoch: number;
}

/** The state of a cycle at rest, plain JSON, with its HMAC when there is a secret. */
export function stateOf(
  identity: RunIdentity,
  messages: readonly ChatMessage[],
  usage: Usage,
  paused: PendingRun | undefined,
  secret: string | Uint8Array | undefined,
): RunState {
  const { sessionId, runId, epoch } = identity;
  const state = plain({
    version: 1 as const,
    sessionId,
    runId,
    epoch,
    messages,
    usage,
    pending: paused ?? null,
  });
  return secret === undefined ? state : { ...state, mac: stateMac(state, secret) };
}
