import {
  type AwaitingInput,
  awaitInput,
  type BaseTool,
  describeNonJson,
  describeThrown,
  isAwaitingInput,
  type JsonValue,
  ToolError,
} from '@agcore/tools-core';
import type { PermissionChecker } from '@agcore/tools-permission';
import { nonObjectArguments } from './object-arguments.js';
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
    const refusal = refusalOf(registry, name, entry, request.args);
    if (refusal !== undefined) return finish(name, request, start, ids, entry, refusal);
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
    } else if (isAwaitingInput(outcome.value)) {
      invocation = asking(name, request, start, ids, entry, outcome.value);
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

/**
 * What `invoke` would refuse before running the tool: an unknown name, the permission policy,
 * the arguments against the schema. `undefined` when the call would run. Never throws.
 */
export function checkCall(
  registry: RegistryView,
  name: unknown,
  args: unknown,
): ToolError | undefined {
  const label = typeof name === 'string' ? name : describeThrown(name);
  try {
    const entry = typeof name === 'string' ? registry.entries.get(name) : undefined;
    if (entry === undefined) return notFound(registry, label);
    return refusalOf(registry, label, entry, args);
  } catch (error) {
    return internalFailure(label, error);
  }
}

/**
 * The permission check, then arguments that are not a JSON object (always), then argument
 * validation (when on): the first refusal, if any.
 */
function refusalOf(
  registry: RegistryView,
  name: string,
  entry: RegisteredTool,
  args: unknown,
): ToolError | undefined {
  const refusal = checkPermission(registry.checker, name, entry);
  if (refusal !== undefined) return refusal;
  const got = nonObjectArguments(args);
  if (got !== undefined)
    return invalidArguments(name, `arguments must be a JSON object, got ${got}`);
  if (!registry.validateArguments) return undefined;
  const problem = entry.checkArguments(args);
  return problem === undefined ? undefined : invalidArguments(name, problem);
}

/**
 * The invocation of a tool that returned `awaitInput(...)`: its own outcome, read defensively
 * (the brand can be put on any object by code in the process) and rebuilt by `awaitInput`, so
 * the request passed on is frozen and valid; a broken one is `execution_failed`.
 */
function asking(
  name: string,
  request: InvocationRequest,
  start: number,
  ids: CallIds,
  entry: RegisteredTool,
  value: AwaitingInput,
): ToolInvocation {
  let rebuilt: AwaitingInput;
  try {
    const { prompt, data } = value;
    rebuilt = awaitInput(data === undefined ? { prompt } : { prompt, data });
  } catch (error) {
    return finish(
      name,
      request,
      start,
      ids,
      entry,
      new ToolError(
        'execution_failed',
        `Tool '${name}' returned a request for input that cannot be read (${describeThrown(error)}). Return awaitInput({ prompt, data }) with a non-empty prompt and JSON data.`,
        { toolName: name, cause: error },
      ),
    );
  }
  const invocation = finish(name, request, start, ids, entry, undefined, null);
  const error = new ToolError(
    'other',
    `Tool '${name}' asks a person before it can finish (${JSON.stringify(rebuilt.prompt)}), and this caller did not answer: read output.awaitingInput, then call the tool again with the same arguments and context.input = { value, data }.`,
    { toolName: name },
  );
  return { ...invocation, output: { ok: false, error, awaitingInput: rebuilt } };
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
  const { output } = invocation;
  const ran = output.ok
    ? 'succeeded'
    : output.awaitingInput !== undefined
      ? 'asked for input'
      : `failed (${output.error.code})`;
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
