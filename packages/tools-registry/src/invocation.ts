import {
  type BaseTool,
  describeNonJson,
  describeThrown,
  type JsonValue,
  ToolError,
  type ToolProgress,
} from '@agcore/tools-core';
import type { PermissionChecker } from '@agcore/tools-permission';
import type { InvokeOptions, RegisteredTool, TimePolicy, ToolRegistryOptions } from './options.js';
import { resolveTimePolicy, usesRegistryTime } from './time-policy.js';
import { runToolCall } from './tool-call.js';
import type { ToolInvocation, ToolOutput } from './tool-invocation.js';

/** What the invocation pipeline reads from its registry. */
export interface RegistryView {
  readonly entries: ReadonlyMap<string, RegisteredTool>;
  readonly checker: PermissionChecker | undefined;
  readonly validateArguments: boolean;
  readonly sessionId: string;
  readonly options: ToolRegistryOptions;
  readonly time: TimePolicy;
}

/** One call to run. */
export interface InvocationRequest {
  readonly name: unknown;
  readonly args: unknown;
  readonly callId: string | undefined;
  readonly options: InvokeOptions;
  /** Where progress reports go; `undefined` when nobody listens. */
  readonly listener: ((update: ToolProgress) => void) | undefined;
  /** Which callback `listener` is, for the message when it throws. */
  readonly listenerName: string;
}

/**
 * One invocation, along the path its data takes: look up → permission → argument validation
 * → the tool under its clock (`tool-call.ts`) → JSON check of the result → the record. Every
 * failure on the way, including a throw from anywhere (a hostile option, a listener), is a
 * reported `ToolError`: the promise never rejects.
 */
export async function invokeTool(
  registry: RegistryView,
  request: InvocationRequest,
): Promise<ToolInvocation> {
  const start = performance.now();
  const name = typeof request.name === 'string' ? request.name : describeThrown(request.name);
  let entry: RegisteredTool | undefined;
  let listenerError: { readonly error: unknown } | undefined;
  let invocation: ToolInvocation;
  try {
    entry = typeof request.name === 'string' ? registry.entries.get(request.name) : undefined;
    if (entry === undefined)
      return finish(name, request, start, undefined, notFound(registry, name));
    const refusal = checkPermission(registry.checker, name, entry);
    if (refusal !== undefined) return finish(name, request, start, entry, refusal);
    if (registry.validateArguments) {
      const problem = entry.checkArguments(request.args);
      if (problem !== undefined) {
        return finish(name, request, start, entry, invalidArguments(name, problem));
      }
    }
    const { options } = request;
    const outcome = await runToolCall(entry.tool as unknown as BaseTool<unknown>, request.args, {
      time: usesRegistryTime(options)
        ? registry.time
        : resolveTimePolicy(options, registry.options),
      startedAt: start,
      callerSignal: options.signal ?? options.context?.signal,
      context: options.context,
      sessionId: registry.sessionId,
      callId: request.callId,
      listener: request.listener,
    });
    listenerError = outcome.listenerError;
    if (outcome.error !== undefined) {
      invocation = finish(name, request, start, entry, outcome.error);
    } else {
      const reason = describeNonJson(outcome.value);
      invocation =
        reason === undefined
          ? finish(name, request, start, entry, undefined, outcome.value as JsonValue)
          : finish(name, request, start, entry, notJson(name, reason));
    }
  } catch (error) {
    return finish(name, request, start, entry, internalFailure(name, error));
  }
  return listenerError === undefined
    ? invocation
    : callbackFailed(invocation, request.listenerName, listenerError.error);
}

function checkPermission(
  checker: PermissionChecker | undefined,
  name: string,
  entry: RegisteredTool,
): ToolError | undefined {
  if (checker === undefined || checker.isAllowed(entry.permissions)) return undefined;
  try {
    checker.check(name, entry.permissions);
  } catch (error) {
    return ToolError.from(error, name);
  }
  return undefined;
}

function finish(
  toolName: string,
  request: InvocationRequest,
  start: number,
  entry: RegisteredTool | undefined,
  error: ToolError | undefined,
  value?: JsonValue,
): ToolInvocation {
  const durationMs = performance.now() - start;
  if (entry !== undefined) {
    const stats = entry.stats;
    stats.calls++;
    if (error !== undefined) stats.failures++;
    stats.totalDurationMs += durationMs;
    stats.lastDurationMs = durationMs;
  }
  const output: ToolOutput =
    error === undefined ? { ok: true, value: value ?? null } : { ok: false, error };
  return { toolName, callId: request.callId, input: request.args, output, durationMs };
}

/**
 * The invocation reported when a callback of the caller (`context.progress`, `onProgress`,
 * `onResult`) threw: `other`, the callback's exception as `cause`. The tool's own outcome is
 * named in the message (its value was handed to the callback, not lost by the tool).
 */
export function callbackFailed(
  invocation: ToolInvocation,
  callback: string,
  error: unknown,
): ToolInvocation {
  const name = invocation.toolName;
  const ran = invocation.output.ok ? 'succeeded' : `failed (${invocation.output.error.code})`;
  return {
    ...invocation,
    output: {
      ok: false,
      error: new ToolError(
        'other',
        `Tool '${name}' ${ran}, but the caller's ${callback} callback threw: ${describeThrown(error)}. Fix the callback; the tool's outcome was handed to it.`,
        { toolName: name, cause: error },
      ),
    },
  };
}

function notFound(registry: RegistryView, name: string): ToolError {
  return new ToolError(
    'not_found',
    registry.entries.size === 0
      ? `Tool '${name}' is not registered: the registry is empty. Register it before calling it.`
      : `Tool '${name}' is not registered. Check the name, or register the tool first.`,
    { toolName: name },
  );
}

function invalidArguments(name: string, problem: string): ToolError {
  return new ToolError(
    'invalid_arguments',
    `Invalid arguments for tool '${name}': ${problem}. Call it again with arguments that match its parameters schema.`,
    { toolName: name },
  );
}

function notJson(name: string, reason: string): ToolError {
  return new ToolError(
    'execution_failed',
    `Tool '${name}' returned a value that is not JSON (${reason}). Return plain objects, arrays, strings, numbers, booleans or null.`,
    { toolName: name },
  );
}

/** The invocation reported when a call cannot even be read (hostile options). */
export function unreadableCall(name: unknown, args: unknown, error: unknown): ToolInvocation {
  const toolName = typeof name === 'string' ? name : describeThrown(name);
  return {
    toolName,
    callId: undefined,
    input: args,
    output: { ok: false, error: internalFailure(toolName, error) },
    durationMs: 0,
  };
}

function internalFailure(name: string, error: unknown): ToolError {
  return new ToolError(
    'other',
    `Tool '${name}' could not be run: ${describeThrown(error)}. Check the options of the call.`,
    { toolName: name, cause: error },
  );
}
