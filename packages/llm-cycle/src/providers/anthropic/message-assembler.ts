/**
 * An Anthropic message, whole or streamed, as a neutral `ChatResponse`. Rules, from the API
 * reference (docs.anthropic.com/en/api/messages, "Response"; /en/docs/build-with-claude/streaming):
 * - `content` is a list of blocks: `text`, `tool_use` (`id`, `name`, `input`), `thinking`
 *   (`thinking`, `signature`), `redacted_thinking` (`data`); other block types are skipped;
 * - `stop_reason`: `end_turn`, `stop_sequence`, `max_tokens`, `tool_use`, `pause_turn`,
 *   `refusal` (normalized by `finishReasonOf`);
 * - `usage.input_tokens` leaves out the tokens read from or written to the prompt cache
 *   (`cache_read_input_tokens`, `cache_creation_input_tokens`): the neutral `promptTokens` is
 *   their sum, as OpenAI's `prompt_tokens` includes its `cached_tokens`;
 * - streamed, `message_delta.usage` is cumulative (streaming guide, "Event types").
 */
import type { JsonValue } from '@agcore/tools-core';
import type { ChatChunk, ChatResponse, Usage } from '../../chat-provider.js';
import { LlmError } from '../../llm-error.js';
import type { AssistantMessage, ToolCall } from '../../messages.js';
import { anthropicState } from './request-body.js';

type Wire = Record<string, unknown>;

/** A content block being assembled. */
interface OpenBlock {
  readonly type: string;
  /** The block as it started (thinking blocks are kept whole). */
  readonly start: Wire;
  text: string;
  signature: string;
  /** For `tool_use`: its position among the message's calls. */
  readonly call: number;
}

/**
 * `stop_reason` as a neutral finish reason: `tool_use` → `tool_calls` (only when the message
 * has a call), `end_turn`/`stop_sequence` → `stop`, `max_tokens` → `length`, `refusal` →
 * `content_filter`, none → `unknown`; any other (`pause_turn`, a new one) as it is.
 */
export function finishReasonOf(stopReason: unknown, hasCalls: boolean): string {
  switch (stopReason) {
    case 'tool_use':
      return hasCalls ? 'tool_calls' : 'stop';
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'max_tokens':
      return 'length';
    case 'refusal':
      return 'content_filter';
    default:
      return typeof stopReason === 'string' && stopReason !== '' ? stopReason : 'unknown';
  }
}

/**
 * Builds the response from blocks (`addBlock` for a whole message, the `start`/`delta`/`stop`
 * methods for a stream), pushing the loop's chunks for what streams in.
 */
export class MessageAssembler {
  id = '';
  model = '';
  stopReason: unknown;
  #usage: Wire = {};
  readonly #blocks = new Map<number, OpenBlock | 'skipped'>();
  readonly #done: OpenBlock[] = [];
  #calls = 0;

  /** Takes `message_start.message` (or a whole message's top-level fields). */
  begin(message: Wire): void {
    if (typeof message.id === 'string') this.id = message.id;
    if (typeof message.model === 'string') this.model = message.model;
    if (message.stop_reason !== undefined && message.stop_reason !== null)
      this.stopReason = message.stop_reason;
    this.addUsage(message.usage);
  }

  /** Merges a usage object (later counts replace earlier ones). */
  addUsage(usage: unknown): void {
    if (isWire(usage)) this.#usage = { ...this.#usage, ...usage };
  }

  /** A whole block of a non-streamed message. */
  addBlock(block: Wire): void {
    const open = this.#open(block);
    if (open === undefined) return;
    if (open.type === 'tool_use') open.text = JSON.stringify(block.input ?? {});
    this.#done.push(open);
  }

  /** `content_block_start`; pushes the first chunk of a call (its id and name). */
  start(index: number, block: Wire, out: ChatChunk[]): void {
    const open = this.#open(block);
    if (open === undefined) {
      // A block type the loop has no use for (server tools, documents): its deltas are skipped.
      this.#blocks.set(index, 'skipped');
      return;
    }
    this.#blocks.set(index, open);
    this.#done.push(open);
    if (open.type === 'tool_use') {
      out.push({
        type: 'tool_call_delta',
        index: open.call,
        callId: String(block.id ?? ''),
        toolName: String(block.name ?? ''),
        argumentsDelta: '',
      });
    } else if (open.text !== '') out.push(textChunk(open.type, open.text));
  }

