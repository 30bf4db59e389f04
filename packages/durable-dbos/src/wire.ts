// What crosses Postgres: the journal of a step, an event record, the workflow's outcome. DBOS
// stores JSON, so class instances (LlmError, ToolError, an awaitInput question) are written as
// their JSON form and made again when read back: a replayed step must give the loop what the
// first run gave it.
import { LlmError, type LlmErrorJson, type StreamEvent } from '@agcore/llm-cycle';
import { awaitInput, type JsonValue, ToolError, type ToolErrorJson } from '@agcore/tools-core';
import type { ToolInvocation } from '@agcore/tools-registry';

/** The stream key the run's events are written under. */
export const eventsStreamKey = 'agcore.events';
/** The event key of the run's pause: `PauseRecord`. */
export const pauseEventKey = 'agcore.pause';
/** The event key of the run's latest `RunState`. */
export const stateEventKey = 'agcore.state';
/** The message topic decisions are sent on. */
export const decisionsTopic = 'agcore.decisions';
/** The message topic a segment sends its `SegmentResult` to the run on. */
export const segmentTopic = 'agcore.segment';
/** Workflow names are the agent's name under this prefix. */
export const workflowPrefix = 'agcore.agent.';
/** Segment workflow names (a stretch of a run's loop) are the agent's name under this prefix. */
export const segmentPrefix = 'agcore.segment.';

/** The work queue of an agent whose runs go on `queueName`: where its segments run. */
export function workQueueName(queueName: string): string {
  return `${queueName}.work`;
}

/** One event of the stream: `key` is the same when a replayed step writes it again. */
export interface EventEntry {
  readonly key: string;
  readonly event: StreamEvent;
}

/** One write to a segment's events stream: a batch of a step's events, in order. */
export interface EventRecord {
  readonly entries: readonly EventEntry[];
}

/** One write to a run's events stream: the id of its next segment, whose stream to read. */
export interface SegmentPointer {
  readonly segment: string;
}

/** A step's recorded outcome: a value, or the error it ended with. */
export type StepOutcome<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: LlmErrorJson };

/** The error of a step, as JSON (anything that is not an `LlmError` is `provider_error`). */
export function llmErrorJson(error: unknown): LlmErrorJson {
  if (LlmError.isInstance(error)) return error.toJSON();
  const message = error instanceof Error ? error.message : String(error);
  return new LlmError('provider_error', `The model request failed: ${message}`).toJSON();
}

/** The `LlmError` a recorded error stands for. */
export function reviveLlmError(json: LlmErrorJson): LlmError {
  return new LlmError(json.code, json.message, {
    ...(json.statusCode === undefined ? {} : { statusCode: json.statusCode }),
    isRetryable: json.isRetryable,
    ...(json.retryAfterMs === undefined ? {} : { retryAfterMs: json.retryAfterMs }),
    ...(json.toolName === undefined ? {} : { toolName: json.toolName }),
  });
}

/** A tool invocation as JSON. */
export interface InvocationRecord {
  readonly toolName: string;
  readonly callId?: string;
  readonly input: JsonValue;
  readonly durationMs: number;
  readonly sessionId?: string;
  readonly traceId?: string;
  readonly value?: JsonValue;
  readonly error?: ToolErrorJson;
  readonly question?: { readonly prompt: string; readonly data?: JsonValue };
}

/** The JSON form of an invocation (`input` is the JSON the model sent, so it is JSON). */
export function invocationRecord(invocation: ToolInvocation): InvocationRecord {
  const { output } = invocation;
  const base = {
    toolName: invocation.toolName,
    ...(invocation.callId === undefined ? {} : { callId: invocation.callId }),
    input: (invocation.input ?? null) as JsonValue,
    durationMs: invocation.durationMs,
    ...(invocation.sessionId === undefined ? {} : { sessionId: invocation.sessionId }),
    ...(invocation.traceId === undefined ? {} : { traceId: invocation.traceId }),
  };
  if (output.ok) return { ...base, value: output.value };
  const error = output.error.toJSON();
  if (output.awaitingInput === undefined) return { ...base, error };
  const { prompt, data } = output.awaitingInput;
  return { ...base, error, question: data === undefined ? { prompt } : { prompt, data } };
}

/** The invocation a record stands for, with a real `ToolError` and a branded question. */
export function reviveInvocation(record: InvocationRecord): ToolInvocation {
  const base = {
    toolName: record.toolName,
    callId: record.callId,
    input: record.input,
    durationMs: record.durationMs,
    sessionId: record.sessionId,
    traceId: record.traceId,
  };
  if (record.error === undefined)
    return { ...base, output: { ok: true, value: record.value ?? null } };
  const error = new ToolError(record.error.code, record.error.message, {
    ...(record.error.toolName === undefined ? {} : { toolName: record.error.toolName }),
  });
  if (record.question === undefined) return { ...base, output: { ok: false, error } };
  return { ...base, output: { ok: false, error, awaitingInput: awaitInput(record.question) } };
}
