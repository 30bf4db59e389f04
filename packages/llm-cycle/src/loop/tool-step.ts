import type { ToolError, ToolInputAnswer, ToolProgress } from '@agcore/tools-core';
import type { ToolInvocation } from '@agcore/tools-registry';
import { type ResolvedSpill, spillHandle, spillOrCut } from '../context/spill.js';
import type { AssistantMessage, ToolMessage } from '../messages.js';
import type { StreamEvent, ToolExecutionStartedEvent } from '../stream-events.js';
import type { Waiting } from '../turn-types.js';
import type { EventQueue } from './event-queue.js';
import {
  type CallResult,
  completedEvent,
  failed,
  notRun,
  notStarted,
  type PreparedCall,
  prepareCall,
  resultOf,
  unexpected,
  type VerdictSettings,
  verdict,
} from './tool-verdict.js';

export type { Waiting } from '../turn-types.js';
export type { PreparedCall } from './tool-verdict.js';

/** What running the calls of a turn needs. */
export interface ToolStepSettings extends VerdictSettings {
  readonly sessionId: string;
  /** The run's id: each call gets `${runId}:${callId}` as `context.idempotencyKey`. */
  readonly runId: string;
  readonly traceId: string;
  /** Runs each registry call with the submit's span active, when the submit is traced. */
  readonly runInTrace?: (<T>(body: () => T) => T) | undefined;
  readonly toolTimeoutMs: number;
  /** At most this many calls of the turn run at once (`Infinity`: all). */
  readonly maxParallelToolCalls: number;
  /** Aborting it cancels the calls still running; calls not started yet are not started. */
  readonly signal: AbortSignal;
  /** Receives progress and completion events, when streaming. */
  readonly events: EventQueue<StreamEvent> | undefined;
  /** Where results over the limit are kept whole, when spilling is on. */
  readonly spill?: ResolvedSpill | undefined;
}

/**
 * The tool calls of one assistant message and the verdict on each. `run` runs all of them or a
 * subset, each call on its own: whatever one call does (throw, return what JSON cannot hold,
 * break the registry), its verdict is its own, and a call that completed keeps its real result.
 * A call may also wait (`waiting`): for approval, or for an answer to the question its tool
 * asked (`awaitInput`). `run` never rejects; once every call has a verdict, `toolMessages()`
 * answers them in order.
 */
export class ToolTurn {
  /** The assistant message whose calls these are. */
  readonly message: AssistantMessage;
  /** The calls, in the message's order. */
  readonly calls: readonly PreparedCall[];
  /** The verdict on each call, by position; `undefined` while it has none. */
  readonly results: (CallResult | undefined)[];
  /** What each call without a verdict waits for, by position. */
  readonly waiting: (Waiting | undefined)[];

  /** Prepares the calls of `message` (parses their arguments). */
  constructor(message: AssistantMessage) {
    this.message = message;
    this.calls = (message.tool_calls ?? []).map(prepareCall);
    this.results = new Array(this.calls.length);
    this.waiting = new Array(this.calls.length);
  }

  /**
   * The turn of a paused run: `answered` are the tool messages of the calls that had their
   * verdict (only non-fatal verdicts are ever kept across a pause: a fatal one ends the run
   * instead), `waiting` what the others wait for.
   */
  static restore(
    message: AssistantMessage,
    answered: readonly { readonly callId: string; readonly content: string }[],
    waiting: ReadonlyMap<string, Waiting>,
  ): ToolTurn {
    const turn = new ToolTurn(message);
    const contents = new Map(answered.map((result) => [result.callId, result.content]));
    turn.calls.forEach((entry, position) => {
      const content = contents.get(entry.call.id);
      if (content !== undefined) {
        turn.results[position] = {
          message: { role: 'tool', tool_call_id: entry.call.id, content },
          invocation: {
            toolName: entry.call.function.name,
            callId: entry.call.id,
            input: entry.input,
            output: { ok: true, value: content },
            durationMs: 0,
          },
          truncated: false,
        };
      }
      turn.waiting[position] = waiting.get(entry.call.id);
    });
    return turn;
  }

  /** One `tool_execution_started` event per call at `positions`, in call order. */
  startedEvents(positions: readonly number[]): ToolExecutionStartedEvent[] {
    return (isAscending(positions) ? positions : [...positions].sort((a, b) => a - b)).map(
      (position) => {
        const { call, input } = this.calls[position] as PreparedCall;
        return {
          type: 'tool_execution_started',
          toolName: call.function.name,
          callId: call.id,
          input,
        };
      },
    );
  }

  /** Answers the call at `position` with `error` without running it (a denial, a refusal). */
  answer(position: number, error: ToolError, settings: ToolStepSettings): void {
    const entry = this.calls[position] as PreparedCall;
    const result = resultOf(entry, error, 0, settings.maxToolResultBytes);
    this.waiting[position] = undefined;
    this.results[position] = result;
    settings.events?.push(completedEvent(entry.call, result));
  }

  /** Marks the call at `position` as waiting for approval. */
  ask(position: number): void {
    this.waiting[position] = { kind: 'approval' };
  }

  /** The positions of the calls that wait (for approval or an answer), in call order. */
  pending(): number[] {
    const positions: number[] = [];
    this.waiting.forEach((waiting, position) => {
      if (waiting !== undefined && this.results[position] === undefined) positions.push(position);
    });
    return positions;
  }

