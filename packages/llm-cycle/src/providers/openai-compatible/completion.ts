import type { ChatResponse } from '../../chat-provider.js';
import { LlmError } from '../../llm-error.js';
import type { AssistantMessage } from '../../messages.js';
import { errorMessageOf, isRecord } from '../http/wire.js';
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
