import type { JsonValue } from '@agcore/tools-core';
import type { ChatResponse, FinishReason, Usage } from '../../chat-provider.js';
import { LlmError } from '../../llm-error.js';
import type { AssistantMessage, ToolCall } from '../../messages.js';
import { isRecord } from '../http/wire.js';
import { outputText, providerName } from './request-body.js';

/*
 * Reads a Responses `response` object (platform.openai.com/docs/api-reference/responses/object;
 * the `openai` SDK's `Response` type in resources/responses/responses.ts): the `output` items,
 * `status` with `incomplete_details`, `usage` with its details, `error` when it failed.
 */

/** The largest error payload kept in `responseBody`. */
const maxErrorChars = 4096;

/**
 * The `ChatResponse` of a finished response object (its `output` may be given apart, as a
 * stream assembled it).
 * @throws {LlmError} `stream_error` for a failed response (the vendor's `code` in the message),
 * `invalid_response` for one that is not a Responses object or did not finish
 */
export function parseResponseObject(body: unknown, output?: readonly JsonValue[]): ChatResponse {
  if (!isRecord(body) || (body.object !== undefined && body.object !== 'response')) {
    throw new LlmError(
      'invalid_response',
      `The server's answer is not a Responses object: ${preview(body)}`,
    );
  }
  if (body.error !== undefined && body.error !== null) throw reportedError(body.error, 'failed');
  const status = typeof body.status === 'string' ? body.status : '';
  if (status === 'failed') throw reportedError({ message: 'status failed' }, 'failed');
  if (status !== 'completed' && status !== 'incomplete') {
    throw new LlmError(
      'invalid_response',
      `The response has status '${status || 'none'}', not completed or incomplete (background responses are not supported): ${preview(body)}`,
    );
  }
  const items = output ?? (Array.isArray(body.output) ? (body.output as JsonValue[]) : []);
  const message = messageOf(items);
  const reasoning = reasoningText(items);
  const usage = usageOf(body.usage);
  return {
    id: typeof body.id === 'string' ? body.id : '',
    model: typeof body.model === 'string' ? body.model : '',
    message,
    finishReason: finishReasonOf(status, body.incomplete_details, message),
    ...(usage === undefined ? {} : { usage }),
    ...(reasoning === undefined ? {} : { reasoning }),
  };
}

/** The assistant message of `output` items; every item kept in `provider_state`, in order. */
export function messageOf(items: readonly JsonValue[]): AssistantMessage {
  let text = '';
  let refusal: string | undefined;
  const calls: ToolCall[] = [];
  for (const item of items) {
    if (!isRecord(item)) continue;
    if (item.type === 'message') {
      text += outputText(item.content as JsonValue);
      refusal = refusalOf(item.content) ?? refusal;
    } else if (item.type === 'function_call') {
      calls.push({
        id: typeof item.call_id === 'string' ? item.call_id : '',
        type: 'function',
        function: {
          name: typeof item.name === 'string' ? item.name : '',
          arguments: typeof item.arguments === 'string' ? item.arguments : '',
        },
      });
    }
  }
  const reasoning = reasoningText(items);
  return {
    role: 'assistant',
    content: text === '' && calls.length > 0 ? null : text,
    ...(calls.length > 0 ? { tool_calls: calls } : {}),
    ...(refusal === undefined ? {} : { refusal }),
    ...(reasoning === undefined ? {} : { reasoning_content: reasoning }),
    ...(items.length > 0 ? { provider_state: { provider: providerName, items } } : {}),
  };
}

function refusalOf(content: unknown): string | undefined {
  if (!Array.isArray(content)) return undefined;
  const part = content.find((entry) => isRecord(entry) && entry.type === 'refusal');
  return isRecord(part) && typeof part.refusal === 'string' ? part.refusal : undefined;
}

/** The reasoning summaries (or reasoning text) of the reasoning items, joined. */
function reasoningText(items: readonly JsonValue[]): string | undefined {
  let text = '';
  for (const item of items) {
    if (!isRecord(item) || item.type !== 'reasoning') continue;
    for (const list of [item.summary, item.content]) {
      if (!Array.isArray(list)) continue;
      for (const part of list)
        if (isRecord(part) && typeof part.text === 'string') text += part.text;
    }
  }
  return text === '' ? undefined : text;
}

/**
 * `completed` → `tool_calls` with calls, else `stop`; `incomplete` → `length` for
 * `max_output_tokens`, `content_filter` for `content_filter`, else the reason as sent.
 */
function finishReasonOf(status: string, details: unknown, message: AssistantMessage): FinishReason {
  if (status === 'completed')
    return message.tool_calls !== undefined && message.tool_calls.length > 0
      ? 'tool_calls'
      : 'stop';
  const reason = isRecord(details) && typeof details.reason === 'string' ? details.reason : '';
  if (reason === 'max_output_tokens') return 'length';
  return reason === '' ? 'unknown' : reason;
}

/** `usage` with `input_tokens_details.cached_tokens` and `output_tokens_details.reasoning_tokens`. */
export function usageOf(value: unknown): Usage | undefined {
  if (!isRecord(value)) return undefined;
  const input = count(value.input_tokens);
  const output = count(value.output_tokens);
  const cached = isRecord(value.input_tokens_details)
    ? count(value.input_tokens_details.cached_tokens)
    : undefined;
  const reasoning = isRecord(value.output_tokens_details)
    ? count(value.output_tokens_details.reasoning_tokens)
    : undefined;
  return {
    promptTokens: input ?? 0,
    completionTokens: output ?? 0,
    totalTokens: count(value.total_tokens) ?? (input ?? 0) + (output ?? 0),
    ...(cached === undefined ? {} : { cacheReadTokens: cached }),
    ...(reasoning === undefined ? {} : { reasoningTokens: reasoning }),
  };
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/**
 * The `stream_error` for an error the server reported (a failed response's `error`, an `error`
 * event): its message, with the vendor's `type` and `code` kept in the message and in
 * `responseBody`.
 */
export function reportedError(error: unknown, when: string): LlmError {
  const record = isRecord(error) ? error : { message: String(error) };
  const message = typeof record.message === 'string' ? record.message : preview(record);
  const tags = ['type', 'code']
    .map((key) => (typeof record[key] === 'string' ? `${key} ${record[key] as string}` : ''))
    .filter((tag) => tag !== '')
    .join(', ');
  return new LlmError(
    'stream_error',
    `The server reported that the response ${when}: ${message}${tags === '' ? '' : ` (${tags})`}`,
    { responseBody: JSON.stringify(record).slice(0, maxErrorChars) },
  );
}

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.slice(0, 300);
}
