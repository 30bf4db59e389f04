import type { ChatResponse, FinishReason, Usage } from './chat-provider.js';
import type { AssistantMessage, ToolCall } from './messages.js';

interface PartialToolCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * Builds a `ChatResponse` from streamed deltas: text pieces joined, tool calls assembled by
 * `index` (id and name once, arguments in pieces, calls interleaved), finish reason and usage
 * kept. Per-delta work is a string append.
 */
export class ResponseAssembler {
  id = '';
  model = '';
  finishReason: FinishReason | undefined;
  usage: Usage | undefined;
  #text = '';
  #refusal: string | undefined;
  readonly #calls: PartialToolCall[] = [];
  #lastIndex = -1;

  /** Adds a piece of the assistant's text. */
  addText(text: string): void {
    this.#text += text;
  }

  /** Adds a piece of a refusal. */
  addRefusal(text: string): void {
    this.#refusal = (this.#refusal ?? '') + text;
  }

  /**
   * Adds a piece of a tool call and returns the index it was filed under. A delta without an
   * index goes to the last call, or to a new one when it brings a new id.
   */
  addToolCallDelta(
    index: number | undefined,
    id: string | undefined,
    name: string | undefined,
    argumentsDelta: string,
  ): number {
    let at = index;
    if (at === undefined) {
      const last = this.#calls[this.#lastIndex];
      at =
        last === undefined || (id !== undefined && id !== '' && last.id !== '' && id !== last.id)
          ? this.#lastIndex + 1
          : this.#lastIndex;
    }
    let call = this.#calls[at];
    if (call === undefined) {
      call = { id: '', name: '', arguments: '' };
      this.#calls[at] = call;
    }
    if (id !== undefined && id !== '' && call.id === '') call.id = id;
    if (name !== undefined && name !== '' && call.name === '') call.name = name;
    if (argumentsDelta !== '') call.arguments += argumentsDelta;
    if (at > this.#lastIndex) this.#lastIndex = at;
    return at;
  }

  /** Whether any tool call was seen. */
  hasToolCalls(): boolean {
    return this.#lastIndex >= 0;
  }

  /** The assembled response. Tool calls without an id get a generated one. Never throws. */
  finish(): ChatResponse {
    const toolCalls: ToolCall[] = [];
    for (const call of this.#calls) {
      if (call === undefined) continue;
      toolCalls.push({
        id: call.id === '' ? `call_${globalThis.crypto.randomUUID().replaceAll('-', '')}` : call.id,
        type: 'function',
        function: { name: call.name, arguments: call.arguments },
      });
    }
    const message: AssistantMessage = {
      role: 'assistant',
      content: this.#text === '' && toolCalls.length > 0 ? null : this.#text,
      ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
      ...(this.#refusal === undefined ? {} : { refusal: this.#refusal }),
    };
    return {
      id: this.id,
      model: this.model,
      message,
      finishReason: this.finishReason ?? 'unknown',
      ...(this.usage === undefined ? {} : { usage: this.usage }),
    };
  }
}