  /**
   * Answers every call that has no verdict yet (those that wait, and any other) with the
   * error `why` makes for it: the turn is committed without them.
   */
  closeUnanswered(
    why: (toolName: string, waiting: Waiting | undefined) => ToolError,
    maxBytes: number | null,
  ): void {
    this.calls.forEach((entry, position) => {
      if (this.results[position] !== undefined) return;
      const error = why(entry.call.function.name, this.waiting[position]);
      this.results[position] = resultOf(entry, error, 0, maxBytes);
      this.waiting[position] = undefined;
    });
  }

  /**
   * Runs the calls at `positions`, at most `maxParallelToolCalls` at once, and resolves when
   * each has a verdict or waits for input; a call in `inputs` gets its answer as `context.input`.
   * Never rejects.
   */
  async run(
    settings: ToolStepSettings,
    positions: readonly number[],
    inputs?: ReadonlyMap<number, ToolInputAnswer>,
  ): Promise<void> {
    const limit = Math.min(settings.maxParallelToolCalls, positions.length);
    if (limit >= positions.length) {
      await Promise.all(positions.map((position) => this.#runOne(position, settings, inputs)));
      return;
    }
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < positions.length)
        await this.#runOne(positions[next++] as number, settings, inputs);
    };
    await Promise.all(Array.from({ length: limit }, worker));
  }

  /** The tool messages of every call, in order (a call without a verdict reads as cancelled). */
  toolMessages(): ToolMessage[] {
    return this.calls.map(
      (entry, index) =>
        (this.results[index] ?? resultOf(entry, notRun(entry.call.function.name), 0, null)).message,
    );
  }

  /** The first fatal tool error of the turn (in call order) and the tool it came from. */
  firstFatal(returnUnknownTool: boolean): { error: ToolError; toolName: string } | undefined {
    for (const result of this.results) {
      if (result === undefined || result.invocation.output.ok) continue;
      const error = result.invocation.output.error;
      if (error.isRecoverable()) continue;
      if (error.code === 'not_found' && returnUnknownTool) continue;
      return { error, toolName: error.toolName ?? result.invocation.toolName };
    }
    return undefined;
  }

  async #runOne(
    position: number,
    settings: ToolStepSettings,
    inputs: ReadonlyMap<number, ToolInputAnswer> | undefined,
  ): Promise<void> {
    const entry = this.calls[position] as PreparedCall;
    const name = entry.call.function.name;
    let invocation: ToolInvocation;
    if (settings.signal.aborted) {
      invocation = failed(entry, notStarted(name), 0);
    } else if (entry.parseError !== undefined) {
      invocation = failed(entry, entry.parseError, 0);
    } else {
      try {
        invocation = await invoke(entry, settings, inputs?.get(position));
      } catch (error) {
        invocation = failed(entry, unexpected(name, error), 0);
      }
    }
    const asked = invocation.output.awaitingInput;
    if (asked !== undefined) {
      // The tool asks a person: no verdict yet (the run pauses, or ends without it).
      this.waiting[position] = {
        kind: 'input',
        prompt: asked.prompt,
        ...(asked.data === undefined ? {} : { data: asked.data }),
      };
      return;
    }
    let result: CallResult;
    try {
      result = verdict(entry, invocation, settings);
    } catch (error) {
      result = resultOf(
        entry,
        unexpected(name, error),
        invocation.durationMs,
        settings.maxToolResultBytes,
      );
    }
    if (result.whole !== undefined) result = await spilled(result, entry, settings);
    this.waiting[position] = undefined;
    this.results[position] = result;
    settings.events?.push(completedEvent(entry.call, result));
  }
}

/** A cut result kept whole in the spill store, its marker carrying the handle (when spilling). */
async function spilled(
  result: CallResult,
  entry: PreparedCall,
  settings: ToolStepSettings,
): Promise<CallResult> {
  const { spill, resultCut, runId } = settings;
  if (spill === undefined || resultCut === null || result.whole === undefined) return result;
  const handle = spillHandle(runId, entry.call.id);
  const cut = await spillOrCut(result.whole, resultCut, spill, handle, runId);
  return { ...result, message: { ...result.message, content: cut.text } };
}

function invoke(
  entry: PreparedCall,
  settings: ToolStepSettings,
  input: ToolInputAnswer | undefined,
): Promise<ToolInvocation> {
  const { runInTrace } = settings;
  return runInTrace === undefined
    ? invokeCall(entry, settings, input)
    : runInTrace(() => invokeCall(entry, settings, input));
}

function invokeCall(
  entry: PreparedCall,
  settings: ToolStepSettings,
  input: ToolInputAnswer | undefined,
): Promise<ToolInvocation> {
  const { call } = entry;
  const events = settings.events;
  return settings.registry.invoke(call.function.name, entry.input, {
    timeoutMs: settings.toolTimeoutMs,
    signal: settings.signal,
    context: {
      sessionId: settings.sessionId,
      traceId: settings.traceId,
      toolCallId: call.id,
      idempotencyKey: `${settings.runId}:${call.id}`,
      ...(input === undefined ? {} : { input }),
      ...(events === undefined
        ? {}
        : {
            progress: (progress: ToolProgress) =>
              events.push({
                type: 'tool_execution_progress',
                toolName: call.function.name,
                callId: call.id,
                progress,
              }),
          }),
    },
  });
}

function isAscending(positions: readonly number[]): boolean {
  for (let index = 1; index < positions.length; index++) {
    if ((positions[index] as number) < (positions[index - 1] as number)) return false;
  }
  return true;
}
