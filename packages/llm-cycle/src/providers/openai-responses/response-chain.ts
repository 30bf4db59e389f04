import type { ChatResponse } from '../../chat-provider.js';
import type { AssistantMessage, ChatMessage } from '../../messages.js';
import { keptItems } from './request-body.js';

/** A bound on the responses one provider remembers (each conversation needs only its last). */
const maxRemembered = 256;

/**
 * The `previous_response_id` choice (with `store: true`): the provider remembers which stored
 * response each assistant message it returned came from, keyed by the ids of its output items
 * (`msg_…`, `fc_…`, `rs_…`, unique per response; a `RunState` restores equal messages, not the
 * same objects). A message without item ids is not remembered. A request whose
 * history holds such a message continues from the last one and sends only what follows it.
 */
export class ResponseChain {
  readonly #ids = new Map<string, string>();

  /** Notes the id of a response this provider returned. */
  remember(response: ChatResponse): void {
    const key = keyOf(response.message);
    if (response.id === '' || key === undefined) return;
    if (this.#ids.size >= maxRemembered) {
      const oldest = this.#ids.keys().next();
      if (oldest.done !== true) this.#ids.delete(oldest.value);
    }
    this.#ids.set(key, response.id);
  }

  /** Where the request continues from, or `{}` to send the whole history. */
  continuation(messages: readonly ChatMessage[]): { previousResponseId?: string; from?: number } {
    for (let index = messages.length - 1; index >= 0; index--) {
      const message = messages[index];
      if (message?.role !== 'assistant') continue;
      const key = keyOf(message);
      const id = key === undefined ? undefined : this.#ids.get(key);
      if (id !== undefined) return { previousResponseId: id, from: index + 1 };
    }
    return {};
  }
}

function keyOf(message: AssistantMessage): string | undefined {
  const ids = keptItems(message)
    .map((item) => item.id)
    .filter((id): id is string => typeof id === 'string' && id !== '');
  return ids.length === 0 ? undefined : ids.join(' ');
}