  /** `content_block_delta`; a delta for a block that never started is `invalid_response`. */
  delta(index: number, delta: Wire, out: ChatChunk[]): void {
    const open = this.#blocks.get(index);
    if (open === undefined) {
      throw new LlmError(
        'invalid_response',
        `The Messages stream sent a content_block_delta for block ${index}, which never started.`,
      );
    }
    if (open === 'skipped') return;
    const piece = deltaText(delta);
    if (delta.type === 'signature_delta') {
      open.signature += piece;
      return;
    }
    if (piece === '') return;
    open.text += piece;
    if (open.type === 'tool_use')
      out.push({ type: 'tool_call_delta', index: open.call, argumentsDelta: piece });
    else if (open.type === 'text' || open.type === 'thinking')
      out.push(textChunk(open.type, piece));
  }

  /** `content_block_stop`. */
  stop(index: number): void {
    this.#blocks.delete(index);
  }

  /** The assembled response. */
  finish(): ChatResponse {
    let text = '';
    let reasoning = '';
    const calls: ToolCall[] = [];
    const state: JsonValue[] = [];
    for (const block of this.#done) {
      if (block.type === 'text') text += block.text;
      else if (block.type === 'tool_use') {
        calls.push({
          id: String(block.start.id ?? ''),
          type: 'function',
          function: { name: String(block.start.name ?? ''), arguments: block.text || '{}' },
        });
      } else if (block.type === 'thinking') {
        reasoning += block.text;
        state.push({
          ...(block.start as Record<string, JsonValue>),
          thinking: block.text,
          signature: block.signature,
        });
      } else state.push(block.start as Record<string, JsonValue>);
    }
    const message: AssistantMessage = {
      role: 'assistant',
      content: text === '' && calls.length > 0 ? null : text,
      ...(calls.length > 0 ? { tool_calls: calls } : {}),
      ...(reasoning === '' ? {} : { reasoning_content: reasoning }),
      ...(state.length > 0 ? { provider_state: { provider: anthropicState, items: state } } : {}),
    };
    const usage = usageOf(this.#usage);
    return {
      id: this.id,
      model: this.model,
      message,
      finishReason: finishReasonOf(this.stopReason, calls.length > 0),
      ...(usage === undefined ? {} : { usage }),
      ...(reasoning === '' ? {} : { reasoning }),
    };
  }

  #open(block: Wire): OpenBlock | undefined {
    const type = block.type;
    if (
      type !== 'text' &&
      type !== 'tool_use' &&
      type !== 'thinking' &&
      type !== 'redacted_thinking'
    )
      return undefined;
    const initial = type === 'text' ? block.text : type === 'thinking' ? block.thinking : '';
    return {
      type,
      start: block,
      text: typeof initial === 'string' ? initial : '',
      signature: typeof block.signature === 'string' ? block.signature : '',
      call: type === 'tool_use' ? this.#calls++ : -1,
    };
  }
}

/** The text a delta carries, whatever its kind. */
function deltaText(delta: Wire): string {
  const value =
    delta.type === 'text_delta'
      ? delta.text
      : delta.type === 'input_json_delta'
        ? delta.partial_json
        : delta.type === 'thinking_delta'
          ? delta.thinking
          : delta.type === 'signature_delta'
            ? delta.signature
            : '';
  return typeof value === 'string' ? value : '';
}

function textChunk(type: string, text: string): ChatChunk {
  return type === 'thinking'
    ? { type: 'assistant_reasoning_delta', text }
    : { type: 'assistant_text_delta', text };
}

/** The neutral usage, when the message reported any token count. */
export function usageOf(usage: Wire): Usage | undefined {
  const count = (name: string): number | undefined => {
    const value = usage[name];
    return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
  };
  const input = count('input_tokens');
  const output = count('output_tokens');
  if (input === undefined && output === undefined) return undefined;
  const read = count('cache_read_input_tokens');
  const write = count('cache_creation_input_tokens');
  const prompt = (input ?? 0) + (read ?? 0) + (write ?? 0);
  return {
    promptTokens: prompt,
    completionTokens: output ?? 0,
    totalTokens: prompt + (output ?? 0),
    ...(read === undefined ? {} : { cacheReadTokens: read }),
    ...(write === undefined ? {} : { cacheWriteTokens: write }),
  };
}

/** Whether `value` is a JSON object. */
export function isWire(value: unknown): value is Wire {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
