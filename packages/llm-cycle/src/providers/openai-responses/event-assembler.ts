import type { JsonValue } from '@agcore/tools-core';
import type { ChatChunk, ChatResponse } from '../../chat-provider.js';
import { LlmError } from '../../llm-error.js';
import type { Endpoint } from '../http/endpoint.js';
import { eventJson, isRecord } from '../http/wire.js';
import type { WireStream } from '../http/wire-format.js';
import { parseResponseObject, reportedError } from './response-object.js';

/*
 * The streamed events of platform.openai.com/docs/api-reference/responses-streaming, as the
 * `openai` SDK's `ResponseStreamEvent` union names them. Each event's JSON carries its `type`;
 * the stream ends with `response.completed`, `response.incomplete` or `response.failed` (no
 * `[DONE]`), or with an `error` event.
 */

/** One output item being streamed: its final form, or what `added` and the deltas made of it. */
interface PartialItem {
  item: Record<string, JsonValue>;
  arguments: string;
  /** Its position among the message's tool calls (function calls only). */
  callPosition: number;
  done: boolean;
}

/**
 * Turns events into chunks and assembles the answer: `response.output_text.delta` →
 * `assistant_text_delta`, `response.reasoning_summary_text.delta` (and `reasoning_text.delta`)
 * → `assistant_reasoning_delta`, a `function_call` item's `output_item.added` and its
 * `function_call_arguments.delta`s → `tool_call_delta` (the call's position among the
 * message's calls as `index`). The terminal event's `response` gives status and usage; its
 * `output`, when empty, is the items the stream delivered (`output_item.done`).
 */
export class EventAssembler implements WireStream {
  /** Whether the terminal event came. */
  finished = false;
  readonly #endpoint: Endpoint;
  #response: ChatResponse | undefined;
  readonly #items = new Map<number, PartialItem>();
  #calls = 0;

  /** Assembles an answer of `endpoint` (whose secrets are taken out of every event). */
  constructor(endpoint: Endpoint) {
    this.#endpoint = endpoint;
  }

  /**
   * Applies one event's data, redacted, pushing its chunks on `batch`.
   * @throws {LlmError} `stream_error` for `error` and `response.failed`, `invalid_response`
   * for data that is not JSON
   */
  event(data: string, batch: ChatChunk[]): void {
    const event = eventJson(data, this.#endpoint);
    if (isRecord(event)) this.#dispatch(event, batch);
  }

  #dispatch(event: Record<string, unknown>, batch: ChatChunk[]): void {
    switch (event.type) {
      case 'response.output_text.delta':
        if (typeof event.delta === 'string' && event.delta !== '')
          batch.push({ type: 'assistant_text_delta', text: event.delta });
        return;
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
        if (typeof event.delta === 'string' && event.delta !== '')
          batch.push({ type: 'assistant_reasoning_delta', text: event.delta });
        return;
      case 'response.output_item.added':
        this.#added(event, batch);
        return;
      case 'response.function_call_arguments.delta':
        this.#argumentsDelta(event, batch);
        return;
      case 'response.output_item.done':
        this.#done(event);
        return;
      case 'response.completed':
      case 'response.incomplete':
        this.#finish(event.response);
        return;
      case 'response.failed':
        throw reportedError(
          isRecord(event.response) && event.response.error != null
            ? event.response.error
            : { message: 'no error was given' },
          'failed mid-stream',
        );
      case 'error':
        // The reference's shape is flat (`code`, `message`, `param`); some proxies nest `error`.
        throw reportedError(isRecord(event.error) ? event.error : event, 'failed mid-stream');
      default:
      // response.created, in_progress, content_part.*, output_text.done, …: nothing to pass on.
    }
  }

  #added(event: Record<string, unknown>, batch: ChatChunk[]): void {
    const index = outputIndex(event);
    if (index === undefined || !isRecord(event.item)) return;
    const item = event.item as Record<string, JsonValue>;
    const partial: PartialItem = {
      item,
      arguments: typeof item.arguments === 'string' ? item.arguments : '',
      callPosition: -1,
      done: false,
    };
    this.#items.set(index, partial);
    if (item.type !== 'function_call') return;
    partial.callPosition = this.#calls++;
    batch.push({
      type: 'tool_call_delta',
      index: partial.callPosition,
      ...(typeof item.call_id === 'string' ? { callId: item.call_id } : {}),
      ...(typeof item.name === 'string' ? { toolName: item.name } : {}),
      argumentsDelta: partial.arguments,
    });
  }

  #argumentsDelta(event: Record<string, unknown>, batch: ChatChunk[]): void {
    const index = outputIndex(event);
    const partial = index === undefined ? undefined : this.#items.get(index);
    if (partial === undefined || partial.callPosition < 0 || typeof event.delta !== 'string')
      return;
    partial.arguments += event.delta;
    if (event.delta !== '')
      batch.push({
        type: 'tool_call_delta',
        index: partial.callPosition,
        argumentsDelta: event.delta,
      });
  }

  #done(event: Record<string, unknown>): void {
    const index = outputIndex(event);
    if (index === undefined || !isRecord(event.item)) return;
    const previous = this.#items.get(index);
    this.#items.set(index, {
      item: event.item as Record<string, JsonValue>,
      arguments: '',
      callPosition: previous?.callPosition ?? -1,
      done: true,
    });
  }

  #finish(response: unknown): void {
    this.finished = true;
    const sent = isRecord(response) && Array.isArray(response.output) ? response.output : [];
    this.#response = parseResponseObject(
      response,
      sent.length > 0 ? (sent as JsonValue[]) : this.#streamedItems(),
    );
  }

  /** The items the stream delivered, in output order (an item never `done`: as assembled). */
  #streamedItems(): JsonValue[] {
    return [...this.#items.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, partial]) =>
        partial.done || partial.item.type !== 'function_call'
          ? partial.item
          : { ...partial.item, arguments: partial.arguments },
      );
  }

  /** The assembled answer. @throws {LlmError} `invalid_response` before the terminal event */
  finish(): ChatResponse {
    if (this.#response === undefined) {
      throw new LlmError(
        'invalid_response',
        `The stream from ${this.#endpoint.shown} ended before the response finished (no response.completed, response.incomplete or response.failed); the answer is incomplete.`,
      );
    }
    return this.#response;
  }
}

function outputIndex(event: Record<string, unknown>): number | undefined {
  const index = event.output_index;
  return typeof index === 'number' && Number.isInteger(index) && index >= 0 ? index : undefined;
}
