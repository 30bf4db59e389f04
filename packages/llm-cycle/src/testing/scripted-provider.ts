import type { JsonValue } from '@agcore/tools-core';
import type {
  ChatCallOptions,
  ChatChunk,
  ChatProvider,
  ChatRequest,
  ChatResponse,
  FinishReason,
  Usage,
} from '../chat-provider.js';
import { LlmError } from '../llm-error.js';
import { chunksOf } from '../providers/http/wire.js';
import { ResponseAssembler } from '../providers/openai-compatible/response-assembler.js';

/**
 * One step of a `ScriptedProvider`'s script: a whole response, a stream of chunks (assembled
 * into a response when the call is not streaming; `finishReason` and `usage` finish it), or an
 * error to throw (an `LlmError` to test retries and failures).
 */
export type ScriptStep =
  | { readonly type: 'response'; readonly response: ChatResponse }
  | {
      readonly type: 'chunks';
      readonly chunks: readonly Exclude<ChatChunk, { type: 'response' }>[];
      readonly finishReason?: FinishReason;
      readonly usage?: Usage;
    }
  | { readonly type: 'error'; readonly error: unknown };

/** A call the `ScriptedProvider` received. */
export interface RecordedCall {
  /** Which method was called. */
  readonly method: 'chat' | 'chatStream';
  /** The request, with `messages` copied as they were at the time of the call. */
  readonly request: ChatRequest;
}

/** A tool call for `toolCallsResponse`: arguments as a JSON value (stringified) or a raw string. */
export interface ScriptedToolCall {
  readonly name: string;
  readonly arguments?: JsonValue;
  readonly rawArguments?: string;
  readonly id?: string;
}

let counter = 0;

/** A scripted text answer. Never throws. */
export function textResponse(
  text: string,
  options: { usage?: Usage; finishReason?: FinishReason } = {},
): ScriptStep {
  return {
    type: 'response',
    response: {
      id: `chatcmpl-scripted-${++counter}`,
      model: 'scripted',
      message: { role: 'assistant', content: text },
      finishReason: options.finishReason ?? 'stop',
      ...(options.usage === undefined ? {} : { usage: options.usage }),
    },
  };
}

/** A scripted answer that calls tools (ids `call_<n>` unless given). Never throws. */
export function toolCallsResponse(
  calls: readonly ScriptedToolCall[],
  options: { text?: string; usage?: Usage } = {},
): ScriptStep {
  return {
    type: 'response',
    response: {
      id: `chatcmpl-scripted-${++counter}`,
      model: 'scripted',
      message: {
        role: 'assistant',
        content: options.text ?? null,
        tool_calls: calls.map((call) => ({
          id: call.id ?? `call_${++counter}`,
          type: 'function' as const,
          function: {
            name: call.name,
            arguments: call.rawArguments ?? JSON.stringify(call.arguments ?? {}),
          },
        })),
      },
      finishReason: 'tool_calls',
      ...(options.usage === undefined ? {} : { usage: options.usage }),
    },
  };
}

/**
 * A `ChatProvider` that plays a script, for testing agents without a model: each call (`chat`
 * or `chatStream`) takes the next step, every call is recorded in `calls`, and
 * `assertComplete()` checks that the whole script was used.
 *
 * @example
 * const provider = new ScriptedProvider([
 *   toolCallsResponse([{ name: 'get_weather', arguments: { city: 'Paris' } }]),
 *   textResponse('It is 22 °C in Paris.'),
 * ]);
 */
export class ScriptedProvider implements ChatProvider {
  /** Every call received, in order. */
  readonly calls: RecordedCall[] = [];
  readonly #steps: ScriptStep[];
  #next = 0;

  /** Makes a provider that plays `steps` in order. */
  constructor(steps: readonly ScriptStep[] = []) {
    this.#steps = [...steps];
  }

  /** Appends steps to the script. */
  push(...steps: ScriptStep[]): this {
    this.#steps.push(...steps);
    return this;
  }

  /** How many steps are left. */
  remaining(): number {
    return this.#steps.length - this.#next;
  }

  /**
   * Plays the next step as a whole response.
   * @throws {LlmError} a scripted error, or `cancelled` when the signal is aborted
   * @throws {Error} when the script is used up
   */
  async chat(request: ChatRequest, options: ChatCallOptions = {}): Promise<ChatResponse> {
    const step = this.#take('chat', request, options.signal);
    if (step.type === 'error') throw step.error;
    if (step.type === 'response') return step.response;
    return assemble(step);
  }

  /**
   * Plays the next step as a stream (a whole response is streamed as one text delta and one
   * delta per tool call).
   * @throws {LlmError} while iterating: a scripted error, or `cancelled` when the signal aborts
   * @throws {Error} while iterating, when the script is used up
   */
  async *chatStream(
    request: ChatRequest,
    options: ChatCallOptions = {},
  ): AsyncGenerator<ChatChunk, void, undefined> {
    const step = this.#take('chatStream', request, options.signal);
    if (step.type === 'error') throw step.error;
    const chunks: readonly ChatChunk[] =
      step.type === 'response'
        ? chunksOf(step.response)
        : [...step.chunks, { type: 'response', response: assemble(step) }];
    for (const chunk of chunks) {
      if (options.signal?.aborted)
        throw new LlmError('cancelled', 'The scripted stream was cancelled.', {
          cause: options.signal.reason,
        });
      yield chunk;
    }
  }

  /** @throws {Error} when steps of the script were not used, naming how many. */
  assertComplete(): void {
    const left = this.remaining();
    if (left > 0) {
      throw new Error(
        `ScriptedProvider: ${left} of ${this.#steps.length} scripted step(s) were not used (the model was called ${this.calls.length} time(s)).`,
      );
    }
  }

  #take(
    method: 'chat' | 'chatStream',
    request: ChatRequest,
    signal: AbortSignal | undefined,
  ): ScriptStep {
    this.calls.push({ method, request: { ...request, messages: [...request.messages] } });
    if (signal?.aborted)
      throw new LlmError('cancelled', 'The scripted call was cancelled.', { cause: signal.reason });
    const step = this.#steps[this.#next];
    if (step === undefined) {
      throw new Error(
        `ScriptedProvider: call ${this.calls.length} (${method}) has no scripted step; the script has ${this.#steps.length}. Add a step for it.`,
      );
    }
    this.#next++;
    return step;
  }
}

function assemble(step: Extract<ScriptStep, { type: 'chunks' }>): ChatResponse {
  const assembler = new ResponseAssembler();
  assembler.id = `chatcmpl-scripted-${++counter}`;
  assembler.model = 'scripted';
  for (const chunk of step.chunks) {
    if (chunk.type === 'assistant_text_delta') assembler.addText(chunk.text);
    else if (chunk.type === 'assistant_reasoning_delta') assembler.addReasoning(chunk.text);
    else
      assembler.addToolCallDelta(chunk.index, chunk.callId, chunk.toolName, chunk.argumentsDelta);
  }
  assembler.finishReason = step.finishReason ?? (assembler.hasToolCalls() ? 'tool_calls' : 'stop');
  if (step.usage !== undefined) assembler.usage = step.usage;
  return assembler.finish();
}
