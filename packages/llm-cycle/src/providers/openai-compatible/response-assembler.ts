import type { Redactor } from '@agcore/tools-core';
import type { ChatResponse, Usage } from '../../chat-provider.js';
import type { AssistantMessage, ToolCall } from '../../messages.js';
import { finishReasonOf, noteReasoningContent } from './dialects.js';

interface PartialCall {
  id: string;
  name: string;
  arguments: string;
}

const keep: Redactor = (text) => text;

/**
 * Builds a `ChatResponse` from streamed deltas: text and reasoning joined, tool calls assembled
 * in a dense list in order of first appearance, finish reason and usage kept. Per-delta work is
 * a string append. Where a delta goes (`addToolCallDelta`):
 * - with an `index`: to the call that index names, unless it brings a new non-empty id while
 *   that call already has another: then it starts a new call (Ollama 0.20.x and some Gemini
 *   bridges send every call with `index: 0` and distinct ids);
 * - without an index, with an id: to the last call if it has that id (or none), else a new call;
 * - with neither: to the last call, unless it names a tool and the last call is complete (named,
 *   with arguments that parse) or names another tool: servers that send one whole call per
 *   chunk without index or id.
 */
export class ResponseAssembler {
  /** The server's completion id (`''` until one is seen). */
  id = '';
  /** The model that answered (`''` until one is seen). */
  model = '';
  /** The last `finish_reason` seen. */
  finishReason: string | undefined;
  /** The last usage seen. */
  usage: Usage | undefined;
  /** Whether reasoning came in DeepSeek's `reasoning_content` field (see `followsDeepSeekRule`). */
  reasoningContent = false;
  #text = '';
  #reasoning = '';
  #refusal: string | undefined;
  readonly #calls: PartialCall[] = [];
  /** Wire index → position of the call it currently names. */
  readonly #positions = new Map<number, number>();
  #last = -1;

  /** Adds a piece of the assistant's text. */
  addText(text: string): void {
    this.#text += text;
  }

  /** Adds a piece of the model's reasoning. */
  addReasoning(text: string): void {
    this.#reasoning += text;
  }

  /** Adds a piece of a refusal. */
  addRefusal(text: string): void {
    this.#refusal = (this.#refusal ?? '') + text;
  }

  /**
   * Adds a piece of a tool call (`index` already validated, see `toolCallIndex`) and returns
   * the position of the call it was filed under in the assembled message.
   */
  addToolCallDelta(
    index: number | undefined,
    id: string | undefined,
    name: string | undefined,
    argumentsDelta: string,
  ): number {
    const position = this.#positionOf(index, id, name);
    const call = this.#calls[position] as PartialCall;
    if (id !== undefined && call.id === '') call.id = id;
    if (name !== undefined && call.name === '') call.name = name;
    if (argumentsDelta !== '') call.arguments += argumentsDelta;
    this.#last = position;
    return position;
  }

  /** Whether any tool call was seen. */
  hasToolCalls(): boolean {
    return this.#calls.length > 0;
  }

  /**
   * The assembled response, its strings passed through `redact`. Calls without an id get
   * `call_<uuid>`; an id repeated within the turn gets a suffix (`_2`, `_3`, …) so that each
   * tool message answers one call. Never throws.
   */
  finish(redact: Redactor = keep): ChatResponse {
    const toolCalls = uniqueCalls(this.#calls, redact);
    const text = redact(this.#text);
    const reasoning = this.#reasoning === '' ? undefined : redact(this.#reasoning);
    const message: AssistantMessage = {
      role: 'assistant',
      content: text === '' && toolCalls.length > 0 ? null : text,
      ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
      ...(this.#refusal === undefined ? {} : { refusal: redact(this.#refusal) }),
      ...(reasoning === undefined ? {} : { reasoning_content: reasoning }),
    };
    if (this.reasoningContent) noteReasoningContent(message);
    return {
      id: redact(this.id),
      model: redact(this.model),
      message,
      finishReason: finishReasonOf(this.finishReason, toolCalls.length > 0),
      ...(this.usage === undefined ? {} : { usage: this.usage }),
      ...(reasoning === undefined ? {} : { reasoning }),
    };
  }

  #positionOf(index: number | undefined, id: string | undefined, name: string | undefined): number {
    if (index !== undefined) {
      const known = this.#positions.get(index);
      if (known !== undefined) {
        const current = (this.#calls[known] as PartialCall).id;
        if (id === undefined || current === '' || current === id) return known;
      }
      const position = this.#open();
      this.#positions.set(index, position);
      return position;
    }
    const last = this.#calls[this.#last];
    if (last === undefined) return this.#open();
    if (id !== undefined) return last.id === '' || last.id === id ? this.#last : this.#open();
    if (name !== undefined && last.name !== '' && (name !== last.name || parses(last.arguments)))
      return this.#open();
    return this.#last;
  }

  #open(): number {
    this.#calls.push({ id: '', name: '', arguments: '' });
    return this.#calls.length - 1;
  }
}

/** A fresh call id, for calls the server sent without one. */
export function generatedCallId(): string {
  return `call_${globalThis.crypto.randomUUID().replaceAll('-', '')}`;
}

/**
 * The calls with ids made present and unique within the turn: a missing id is generated, a
 * repeated one gets the first free suffix `_2`, `_3`, …
 */
export function uniqueCalls(
  calls: readonly { id: string; name: string; arguments: string }[],
  redact: Redactor = keep,
): ToolCall[] {
  const seen = new Set<string>();
  const result: ToolCall[] = [];
  for (const call of calls) {
    let id = call.id === '' ? generatedCallId() : redact(call.id);
    if (seen.has(id)) {
      let suffix = 2;
      while (seen.has(`${id}_${suffix}`)) suffix++;
      id = `${id}_${suffix}`;
    }
    seen.add(id);
    result.push({
      id,
      type: 'function',
      function: { name: redact(call.name), arguments: redact(call.arguments) },
    });
  }
  return result;
}

function parses(text: string): boolean {
  if (text.trim() === '') return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
