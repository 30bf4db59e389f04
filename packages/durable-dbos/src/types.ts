import type { ChatMessage, ChatResponse, LlmErrorJson } from '@agcore/llm-cycle';

/** What a run starts from: a prompt, or a history that ends with the user's message. */
export type DurableRunInput =
  | { readonly prompt: string; readonly messages?: undefined }
  | { readonly messages: readonly ChatMessage[]; readonly prompt?: undefined };

/** What the workflow returns (errors as JSON: `DurableRuns.result` makes the `LlmError`). */
export type RunOutcome =
  | { readonly ok: true; readonly response: ChatResponse }
  | { readonly ok: false; readonly error: LlmErrorJson };

/** The history before the last message and the last message's text. Throws a `TypeError`. */
export function splitInput(input: DurableRunInput): {
  history: ChatMessage[];
  prompt: string;
} {
  if (typeof input.prompt === 'string') return { history: [], prompt: input.prompt };
  const messages = input.messages ?? [];
  const last = messages.at(-1);
  if (last === undefined || last.role !== 'user' || typeof last.content !== 'string') {
    throw new TypeError(
      'A durable run starts from { prompt } or { messages } ending with a user message of text.',
    );
  }
  return { history: messages.slice(0, -1), prompt: last.content };
}
