/**
 * Builders of Anthropic Messages wire data, for the replies of `startMessagesServer`. Shapes,
 * from the API reference and guides (each rule's source next to it):
 * - a message: `{ id: 'msg_…', type: 'message', role: 'assistant', model, content: [...],
 *   stop_reason, stop_sequence, usage }` (docs.anthropic.com/en/api/messages, "Response");
 * - usage: `input_tokens`, `cache_creation_input_tokens`, `cache_read_input_tokens`,
 *   `output_tokens` (same page; /en/docs/build-with-claude/prompt-caching, "Tracking cache
 *   performance");
 * - a stream: `event: <type>` + `data: <json>` per event; `message_start` (content `[]`,
 *   `stop_reason: null`), `content_block_start` / `content_block_delta` / `content_block_stop`
 *   per block, `ping`, `message_delta` (`stop_reason`, cumulative `usage.output_tokens`),
 *   `message_stop` (/en/docs/build-with-claude/streaming, "Raw HTTP Stream response");
 * - a tool call streams as `content_block_start` with `input: {}` and `input_json_delta`
 *   pieces of `partial_json` (same guide, "Input JSON delta");
 * - thinking streams as `thinking_delta` pieces then one `signature_delta` just before the
 *   block's `content_block_stop` (same guide, "Streaming request with extended thinking");
 * - an error: `{ type: 'error', error: { type, message } }`, as a body or an `error` event
 *   (/en/api/errors).
 */
import type { WireObject } from './wire-format.js';

const model = 'claude-sonnet-4-5-20250929';
let sequence = 0;

/** A fresh id with Anthropic's prefix (`msg_…`, `toolu_…`). */
export function messagesId(prefix: 'msg' | 'toolu'): string {
  sequence++;
  return `${prefix}_01XFDUDYJgAACzvnptvVoYEL${String(sequence).padStart(4, '0')}`;
}

/**
 * The signature the local server gives a thinking text, and checks when the block comes back
 * (a real one is opaque; this one changes when the text or the signature is altered).
 */
export function thinkingSignature(thinking: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < thinking.length; index++) {
    hash ^= thinking.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return `EqQBCkgIARABGAIiQL${hash.toString(36)}`;
}

/** Usage counts of a reply; the cache counts are 0 unless given. */
export interface MessagesUsage {
  readonly input: number;
  readonly output: number;
  readonly cacheRead?: number;
  readonly cacheWrite?: number;
}

/** Usage in Anthropic's shape. */
export function messagesUsage(usage: MessagesUsage): WireObject {
  return {
    input_tokens: usage.input,
    cache_creation_input_tokens: usage.cacheWrite ?? 0,
    cache_read_input_tokens: usage.cacheRead ?? 0,
    output_tokens: usage.output,
  };
}

/** A tool call of a reply: `input` is sent as an object, streamed in `pieces` of its JSON. */
export interface MessagesCall {
  readonly id: string;
  readonly name: string;
  readonly input: WireObject;
  /** How the streamed JSON is cut (default: two pieces). */
  readonly pieces?: readonly string[];
}

/** What one reply holds: thinking, text, tool calls, in that order. */
export interface MessagesReply {
  readonly thinking?: string;
  readonly text?: string;
  readonly calls?: readonly MessagesCall[];
  /** Default `tool_use` with calls, else `end_turn`. */
  readonly stopReason?: string;
  readonly usage?: MessagesUsage;
}

function blocksOf(reply: MessagesReply): WireObject[] {
  const blocks: WireObject[] = [];
  if (reply.thinking !== undefined) {
    blocks.push({
      type: 'thinking',
      thinking: reply.thinking,
      signature: thinkingSignature(reply.thinking),
    });
  }
  if (reply.text !== undefined) blocks.push({ type: 'text', text: reply.text });
  for (const call of reply.calls ?? [])
    blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: call.input });
  return blocks;
}

function stopReasonOf(reply: MessagesReply): string {
  return reply.stopReason ?? ((reply.calls ?? []).length > 0 ? 'tool_use' : 'end_turn');
}

/** A non-streamed message body. */
export function messagesBody(reply: MessagesReply): WireObject {
  return {
    id: messagesId('msg'),
    type: 'message',
    role: 'assistant',
    model,
    content: blocksOf(reply),
    stop_reason: stopReasonOf(reply),
    stop_sequence: null,
    usage: messagesUsage(reply.usage ?? { input: 25, output: 12 }),
  };
}

/** One SSE event as Anthropic writes it: `event: <type>` and its data. */
export function messagesEvent(payload: WireObject & { readonly type: string }): string {
  return `event: ${payload.type}\ndata: ${JSON.stringify(payload)}\n\n`;
}

/** The events of one block (start, deltas, stop) at `index`. */
function blockEvents(block: WireObject, index: number, call?: MessagesCall): string[] {
  const events: string[] = [];
  const delta = (value: WireObject): void => {
    events.push(messagesEvent({ type: 'content_block_delta', index, delta: value }));
  };
  if (block.type === 'thinking') {
    const text = String(block.thinking);
    events.push(
      messagesEvent({
        type: 'content_block_start',
        index,
        content_block: { type: 'thinking', thinking: '', signature: '' },
      }),
    );
    for (const piece of split(text)) delta({ type: 'thinking_delta', thinking: piece });
    delta({ type: 'signature_delta', signature: String(block.signature) });
  } else if (block.type === 'text') {
    const text = String(block.text);
    events.push(
      messagesEvent({
        type: 'content_block_start',
        index,
        content_block: { type: 'text', text: '' },
      }),
    );
    for (const piece of split(text)) delta({ type: 'text_delta', text: piece });
  } else {
    const json = JSON.stringify(block.input);
    events.push(
      messagesEvent({
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
      }),
    );
    const pieces = call?.pieces ?? [json.slice(0, 3), json.slice(3)];
    for (const piece of pieces) delta({ type: 'input_json_delta', partial_json: piece });
  }
  events.push(messagesEvent({ type: 'content_block_stop', index }));
  return events;
}

/** Text cut after each space, as a model streams words. */
function split(text: string): string[] {
  const pieces = text.split(/(?<= )/);
  return pieces.length === 0 ? [''] : pieces;
}

/** A streamed reply: `message_start`, a `ping`, the blocks, `message_delta`, `message_stop`. */
export function messagesStream(reply: MessagesReply): string[] {
  const body = messagesBody(reply);
  const usage = body.usage as WireObject;
  const writes = [
    messagesEvent({
      type: 'message_start',
      message: { ...body, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } },
    }),
    messagesEvent({ type: 'ping' }),
  ];
  const calls = reply.calls ?? [];
  (body.content as WireObject[]).forEach((block, index) => {
    const call = block.type === 'tool_use' ? calls.find((each) => each.id === block.id) : undefined;
    writes.push(...blockEvents(block, index, call));
  });
  writes.push(
    messagesEvent({
      type: 'message_delta',
      delta: { stop_reason: body.stop_reason, stop_sequence: null },
      usage: { output_tokens: usage.output_tokens },
    }),
    messagesEvent({ type: 'message_stop' }),
  );
  return writes;
}

/** Anthropic's error body: `{ type: 'error', error: { type, message } }`. */
export function messagesError(type: string, message: string): WireObject {
  return { type: 'error', error: { type, message } };
}

/** An `error` event, as sent mid-stream (e.g. `overloaded_error`). */
export function messagesErrorEvent(type: string, message: string): string {
  return messagesEvent(messagesError(type, message) as WireObject & { type: string });
}
