/**
 * Chat messages in the OpenAI Chat Completions wire shape, so a history can be sent as is and
 * read by anyone who knows that API.
 */
import type { JsonValue } from '@agcore/tools-core';

/** A part of a user message's content (text or an image by URL). */
export type ContentPart =
  | { readonly type: 'text'; readonly text: string }
  | {
      readonly type: 'image_url';
      readonly image_url: { readonly url: string; readonly detail?: 'auto' | 'low' | 'high' };
    };

/** The system prompt. */
export interface SystemMessage {
  readonly role: 'system';
  readonly content: string;
  readonly name?: string;
}

/** What the user says. */
export interface UserMessage {
  readonly role: 'user';
  readonly content: string | readonly ContentPart[];
  readonly name?: string;
}

/** A tool call made by the assistant, as in `tool_calls[]`. `arguments` is a JSON string. */
export interface ToolCall {
  readonly id: string;
  readonly type: 'function';
  readonly function: { readonly name: string; readonly arguments: string };
}

/**
 * What the model answers: text, tool calls, or both. `reasoning_content` is the model's
 * reasoning when the server sent some; the provider decides whether it goes back to the server
 * (see `sendReasoning`).
 */
export interface AssistantMessage {
  readonly role: 'assistant';
  readonly content: string | null;
  readonly tool_calls?: readonly ToolCall[];
  readonly refusal?: string | null;
  readonly name?: string;
  readonly reasoning_content?: string;
  /**
   * What a native provider must send back exactly on the next turn (an Anthropic `thinking`
   * block with its `signature`, an OpenAI Responses reasoning item with its encrypted content),
   * kept with the message it came with so that history, `RunState` and cassettes carry it. A
   * provider reads only the state it wrote itself (`provider`) and ignores any other.
   */
  readonly provider_state?: ProviderState;
}

/** A native provider's own items of one assistant message, as JSON, in wire order. */
export interface ProviderState {
  /** The provider that wrote it: `'anthropic'` or `'openai-responses'`. */
  readonly provider: string;
  /** Its wire items, unchanged (JSON values only, so a `RunState` can carry them). */
  readonly items: readonly JsonValue[];
}

/** The result of one tool call, sent back to the model. */
export interface ToolMessage {
  readonly role: 'tool';
  readonly tool_call_id: string;
  readonly content: string;
}

/** Any message of a chat history. */
export type ChatMessage = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

/** Makes a system message. Never throws. */
export function systemMessage(content: string): SystemMessage {
  return { role: 'system', content };
}

/** Makes a user message. Never throws. */
export function userMessage(content: string | readonly ContentPart[]): UserMessage {
  return { role: 'user', content };
}

/** Makes a tool message answering the call `toolCallId`. Never throws. */
export function toolMessage(toolCallId: string, content: string): ToolMessage {
  return { role: 'tool', tool_call_id: toolCallId, content };
}

/** Whether `message` is an assistant message that carries at least one tool call. Never throws. */
export function hasToolCalls(
  message: ChatMessage,
): message is AssistantMessage & { readonly tool_calls: readonly ToolCall[] } {
  return (
    message.role === 'assistant' &&
    message.tool_calls !== undefined &&
    message.tool_calls.length > 0
  );
}
