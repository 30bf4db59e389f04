import type { ChatRequest } from '../../chat-provider.js';
import type { AssistantMessage, ChatMessage } from '../../messages.js';

/**
 * Which assistant messages of the history go back to the server with their `reasoning_content`:
 * `never`, `tool-calls` (those that carry tool calls: DeepSeek's thinking mode answers HTTP 400
 * without it, api-docs.deepseek.com/guides/thinking_mode) or `always`.
 */
export type SendReasoning = 'never' | 'tool-calls' | 'always';

/** How a request body is written. */
export interface BodyOptions {
  readonly stream: boolean;
  readonly includeUsage: boolean;
  readonly sendReasoning: SendReasoning;
}

/**
 * The JSON body of a Chat Completions request: the extra parameters first (so `model`,
 * `messages` and `stream` cannot be overridden by them), then the request. Never throws for
 * JSON input (the history and definitions are JSON by construction).
 */
export function requestBody(request: ChatRequest, options: BodyOptions): string {
  const body: Record<string, unknown> = {
    ...(request.parameters ?? {}),
    model: request.model,
    messages: wireMessages(request.messages, options.sendReasoning),
  };
  if (request.tools !== undefined && request.tools.length > 0) body.tools = request.tools;
  if (options.stream) {
    body.stream = true;
    if (options.includeUsage) body.stream_options = { include_usage: true };
  }
  return JSON.stringify(body);
}

/**
 * The messages as sent: the history itself unless some reasoning must be left out, or an
 * assistant message carries a native provider's `provider_state` (a history that began on
 * Anthropic or Responses): those items mean nothing to Chat Completions and strict servers
 * refuse unknown fields, so they stay in the history and are not sent.
 */
function wireMessages(
  messages: readonly ChatMessage[],
  sendReasoning: SendReasoning,
): readonly ChatMessage[] {
  const drop = sendReasoning === 'always' ? () => false : dropsReasoning(sendReasoning);
  const changes = (message: ChatMessage) =>
    message.role === 'assistant' && (message.provider_state !== undefined || drop(message));
  if (!messages.some(changes)) return messages;
  return messages.map((message) => {
    if (!changes(message)) return message;
    const { provider_state: _native, ...rest } = message as AssistantMessage;
    return drop(message) ? withoutReasoning(rest) : rest;
  });
}

function dropsReasoning(sendReasoning: SendReasoning): (message: ChatMessage) => boolean {
  return (message) =>
    message.role === 'assistant' &&
    message.reasoning_content !== undefined &&
    (sendReasoning === 'never' ||
      message.tool_calls === undefined ||
      message.tool_calls.length === 0);
}

function withoutReasoning(message: AssistantMessage): AssistantMessage {
  const { reasoning_content: _dropped, ...rest } = message;
  return rest;
}
