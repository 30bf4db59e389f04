// One tool call = one DBOS step. The step runs the real registry's `invoke` (the loop has set
// `context.idempotencyKey` = `${runId}:${callId}`, the same on every attempt) and writes the
// call's start, progress and end into the run's events; a replay gives the loop the recorded
// invocation without calling the tool. Steps start in the order the loop starts calls (call
// order, `maxParallelToolCalls` included), which is what keeps their journal positions stable.
import type { InvokeOptions, ToolInvocation, ToolRegistry } from '@agcore/tools-registry';
import { DBOS } from '@dbos-inc/dbos-sdk';
import type { EventBatch, EventLog } from './event-log.js';
import { type InvocationRecord, invocationRecord, reviveInvocation } from './wire.js';

/** The byte limit of a tool message, to tell readers whether the loop cut one (as it does). */
export interface ToolEventSettings {
  readonly maxToolResultBytes: number | null;
}

/**
 * `registry` with `invoke` run as a recorded step of the current workflow; every other member
 * is the registry's own (a proxy, so the user's registry is not changed).
 */
export function durableRegistry(
  registry: ToolRegistry,
  log: EventLog,
  settings: ToolEventSettings,
): ToolRegistry {
  const invoke = (name: string, args: unknown, options: InvokeOptions = {}) =>
    invokeAsStep(registry, log, settings, name, args, options);
  return new Proxy(registry, {
    get(target, property) {
      if (property === 'invoke') return invoke;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

async function invokeAsStep(
  registry: ToolRegistry,
  log: EventLog,
  settings: ToolEventSettings,
  name: string,
  args: unknown,
  options: InvokeOptions,
): Promise<ToolInvocation> {
  const callId = options.context?.toolCallId ?? '';
  const key = log.nextToolKey(callId);
  const batch = log.batch;
  const started = { type: 'tool_execution_started' as const, toolName: name, callId, input: args };
  let ran = false;
  const record = await DBOS.runStep(
    async (): Promise<InvocationRecord> => {
      ran = true;
      const leave = batch.enter();
      try {
        batch.add(`${key}:start`, started);
        const written = invocationRecord(
          await registry.invoke(name, args, withProgress(options, batch, key, name, callId)),
        );
        if (written.question === undefined) batch.add(`${key}:end`, completed(written, settings));
        return written;
      } finally {
        leave();
      }
    },
    { name: `agcore.tool.${name}`, retriesAllowed: false },
  );
  if (!ran) {
    // Answered by the journal (a replay): its events may not have been written before the
    // crash, so they are made again from the record (same keys; a reader sees each once).
    batch.add(`${key}:start`, started, false);
    if (record.question === undefined) batch.add(`${key}:end`, completed(record, settings), false);
  }
  return reviveInvocation(record);
}

/** `options` with a progress callback that also adds each update to the events. */
function withProgress(
  options: InvokeOptions,
  batch: EventBatch,
  key: string,
  toolName: string,
  callId: string,
): InvokeOptions {
  let count = 0;
  const progress = options.context?.progress;
  return {
    ...options,
    context: {
      ...options.context,
      progress: (update) => {
        progress?.(update);
        count += 1;
        batch.add(`${key}:p${count}`, {
          type: 'tool_execution_progress',
          toolName,
          callId,
          progress: update,
        });
      },
    },
  };
}

function completed(record: InvocationRecord, settings: ToolEventSettings) {
  const base = {
    type: 'tool_execution_completed' as const,
    toolName: record.toolName,
    callId: record.callId ?? '',
    durationMs: record.durationMs,
  };
  const invocation = reviveInvocation(record);
  if (!invocation.output.ok) return { ...base, truncated: false, error: invocation.output.error };
  const text = JSON.stringify(invocation.output.value) ?? 'null';
  const limit = settings.maxToolResultBytes;
  const truncated = limit !== null && new TextEncoder().encode(text).length > limit;
  return { ...base, truncated, output: invocation.output.value };
}
