/**
 * The neutral history as an Anthropic Messages request body. Rules, from the API reference
 * (docs.anthropic.com/en/api/messages, "messages" and "system") and the tool-use guide
 * (docs.anthropic.com/en/docs/build-with-claude/tool-use/overview):
 * - the system prompt is the top-level `system`, not a message;
 * - an assistant tool call is a `tool_use` block `{ id, name, input }` (`input` an object);
 * - tool results are `tool_result` blocks in a *user* turn that follows the `tool_use` turn, all
 *   results of one turn in one user message, before any text of that message;
 * - `thinking` / `redacted_thinking` blocks of a tool-use turn go back unchanged, `signature`
 *   included (extended-thinking guide, "Preserving thinking blocks");
 * - `max_tokens` is required;
 * - `cache_control: { type: 'ephemeral' }` on the last tool and the last system block marks a
 *   cache breakpoint (prompt-caching guide: the prefix is tools, then system, then messages).
 */
import type { JsonValue, ToolDefinition } from '@agcore/tools-core';
import type { ChatRequest } from '../../chat-provider.js';
import type { AssistantMessage, ChatMessage, ContentPart, UserMessage } from '../../messages.js';

/** The provider name written into (and read from) `provider_state`. */
export const anthropicState = 'anthropic';

/** How a request body is written. */
export interface MessagesBodyOptions {
  readonly stream: boolean;
  /** `max_tokens` when the request's parameters do not set it. */
  readonly maxTokens: number;
  /** Cache breakpoints after the tools and the system prompt. */
  readonly cacheTools: boolean;
}

type Block = Record<string, unknown>;
interface WireMessage {
  role: 'user' | 'assistant';
  content: Block[];
}

const ephemeral = { type: 'ephemeral' } as const;

/**
 * The JSON body of a Messages request: the extra parameters first (so `model`, `messages`,
 * `system`, `tools` and `stream` cannot be overridden by them), then the request. Never throws
 * for JSON input.
 */
export function messagesBody(request: ChatRequest, options: MessagesBodyOptions): string {
  const body: Record<string, unknown> = {
    max_tokens: options.maxTokens,
    ...(request.parameters ?? {}),
    model: request.model,
    messages: wireMessages(request.messages),
  };
  const system = systemBlocks(request.messages, options.cacheTools);
  if (system !== undefined) body.system = system;
  if (request.tools !== undefined && request.tools.length > 0)
    body.tools = wireTools(request.tools, options.cacheTools);
  if (options.stream) body.stream = true;
  return JSON.stringify(body);
}

/** Every system message, joined, as one text block (with its breakpoint when caching). */
function systemBlocks(messages: readonly ChatMessage[], cache: boolean): Block[] | undefined {
  const texts = messages.flatMap((message) =>
    message.role === 'system' && message.content !== '' ? [message.content] : [],
  );
  if (texts.length === 0) return undefined;
  return [
    { type: 'text', text: texts.join('\n\n'), ...(cache ? { cache_control: ephemeral } : {}) },
  ];
}

function wireTools(tools: readonly ToolDefinition[], cache: boolean): Block[] {
  return tools.map((tool, index) => ({
    name: tool.function.name,
    description: tool.function.description,
    input_schema: tool.function.parameters,
    ...(cache && index === tools.length - 1 ? { cache_control: ephemeral } : {}),
  }));
}

/** The turns: tool messages become `tool_result` blocks, consecutive turns of a role merge. */
function wireMessages(messages: readonly ChatMessage[]): WireMessage[] {
  const turns: WireMessage[] = [];
  const push = (role: WireMessage['role'], blocks: Block[]): void => {
    if (blocks.length === 0) return;
    const last = turns[turns.length - 1];
    if (last?.role === role) last.content.push(...blocks);
    else turns.push({ role, content: blocks });
  };
  for (const message of messages) {
    if (message.role === 'system') continue;
    if (message.role === 'assistant') push('assistant', assistantBlocks(message));
    else if (message.role === 'tool')
      push('user', [
        { type: 'tool_result', tool_use_id: message.tool_call_id, content: message.content },
      ]);
    else push('user', userBlocks(message));
  }
  return turns;
}

/** Thinking blocks first (as the model wrote them), then the text, then the calls. */
function assistantBlocks(message: AssistantMessage): Block[] {
  const blocks: Block[] = [];
  const state = message.provider_state;
  if (state?.provider === anthropicState) {
    for (const item of state.items) if (isBlock(item)) blocks.push(item);
  }
  if (typeof message.content === 'string' && message.content !== '')
    blocks.push({ type: 'text', text: message.content });
  for (const call of message.tool_calls ?? []) {
    blocks.push({
      type: 'tool_use',
      id: call.id,
      name: call.function.name,
      input: inputOf(call.function.arguments),
    });
  }
  return blocks;
}

/**
 * A call's arguments as the object `tool_use.input` must be. Arguments that are not a JSON
 * object (the loop already answered such a call with an error) go as `{}`.
 */
function inputOf(text: string): JsonValue {
  try {
    const value: unknown = JSON.parse(text === '' ? '{}' : text);
    return isBlock(value) ? (value as JsonValue) : {};
  } catch {
    return {};
  }
}

function userBlocks(message: UserMessage): Block[] {
  if (typeof message.content === 'string')
    return message.content === '' ? [] : [{ type: 'text', text: message.content }];
  return message.content.map(partBlock);
}

/** A content part as a block: an image by data URL goes as base64, any other by URL. */
function partBlock(part: ContentPart): Block {
  if (part.type === 'text') return { type: 'text', text: part.text };
  const url = part.image_url.url;
  const data = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  if (data !== null)
    return { type: 'image', source: { type: 'base64', media_type: data[1], data: data[2] } };
  return { type: 'image', source: { type: 'url', url } };
}

function isBlock(value: unknown): value is Block {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
