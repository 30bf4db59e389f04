/**
 * The floors of the cycle bench: hand-written tool loops over `fetch`, no validation, no
 * retries; non-streaming, and streaming (split on blank lines, `JSON.parse` each data line).
 */
import { toolFunctions, type WireCall, type WireMessage } from './conversation.js';

/** The first two messages of every conversation. */
function opening(): WireMessage[] {
  return [
    { role: 'system', content: 'You are a helpful assistant.' },
    { role: 'user', content: 'Plan my trip.' },
  ];
}

/** Runs `calls` in parallel and appends their tool messages in call order. */
async function answerCalls(messages: WireMessage[], calls: readonly WireCall[]): Promise<void> {
  const results = await Promise.all(
    calls.map(async (call) =>
      toolFunctions[call.function.name]?.(JSON.parse(call.function.arguments || '{}')),
    ),
  );
  calls.forEach((call, index) => {
    messages.push({
      role: 'tool',
      tool_call_id: call.id,
      content: JSON.stringify(results[index]),
    });
  });
}

/** The floor: a hand-written non-streaming loop over fetch, no validation, no retries. */
export async function bareLoop(baseURL: string, definitions: unknown): Promise<number> {
  const messages = opening();
  for (;;) {
    const response = await fetch(`${baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages, tools: definitions }),
    });
    const body = (await response.json()) as { choices: { message: WireMessage }[] };
    const message = body.choices[0]?.message as WireMessage;
    messages.push(message);
    if (message.tool_calls === undefined || message.tool_calls.length === 0) return 0;
    await answerCalls(messages, message.tool_calls);
  }
}

/** Options of `bareSseLoop`. */
export interface BareSseOptions {
  /** The model (default `gpt-4o-mini`; `longModel` asks for the long reply). */
  model?: string;
  fetch?: typeof fetch;
  /** Called with each non-empty text delta. */
  onText?: (text: string) => void;
}

/** The floor for streaming: a hand-written SSE loop (split on blank lines, JSON.parse each data line). */
export async function bareSseLoop(
  baseURL: string,
  definitions: unknown,
  options: BareSseOptions = {},
): Promise<number> {
  const fetchImpl = options.fetch ?? fetch;
  const messages = opening();
  let events = 0;
  for (;;) {
    const response = await fetchImpl(`${baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench' },
      body: JSON.stringify({
        model: options.model ?? 'gpt-4o-mini',
        messages,
        tools: definitions,
        stream: true,
        stream_options: { include_usage: true },
      }),
    });
    const turn = await readSseTurn(response, options.onText);
    events += turn.events;
    const { content, calls } = turn;
    const message: WireMessage = {
      role: 'assistant',
      content: calls.length > 0 && content === '' ? null : content,
    };
    if (calls.length > 0) message.tool_calls = calls;
    messages.push(message);
    if (calls.length === 0) return events;
    await answerCalls(messages, calls);
  }
}

/** One streamed answer: its text, its tool calls, and how many deltas it had. */
interface SseTurn {
  content: string;
  calls: WireCall[];
  events: number;
}

/** A chunk of the stream, as far as the bare loop reads it. */
interface WireChunk {
  choices: {
    delta: {
      content?: string | null;
      tool_calls?: {
        index: number;
        id?: string;
        function?: { name?: string; arguments?: string };
      }[];
    };
  }[];
}

/** Reads one streamed answer to the end of the response (after `[DONE]`, so the connection is reused). */
async function readSseTurn(
  response: Response,
  onText: ((text: string) => void) | undefined,
): Promise<SseTurn> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const turn: SseTurn = { content: '', calls: [], events: 0 };
  let buffer = '';
  let done = false;
  for (;;) {
    const read = await reader.read();
    if (read.done) break;
    buffer += decoder.decode(read.value, { stream: true });
    let end = buffer.indexOf('\n\n');
    while (end !== -1) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf('\n\n');
      if (!line.startsWith('data: ')) continue;
      const data = line.slice(6);
      if (data === '[DONE]') {
        // Read on to the end of the response (it follows at once) so the connection is reused.
        done = true;
        continue;
      }
      addDelta(turn, JSON.parse(data) as WireChunk, onText);
    }
  }
  if (!done) throw new Error('stream ended without [DONE]');
  return turn;
}

/** Adds the delta of `chunk` (text, pieces of tool calls) to `turn`. */
function addDelta(
  turn: SseTurn,
  chunk: WireChunk,
  onText: ((text: string) => void) | undefined,
): void {
  const delta = chunk.choices[0]?.delta;
  if (delta === undefined) return;
  turn.events++;
  if (typeof delta.content === 'string') {
    turn.content += delta.content;
    if (delta.content !== '') onText?.(delta.content);
  }
  for (const piece of delta.tool_calls ?? []) {
    let call = turn.calls[piece.index];
    if (call === undefined) {
      call = {
        id: piece.id ?? '',
        type: 'function',
        function: { name: piece.function?.name ?? '', arguments: '' },
      };
      turn.calls[piece.index] = call;
    }
    call.function.arguments += piece.function?.arguments ?? '';
  }
}
