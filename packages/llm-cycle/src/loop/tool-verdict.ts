import { type JsonValue, ToolError } from '@agcore/tools-core';
import type { ToolInvocation, ToolRegistry } from '@agcore/tools-registry';
import type { ToolCall, ToolMessage } from '../messages.js';
import type { ToolExecutionCompletedEvent } from '../stream-events.js';
import type { PreparedCall } from '../turn-types.js';
import { cutHeadTail, type ResultCut, truncateUtf8 } from './truncate.js';

export type { PreparedCall } from '../turn-types.js';

/** The verdict on one call: the tool message for the model and the invocation behind it. */
export interface CallResult {
  readonly message: ToolMessage;
  readonly invocation: ToolInvocation;
  /** Whether the tool message was cut to `maxToolResultBytes`. */
  readonly truncated: boolean;
  /** The whole content when it was cut (what spilling keeps). */
  readonly whole?: string;
}

/** What a verdict depends on besides the call. */
export interface VerdictSettings {
  readonly registry: ToolRegistry;
  readonly maxToolResultBytes: number | null;
  /** How a tool's own result is cut (head + tail); `null` when results are not cut. */
  readonly resultCut: ResultCut | null;
  /** Whether an unknown tool is told to the model (with the list of tools) instead of being fatal. */
  readonly returnUnknownTool: boolean;
}

/** The verdict on a settled invocation: its tool message, a result JSON cannot hold made an error. */
export function verdict(
  entry: PreparedCall,
  invocation: ToolInvocation,
  settings: VerdictSettings,
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
  const whole = content;
  let truncated = false;
  if (settings.resultCut !== null) {
    const cut = cutHeadTail(content, settings.resultCut);
    content = cut.text;
    truncated = cut.truncated;
  }
  const result: CallResult = {
    message: { role: 'tool', tool_call_id: entry.call.id, content },
    invocation: output === invocation.output ? invocation : { ...invocation, output },
    truncated,
  };
  return truncated ? { ...result, whole } : result;
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

/** The verdict of a call answered with `error` without (or before) running it. */
export function resultOf(
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

/** The invocation of a call that failed with `error`. */
export function failed(entry: PreparedCall, error: ToolError, durationMs: number): ToolInvocation {
  return {
    toolName: entry.call.function.name,
    callId: entry.call.id,
    input: entry.input,
    output: { ok: false, error },
    durationMs,
  };
}

/** A call that failed in a way nothing reported (a registry or serializer that threw). */
export function unexpected(name: string, error: unknown): ToolError {
  return new ToolError(
    'execution_failed',
    `Tool '${name}' failed unexpectedly: ${error instanceof Error ? error.message : String(error)}`,
    { toolName: name, cause: error },
  );
}

/** A call not started because the turn was cancelled first. */
export function notStarted(name: string): ToolError {
  return new ToolError('cancelled', `Tool '${name}' was cancelled before it started.`, {
    toolName: name,
  });
}

/** A call that has no verdict when its turn is committed. */
export function notRun(name: string): ToolError {
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

/** The `tool_execution_completed` event of a verdict. */
export function completedEvent(call: ToolCall, result: CallResult): ToolExecutionCompletedEvent {
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
