import type { ToolDefinition } from '@agcore/tools-core';
import type { ToolRegistry } from '@agcore/tools-registry';
import type { ChatCallOptions, ChatResponse, FinishReason, Usage } from '../chat-provider.js';
import { LlmError } from '../llm-error.js';
import type { ChatMessage } from '../messages.js';
import type { SubmitTrace } from '../observability/tracing.js';
import type { StreamEvent, TurnCompleteEvent } from '../stream-events.js';
import { estimateDefinitionTokens, type ResolvedCompaction } from './compaction.js';
import type { SubmitOptions } from './cycle-options.js';

/** One submit in progress: its signals, its tools, and whether it committed to the history. */
export interface Submission {
  readonly added: readonly ChatMessage[];
  readonly registry: ToolRegistry | undefined;
  readonly emit: boolean;
  readonly controller: AbortController;
  readonly callerSignal: AbortSignal | undefined;
  readonly onAbort: () => void;
  /** What the provider gets: the caller's signal (a consumer that stops closes the stream itself) and the time limits. */
  readonly providerOptions: ChatCallOptions;
  readonly traceId: string;
  readonly definitions: readonly ToolDefinition[];
  readonly definitionTokens: number;
  committed: boolean;
  /** The submit's spans, when it is traced (set by the cycle after opening). */
  trace?: SubmitTrace | undefined;
}

/**
 * The state of a new submit: its own abort controller (aborted by the caller's signal, by a
 * consumer that stops, and by nothing else), the provider's options, the tool definitions.
 * @throws {RangeError} for a time limit in `options` that is not a positive number
 */
export function openSubmission(
  added: readonly ChatMessage[],
  registry: ToolRegistry | undefined,
  emit: boolean,
  options: SubmitOptions,
  compaction: ResolvedCompaction | undefined,
): Submission {
  const definitions = registry === undefined ? [] : registry.definitions();
  const controller = new AbortController();
  const callerSignal = options.signal;
  return {
    added,
    registry,
    emit,
    controller,
    callerSignal,
    onAbort: () => controller.abort(callerSignal?.reason),
    providerOptions: providerOptionsOf(options),
    traceId: options.traceId ?? globalThis.crypto.randomUUID(),
    definitions,
    definitionTokens: compaction === undefined ? 0 : estimateDefinitionTokens(definitions),
    committed: false,
  };
}

/** @throws {RangeError} for a time limit that is not a positive number */
function providerOptionsOf(options: SubmitOptions): ChatCallOptions {
  const { signal, idleTimeoutMs, timeoutMs } = options;
  for (const [name, value] of [
    ['idleTimeoutMs', idleTimeoutMs],
    ['timeoutMs', timeoutMs],
  ] as const) {
    if (value !== undefined && (typeof value !== 'number' || !(value > 0)))
      throw new RangeError(
        `SubmitOptions.${name} must be a number of milliseconds > 0, got ${String(value)}.`,
      );
  }
  if (signal === undefined && idleTimeoutMs === undefined && timeoutMs === undefined) return {};
  return {
    ...(signal === undefined ? {} : { signal }),
    ...(idleTimeoutMs === undefined ? {} : { idleTimeoutMs }),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  };
}

/** The `cancelled` error of a submit (the one already thrown, when it is one). */
export function cancelledError(submission: Submission, cause: unknown): LlmError {
  if (LlmError.isInstance(cause) && cause.code === 'cancelled') return cause;
  return new LlmError(
    'cancelled',
    'The call was cancelled; the history keeps every turn that completed.',
    {
      cause: cause ?? submission.callerSignal?.reason,
    },
  );
}

/**
 * The last answer of a call. In a tool loop it has no tool call, so a `tool_calls` finish
 * reason (a custom provider may say so) reads `stop`: the loop ended there.
 */
export function finalResponse(response: ChatResponse, toolLoop: boolean): ChatResponse {
  if (!toolLoop || response.finishReason !== 'tool_calls') return response;
  return { ...response, finishReason: 'stop' };
}

/** A `turn_complete` event. */
export function turnComplete(reason: FinishReason, usage: Usage | undefined): TurnCompleteEvent {
  return { type: 'turn_complete', reason, ...(usage === undefined ? {} : { usage }) };
}

/** Runs a non-streaming submit's generator to its end. */
export async function drain(
  generator: AsyncGenerator<readonly StreamEvent[], ChatResponse, undefined>,
): Promise<ChatResponse> {
  for (;;) {
    const step = await generator.next();
    if (step.done === true) return step.value;
  }
}
