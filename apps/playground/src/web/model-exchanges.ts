import type {
  ChatCallOptions,
  ChatChunk,
  ChatProvider,
  ChatRequest,
  ChatResponse,
} from '@agcore/llm-cycle';
import { describeThrown, type Redactor } from '@agcore/tools-core';

/** One model request or its answer, as the page shows it: pretty JSON, secrets redacted. */
export type ModelExchangeRecord =
  | { readonly kind: 'request'; readonly turn: number; readonly body: string }
  | { readonly kind: 'response'; readonly turn: number; readonly body: string }
  | { readonly kind: 'failure'; readonly turn: number; readonly body: string };

/**
 * Wraps `provider` so that each model request (the messages, tool definitions and parameters
 * the cycle sends) and its answer (the assembled message, finish reason and usage) are handed
 * to `onRecord` as redacted JSON text, numbered by turn from `firstTurn`. The calls themselves
 * are passed through unchanged (a batched stream stays batched). `onRecord` must not throw.
 */
export function recordModelExchanges(
  provider: ChatProvider,
  redact: Redactor,
  onRecord: (record: ModelExchangeRecord) => void,
  firstTurn = 1,
): ChatProvider {
  let turn = firstTurn - 1;
  const body = (value: unknown) => redact(JSON.stringify(value, null, 2) ?? 'null');
  const sent = (request: ChatRequest): number => {
    turn += 1;
    onRecord({ kind: 'request', turn, body: body(request) });
    return turn;
  };
  const answered = (number: number, response: ChatResponse) =>
    onRecord({ kind: 'response', turn: number, body: body(response) });
  const failed = (number: number, error: unknown) =>
    onRecord({ kind: 'failure', turn: number, body: redact(describeThrown(error)) });
  const batches = provider.chatStreamBatches?.bind(provider);
  const wrapped: ChatProvider = {
    async chat(request: ChatRequest, options?: ChatCallOptions): Promise<ChatResponse> {
      const number = sent(request);
      try {
        const response = await provider.chat(request, options);
        answered(number, response);
        return response;
      } catch (error) {
        failed(number, error);
        throw error;
      }
    },
    async *chatStream(request: ChatRequest, options?: ChatCallOptions): AsyncIterable<ChatChunk> {
      const number = sent(request);
      try {
        for await (const chunk of provider.chatStream(request, options)) {
          if (chunk.type === 'response') answered(number, chunk.response);
          yield chunk;
        }
      } catch (error) {
        failed(number, error);
        throw error;
      }
    },
  };
  if (batches === undefined) return wrapped;
  return {
    ...wrapped,
    async *chatStreamBatches(request: ChatRequest, options?: ChatCallOptions) {
      const number = sent(request);
      try {
        for await (const batch of batches(request, options)) {
          for (const chunk of batch)
            if (chunk.type === 'response') answered(number, chunk.response);
          yield batch;
        }
      } catch (error) {
        failed(number, error);
        throw error;
      }
    },
  };
}
