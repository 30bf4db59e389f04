import type { JsonValue } from '@agcore/tools-core';
import type { ChatRequest } from '../../chat-provider.js';
import type { AssistantMessage, ChatMessage, ContentPart } from '../../messages.js';

/**
 * The Responses request body (platform.openai.com/docs/api-reference/responses/create). The
 * neutral history maps to `input` items:
 * - leading system messages → `instructions` (a later one stays a `system` message item);
 * - user messages → `message` items (`input_text` / `input_image` parts);
 * - an assistant message → the output items it came with, verbatim from its `provider_state`
 *   when the message still says what they say (the docs' "pass `response.output` back"), else
 *   its reasoning items verbatim followed by a `message` and `function_call` items
 *   (`call_id`, `name`, `arguments`) rebuilt from the message;
 * - tool messages → `function_call_output` items (`call_id`, `output`).
 */

/** The name in `provider_state.provider` of what this provider keeps. */
export const providerName = 'openai-responses';

/** How a body is written. */
export interface ResponsesBodyOptions {
  readonly stream: boolean;
  readonly store: boolean;
  /** Sets `strict` on every function tool, when given. */
  readonly strict: boolean | undefined;
  /** Continue from this stored response: only `messages.slice(from)` go as `input`. */
  readonly previousResponseId?: string;
  readonly from?: number;
}

type Item = Record<string, JsonValue>;

/** The JSON body: the extra parameters first (so `model`, `input`, `stream` cannot be overridden). */
export function responsesBody(request: ChatRequest, options: ResponsesBodyOptions): string {
  const { instructions, rest } = splitInstructions(request.messages);
  const history = options.from === undefined ? rest : request.messages.slice(options.from);
  const body: Record<string, unknown> = {
    ...(request.parameters ?? {}),
    model: request.model,
    input: inputItems(history),
    store: options.store,
  };
  // Instructions are not carried over by `previous_response_id`: they go every time.
  if (instructions !== undefined) body.instructions = instructions;
  if (options.previousResponseId !== undefined)
    body.previous_response_id = options.previousResponseId;
  if (!options.store) body.include = withEncryptedReasoning(request.parameters?.include);
  if (request.tools !== undefined && request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      type: 'function',
      name: tool.function.name,
      description: tool.function.description,
      parameters: tool.function.parameters,
      ...(options.strict === undefined ? {} : { strict: options.strict }),
    }));
  }
  if (options.stream) body.stream = true;
  return JSON.stringify(body);
}

/**
 * With `store: false` the server keeps nothing: a reasoning item can go back only with its
 * `encrypted_content`, which it sends when asked (guides/reasoning, "Encrypted reasoning items").
 */
function withEncryptedReasoning(include: JsonValue | undefined): JsonValue[] {
  const asked = Array.isArray(include) ? include : [];
  return asked.includes('reasoning.encrypted_content')
    ? asked
    : [...asked, 'reasoning.encrypted_content'];
}

function splitInstructions(messages: readonly ChatMessage[]): {
  instructions: string | undefined;
  rest: readonly ChatMessage[];
} {
  let count = 0;
  while (messages[count]?.role === 'system') count++;
  if (count === 0) return { instructions: undefined, rest: messages };
  const instructions = messages
    .slice(0, count)
    .map((message) => message.content as string)
    .join('\n\n');
  return { instructions, rest: messages.slice(count) };
}

/** The `input` items of `messages`, in order. Never throws for a neutral history. */
export function inputItems(messages: readonly ChatMessage[]): JsonValue[] {
  const items: JsonValue[] = [];
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        items.push({ type: 'message', role: 'system', content: message.content });
        break;
      case 'user':
        items.push({ type: 'message', role: 'user', content: userContent(message.content) });
        break;
      case 'assistant':
        items.push(...assistantItems(message));
        break;
      case 'tool':
        items.push({
          type: 'function_call_output',
          call_id: message.tool_call_id,
          output: message.content,
        });
        break;
    }
  }
  return items;
}

function userContent(content: string | readonly ContentPart[]): JsonValue {
  if (typeof content === 'string') return content;
  return content.map(
    (part): Item =>
      part.type === 'text'
        ? { type: 'input_text', text: part.text }
        : {
            type: 'input_image',
            image_url: part.image_url.url,
            detail: part.image_url.detail ?? 'auto',
          },
  );
}

/** The items this provider kept on `message`, or `[]` (another provider's state is ignored). */
export function keptItems(message: AssistantMessage): readonly Item[] {
  const state = message.provider_state;
  if (state === undefined || state.provider !== providerName) return [];
  return state.items.filter(
    (item): item is Item => typeof item === 'object' && item !== null && !Array.isArray(item),
  );
}

function assistantItems(message: AssistantMessage): readonly JsonValue[] {
  const kept = keptItems(message);
  if (kept.length > 0 && keptItemsFit(message, kept)) return kept;
  const items: JsonValue[] = kept.filter((item) => item.type === 'reasoning');
  if (message.content !== null && message.content !== '')
    items.push({ type: 'message', role: 'assistant', content: message.content });
  for (const call of message.tool_calls ?? []) {
    items.push({
      type: 'function_call',
      call_id: call.id,
      name: call.function.name,
      arguments: call.function.arguments,
    });
  }
  return items;
}

/** Whether the kept output items say what the message says (its text and its calls). */
function keptItemsFit(message: AssistantMessage, kept: readonly Item[]): boolean {
  const text = kept
    .filter((item) => item.type === 'message')
    .map((item) => outputText(item.content))
    .join('');
  if (text !== (message.content ?? '')) return false;
  const calls = kept.filter((item) => item.type === 'function_call');
  const wanted = message.tool_calls ?? [];
  if (calls.length !== wanted.length) return false;
  return wanted.every(
    (call, index) =>
      calls[index]?.call_id === call.id &&
      calls[index]?.name === call.function.name &&
      calls[index]?.arguments === call.function.arguments,
  );
}

/** The joined `output_text` parts of a message item's content. */
export function outputText(content: JsonValue | undefined): string {
  if (!Array.isArray(content)) return '';
  let text = '';
  for (const part of content) {
    if (typeof part === 'object' && part !== null && !Array.isArray(part)) {
      if (part.type === 'output_text' && typeof part.text === 'string') text += part.text;
    }
  }
  return text;
}
