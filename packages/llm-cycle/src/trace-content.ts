import type { JsonValue } from '@agcore/tools-core';
import type { ChatResponse } from './chat-provider.js';
import type { AssistantMessage, ChatMessage } from './messages.js';

/**
 * Messages in the shape of the GenAI semantic conventions' `gen_ai.input.messages` and
 * `gen_ai.output.messages` (`{ role, parts: [{ type: 'text' | 'tool_call' |
 * 'tool_call_response' | 'uri', ... }] }`), as a span attribute holds them: JSON text.
 * Recorded only with `tracing.recordContent` (they may hold personal data).
 */

type Part = { readonly [key: string]: JsonValue };

/** `gen_ai.input.messages` of a request: every message but the system prompt. */
export function inputMessages(messages: readonly ChatMessage[]): string {
  const converted: JsonValue[] = [];
  for (const message of messages) {
    if (message.role === 'system') continue;
    converted.push(convert(message));
  }
  return JSON.stringify(converted);
}

/** `gen_ai.system_instructions` of a request, or `undefined` without a system message. */
export function systemInstructions(messages: readonly ChatMessage[]): string | undefined {
  const first = messages[0];
  if (first?.role !== 'system') return undefined;
  return JSON.stringify([{ type: 'text', content: first.content }]);
}

/** `gen_ai.output.messages` of a response. */
export function outputMessages(response: ChatResponse): string {
  return JSON.stringify([
    { ...assistantOf(response.message), finish_reason: response.finishReason },
  ]);
}

function convert(message: ChatMessage): JsonValue {
  switch (message.role) {
    case 'user':
      return {
        role: 'user',
        parts:
          typeof message.content === 'string'
            ? [{ type: 'text', content: message.content }]
            : message.content.map(
                (part): Part =>
                  part.type === 'text'
                    ? { type: 'text', content: part.text }
                    : { type: 'uri', modality: 'image', uri: part.image_url.url },
              ),
      };
    case 'assistant':
      return assistantOf(message);
    case 'tool':
      return {
        role: 'tool',
        parts: [
          { type: 'tool_call_response', id: message.tool_call_id, response: message.content },
        ],
      };
    default:
      return { role: message.role, parts: [{ type: 'text', content: message.content }] };
  }
}

function assistantOf(message: AssistantMessage): { role: string; parts: Part[] } {
  const parts: Part[] = [];
  if (typeof message.content === 'string' && message.content !== '')
    parts.push({ type: 'text', content: message.content });
  for (const call of message.tool_calls ?? []) {
    parts.push({
      type: 'tool_call',
      id: call.id,
      name: call.function.name,
      arguments: parsedArguments(call.function.arguments),
    });
  }
  return { role: 'assistant', parts };
}

/** The conventions want the arguments as an object; text that is not JSON stays text. */
function parsedArguments(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}
