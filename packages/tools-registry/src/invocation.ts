import {
  type BaseTool,
  describeNonJson,
  describeThrown,
  type JsonValue,
  ToolError,
} from '@agcore/tools-core';
import type { PermissionChecker } from '@agcore/tools-permission';
import { observeInvocation, wantsSpans } from './observed-invocation.js';
import type { CallRecord, InvocationRequest, RegisteredTool, RegistryView } from './options.js';
import { resolveTimePolicy, usesRegistryTime } from './time-policy.js';
import { runToolCall } from './tool-call.js';
import type { ToolInvocation, ToolOutput } from './tool-invocation.js';

/**
 * One invocation: through the pipeline at once, or observed (an `execute_tool` span around
 * it, the audit hook after it) when the registry has `onInvocation` or traces and a tracer
 * provider is registered. Never rejects.
 */
export function invokeTool(
  registry: RegistryView,
  request: InvocationRequest,
): Promise<ToolInvocation> {
  if (registry.options.onInvocation === undefined && !wantsSpans(registry.tracing)) {
    return runInvocation(registry, request, undefined);
  }
  return observeInvocation(registry, request, runInvocation);
}

/**
 * One invocation, along the path its data takes: look up → permission → argument validation
 * → the tool under its clock (`tool-call.ts`) → JSON check of the result → the record. Every
 * failure on the way, including a throw from anywhere (a hostile option, a listener), is a
 * reported `ToolError`: the promise never rejects. `record`, when given, learns the entry and
 * gives the trace id.
 */
async function runInvocation(
  registry: RegistryView,
  request: InvocationRequest,
  record: CallRecord | undefined,
): Promise<ToolInvocation> {
  const start = performance.now();
  const name = typeof request.name === 'string' ? request.name : describeThrown(request.name);
  const ids: CallIds = { sessionId: registry.sessionId, traceId: record?.traceId };
  let entry: RegisteredTool | undefined;
  let listenerError: { readonly error: unknown } | undefined;
  let invocation: ToolInvocation;
  try {
    const given = request.options.context;
    if (given !== undefined) {
      ids.sessionId = given.sessionId ?? ids.sessionId;
      ids.traceId ??= given.traceId;
    }
    entry = typeof request.name === 'string' ? registry.entries.get(request.name) : undefined;
    if (record !== undefined) record.entry = entry;
    if (entry === undefined)
      return finish(name, request, start, ids, undefined, notFound(registry, name));
    const refusal = checkPermission(registry.checker, name, entry);
    if (refusal !== undefined) return finish(name, request, start, ids, entry, refusal);
    if (registry.validateArguments) {
      const problem = entry.checkArguments(request.args);
      if (problem !== undefined) {
        return finish(name, request, start, ids, entry, invalidArguments(name, problem));
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
      traceId: record?.traceId,
      listener: request.listener,
    });
    listenerError = outcome.listenerError;
    ids.traceId ??= outcome.traceId;
    if (outcome.error !== undefined) {
      invocation = finish(name, request, start, ids, entry, outcome.error);
    } else {
      const reason = describeNonJson(outcome.value);
      invocation =
        reason === undefined
          ? finish(name, request, start, ids, entry, undefined, outcome.value as JsonValue)
          : finish(name, request, start, ids, entry, notJson(name, reason));
    }
  } catch (error) {
    return finish(name, request, start, ids, entry, internalFailure(name, error));
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

/** The session and trace ids of a call, as far as they are known. */
interface CallIds {
  sessionId: string;
  traceId: string | undefined;
}

function finish(
  toolName: string,
  request: InvocationRequest,
  start: number,
  ids: CallIds,
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
  // One shape for every invocation (traceId may be undefined).
  return {
    toolName,
    callId: request.callId,
    input: request.args,
    output,
    durationMs,
    sessionId: ids.sessionId,
    traceId: ids.traceId,
  };
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
export function unreadableCall(
  registry: RegistryView,
  name: unknown,
  args: unknown,
  error: unknown,
): ToolInvocation {
  const toolName = typeof name === 'string' ? name : describeThrown(name);
  return {
    toolName,
    callId: undefined,
    input: args,
    output: { ok: false, error: internalFailure(toolName, error) },
    durationMs: 0,
    sessionId: registry.sessionId,
  };
}

function internalFailure(name: string, error: unknown): ToolError {
  return new ToolError(
    'other',
    `Tool '${name}' could not be run: ${describeThrown(error)}. Check the options of the call.`,
    { toolName: name, cause: error },
  );
}
