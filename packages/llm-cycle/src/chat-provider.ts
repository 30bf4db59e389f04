import type { JsonValue, ToolDefinition } from '@agcore/tools-core';
import type { AssistantMessage, ChatMessage } from './messages.js';
import type {
  AssistantReasoningDeltaEvent,
  AssistantTextDeltaEvent,
  ToolCallDeltaEvent,
} from './stream-events.js';
import type { FinishReason, Interruption, Usage } from './types.js';

export type { FinishReason, Usage } from './types.js';

/** One request to a chat model. */
export interface ChatRequest {
  /** The model name, e.g. `gpt-4o-mini` or `qwen2.5:7b`. */
  readonly model: string;
  /** The conversation, sent as is. */
  readonly messages: readonly ChatMessage[];
  /** Tool definitions; omitted from the wire request when empty. */
  readonly tools?: readonly ToolDefinition[];
  /** Extra body fields sent as they are (temperature, max_tokens, tool_choice, seed, ...). */
  readonly parameters?: Readonly<Record<string, JsonValue>>;
}

/** Options of one provider call. */
export interface ChatCallOptions {
  /** Aborts the request (and a stream being read). */
  readonly signal?: AbortSignal;
  /** Gives up when the server sends no byte for this long, in milliseconds (overrides the provider's; see `idleTimeoutMs` there). */
  readonly idleTimeoutMs?: number;
  /** Gives up when the whole request takes longer than this, in milliseconds (overrides the provider's). */
  readonly timeoutMs?: number;
}

/** A complete answer of the model. */
export interface ChatResponse {
  /** The server's id of the completion (`chatcmpl-...`), or `''` when it sent none. */
  readonly id: string;
  /** The model that answered, as the server names it. */
  readonly model: string;
  /** The assistant message, in the wire shape. */
  readonly message: AssistantMessage;
  /** Why the model stopped (never `tool_calls` when the message has no tool call). */
  readonly finishReason: FinishReason;
  /** Token use, when the server reported it. */
  readonly usage?: Usage;
  /** The model's reasoning, when the server sent it (also kept as `message.reasoning_content`). */
  readonly reasoning?: string;
  /**
   * Set by the tool loop when the run paused: the calls that wait for a person (`resume`
   * answers them). Never empty when set; providers leave it out.
   */
  readonly interruptions?: readonly Interruption[];
  /** Set by the tool loop when a `stopWhen` condition ended it: the condition's reason. */
  readonly stopReason?: string;
}

/**
 * A normalized piece of a streamed answer. The deltas are the very `StreamEvent`s the cycle
 * yields, so passing them on costs nothing:
 *
 * - `assistant_reasoning_delta`: a piece of the model's reasoning.
 * - `assistant_text_delta`: a piece of the assistant's text.
 * - `tool_call_delta`: a piece of the tool call at position `index` of the message (`callId`
 *   and `toolName` come once, the arguments in many pieces; several calls may interleave).
 * - `response`: the last chunk of every stream: the assembled message, finish reason and usage.
 */
export type ChatChunk =
  | AssistantReasoningDeltaEvent
  | AssistantTextDeltaEvent
  | ToolCallDeltaEvent
  | { readonly type: 'response'; readonly response: ChatResponse };

/**
 * What the cycle needs from a model: one call that returns the whole answer, one that streams
 * it. Both reject (or throw while iterating) with an `LlmError`; a stream always ends with one
 * `response` chunk. The cycle knows nothing vendor-specific beyond this.
 */
export interface ChatProvider {
  /**
   * Optional: the `gen_ai.provider.name` of the service this provider speaks to (`anthropic`,
   * `openai`), the default of the cycle's `tracing.providerName`.
   */
  readonly providerName?: string;
  /** Sends `request` and resolves to the complete answer. @throws {LlmError} */
  chat(request: ChatRequest, options?: ChatCallOptions): Promise<ChatResponse>;
  /** Sends `request` and streams the answer; the last chunk is `response`. @throws {LlmError} while iterating */
  chatStream(request: ChatRequest, options?: ChatCallOptions): AsyncIterable<ChatChunk>;
  /**
   * Optional: the same stream as `chatStream`, in batches (the chunks of one network read
   * together, in order; a large read may come as several batches, never empty ones). `LlmCycle`
   * uses it when present: one asynchronous step per read instead of one per chunk, which is
   * most of a stream's client-side cost.
   * @throws {LlmError} while iterating
   */
  chatStreamBatches?(
    request: ChatRequest,
    options?: ChatCallOptions,
  ): AsyncIterable<readonly ChatChunk[]>;
}
