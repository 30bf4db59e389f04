import {
  type ChatCallOptions,
  type ChatChunk,
  type ChatProvider,
  type ChatRequest,
  type ChatResponse,
  estimateTokens,
  LlmError,
} from '@agcore/llm-cycle';
import { ScriptedProvider, type ScriptStep } from '@agcore/llm-cycle/testing';
import type { ScriptedTurn } from './flows.js';

type DeltaChunk = Exclude<ChatChunk, { type: 'response' }>;

/** Call ids stay unique for the whole process (a chat asks for steps many times). */
let callNumber = 0;

/** Splits text in word-sized pieces, the way a model streams it. */
function pieces(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [text];
}

/**
 * Turns a flow's scripted answers into `ScriptedProvider` steps that stream like a real model:
 * the text word by word, each tool call's id and name once and its arguments in pieces.
 * Never throws.
 */
export function toScriptSteps(turns: readonly ScriptedTurn[]): ScriptStep[] {
  return turns.map((turn) => {
    const chunks: DeltaChunk[] = [];
    if (turn.text !== undefined) {
      for (const text of pieces(turn.text)) chunks.push({ type: 'assistant_text_delta', text });
    }
    (turn.toolCalls ?? []).forEach((call, index) => {
      callNumber += 1;
      const args =
        typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
      const parts = args.match(/.{1,12}/gs) ?? [''];
      parts.forEach((argumentsDelta, part) => {
        chunks.push(
          part === 0
            ? {
                type: 'tool_call_delta',
                index,
                callId: `call_${String(callNumber).padStart(3, '0')}`,
                toolName: call.name,
                argumentsDelta,
              }
            : { type: 'tool_call_delta', index, argumentsDelta },
        );
      });
    });
    return { type: 'chunks', chunks };
  });
}

/** Options of `PacedProvider`. */
export interface PacedProviderOptions {
  /** Pause between streamed pieces, in milliseconds (0: none). */
  readonly delayMs: number;
  /** Fill in an estimated `usage` (about 4 characters a token) when the model reports none. */
  readonly estimateUsage: boolean;
}

/**
 * Wraps a provider to stream at a human pace on a terminal and to estimate token use for a
 * scripted model (the summary says these numbers are estimates). Passes errors through.
 */
export class PacedProvider implements ChatProvider {
  readonly #inner: ChatProvider;
  readonly #options: PacedProviderOptions;

  /** Wraps `inner`. Never throws. */
  constructor(inner: ChatProvider, options: PacedProviderOptions) {
    this.#inner = inner;
    this.#options = options;
  }

  /** Delegates, estimating usage when asked. @throws {LlmError} as the inner provider */
  async chat(request: ChatRequest, options?: ChatCallOptions): Promise<ChatResponse> {
    return this.#withUsage(request, await this.#inner.chat(request, options));
  }

  /** Delegates, pausing between pieces. @throws {LlmError} as the inner provider, or `cancelled` */
  async *chatStream(
    request: ChatRequest,
    options: ChatCallOptions = {},
  ): AsyncGenerator<ChatChunk, void, undefined> {
    for await (const chunk of this.#inner.chatStream(request, options)) {
      if (chunk.type === 'response') {
        yield { type: 'response', response: this.#withUsage(request, chunk.response) };
        continue;
      }
      if (this.#options.delayMs > 0) await sleep(this.#options.delayMs, options.signal);
      yield chunk;
    }
  }

  #withUsage(request: ChatRequest, response: ChatResponse): ChatResponse {
    if (!this.#options.estimateUsage || response.usage !== undefined) return response;
    const promptTokens =
      estimateTokens(request.messages) + Math.ceil(JSON.stringify(request.tools ?? []).length / 4);
    const completionTokens = estimateTokens([response.message]);
    return {
      ...response,
      usage: { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens },
    };
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(
        new LlmError('cancelled', 'The scripted stream was cancelled.', { cause: signal.reason }),
      );
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(
        new LlmError('cancelled', 'The scripted stream was cancelled.', { cause: signal?.reason }),
      );
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Makes the scripted model for a flow, without its first `used` answers (those a resumed run
 * already had; the call ids stay those of the first process). Never throws.
 */
export function createScriptedModel(
  turns: readonly ScriptedTurn[],
  options: PacedProviderOptions,
  used = 0,
): { provider: ChatProvider; script: ScriptedProvider } {
  const script = new ScriptedProvider(toScriptSteps(turns).slice(used));
  return { provider: new PacedProvider(script, options), script };
}
