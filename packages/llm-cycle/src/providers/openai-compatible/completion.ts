import type { Redactor } from '@agcore/tools-core';
import type { ChatResponse } from '../../chat-provider.js';
import { LlmError } from '../../llm-error.js';
import type { AssistantMessage } from '../../messages.js';
import type { Reading } from '../http/body-reader.js';
import { bodyShape, errorMessageOf, isRecord } from '../http/wire.js';
import {
  argumentsOf,
  contentOf,
  finishReasonOf,
  hasReasoningContent,
  noteReasoningContent,
  readUsage,
  reasoningOf,
} from './dialects.js';
import { uniqueCalls } from './response-assembler.js';

/**
 * Reads a whole (non-streamed) Chat Completions body, already parsed from redacted text. Only
 * `choices[0]` is read; the dialects of `dialects.ts` apply as for streams.
 * @throws {LlmError} `invalid_response` (no `choices[0].message`), `stream_error` (the body
 * carries `error`)
 */
export function parseCompletion(body: unknown): ChatResponse {
  if (!isRecord(body)) {
    throw new LlmError(
      'invalid_response',
      'The server answered with something that is not a JSON object.',
    );
  }
  if (body.error !== undefined && body.error !== null) {
    throw new LlmError(
      'stream_error',
      `The server reported an error: ${errorMessageOf(body.error)}`,
    );
  }
  const choices = body.choices;
  const choice: unknown = Array.isArray(choices) ? choices[0] : undefined;
  if (!isRecord(choice) || !isRecord(choice.message)) {
    throw new LlmError(
      'invalid_response',
      `The server's answer has no choices[0].message: ${JSON.stringify(body).slice(0, 300)}`,
    );
  }
  const raw = choice.message;
  const toolCalls = uniqueCalls(readToolCalls(raw.tool_calls));
  const parts = contentOf(raw.content);
  const reasoning = reasoningOf(raw) ?? (parts?.reasoning || undefined);
  const text = parts?.text ?? null;
  const message: AssistantMessage = {
    role: 'assistant',
    content: text ?? (toolCalls.length > 0 ? null : ''),
    ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
    ...(typeof raw.refusal === 'string' ? { refusal: raw.refusal } : {}),
    ...(reasoning === undefined ? {} : { reasoning_content: reasoning }),
  };
  if (hasReasoningContent(raw)) noteReasoningContent(message);
  const usage = readUsage(body.usage) ?? readUsage(choice.usage);
  return {
    id: typeof body.id === 'string' ? body.id : '',
    model: typeof body.model === 'string' ? body.model : '',
    message,
    finishReason: finishReasonOf(
      typeof choice.finish_reason === 'string' ? choice.finish_reason : undefined,
      toolCalls.length > 0,
    ),
    ...(usage === undefined ? {} : { usage }),
    ...(reasoning === undefined ? {} : { reasoning }),
  };
}

function readToolCalls(value: unknown): { id: string; name: string; arguments: string }[] {
  if (!Array.isArray(value)) return [];
  const calls: { id: string; name: string; arguments: string }[] = [];
  for (const item of value) {
    if (!isRecord(item) || !isRecord(item.function)) continue;
    const fn = item.function;
    calls.push({
      id: typeof item.id === 'string' ? item.id : '',
      name: typeof fn.name === 'string' ? fn.name : '',
      arguments: argumentsOf(fn.arguments),
    });
  }
  return calls;
}

/**
 * A whole JSON answer: the text redacted (before parsing, so every escaping is caught) and
 * read as a Chat Completions body.
 * @throws {LlmError} `invalid_response` for a body that is not JSON (naming its content type and
 * first bytes) or not a completion, `stream_error` for an error body
 */
export function parseJsonAnswer(text: string, reading: Reading): ChatResponse {
  const { endpoint } = reading;
  const clean = endpoint.hasSecrets ? endpoint.redact(text) : text;
  let body: unknown;
  try {
    body = JSON.parse(clean);
  } catch (error) {
    if (bodyShape(clean) !== 'json')
      throw notChatCompletions(endpoint.shown, reading.contentType, clean, endpoint.redact);
    throw new LlmError(
      'invalid_response',
      `${endpoint.shown} answered with a body that is not valid JSON: ${clean.slice(0, 200)}`,
      { cause: error },
    );
  }
  return parseCompletion(body);
}

/**
 * The `invalid_response` for a 2xx answer that is not Chat Completions (a wrong base URL, a
 * captive portal, a proxy's sign-in page): its content type and first bytes, redacted.
 */
export function notChatCompletions(
  where: string,
  contentType: string,
  start: string,
  redact: Redactor,
): LlmError {
  const first = redact(start).replace(/\s+/g, ' ').trim().slice(0, 120);
  return new LlmError(
    'invalid_response',
    `${where} answered with content type '${contentType || 'none'}', which is not a Chat Completions answer (first bytes: ${first === '' ? '(empty)' : JSON.stringify(first)}). Check baseURL: it should be the API root that /chat/completions is appended to, e.g. https://api.openai.com/v1.`,
    { responseBody: first },
  );
}
