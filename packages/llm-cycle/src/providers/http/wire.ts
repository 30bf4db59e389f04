/**
 * What every JSON-over-HTTP wire format needs to read an answer, whichever it is (Chat
 * Completions, Responses, Messages): the shape of a body, the message of an error payload, the
 * chunks a whole response stands for. Nothing here knows one format's fields.
 */
import type { ChatChunk, ChatResponse } from '../../chat-provider.js';
import { LlmError } from '../../llm-error.js';
import type { Endpoint } from './endpoint.js';

/** At most this much of a server's error payload is kept in `responseBody`. */
export const maxBodyChars = 4096;

/** Whether `value` is a plain JSON object. Never throws. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What the start of a body looks like: an SSE stream, a JSON document, or something else. */
export function bodyShape(start: string): 'sse' | 'json' | 'other' {
  const head = start.trimStart();
  if (head.startsWith('{')) return 'json';
  return /^(?:data|event|id|retry)\s*:|^:/.test(head) ? 'sse' : 'other';
}

/**
 * The JSON of a streamed event's `data`, redacted before parsing (so every escaping of a secret
 * is caught).
 * @throws {LlmError} `invalid_response` for data that is not JSON
 */
export function eventJson(data: string, endpoint: Endpoint): unknown {
  const clean = endpoint.hasSecrets ? endpoint.redact(data) : data;
  try {
    return JSON.parse(clean);
  } catch (error) {
    throw new LlmError(
      'invalid_response',
      `${endpoint.shown} sent an event that is not JSON: ${clean.slice(0, 200)}`,
      { cause: error, responseBody: clean.slice(0, 200) },
    );
  }
}

/**
 * The message of an error payload: `{ error: { message } }` (OpenAI, and OpenRouter's errors
 * inside a stream, openrouter.ai/docs/api-reference/errors), `{ error: "text" }` (Ollama,
 * llama.cpp), else the payload as JSON.
 */
export function errorMessageOf(error: unknown): string {
  if (isRecord(error) && typeof error.message === 'string') return error.message;
  if (typeof error === 'string') return error;
  return jsonText(error);
}

/** `value` as JSON text (`String(value)` when it cannot be serialized). Never throws. */
export function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * The chunks a stream of `response` would have carried: its reasoning, its text, one delta per
 * tool call, then the response itself. Never throws.
 */
export function chunksOf(response: ChatResponse): ChatChunk[] {
  const chunks: ChatChunk[] = [];
  const { content, tool_calls: toolCalls } = response.message;
  const reasoning = response.reasoning ?? response.message.reasoning_content;
  if (reasoning !== undefined && reasoning !== '')
    chunks.push({ type: 'assistant_reasoning_delta', text: reasoning });
  if (content !== null && content !== '')
    chunks.push({ type: 'assistant_text_delta', text: content });
  toolCalls?.forEach((call, index) => {
    chunks.push({
      type: 'tool_call_delta',
      index,
      callId: call.id,
      toolName: call.function.name,
      argumentsDelta: call.function.arguments,
    });
  });
  chunks.push({ type: 'response', response });
  return chunks;
}
