import { truncateUtf8 } from '@agcore/tools-core';
import type { ChatMessage, ToolMessage } from '../messages.js';
import type { ResolvedClearing } from './budget-options.js';
import { readResultCall } from './head-tail.js';

const handlePattern = /read_result\(\{"handle":("(?:[^"\\]|\\.)*")\}\)/;

/**
 * `clearOldResults`: what a request sends of a history. A tool message followed by at least
 * `keepTurns` assistant messages (the model used it that often) goes as its head and a short
 * marker, which keeps the `read_result` handle of a spilled result. Only the content changes:
 * every tool message keeps its `tool_call_id` and place, so each assistant tool call keeps its
 * answer and the history stays valid for every provider. The cycle's own history is not
 * changed. Cleared messages are cached per message, so each costs one cut in its life.
 */
export class ResultClearing {
  readonly #cleared = new WeakMap<ToolMessage, ToolMessage>();

  constructor(private readonly clearing: ResolvedClearing) {}

  /** `messages` with the old results cleared (the same array when nothing is old enough). */
  apply(messages: readonly ChatMessage[]): readonly ChatMessage[] {
    const { keepTurns } = this.clearing;
    let turnsAfter = 0;
    let out: ChatMessage[] | undefined;
    for (let index = messages.length - 1; index >= 0; index--) {
      const message = messages[index] as ChatMessage;
      if (message.role === 'assistant') turnsAfter++;
      if (message.role !== 'tool' || turnsAfter < keepTurns) continue;
      const cleared = this.#clear(message);
      if (cleared === message) continue;
      out ??= [...messages];
      out[index] = cleared;
    }
    return out ?? messages;
  }

  #clear(message: ToolMessage): ToolMessage {
    const known = this.#cleared.get(message);
    if (known !== undefined) return known;
    const { headBytes } = this.clearing;
    const head = truncateUtf8(message.content, headBytes + 64);
    let cleared = message;
    if (head.truncated) {
      const found = handlePattern.exec(message.content)?.[1];
      const handle = found === undefined ? undefined : (JSON.parse(found) as string);
      const how = handle === undefined ? '' : `; ${readResultCall(handle)} reads it whole`;
      cleared = { ...message, content: `${head.text}\n…[an older result, cleared${how}]` };
    }
    this.#cleared.set(message, cleared);
    return cleared;
  }
}
