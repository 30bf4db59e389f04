import { describeThrown, type ToolProgress } from '@agcore/tools-core';
import { reportInvocation } from './audit.js';
import { callbackFailed, invokeTool, unreadableCall } from './invocation.js';
import type {
  InvocationRequest,
  InvokeAllOptions,
  RegistryView,
  ToolCallRequest,
} from './options.js';
import type { ToolInvocation } from './tool-invocation.js';

function badConcurrency(concurrency: unknown): string | undefined {
  if (concurrency === undefined || concurrency === Number.POSITIVE_INFINITY) return undefined;
  return Number.isInteger(concurrency) && (concurrency as number) >= 1
    ? undefined
    : `invokeAll: concurrency must be a positive integer, got ${describeThrown(concurrency)}`;
}

/**
 * Runs a batch: every call in parallel (at most `concurrency` at once), results in call order.
 * Never rejects: a malformed call, a bad option or a throwing callback is reported on the
 * invocation it belongs to (see `callbackFailed`).
 */
export async function invokeBatch(
  registry: RegistryView,
  calls: readonly ToolCallRequest[],
  options: InvokeAllOptions,
): Promise<ToolInvocation[]> {
  const list: readonly ToolCallRequest[] = Array.isArray(calls) ? calls : [];
  const results: ToolInvocation[] = new Array(list.length);
  let onProgress: InvokeAllOptions['onProgress'];
  let onResult: InvokeAllOptions['onResult'];
  let limit: number;
  try {
    ({ onProgress, onResult } = options);
    const refusal = badConcurrency(options.concurrency);
    if (refusal !== undefined) throw new TypeError(refusal);
    limit = Math.min(options.concurrency ?? list.length, list.length);
  } catch (error) {
    return list.map((call) => unread(registry, call, error));
  }
  const runOne = async (index: number): Promise<void> => {
    const call = list[index] as ToolCallRequest;
    let invocation: ToolInvocation;
    try {
      invocation = await invokeTool(registry, request(call, index, options, onProgress));
    } catch (error) {
      invocation = unread(registry, call, error);
    }
    if (onResult !== undefined) {
      try {
        onResult(invocation, index);
      } catch (error) {
        invocation = callbackFailed(invocation, 'onResult', error);
      }
    }
    results[index] = invocation;
  };
  if (limit >= list.length) {
    const pending: Promise<void>[] = new Array(list.length);
    for (let index = 0; index < list.length; index++) pending[index] = runOne(index);
    await Promise.all(pending);
  } else {
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < list.length) await runOne(next++);
    };
    await Promise.all(Array.from({ length: limit }, worker));
  }
  return results;
}

function request(
  call: ToolCallRequest,
  index: number,
  options: InvokeAllOptions,
  onProgress: InvokeAllOptions['onProgress'],
): InvocationRequest {
  const listener =
    onProgress === undefined
      ? options.context?.progress
      : (update: ToolProgress) => onProgress(update, call, index);
  return {
    name: call.name,
    args: call.args,
    callId: call.callId,
    options,
    listener,
    listenerName: onProgress === undefined ? 'context.progress' : 'onProgress',
  };
}

/** A call that could not be read: reported as `other`, and to the audit hook. */
function unread(registry: RegistryView, call: unknown, error: unknown): ToolInvocation {
  const invocation = unreadableCall(registry, nameOf(call), argsOf(call), error);
  reportInvocation(registry, invocation, undefined);
  return invocation;
}

function nameOf(call: unknown): unknown {
  try {
    return (call as ToolCallRequest).name;
  } catch {
    return '(unreadable call)';
  }
}

function argsOf(call: unknown): unknown {
  try {
    return (call as ToolCallRequest).args;
  } catch {
    return undefined;
  }
}
