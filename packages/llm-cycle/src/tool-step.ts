import { type JsonValue, ToolError, type ToolProgress } from '@agcore/tools-core';
import type { ToolInvocation, ToolRegistry } from '@agcore/tools-registry';
import type { EventQueue } from './event-queue.js';
import type { AssistantMessage, ToolCall, ToolMessage } from './messages.js';
import type {
  StreamEvent,
  ToolExecutionCompletedEvent,
  ToolExecutionStartedEvent,
} from './stream-events.js';
import { truncateUtf8 } from './truncate.js';

/** A tool call with its arguments parsed (or the reason they could not be). */
export interface PreparedCall {
  readonly call: ToolCall;
  /** The parsed arguments; the raw string when they are not JSON. */
  readonly input: unknown;
  readonly parseError?: ToolError;
}

/** The verdict on one call: the tool message for the model and the invocation behind it. */
export interface CallResult {
  readonly message: ToolMessage;
  readonly invocation: ToolInvocation;
  /** Whether the tool message was cut to `maxToolResultBytes`. */
  readonly truncated: boolean;
}

/** What running the calls of a turn needs. */
export interface ToolStepSettings {
  readonly registry: ToolRegistry;
  readonly sessionId: string;
  readonly traceId: string;
  /** Runs each registry call with the submit's span active, when the submit is traced. */
  readonly runInTrace?: (<T>(body: () => T) => T) | undefined;
  readonly toolTimeoutMs: number;
  /** At most this many calls of the turn run at once (`Infinity`: all). */
  readonly maxParallelToolCalls: number;
  readonly maxToolResultBytes: number | null;
  /** Whether an unknown tool is told to the model (with the list of tools) instead of being fatal. */
  readonly returnUnknownTool: boolean;
  /** Aborting it cancels the calls still running; calls not started yet are not started. */
  readonly signal: AbortSignal;
  /** Receives progress and completion events, when streaming. */
  readonly events: EventQueue<StreamEvent> | undefined;
}

/**
 * The tool calls of one assistant message and the verdict on each. `run` runs all of them or a
 * subset, each call on its own: whatever one call does (throw, return what JSON cannot hold,
 * break the registry), its verdict is its own, and a call that completed keeps its real result.
 * `run` never rejects; once every call has a verdict, `toolMessages()` answers them in order.
 */
export class ToolTurn {
  /** The assistant message whose calls these are. */
  readonly message: AssistantMessage;
  /** The calls, in the message's order. */
  readonly calls: readonly PreparedCall[];
  /** The verdict on each call, by position; `undefined` while it has none. */
  readonly results: (CallResult | undefined)[];

  /** Prepares the calls of `message` (parses their arguments). */
  constructor(message: AssistantMessage) {
    this.message = message;
    this.calls = (message.tool_calls ?? []).map(prepareCall);
    this.results = new Array(this.calls.length);
  }

  /** One `tool_execution_started` event per call, in order. */
  startedEvents(): ToolExecutionStartedEvent[] {
    return this.calls.map(({ call, input }) => ({
      type: 'tool_execution_started',
      toolName: call.function.name,
      callId: call.id,
      input,
    }));
  }

