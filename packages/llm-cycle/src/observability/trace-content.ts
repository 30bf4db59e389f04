import { boundAttribute, type JsonValue } from '@agcore/tools-core';
import type { ChatResponse } from '../chat-provider.js';
import type { AssistantMessage, ChatMessage, SystemMessage } from '../messages.js';

/**
 * Messages in the shape of the GenAI semantic conventions' `gen_ai.input.messages` and
 * `gen_ai.output.messages` (`{ role, parts: [{ type: 'text' | 'tool_call' |
 * 'tool_call_response' | 'uri', ... }] }`), as a span attribute holds them: JSON text.
 * Recorded only with `tracing.recordContent` (they may hold personal data).
 *
 * Each attribute is bounded to `maxBytes` UTF-8 bytes: within it, the whole JSON; over it, the
 * start of that JSON cut by `boundAttribute`, with its marker (`…[truncated: N of M bytes
 * cut]`, M the size of the whole JSON): text that no longer parses, and says so. The whole
 * JSON is never built for that: each message's JSON size is measured once per message object
 * (the history's messages come back every turn) and only the start is written.
 */

type Part = { readonly [key: string]: JsonValue };
/** Cuts a string of a part (or leaves it whole). */
type Cut = (text: string) => string;

const encoder = new TextEncoder();
/** Message (or response) → the UTF-8 size of its JSON at a limit (the limit decides the shape of large arguments). */
const sizes = new WeakMap<object, { readonly maxBytes: number; readonly bytes: number }>();
const whole: Cut = (text) => text;

/** `gen_ai.input.messages` of a request: every message but the system prompt. Never throws. */
export function inputMessages(messages: readonly ChatMessage[], maxBytes: number): string {
  return boundedArray(
    messages.filter((message) => message.role !== 'system'),
    convert,
    maxBytes,
  );
}

/** `gen_ai.system_instructions` of a request, or `undefined` without a system message. */
export function systemInstructions(
  messages: readonly ChatMessage[],
  maxBytes: number,
): string | undefined {
  const first = messages[0];
  if (first?.role !== 'system') return undefined;
  return boundedArray([first], instructionsOf, maxBytes);
}

/** `gen_ai.output.messages` of a response. Never throws. */
export function outputMessages(response: ChatResponse, maxBytes: number): string {
  return boundedArray([response], outputOf, maxBytes);
}

/**
 * The JSON text of `items` converted, bounded to `maxBytes`. Past the limit only the sizes of
 * the remaining items are summed (measured once per item): the start written is exact, the
 * marker's total is the size of the whole.
 */
function boundedArray<T extends object>(
  items: readonly T[],
  toJson: (item: T, cut: Cut, maxBytes: number) => JsonValue,
  maxBytes: number,
): string {
  // Strings longer than this are cut in the start: what precedes the cut is exact and fills the limit.
  const room = maxBytes + 2;
  // A value that is not a string (a history restored by hand) passes as is, as JSON takes it.
  const cut: Cut = (text) =>
    typeof text === 'string' && text.length > room ? text.slice(0, room) : text;
  let total = items.length === 0 ? 2 : items.length + 1;
  let start = '[';
  for (const [index, item] of items.entries()) {
    if (start.length > maxBytes) {
      total += sizeOf(item, toJson, maxBytes, undefined);
      continue;
    }
    const text = JSON.stringify(toJson(item, cut, maxBytes));
    if (index > 0) start += ',';
    start += text;
    total += sizeOf(item, toJson, maxBytes, text);
  }
  if (total <= maxBytes) return `${start}]`;
  return boundAttribute(start, maxBytes, total);
}

/** The UTF-8 size of `item`'s whole JSON; `text` is its JSON when it was written whole (nothing cut) or not known. */
function sizeOf<T extends object>(
  item: T,
  toJson: (item: T, cut: Cut, maxBytes: number) => JsonValue,
  maxBytes: number,
  text: string | undefined,
): number {
  const known = sizes.get(item);
  if (known?.maxBytes === maxBytes) return known.bytes;
  const full =
    text !== undefined && text.length <= maxBytes
      ? text
      : JSON.stringify(toJson(item, whole, maxBytes));
  const bytes = encoder.encode(full).length;
  sizes.set(item, { maxBytes, bytes });
  return bytes;
}

function instructionsOf(message: SystemMessage, cut: Cut): JsonValue {
  return { type: 'text', content: cut(message.content) };
}

function outputOf(response: ChatResponse, cut: Cut, maxBytes: number): JsonValue {
  return {
    ...assistantOf(response.message, cut, maxBytes),
    finish_reason: cut(response.finishReason),
  };
}

function convert(message: ChatMessage, cut: Cut, maxBytes: number): JsonValue {
  switch (message.role) {
    case 'user':
      return {
        role: 'user',
        parts:
          typeof message.content === 'string'
            ? [{ type: 'text', content: cut(message.content) }]
            : message.content.map(
                (part): Part =>
                  part.type === 'text'
                    ? { type: 'text', content: cut(part.text) }
                    : { type: 'uri', modality: 'image', uri: cut(part.image_url.url) },
              ),
      };
    case 'assistant':
      return assistantOf(message, cut, maxBytes);
    case 'tool':
      return {
        role: 'tool',
        parts: [
          {
            type: 'tool_call_response',
            id: cut(message.tool_call_id),
            response: cut(message.content),
          },
        ],
      };
    default:
      return { role: message.role, parts: [{ type: 'text', content: cut(message.content) }] };
  }
}

function assistantOf(
  message: AssistantMessage,
  cut: Cut,
  maxBytes: number,
): { role: string; parts: Part[] } {
  const parts: Part[] = [];
  if (typeof message.content === 'string' && message.content !== '')
    parts.push({ type: 'text', content: cut(message.content) });
  for (const call of message.tool_calls ?? []) {
    parts.push({
      type: 'tool_call',
      id: cut(call.id),
      name: cut(call.function.name),
      arguments: argumentsOf(call.function.arguments, cut, maxBytes),
    });
  }
  return { role: 'assistant', parts };
}

/**
 * The conventions want the arguments as an object; text that is not JSON stays text, and so
 * does text longer than the limit (the attribute is cut there anyway; parsing megabytes on
 * every turn to cut them again is the cost the bound saves).
 */
function argumentsOf(text: string, cut: Cut, maxBytes: number): JsonValue {
  if (typeof text !== 'string' || text.length > maxBytes) return cut(text);
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}
