/**
 * The neutral history as a Gemini `generateContent` request body. Rules, from the API reference
 * (ai.google.dev/api/generate-content, ai.google.dev/api/caching#Content) and the
 * function-calling and thought-signatures guides (ai.google.dev/gemini-api/docs/function-calling,
 * /docs/thought-signatures):
 * - `contents` alternate `user` and `model` turns; the system prompt is `systemInstruction`;
 * - a call is a `functionCall { id?, name, args }` part of a `model` turn; its result is a
 *   `functionResponse { id?, name, response }` part of the next `user` turn, all results of
 *   parallel calls in that one turn;
 * - the parts of a model turn go back as they came, `thoughtSignature` included (Gemini 3
 *   refuses a function-calling turn whose signatures did not come back): they are kept whole in
 *   the message's `provider_state`;
 * - tools are `tools: [{ functionDeclarations: [{ name, description, parametersJsonSchema }] }]`;
 * - `generationConfig.thinkingConfig` carries `thinkingBudget` (2.5) or `thinkingLevel` (3).
 */
import type { JsonValue, ToolDefinition } from '@agcore/tools-core';
import type { ChatRequest } from '../../chat-provider.js';
import type { AssistantMessage, ChatMessage, ContentPart, UserMessage } from '../../messages.js';

/** The provider name written into (and read from) `provider_state`. */
export const geminiState = 'gemini';

/** The prefix of the ids made for calls Gemini sent without one (they are not sent back). */
export const madeIdPrefix = 'gemini-call-';

type Part = Record<string, unknown>;
interface Content {
  role: 'user' | 'model';
  parts: Part[];
}

/** How the request's `generationConfig` starts (from the provider's options). */
export interface GeminiBodyOptions {
  /** `generationConfig.thinkingConfig` from the options (the request's parameters override it). */
  readonly thinkingConfig?: Readonly<Record<string, JsonValue>>;
}

/**
 * The JSON body: the request's parameters first (`generationConfig`, `safetySettings`,
 * `toolConfig`, …; so `contents`, `systemInstruction` and `tools` cannot be overridden by
 * them), the options' thinking config merged under `generationConfig.thinkingConfig`. Never
 * throws for JSON input.
 */
export function geminiBody(request: ChatRequest, options: GeminiBodyOptions): string {
  const parameters = request.parameters ?? {};
  const body: Record<string, unknown> = { ...parameters, contents: contentsOf(request.messages) };
  const config = generationConfig(parameters.generationConfig, options.thinkingConfig);
  if (config !== undefined) body.generationConfig = config;
  const system = request.messages.flatMap((message) =>
    message.role === 'system' && message.content !== '' ? [{ text: message.content }] : [],
  );
  if (system.length > 0) body.systemInstruction = { parts: system };
  if (request.tools !== undefined && request.tools.length > 0)
    body.tools = [{ functionDeclarations: request.tools.map(declaration) }];
  return JSON.stringify(body);
}

function generationConfig(
  given: JsonValue | undefined,
  thinking: Readonly<Record<string, JsonValue>> | undefined,
): Record<string, unknown> | undefined {
  const config = isPart(given) ? { ...given } : {};
  if (thinking !== undefined)
    config.thinkingConfig = {
      ...thinking,
      ...(isPart(config.thinkingConfig) ? config.thinkingConfig : {}),
    };
  return Object.keys(config).length === 0 ? undefined : config;
}

function declaration(tool: ToolDefinition): Part {
  return {
    name: tool.function.name,
    ...(tool.function.description === undefined ? {} : { description: tool.function.description }),
    parametersJsonSchema: tool.function.parameters,
  };
}

/** A call as the tool results name it back: its name, and its id when Gemini gave one. */
interface CallRef {
  readonly name: string;
  readonly id?: string;
}

/** The turns; tool messages become `functionResponse` parts, consecutive turns of a role merge. */
function contentsOf(messages: readonly ChatMessage[]): Content[] {
  const turns: Content[] = [];
  const calls = new Map<string, CallRef>();
  const push = (role: Content['role'], parts: Part[]): void => {
    if (parts.length === 0) return;
    const last = turns[turns.length - 1];
    if (last?.role === role) last.parts.push(...parts);
    else turns.push({ role, parts });
  };
  for (const message of messages) {
    if (message.role === 'system') continue;
    if (message.role === 'assistant') push('model', modelParts(message, calls));
    else if (message.role === 'tool') {
      const call = calls.get(message.tool_call_id) ?? { name: '', id: message.tool_call_id };
      push('user', [
        {
          functionResponse: {
            ...(call.id === undefined ? {} : { id: call.id }),
            name: call.name,
            response: { result: message.content },
          },
        },
      ]);
    } else push('user', userParts(message));
  }
  return turns;
}

/** The parts as Gemini sent them (kept in `provider_state`), else made from the message. */
function modelParts(message: AssistantMessage, calls: Map<string, CallRef>): Part[] {
  const toolCalls = message.tool_calls ?? [];
  const state = message.provider_state;
  if (state?.provider === geminiState) {
    const parts: Part[] = state.items.filter((item): item is Record<string, JsonValue> =>
      isPart(item),
    );
    let index = 0;
    for (const part of parts) {
      if (!isPart(part.functionCall)) continue;
      const call = toolCalls[index++];
      const id = part.functionCall.id;
      if (call !== undefined)
        calls.set(call.id, {
          name: call.function.name,
          ...(typeof id === 'string' ? { id } : {}),
        });
    }
    return parts;
  }
  const parts: Part[] = [];
  if (typeof message.content === 'string' && message.content !== '')
    parts.push({ text: message.content });
  for (const call of toolCalls) {
    const made = call.id.startsWith(madeIdPrefix);
    calls.set(call.id, { name: call.function.name, ...(made ? {} : { id: call.id }) });
    parts.push({
      functionCall: {
        ...(made ? {} : { id: call.id }),
        name: call.function.name,
        args: argsOf(call.function.arguments),
      },
    });
  }
  return parts;
}

/** A call's arguments as the object `args` must be (`{}` for arguments that are not one). */
function argsOf(text: string): JsonValue {
  try {
    const value: unknown = JSON.parse(text === '' ? '{}' : text);
    return isPart(value) ? (value as JsonValue) : {};
  } catch {
    return {};
  }
}

function userParts(message: UserMessage): Part[] {
  if (typeof message.content === 'string')
    return message.content === '' ? [] : [{ text: message.content }];
  return message.content.map(partOf);
}

/** A content part: an image by data URL goes as `inlineData`, any other as `fileData`. */
function partOf(part: ContentPart): Part {
  if (part.type === 'text') return { text: part.text };
  const url = part.image_url.url;
  const data = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  if (data !== null) return { inlineData: { mimeType: data[1], data: data[2] } };
  return { fileData: { fileUri: url } };
}

/** Whether `value` is a JSON object. */
export function isPart(value: unknown): value is Part {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
