import { delay } from '@agcore/tools-core';
import type {
  ChatCallOptions,
  ChatChunk,
  ChatProvider,
  ChatRequest,
  ChatResponse,
} from './chat-provider.js';
import { LlmError } from './llm-error.js';
import { type ResolvedRetryOptions, retryDelay } from './retry.js';
import type { StreamEvent } from './stream-events.js';

/** One model request: what is sent, how, and how failures are retried. */
export interface ModelCall {
  readonly provider: ChatProvider;
  readonly request: ChatRequest;
  readonly options: ChatCallOptions;
  readonly retry: ResolvedRetryOptions;
  /** Aborting it stops the waits between attempts. */
  readonly signal: AbortSignal;
}

/**
 * Sends one request, not streamed, and resolves to the answer; a retryable failure is sent
 * again after the backoff (or the server's `Retry-After`).
 * @throws whatever the last attempt threw (the cycle maps it to an `LlmError`)
 */
export async function requestWhole(call: ModelCall): Promise<ChatResponse> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call.provider.chat(call.request, call.options);
    } catch (error) {
      await beforeRetry(error, attempt, call);
    }
  }
}

/**
 * Sends one request, streamed: yields its events in batches (those of one network read) and
 * returns the answer. A failure is retried only while nothing was yielded.
 * @throws whatever the last attempt threw
 */
export async function* requestStreamed(
  call: ModelCall,
): AsyncGenerator<readonly StreamEvent[], ChatResponse, undefined> {
  const { provider, request, options } = call;
  for (let attempt = 1; ; attempt++) {
    let yielded = false;
    let response: ChatResponse | undefined;
    try {
      if (provider.chatStreamBatches !== undefined) {
        for await (const batch of provider.chatStreamBatches(request, options)) {
          // A batch is passed on as it is unless it holds the `response` chunk.
          let events: readonly ChatChunk[] = batch;
          for (const chunk of batch) {
            if (chunk.type === 'response') {
              response = chunk.response;
              events = batch.filter((item) => item.type !== 'response');
            }
          }
          if (events.length > 0) {
            yielded = true;
            yield events as readonly StreamEvent[];
          }
        }
      } else {
        for await (const chunk of provider.chatStream(request, options)) {
          if (chunk.type === 'response') response = chunk.response;
          else {
            yielded = true;
            yield [chunk];
          }
        }
      }
      if (response === undefined) {
        throw new LlmError(
          'invalid_response',
          'The provider stream ended without its final response chunk.',
        );
      }
      return response;
    } catch (error) {
      if (yielded) throw error;
      await beforeRetry(error, attempt, call);
    }
  }
}

/** Waits before attempt `attempt + 1`, or rethrows `error` when it must not be retried. */
async function beforeRetry(error: unknown, attempt: number, call: ModelCall): Promise<void> {
  if (call.signal.aborted) throw error;
  const delayMs = retryDelay(error, attempt, call.retry);
  if (delayMs === undefined || !LlmError.isInstance(error)) throw error;
  try {
    call.retry.onRetry?.({ attempt, delayMs, error });
  } catch {
    // A logging hook must not change the outcome of the request.
  }
  await delay(delayMs, call.signal);
}
