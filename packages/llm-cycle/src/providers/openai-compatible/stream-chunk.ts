import type { Redactor } from '@agcore/tools-core';
import type { ChatChunk, ChatResponse } from '../../chat-provider.js';
import { LlmError } from '../../llm-error.js';
import type { Endpoint } from '../http/endpoint.js';
import { errorMessageOf, isRecord, maxBodyChars } from '../http/wire.js';
import type { WireStream } from '../http/wire-format.js';
import {
  argumentsOf,
  contentOf,
  hasReasoningContent,
  reasoningOf,
  toolCallIndex,
  usageOf,
} from './dialects.js';
import { ResponseAssembler } from './response-assembler.js';

/**
 * A streamed Chat Completions answer: each `data` chunk applied to the assembler; `data:
 * [DONE]` ends it, whatever follows, and so does the end of the body after a `finish_reason`
 * (some servers end so).
 */
export class ChatCompletionsStream implements WireStream {
  finished = false;
  readonly #assembler = new ResponseAssembler();
  readonly #endpoint: Endpoint;

  constructor(endpoint: Endpoint) {
    this.#endpoint = endpoint;
  }

  event(data: string, batch: ChatChunk[]): void {
    if (data === '[DONE]') this.finished = true;
    else applyStreamData(data, this.#assembler, batch, this.#endpoint.redact);
  }

  finish(): ChatResponse {
    if (!this.finished && this.#assembler.finishReason === undefined) {
      throw new LlmError(
        'invalid_response',
        `The stream from ${this.#endpoint.shown} ended before the model finished (no finish_reason and no [DONE]); the answer is incomplete.`,
      );
    }
    return this.#assembler.finish(this.#endpoint.redact);
  }
}

/**
 * Applies one SSE `data` payload to `assembler` and appends the chunks it makes (maybe none) to
 * `batch`. Only `choices[0]` is read. Every string taken from the payload (text, reasoning,
 * tool-call pieces, and the text quoted in errors) goes through `scrub`, after JSON decoding,
 * so a secret is caught however the server escaped it.
 * @throws {LlmError} `invalid_response` (not a JSON object, a bad tool-call index),
 * `stream_error` (the server reported an error inside the stream)
 */
export function applyStreamData(
  data: string,
  assembler: ResponseAssembler,
  batch: ChatChunk[],
  scrub: Redactor,
): void {
  if (data === '') return;
  let chunk: unknown;
  try {
    chunk = JSON.parse(data);
  } catch (error) {
    if (data.trim() === '') return;
    throw new LlmError(
      'invalid_response',
      `The stream sent a data line that is not JSON: ${scrub(data).slice(0, 200)}`,
      { cause: scrub(data) === data ? error : new SyntaxError('The data line is not JSON.') },
    );
  }
  if (!isRecord(chunk)) {
    throw new LlmError(
      'invalid_response',
      `The stream sent a chunk that is not an object: ${scrub(data).slice(0, 200)}`,
    );
  }
  if (chunk.error !== undefined && chunk.error !== null) {
    throw new LlmError(
      'stream_error',
      `The server reported an error mid-stream: ${scrub(errorMessageOf(chunk.error))}`,
      { responseBody: scrub(data).slice(0, maxBodyChars) },
    );
  }
  if (assembler.id === '' && typeof chunk.id === 'string') assembler.id = chunk.id;
  if (assembler.model === '' && typeof chunk.model === 'string') assembler.model = chunk.model;
  const choices = chunk.choices;
  const choice: unknown = Array.isArray(choices) ? choices[0] : undefined;
  const usage = usageOf(chunk, choice);
  if (usage !== undefined) assembler.usage = usage;
  if (!isRecord(choice)) return;
  if (typeof choice.finish_reason === 'string' && choice.finish_reason !== '')
    assembler.finishReason = choice.finish_reason;
  const delta = choice.delta;
  if (isRecord(delta)) applyDelta(delta, assembler, batch, scrub);
}

function applyDelta(
  delta: Record<string, unknown>,
  assembler: ResponseAssembler,
  batch: ChatChunk[],
  scrub: Redactor,
): void {
  const reasoning = reasoningOf(delta);
  if (reasoning !== undefined) addReasoning(scrub(reasoning), assembler, batch);
  if (hasReasoningContent(delta)) assembler.reasoningContent = true;
  const content = delta.content;
  if (typeof content === 'string') {
    if (content !== '') addText(scrub(content), assembler, batch);
  } else if (Array.isArray(content)) {
    const parts = contentOf(content);
    if (parts !== undefined && parts.reasoning !== '')
      addReasoning(scrub(parts.reasoning), assembler, batch);
    if (parts !== undefined && parts.text !== '') addText(scrub(parts.text), assembler, batch);
  }
  if (typeof delta.refusal === 'string' && delta.refusal !== '')
    assembler.addRefusal(scrub(delta.refusal));
  const toolCalls = delta.tool_calls;
  if (Array.isArray(toolCalls)) {
    for (const item of toolCalls) {
      if (isRecord(item)) applyToolCall(item, assembler, batch, scrub);
    }
  }
}

function addText(text: string, assembler: ResponseAssembler, batch: ChatChunk[]): void {
  assembler.addText(text);
  batch.push({ type: 'assistant_text_delta', text });
}

function addReasoning(text: string, assembler: ResponseAssembler, batch: ChatChunk[]): void {
  assembler.addReasoning(text);
  batch.push({ type: 'assistant_reasoning_delta', text });
}

function applyToolCall(
  item: Record<string, unknown>,
  assembler: ResponseAssembler,
  batch: ChatChunk[],
  scrub: Redactor,
): void {
  const fn = isRecord(item.function) ? item.function : undefined;
  const id = typeof item.id === 'string' && item.id !== '' ? scrub(item.id) : undefined;
  const name = typeof fn?.name === 'string' && fn.name !== '' ? scrub(fn.name) : undefined;
  const argumentsDelta = scrub(argumentsOf(fn?.arguments));
  const index = assembler.addToolCallDelta(toolCallIndex(item.index), id, name, argumentsDelta);
  batch.push(toolCallDelta(index, id, name, argumentsDelta));
}

/**
 * The `tool_call_delta` chunk, its keys in the order they always had. Built by literal, not by
 * spreading empty objects: this runs per streamed piece of every tool call, and each spread
 * allocated and copied an object (see the performance section of the README).
 */
function toolCallDelta(
  index: number,
  callId: string | undefined,
  toolName: string | undefined,
  argumentsDelta: string,
): ChatChunk {
  if (callId === undefined) {
    return toolName === undefined
      ? { type: 'tool_call_delta', index, argumentsDelta }
      : { type: 'tool_call_delta', index, toolName, argumentsDelta };
  }
  return toolName === undefined
    ? { type: 'tool_call_delta', index, callId, argumentsDelta }
    : { type: 'tool_call_delta', index, callId, toolName, argumentsDelta };
}