  /**
   * Runs the calls at `positions` (default: all), at most `maxParallelToolCalls` at once, and
   * resolves when each has a verdict. Never rejects.
   */
  async run(settings: ToolStepSettings, positions?: readonly number[]): Promise<void> {
    const queue = positions ?? this.calls.map((_, index) => index);
    const limit = Math.min(settings.maxParallelToolCalls, queue.length);
    if (limit >= queue.length) {
      await Promise.all(queue.map((position) => this.#runOne(position, settings)));
      return;
    }
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < queue.length) await this.#runOne(queue[next++] as number, settings);
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

  async #runOne(position: number, settings: ToolStepSettings): Promise<void> {
    const entry = this.calls[position] as PreparedCall;
    const name = entry.call.function.name;
    let invocation: ToolInvocation;
    if (settings.signal.aborted) {
      invocation = failed(entry, notStarted(name), 0);
    } else if (entry.parseError !== undefined) {
      invocation = failed(entry, entry.parseError, 0);
    } else {
      try {
        invocation = await invoke(entry, settings);
      } catch (error) {
        invocation = failed(entry, unexpected(name, error), 0);
      }
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
    this.results[position] = result;
    settings.events?.push(completedEvent(entry.call, result));
  }
}

function invoke(entry: PreparedCall, settings: ToolStepSettings): Promise<ToolInvocation> {
  const { runInTrace } = settings;
  return runInTrace === undefined
    ? invokeCall(entry, settings)
    : runInTrace(() => invokeCall(entry, settings));
}

function invokeCall(entry: PreparedCall, settings: ToolStepSettings): Promise<ToolInvocation> {
  const { call } = entry;
  const events = settings.events;
  return settings.registry.invoke(call.function.name, entry.input, {
    timeoutMs: settings.toolTimeoutMs,
    signal: settings.signal,
    context: {
      sessionId: settings.sessionId,
      traceId: settings.traceId,
      toolCallId: call.id,
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

/** The verdict on a settled invocation: its tool message, a result JSON cannot hold made an error. */
function verdict(
  entry: PreparedCall,
  invocation: ToolInvocation,
  settings: ToolStepSettings,
): CallResult {
  const name = entry.call.function.name;
  let output = invocation.output;
  let content: string;
  if (output.ok) {
    const text = serialize(name, output.value);
    if (typeof text !== 'string') {
      output = { ok: false, error: text };
      content = `Error [${text.code}]: ${text.message}`;
    } else content = text;
  } else {
    content = `Error [${output.error.code}]: ${output.error.message}`;
    if (output.error.code === 'not_found' && settings.returnUnknownTool) {
      content += ` Available tools: ${settings.registry.listTools().join(', ') || '(none)'}.`;
    }
  }
  let truncated = false;
  if (settings.maxToolResultBytes !== null) {
    const cut = truncateUtf8(content, settings.maxToolResultBytes);
    content = cut.text;
    truncated = cut.truncated;
  }
  return {
    message: { role: 'tool', tool_call_id: entry.call.id, content },
    invocation: output === invocation.output ? invocation : { ...invocation, output },
    truncated,
  };
}

/** The text sent to the model for a value: a string as is, anything else as JSON, or why it cannot be. */
function serialize(name: string, value: JsonValue): string | ToolError {
  if (typeof value === 'string') return value;
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    return new ToolError(
      'execution_failed',
      `Tool '${name}' returned a value that cannot be turned into JSON (${error instanceof Error ? error.message : String(error)}).`,
      { toolName: name, cause: error },
    );
  }
  if (text !== undefined) return text;
  return new ToolError(
    'execution_failed',
    `Tool '${name}' returned a value that JSON cannot represent (its JSON form is undefined, e.g. a toJSON that returns undefined).`,
    { toolName: name },
  );
}

function resultOf(
  entry: PreparedCall,
  error: ToolError,
  durationMs: number,
  maxBytes: number | null,
): CallResult {
  const content = `Error [${error.code}]: ${error.message}`;
  const cut =
    maxBytes === null ? { text: content, truncated: false } : truncateUtf8(content, maxBytes);
  return {
    message: { role: 'tool', tool_call_id: entry.call.id, content: cut.text },
    invocation: failed(entry, error, durationMs),
    truncated: cut.truncated,
  };
}

function failed(entry: PreparedCall, error: ToolError, durationMs: number): ToolInvocation {
  return {
    toolName: entry.call.function.name,
    callId: entry.call.id,
    input: entry.input,
    output: { ok: false, error },
    durationMs,
  };
}

/** A call that failed in a way nothing reported (a registry or serializer that threw). */
function unexpected(name: string, error: unknown): ToolError {
  return new ToolError(
    'execution_failed',
    `Tool '${name}' failed unexpectedly: ${error instanceof Error ? error.message : String(error)}`,
    { toolName: name, cause: error },
  );
}

function notStarted(name: string): ToolError {
  return new ToolError('cancelled', `Tool '${name}' was cancelled before it started.`, {
    toolName: name,
  });
}

function notRun(name: string): ToolError {
  return new ToolError('cancelled', `Tool '${name}' was cancelled before it finished.`, {
    toolName: name,
  });
}

/** Parses a call's arguments: `''` (or whitespace) is `{}`, invalid JSON an `invalid_arguments`. */
export function prepareCall(call: ToolCall): PreparedCall {
  const raw = call.function.arguments;
  if (raw.trim() === '') return { call, input: {} };
  try {
    return { call, input: JSON.parse(raw) as unknown };
  } catch (error) {
    const name = call.function.name;
    return {
      call,
      input: raw,
      parseError: new ToolError(
        'invalid_arguments',
        `The arguments of tool '${name}' are not valid JSON (${error instanceof Error ? error.message : String(error)}). Call it again with a JSON object that matches its parameters schema.`,
        { toolName: name, cause: error },
      ),
    };
  }
}

function completedEvent(call: ToolCall, result: CallResult): ToolExecutionCompletedEvent {
  const { output, durationMs } = result.invocation;
  const { truncated } = result;
  const toolName = call.function.name;
  return output.ok
    ? {
        type: 'tool_execution_completed',
        toolName,
        callId: call.id,
        output: output.value,
        durationMs,
        truncated,
      }
    : {
        type: 'tool_execution_completed',
        toolName,
        callId: call.id,
        error: output.error,
        durationMs,
        truncated,
      };
}
