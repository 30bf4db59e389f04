import type { JsonValue, ToolError, ToolProgress } from '@agcore/tools-core';
import type { FinishReason, Usage } from './types.js';

/** A piece of the assistant's text, as it streams in. */
export interface AssistantTextDeltaEvent {
  readonly type: 'assistant_text_delta';
  readonly text: string;
}

/** A piece of the model's reasoning (DeepSeek, Qwen, vLLM, OpenRouter, Mistral, …), as it streams in. */
export interface AssistantReasoningDeltaEvent {
  readonly type: 'assistant_reasoning_delta';
  readonly text: string;
}

/** A piece of a tool call being streamed; `callId` and `toolName` come once, the arguments in pieces. */
export interface ToolCallDeltaEvent {
  readonly type: 'tool_call_delta';
  /** The call's position in the assembled assistant message's `tool_calls` (not the wire `index`). */
  readonly index: number;
  readonly callId?: string;
  readonly toolName?: string;
  readonly argumentsDelta: string;
}

/** A tool call's arguments are complete and the call is about to run. */
export interface ToolExecutionStartedEvent {
  readonly type: 'tool_execution_started';
  readonly toolName: string;
  readonly callId: string;
  /** The parsed arguments; the raw string when they are not valid JSON (the call then fails with `invalid_arguments`). */
  readonly input: unknown;
}

/**
 * The model's turn is over. `reason` is `tool_calls` whenever the message carries tool calls
 * (whatever the server's `finish_reason` said), else the server's finish reason — never
 * `tool_calls` for a message without one (it then says `stop`). Two reasons end a run that
 * did not end on an answer, after the tool step: `interrupted` (the run paused: calls wait for
 * a person; `resumeStream` goes on) and `stopped` (a `stopWhen` condition held).
 */
export interface TurnCompleteEvent {
  readonly type: 'turn_complete';
  readonly reason: FinishReason | 'interrupted' | 'stopped';
  readonly usage?: Usage;
}

/** A call waits for a person's approval: the run pauses once the calls that need none have run. */
export interface ToolApprovalRequestedEvent {
  readonly type: 'tool_approval_requested';
  readonly toolName: string;
  readonly callId: string;
  /** The parsed arguments, what the person decides about. */
  readonly input: JsonValue;
}

/** A tool asked a person a question (`awaitInput`): the run pauses for the answer. */
export interface ToolInputRequestedEvent {
  readonly type: 'tool_input_requested';
  readonly toolName: string;
  readonly callId: string;
  readonly prompt: string;
}

/** A running tool reported progress. */
export interface ToolExecutionProgressEvent {
  readonly type: 'tool_execution_progress';
  readonly toolName: string;
  readonly callId: string;
  readonly progress: ToolProgress;
}

/**
 * A tool call settled: `output` (the full value, never truncated) or `error`. `truncated` tells
 * whether the tool message sent to the model was cut to `maxToolResultBytes`.
 */
export type ToolExecutionCompletedEvent = {
  readonly type: 'tool_execution_completed';
  readonly toolName: string;
  readonly callId: string;
  readonly durationMs: number;
  readonly truncated: boolean;
} & (
  | { readonly output: JsonValue; readonly error?: undefined }
  | { readonly error: ToolError; readonly output?: undefined }
);

/**
 * The events of `submitStream`, `submitStreamWithTools` and `resumeStream`, discriminated on
 * `type`, in this order per turn: `assistant_reasoning_delta` / `assistant_text_delta` /
 * `tool_call_delta` … `tool_execution_started` (one per call that runs or is answered now) …
 * `turn_complete` … `tool_execution_progress` / `tool_execution_completed` (as the calls run
 * and settle), then the next turn — or, when calls wait for a person,
 * `tool_approval_requested` / `tool_input_requested` (one per waiting call) and `turn_complete`
 * `interrupted`.
 */
export type StreamEvent =
  | AssistantReasoningDeltaEvent
  | AssistantTextDeltaEvent
  | ToolCallDeltaEvent
  | ToolExecutionStartedEvent
  | TurnCompleteEvent
  | ToolExecutionProgressEvent
  | ToolExecutionCompletedEvent
  | ToolApprovalRequestedEvent
  | ToolInputRequestedEvent;
